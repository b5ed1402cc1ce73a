package phoneinfo_test

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/phoneinfo/phoneinfosim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

// countingCache counts the reads of the cache: phone_info's only calls
// outside the process (a store Get per valid number).
type countingCache struct {
	phoneinfo.Cache
	gets atomic.Int64
}

func (c *countingCache) Get(ctx context.Context, e164 string) (phoneinfo.Status, bool, error) {
	c.gets.Add(1)
	return c.Cache.Get(ctx, e164)
}

// BenchmarkModule runs phone_info over the simulated world's telephone
// cells (about 38,000 listings: mainland, overseas, foreign, missing)
// with phoneinfosim.Plan and an in-memory cache holding one number in ten. It
// reports rows/s and the cache reads per row (upstream calls: none, the
// module is cache_only).
func BenchmarkModule(b *testing.B) {
	phones := simtest.Phones(b, 0)
	ctx := context.Background()
	mem := phoneinfo.NewMemCache()
	yes := true
	for i, tel := range phones {
		if i%10 == 0 {
			if n, ok := phoneinfo.Parse(tel, "FR"); ok && n.Valid {
				_ = mem.Put(ctx, n.E164, phoneinfo.Status{Reachable: &yes})
			}
		}
	}
	cache := &countingCache{Cache: mem}
	m := enrich.PhoneInfoModule(phoneinfo.Deps{Plan: phoneinfosim.Plan(), Cache: cache})
	b.ReportAllocs()
	b.ResetTimer()
	rows := 0
	for i := 0; i < b.N; i++ {
		tel := phones[i%len(phones)]
		if _, err := m.Run(ctx, nil, enrich.Input{"telephone": tel}); err != nil {
			b.Fatal(err)
		}
		rows++
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(cache.gets.Load())/float64(rows), "cache_gets/row")
	b.ReportMetric(0, "upstream_calls/row")
}

// BenchmarkLookup is one longest-prefix lookup in the ARCEP sample plan.
func BenchmarkLookup(b *testing.B) {
	p := arcepSample(b)
	numbers := []string{"0148162345", "0695123456", "0975212345", "0612345678", "07000001234567"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.Lookup(numbers[i%len(numbers)])
	}
}

// BenchmarkLoadARCEP parses the ARCEP sample (25 blocks, 9 operators).
func BenchmarkLoadARCEP(b *testing.B) {
	blocks, ops := readSample(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := phoneinfo.LoadARCEP(bytes.NewReader(blocks), bytes.NewReader(ops)); err != nil {
			b.Fatal(err)
		}
	}
}
