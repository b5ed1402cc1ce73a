package pagespeed_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/pagespeed"
	"github.com/prospectdata/svc/shared/pagespeed/pagespeedsim"
)

// benchModule runs the module over b.N sites against h and reports rows/s
// and the upstream calls per row. The fake answers at once: this measures
// the module's own cost (request, decoding, retries), not Lighthouse's
// 10 to 30 s.
func benchModule(b *testing.B, h http.Handler, sites func(i int) string) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c, err := pagespeed.NewClient(pagespeed.Config{BaseURL: srv.URL, APIKey: testKey,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}, nil)
	if err != nil {
		b.Fatal(err)
	}
	m := enrich.PageSpeedModule(c, "")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Run(ctx, nil, enrich.Input{"site_web": sites(i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(calls.Load())/float64(b.N), "upstream_calls/row")
}

func fileHandler(b *testing.B, file string) http.Handler {
	body, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		b.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

func site(i int) string { return fmt.Sprintf("https://site-%d.tok%d.sim.test/", i, i) }

// BenchmarkModule: every answer is full.json (field data, four scores).
func BenchmarkModule(b *testing.B) {
	benchModule(b, fileHandler(b, "full.json"), func(int) string { return "https://www.example.com/" })
}

// BenchmarkModuleFlaky: one answer in four is a 429 (retried once).
func BenchmarkModuleFlaky(b *testing.B) {
	ok := fileHandler(b, "full.json")
	quota, err := os.ReadFile(filepath.Join("testdata", "error_429.json"))
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	benchModule(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%4 == 0 {
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write(quota)
			return
		}
		ok.ServeHTTP(w, r)
	}), func(int) string { return "https://www.example.com/" })
}

// BenchmarkModuleSim: the simulated twin, a different site each row.
func BenchmarkModuleSim(b *testing.B) {
	benchModule(b, pagespeedsim.Handler(), site)
}
