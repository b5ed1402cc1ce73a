package opendata_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/opendata"
	"github.com/prospectdata/svc/shared/provider/sim"
)

// report adds rows/s and upstream calls per row to a benchmark whose
// iteration is one row.
func report(b *testing.B, c *opendata.Client) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(c.Calls())/float64(b.N), "calls/row")
}

// BenchmarkModuleFixture is the client's own cost: a row matched against
// a recorded answer served over loopback HTTP (query building, the
// exchange, decoding, the match rule, the cells), without pacing.
func BenchmarkModuleFixture(b *testing.B) {
	f := &fakeOverpass{answers: []answer{ok("exact.json")}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c, err := opendata.New(opendata.Config{OverpassURL: srv.URL, Interval: -1, MaxConcurrent: 4}, srv.Client())
	if err != nil {
		b.Fatal(err)
	}
	m := enrich.OpendataModule(c, "")
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Run(context.Background(), &enrich.Env{}, bakeryRow); err != nil {
			b.Fatal(err)
		}
	}
	report(b, c)
}

// BenchmarkModuleSim runs scrape rows of the sim world through the
// module and the world's twin in process, with the twin's default 1%
// transient failures (retried after a 1 ms backoff): rows/s is bounded
// by the twin drawing the places it searches, calls/row shows the
// retries.
func BenchmarkModuleSim(b *testing.B) {
	for _, gps := range []bool{true, false} {
		name := "address"
		if gps {
			name = "gps"
		}
		b.Run(name, func(b *testing.B) {
			places := simRows(b, world(b, sim.Options{TransientRate: -1}))
			w := world(b, sim.Options{})
			c := simClient(b, w, opendata.Config{BackoffBase: time.Millisecond, BackoffMax: 4 * time.Millisecond})
			m := enrich.OpendataModule(c, "openstreetmap (sim)")
			rows := make([]enrich.Input, len(places))
			for i, p := range places {
				rows[i] = rowOf(p, gps)
			}
			// Warm the world's cache: the first pass generates the places.
			for _, in := range rows {
				m.Run(context.Background(), &enrich.Env{}, in)
			}
			calls0 := c.Calls()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				if _, err := m.Run(context.Background(), &enrich.Env{}, rows[i%len(rows)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(c.Calls()-calls0)/float64(b.N), "calls/row")
		})
	}
}
