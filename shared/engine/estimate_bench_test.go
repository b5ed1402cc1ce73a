package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/scrape"
)

// BenchmarkEstimate compares, on the simulated world, the searches a job
// makes (total_attempts_count) with the estimate priced by the densities
// learnt (scrape.Service.Price) over varied zones, queries and modes. Each
// query is first run once over the Rhône, whose job teaches its density
// (Deps.Densities); every job after it teaches too, as in service. "flat"
// is the error of the model without densities.
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
		e := newEnv(b, world, envOpts{densities: true})
		s := e.eng.d.Scrape
		// Each query is first run once over the Rhône: the density the
		// estimates then use is what that run (and every run after it)
		// taught, as in service.
		learnt := map[string]bool{}
		for _, r := range runs {
			if !learnt[r.query] {
				learnt[r.query] = true
				if j := e.run(scrape.Request{Queries: []string{r.query}, Zones: []string{"Rhône"}, ScrapMode: "normal",
					ExcludeForeignPhones: ptr(false)}); j.Status != jobs.Done {
					b.Fatalf("learning %s: %s", r.query, j.Status)
				}
			}
		}
		sb.Reset()
		fmt.Fprintf(&sb, "%-14s %-18s %-7s %9s %9s %8s %8s\n", "zone", "query", "mode", "made", "expected", "error", "flat")
		var errs []float64
		for _, r := range runs {
			req := scrape.Request{Queries: []string{r.query}, Zones: []string{r.zone}, ScrapMode: r.mode, ExcludeForeignPhones: ptr(false)}
			p, err := s.Plan(mustClean(b, req))
			if err != nil || !p.Valid() {
				b.Fatalf("%v: %v %+v", r, err, p)
			}
			flatExpected := p.Estimate.ExpectedSearches
			if err := s.Price(context.Background(), p, nil); err != nil {
				b.Fatal(err)
			}
			expected := p.Estimate.ExpectedSearches
			j := e.run(req)
			if j.Status != jobs.Done {
				b.Fatalf("%v: %s", r, j.Status)
			}
			made := float64(j.TotalAttemptsCount)
			rel := (expected - made) / made
			flat := (flatExpected - made) / made
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
