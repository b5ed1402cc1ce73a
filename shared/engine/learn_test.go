package engine

import (
	"context"
	"math"
	"testing"

	"github.com/prospectdata/svc/shared/density"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/scrape"
)

// TestDensitiesLearnt: a done scrape teaches its query's density, and the
// next estimate of that query, priced with it, expects the searches a job
// then makes. On the simulated world, whose restaurants are 1 per 330
// people.
func TestDensitiesLearnt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two scrapes on the simulated world")
	}
	g, err := data.Load()
	if err != nil {
		t.Fatal(err)
	}
	world := sim.New(g, sim.Options{TransientRate: -1})
	e := newEnv(t, world, envOpts{densities: true})
	rates := e.eng.d.Densities
	ctx := context.Background()
	before, err := rates.Rate(ctx, "FRA", "restaurant")
	if err != nil {
		t.Fatal(err)
	}
	req := func(zone string) scrape.Request {
		return scrape.Request{Queries: []string{"restaurant"}, Zones: []string{zone}, ScrapMode: "normal", ExcludeForeignPhones: ptr(false)}
	}
	if j := e.run(req("Lyon")); j.Status != jobs.Done {
		t.Fatalf("Lyon: %s", j.Status)
	}
	after, err := rates.Rate(ctx, "FRA", "restaurant")
	if err != nil {
		t.Fatal(err)
	}
	if before != density.PriorRate || math.Abs(after*330-1) > 0.25 {
		t.Errorf("restaurants per person: %v before, %v after Lyon; want the prior, then about 1/330", before, after)
	}

	// The next zone, priced with what Lyon taught.
	s := e.eng.d.Scrape
	p, err := s.Plan(mustClean(t, req("Villeurbanne")))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Price(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	j := e.run(req("Villeurbanne"))
	if j.Status != jobs.Done {
		t.Fatalf("Villeurbanne: %s", j.Status)
	}
	made, expected := float64(j.TotalAttemptsCount), p.Estimate.ExpectedSearches
	flat := planner()
	fp, err := flat.Plan(mustClean(t, req("Villeurbanne")))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("restaurants per person learnt from Lyon: 1/%.0f", 1/after)
	t.Logf("Villeurbanne: %v searches made, %.1f expected (flat model %.1f)", made, expected, fp.Estimate.ExpectedSearches)
	if math.Abs(expected-made) > 0.2*made {
		t.Errorf("expected %.1f searches, made %v", expected, made)
	}
}
