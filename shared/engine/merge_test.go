package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/scrape"
)

// TestPlanRoots: every (base tile, query) of a job is searched by exactly
// one root task, its own or a merged search of its leader, so that the
// root tasks of a job and of its resumes (the same plan, the same rates)
// leave none out and search none twice; without densities nothing merges.
func TestPlanRoots(t *testing.T) {
	queries := []string{"plombier", "restaurant"}
	p, err := planner().Plan(mustClean(t, scrape.Request{Queries: queries, Zones: []string{"Creuse", "Lyon"}, ScrapMode: "normal"}))
	if err != nil || !p.Valid() {
		t.Fatalf("plan: %v %+v", err, p.Problems)
	}
	n := p.Grid.Len()
	for _, tt := range []struct {
		name     string
		rates    []float64
		wantWide bool
	}{
		{"sparse and dense queries", []float64{1.0 / 8000, 1.0 / 330}, true},
		{"two sparse queries", []float64{1.0 / 8000, 1.0 / 9000}, true},
		{"no densities", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := planRoots(&jobs.Job{Queries: queries, Rates: tt.rates}, p)
			cover := make([][]int, n)
			for i := range cover {
				cover[i] = make([]int, len(queries))
			}
			wide := 0
			for i := range n {
				for _, q := range w.own[i] {
					cover[i][q]++
				}
				m := w.message("j", i, p.Grid.Tiles()[i])
				for _, u := range m.units(p.Grid.Tiles()[i]) {
					if !u.wide {
						continue
					}
					wide++
					for _, k := range p.Under(u.tile) {
						cover[k][u.q]++
					}
				}
				if _, err := decode(mustJSON(t, m)); err != nil {
					t.Errorf("root %d: %v", i, err)
				}
			}
			for i := range cover {
				for q, c := range cover[i] {
					if c != 1 {
						t.Errorf("base tile %d, %q: searched by %d root tasks", i, queries[q], c)
					}
				}
			}
			if (wide > 0) != tt.wantWide {
				t.Errorf("%d merged searches, want some: %v", wide, tt.wantWide)
			}
		})
	}
}

// TestMergedSearches: a job whose query's density merges base tiles finds
// every place of the zone, and with fewer searches than base tiles when
// the query is sparse; a density far below the truth makes merged searches
// that reach the cap, which fall back to their base tiles and lose none.
func TestMergedSearches(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scrapes on the simulated world")
	}
	g, err := data.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, query, zone string
		places, people    int64 // density taught before the job
		mustFallback      bool  // its merged searches must reach the cap
	}{
		{"sparse trade at its density", "plombier", "Creuse", 0, 0, false},
		{"dense query, density far too low", "restaurant", "Lyon", 1, 100_000_000, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			world := sim.New(g, sim.Options{TransientRate: -1})
			e := newEnv(t, world, envOpts{densities: true})
			defer e.close()
			ctx := context.Background()
			if tt.people > 0 {
				if err := e.eng.d.Densities.Learn(ctx, "FRA", tt.query, tt.places, tt.people); err != nil {
					t.Fatal(err)
				}
			} else if j := e.run(benchRequest("Rhône", tt.query, "fast")); j.Status != jobs.Done {
				t.Fatalf("learning run: %s", j.Status)
			}
			j := e.run(benchRequest(tt.zone, tt.query, "normal"))
			if j.Status != jobs.Done || j.ProcessedPoints != j.GridPointsCount {
				t.Fatalf("%s: %s, %d/%d points", tt.zone, j.Status, j.ProcessedPoints, j.GridPointsCount)
			}
			fallbacks := 0
			for _, r := range e.tasks(j.ID) {
				if ids, _ := parseTaskID(r.ID); len(ids) == 2 && ids[1] >= fallbackBase {
					fallbacks++
				}
			}
			if tt.mustFallback && fallbacks == 0 {
				t.Error("no fallback task")
			}
			if !tt.mustFallback && j.TotalAttemptsCount >= j.GridPointsCount {
				t.Errorf("%d searches for %d base tiles: nothing merged", j.TotalAttemptsCount, j.GridPointsCount)
			}
			if tt.mustFallback && !strings.Contains(strings.Join(e.logs(j.ID), "\n"), "Merged search") {
				t.Error("no log line tells of a merged search at the cap")
			}
			p, bound := benchPlan(t, tt.zone, tt.query)
			truth := zoneTruth(t, world, p, bound, tt.query)
			found := 0
			for _, row := range parseCSV(t, e.output(j.ID)).rows {
				if truth[row["place_id"]] {
					found++
				}
			}
			if found != len(truth) {
				t.Errorf("found %d of the zone's %d places (%d searches)", found, len(truth), j.TotalAttemptsCount)
			}
			t.Logf("%s, %q: %d places, %d searches for %d base tiles, %d fallback tasks",
				tt.zone, tt.query, len(truth), j.TotalAttemptsCount, j.GridPointsCount, fallbacks)
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
