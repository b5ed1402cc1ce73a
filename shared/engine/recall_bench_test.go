package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/scrape"
)

// recallTarget is the recall ultra mode must reach, and recallRatio the
// most of a fixed grid's requests (for that recall) it may spend.
const (
	recallTarget = 0.95
	recallRatio  = 1.0 / 3
)

// BenchmarkRecall measures what a scrape finds against what exists, on
// the simulated world (no latency, no transient failure) over a dense
// zone and its densest category: the recall (distinct places kept in the
// zone / the world's places in the zone) and the provider requests
// (total_attempts_count) of a job in each mode, and of a fixed grid of
// uniform tiles at one zoom, each searched through all its pages, without
// splitting. The requirement: ultra reaches recallTarget with at most
// recallRatio of the requests of the coarsest fixed grid reaching it.
// Run it with -benchtime 1x: each iteration is the whole measurement.
func BenchmarkRecall(b *testing.B) {
	for _, zone := range []string{"Lyon", "Paris", "Rhône"} {
		b.Run(zone, func(b *testing.B) { benchRecall(b, zone, "restaurant") })
	}
}

// recallRun is one way of scraping the zone and what it found.
type recallRun struct {
	name      string
	found     int // distinct places kept in the zone, all in the truth
	kept      int // distinct places kept in the zone
	requests  int
	tiles     int // searched tiles (fixed grid) or tasks (modes)
	saturated int // fixed grid: tiles whose search listed the cap
}

func (r recallRun) recall(truth int) float64 { return float64(r.found) / float64(truth) }

func benchRecall(b *testing.B, zone, query string) {
	g, err := data.Load()
	if err != nil {
		b.Fatal(err)
	}
	p, bound := benchPlan(b, zone, query)

	var runs []recallRun
	var truthN int
	for b.Loop() {
		world := sim.New(g, sim.Options{TransientRate: -1})
		truth := zoneTruth(b, world, p, bound, query)
		truthN = len(truth)
		runs = append(runs[:0], runModes(b, world, zone, query, truth)...)
		for z := maptile.Zoom(12); z <= 18; z++ {
			runs = append(runs, fixedGrid(b, world, p, bound, query, z, truth))
		}
	}

	// The table.
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s, %q: %d places in the zone (%d base tiles)\n", zone, query, truthN, p.Grid.Len())
	fmt.Fprintf(&sb, "%-8s %8s %8s %8s %9s %7s %9s\n", "run", "tiles", "requests", "found", "recall", "kept", "cap-hit")
	for _, r := range runs {
		fmt.Fprintf(&sb, "%-8s %8d %8d %8d %9.4f %7d %9d\n", r.name, r.tiles, r.requests, r.found, r.recall(truthN), r.kept, r.saturated)
	}
	ultra := runs[2]
	fixed := runs[3:]
	reach := func(target float64) (recallRun, bool) {
		for _, r := range fixed {
			if r.recall(truthN) >= target {
				return r, true
			}
		}
		return recallRun{}, false
	}
	// interp is the requests a fixed grid needs for target, interpolated
	// between the two zooms around it (log requests, linear recall).
	interp := func(target float64) float64 {
		for i := 1; i < len(fixed); i++ {
			lo, hi := fixed[i-1], fixed[i]
			rl, rh := lo.recall(truthN), hi.recall(truthN)
			if rl < target && rh >= target {
				f := (target - rl) / (rh - rl)
				return math.Exp(math.Log(float64(lo.requests)) + f*(math.Log(float64(hi.requests))-math.Log(float64(lo.requests))))
			}
		}
		if len(fixed) > 0 && fixed[0].recall(truthN) >= target {
			return float64(fixed[0].requests)
		}
		return math.NaN()
	}
	b.ReportMetric(ultra.recall(truthN), "ultra-recall")
	b.ReportMetric(float64(ultra.requests), "ultra-requests")
	b.ReportMetric(runs[0].recall(truthN), "fast-recall")
	b.ReportMetric(float64(runs[0].requests), "fast-requests")
	b.ReportMetric(runs[1].recall(truthN), "normal-recall")
	b.ReportMetric(float64(runs[1].requests), "normal-requests")
	b.ReportMetric(float64(truthN), "truth")
	if r, ok := reach(recallTarget); ok {
		ratio := float64(ultra.requests) / float64(r.requests)
		b.ReportMetric(float64(r.requests), "fixed-requests@0.95")
		b.ReportMetric(ratio, "ultra/fixed@0.95")
		fmt.Fprintf(&sb, "fixed grid reaching %.2f: %s, %d requests; ultra/fixed %.3f (target ≤ %.3f)\n",
			recallTarget, r.name, r.requests, ratio, recallRatio)
	} else {
		b.ReportMetric(math.NaN(), "fixed-requests@0.95")
		fmt.Fprintf(&sb, "no fixed grid up to %s reaches %.2f\n", fixed[len(fixed)-1].name, recallTarget)
	}
	i95 := interp(recallTarget)
	b.ReportMetric(i95, "fixed-requests@0.95-interp")
	fmt.Fprintf(&sb, "fixed grid at %.2f (interpolated): %.0f requests; ultra/fixed %.3f\n",
		recallTarget, i95, float64(ultra.requests)/i95)
	iu := interp(ultra.recall(truthN))
	b.ReportMetric(iu, "fixed-requests@ultra-recall")
	fmt.Fprintf(&sb, "fixed grid at ultra's recall %.4f (interpolated): %.0f requests; ultra/fixed %.3f\n",
		ultra.recall(truthN), iu, float64(ultra.requests)/iu)
	fmt.Fprintf(&sb, "ultra: recall %.4f (target ≥ %.2f): %v", ultra.recall(truthN), recallTarget, ultra.recall(truthN) >= recallTarget)
	b.Log("\n" + sb.String())
}

// benchRequest is a job of one query over one zone in a mode, phones of
// every country kept (the truth does not filter them).
func benchRequest(zone, query, mode string) scrape.Request {
	return scrape.Request{Queries: []string{query}, Zones: []string{zone}, ScrapMode: mode,
		ExcludeForeignPhones: ptr(false)}
}

// benchPlan plans the query over the zone and returns the plan and the
// bound its base tiles cover: the truth is taken over that bound, then
// kept where the engine keeps places (scrape.Plan.ZonesAt: in a zone's
// shape, and not addressed in a commune or department outside it).
func benchPlan(b testing.TB, zone, query string) (*scrape.Plan, orb.Bound) {
	b.Helper()
	p, err := planner().Plan(mustClean(b, benchRequest(zone, query, "fast")))
	if err != nil {
		b.Fatal(err)
	}
	if !p.Valid() {
		b.Fatalf("plan: %+v", p.Problems)
	}
	var bound orb.Bound
	for i, t := range p.Grid.Tiles() {
		if i == 0 {
			bound = t.Bound()
		} else {
			bound = bound.Union(t.Bound())
		}
	}
	return p, bound
}

// zoneTruth is the set of the world's places of the query in the zone.
func zoneTruth(b testing.TB, world *sim.World, p *scrape.Plan, bound orb.Bound, query string) map[string]bool {
	b.Helper()
	places, err := world.Truth(context.Background(), query, bound)
	if err != nil {
		b.Fatal(err)
	}
	truth := map[string]bool{}
	for _, pl := range places {
		if len(p.ZonesAt(orb.Point{pl.Lon, pl.Lat}, pl.Address)) > 0 {
			truth[pl.ID] = true
		}
	}
	return truth
}

// runModes runs a job of the query over the zone in each mode (fast,
// normal, ultra, in that order) on one engine over world, once a job over
// the Rhône has taught the query's density, and counts what each kept
// against the truth.
func runModes(b *testing.B, world provider.Provider, zone, query string, truth map[string]bool) []recallRun {
	b.Helper()
	// Jobs priced and planned with the query's density, learnt first by
	// a scrape of the Rhône (as an earlier job of the query teaches it).
	e := newEnv(b, world, envOpts{densities: true})
	defer e.close()
	if j := e.run(benchRequest("Rhône", query, "normal")); j.Status != jobs.Done {
		b.Fatalf("learning run: %s", j.Status)
	}
	var runs []recallRun
	for _, mode := range []string{"fast", "normal", "ultra"} {
		j := e.run(benchRequest(zone, query, mode))
		if j.Status != jobs.Done || j.ProcessedPoints != j.GridPointsCount || j.ErrorCount != 0 {
			b.Fatalf("%s: %s, %d/%d points, %d errors", mode, j.Status, j.ProcessedPoints, j.GridPointsCount, j.ErrorCount)
		}
		r := recallRun{name: mode, requests: j.TotalAttemptsCount, tiles: len(e.tasks(j.ID))}
		seen := map[string]bool{}
		for _, row := range parseCSV(b, e.output(j.ID)).rows {
			id := row["place_id"]
			if seen[id] {
				b.Fatalf("%s: place %s twice", mode, id)
			}
			seen[id] = true
			r.kept++
			if truth[id] {
				r.found++
			}
		}
		r.saturated = j.FlaggedTilesCount
		runs = append(runs, r)
	}
	return runs
}

// fixedGrid searches the zone with the uniform tiles of zoom z that reach
// a zone with a positive area (as Grid.Children picks a split's tiles),
// each through all its pages up to the provider's cap as the engine does,
// without splitting, and keeps the places the engine would
// (scrape.Plan.ZonesAt).
func fixedGrid(b *testing.B, prov provider.Provider, plan *scrape.Plan, bound orb.Bound, query string, z maptile.Zoom, truth map[string]bool) recallRun {
	g, p := plan.Grid, prov
	r := recallRun{name: fmt.Sprintf("fixed-z%d", z)}
	nw := maptile.At(orb.Point{bound.Min[0], bound.Max[1]}, z)
	se := maptile.At(orb.Point{bound.Max[0], bound.Min[1]}, z)
	lim := p.Limits()
	kept := map[string]bool{}
	for x := nw.X; x <= se.X; x++ {
		for y := nw.Y; y <= se.Y; y++ {
			t := maptile.New(x, y, z)
			if len(g.ZonesOf(t)) == 0 {
				continue
			}
			r.tiles++
			req := provider.Request{Query: query, Bound: t.Bound(), Country: "FRA", Language: languageOf("FRA")}
			n := 0
			for {
				pg, err := p.Search(context.Background(), req)
				r.requests++
				if err != nil {
					b.Fatalf("%s %v: %v", r.name, t, err)
				}
				// The cap counts what the provider listed, as the engine
				// does (searchUnit).
				n += pg.Count()
				for _, pl := range pg.Places {
					if pl.ID != "" && len(plan.ZonesAt(orb.Point{pl.Lon, pl.Lat}, pl.Address)) > 0 {
						kept[pl.ID] = true
					}
				}
				if lim.Cap > 0 && n >= lim.Cap {
					r.saturated++
					break
				}
				if pg.NextPageToken == "" {
					break
				}
				req.PageToken = pg.NextPageToken
			}
		}
	}
	r.kept = len(kept)
	for id := range kept {
		if truth[id] {
			r.found++
		}
	}
	return r
}
