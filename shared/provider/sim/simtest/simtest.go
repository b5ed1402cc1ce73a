// Package simtest builds simulated worlds for tests: the world's own
// tests and those of the twins that read it (registerssim, opendatasim,
// phoneinfosim).
package simtest

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
)

// Test areas.
var (
	// CentralParis is the z13 tile of the Île de la Cité (about 3 km).
	CentralParis = maptile.At(orb.Point{2.3488, 48.8534}, 13).Bound()
	// CentralLyon is the z13 tile of the Presqu'île.
	CentralLyon = maptile.At(orb.Point{4.8345, 45.7640}, 13).Bound()
	// RuralLozere is a z12 tile (about 7 km) of the Margeride, in Lozère.
	RuralLozere = maptile.At(orb.Point{3.37, 44.83}, 12).Bound()
)

// loadGazetteer loads the real gazetteer once per test binary: it is
// immutable.
var loadGazetteer = sync.OnceValues(data.Load)

// Gazetteer is the real gazetteer.
func Gazetteer(tb testing.TB) *gazetteer.Gazetteer {
	tb.Helper()
	g, err := loadGazetteer()
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// World is a world without failures or latency unless opt asks.
func World(tb testing.TB, opt sim.Options) *sim.World {
	tb.Helper()
	if opt.TransientRate == 0 {
		opt.TransientRate = -1
	}
	return sim.New(Gazetteer(tb), opt)
}

// FixedDay is an Options.Day that returns d.
func FixedDay(d int) func(context.Context) (int, error) {
	return func(context.Context) (int, error) { return d, nil }
}

// Phones are the telephone cells of the world's restaurants in a few
// departments (one in each of the mainland's five numbering areas, Corsica
// and the overseas departments), as a scrape would give them: at most
// perDepartment of each (0: all), only the French listings ("sim:fra-…").
func Phones(tb testing.TB, perDepartment int) []string {
	tb.Helper()
	g := Gazetteer(tb)
	w := World(tb, sim.Options{})
	var out []string
	for _, dep := range []string{"75", "35", "67", "69", "33", "2A", "971", "972", "973", "974", "976"} {
		id, ok := g.ByCode("FRA", gazetteer.Department, dep)
		if !ok {
			tb.Fatalf("no department %s", dep)
		}
		ps, err := w.Truth(context.Background(), "restaurant", g.Bound(id))
		if err != nil {
			tb.Fatal(err)
		}
		n := 0
		for _, p := range ps {
			if perDepartment > 0 && n == perDepartment {
				break
			}
			if strings.HasPrefix(p.ID, "sim:fra-") {
				out = append(out, p.Phone)
				n++
			}
		}
	}
	return out
}

// SearchAll runs a search of p through all its pages.
func SearchAll(tb testing.TB, p provider.Provider, r provider.Request) []provider.Place {
	tb.Helper()
	var out []provider.Place
	for {
		page, err := p.Search(context.Background(), r)
		if err != nil {
			tb.Fatalf("Search(%q, %v): %v", r.Query, r.Bound, err)
		}
		out = append(out, page.Places...)
		if page.NextPageToken == "" {
			return out
		}
		r.PageToken = page.NextPageToken
	}
}
