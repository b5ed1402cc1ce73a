package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/scrape"
)

// BenchmarkEstimate compares, on the simulated world, the searches a job
// makes (total_attempts_count) with the expectation of the density model
// (scrape.Plan.ExpectedSearches) over varied zones, queries and modes. The
// query's density is learnt from one earlier area (the Rhône: its places
// over its people, as a run there would observe them) and applied to
// every zone, so the table measures the model, not a fit to each zone.
// Run it with -benchtime 1x.
func BenchmarkEstimate(b *testing.B) {
	g, err := data.Load()
	if err != nil {
		b.Fatal(err)
	}
	type run struct {
		zone, query, mode string
	}
	runs := []run{
		{"Lyon", "restaurant", "normal"}, {"Lyon", "plombier", "normal"}, {"Lyon", "pharmacie", "ultra"},
		{"Paris", "restaurant", "normal"}, {"Paris", "coiffeur", "fast"}, {"Paris 11e", "restaurant", "ultra"},
		{"Villeurbanne", "restaurant", "normal"}, {"Villeurbanne", "garage automobile", "normal"},
		{"Lyon 15km", "pharmacie", "normal"}, {"Lyon 15km", "restaurant", "fast"},
		{"Rhône", "garage automobile", "normal"}, {"Rhône", "restaurant", "ultra"},
		{"Creuse", "restaurant", "normal"}, {"Creuse", "plombier", "ultra"}, {"Lozère", "coiffeur", "normal"},
		{"Finistère", "restaurant", "normal"}, {"Bretagne", "plombier", "normal"}, {"Bretagne", "notaire", "fast"},
		{"Bordeaux", "coiffeur", "ultra"}, {"Gironde", "notaire", "normal"},
	}
	var sb strings.Builder
	for b.Loop() {
		world := sim.New(g, sim.Options{TransientRate: -1})
		rates := map[string]float64{}
		learn := func(query string) float64 {
			if r, ok := rates[query]; ok {
				return r
			}
			p, err := planner().Plan(mustClean(b, scrape.Request{Queries: []string{query}, Zones: []string{"Rhône"}}))
			if err != nil {
				b.Fatal(err)
			}
			places, people := 0, 0.0
			for _, t := range p.Grid.Tiles() {
				got, err := world.Truth(context.Background(), query, t.Bound())
				if err != nil {
					b.Fatal(err)
				}
				bd := t.Bound()
				for _, pl := range got {
					// Half-open, as tiles share edges.
					if pt := (orb.Point{pl.Lon, pl.Lat}); pt[0] < bd.Max[0] && pt[1] < bd.Max[1] {
						places++
					}
				}
				people += p.People(t)
			}
			rates[query] = float64(places) / people
			return rates[query]
		}
		e := newEnv(b, world, envOpts{})
		sb.Reset()
		fmt.Fprintf(&sb, "%-14s %-18s %-7s %9s %9s %8s %8s\n", "zone", "query", "mode", "made", "expected", "error", "flat")
		var errs []float64
		for _, r := range runs {
			req := scrape.Request{Queries: []string{r.query}, Zones: []string{r.zone}, ScrapMode: r.mode, ExcludeForeignPhones: ptr(false)}
			p, err := planner().Plan(mustClean(b, req))
			if err != nil || !p.Valid() {
				b.Fatalf("%v: %v %+v", r, err, p)
			}
			expected := p.ExpectedSearches(learn(r.query))
			j := e.run(req)
			if j.Status != jobs.Done {
				b.Fatalf("%v: %s", r, j.Status)
			}
			made := float64(j.TotalAttemptsCount)
			rel := (expected - made) / made
			flat := (p.Estimate.ExpectedSearches - made) / made
			errs = append(errs, math.Abs(rel))
			fmt.Fprintf(&sb, "%-14s %-18s %-7s %9.0f %9.0f %+7.0f%% %+7.0f%%\n", r.zone, r.query, r.mode, made, expected, 100*rel, 100*flat)
		}
		e.close()
		slices.Sort(errs)
		fmt.Fprintf(&sb, "|error|: median %.1f%%, max %.1f%%, within 15%%: %d of %d\n", 100*errs[len(errs)/2], 100*errs[len(errs)-1],
			len(errs)-len(slices.DeleteFunc(slices.Clone(errs), func(x float64) bool { return x <= 0.15 })), len(errs))
		b.ReportMetric(100*errs[len(errs)/2], "median-error-%")
		b.ReportMetric(100*errs[len(errs)-1], "max-error-%")
	}
	b.Log("\n" + sb.String())
}
