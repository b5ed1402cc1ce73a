package sim_test

import (
	"context"
	"testing"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

// BenchmarkSearch searches a dense city tile (central Paris, z13), first
// page, with the world's batches cached (as during a scrape, where the
// tile's children search the same settlements) and no latency.
func BenchmarkSearch(b *testing.B) {
	for _, q := range []string{"boulangerie", "restaurant"} {
		b.Run(q, func(b *testing.B) {
			w := newWorld(b, sim.Options{})
			r := provider.Request{Query: q, Bound: simtest.CentralParis, Country: "FRA", Language: "fr"}
			ctx := context.Background()
			if _, err := w.Search(ctx, r); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.Search(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearchCold is BenchmarkSearch in a new world each time: the
// settlement index built and the batches generated.
func BenchmarkSearchCold(b *testing.B) {
	g := gaz(b)
	r := provider.Request{Query: "restaurant", Bound: simtest.CentralParis}
	b.ReportAllocs()
	for b.Loop() {
		w := sim.New(g, sim.Options{TransientRate: -1})
		if _, err := w.Search(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateDepartment generates the world of one department for
// one query, every place of it listed (Truth over the Rhône's bounding
// box), in a new world each time with its settlement index already
// built.
func BenchmarkGenerateDepartment(b *testing.B) {
	g := gaz(b)
	bound := department(b, "69")
	for _, q := range []string{"notaire", "boulangerie", "restaurant"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				b.StopTimer()
				w := sim.New(g, sim.Options{})
				if _, err := w.Truth(context.Background(), "bar", around(0, 0, 0.01)); err != nil { // builds the index
					b.Fatal(err)
				}
				b.StartTimer()
				ps, err := w.Truth(context.Background(), q, bound)
				if err != nil {
					b.Fatal(err)
				}
				n = len(ps)
			}
			b.ReportMetric(float64(n), "places")
		})
	}
}
