package sim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

func gaz(tb testing.TB) *gazetteer.Gazetteer { return simtest.Gazetteer(tb) }

func newWorld(tb testing.TB, opt sim.Options) *sim.World { return simtest.World(tb, opt) }

func fixedDay(d int) func(context.Context) (int, error) { return simtest.FixedDay(d) }

// Test areas.
var (
	// centralParis is the z13 tile of the Île de la Cité (about 3 km).
	centralParis = maptile.At(orb.Point{2.3488, 48.8534}, 13).Bound()
	// centralLyon is the z13 tile of the Presqu'île.
	centralLyon = maptile.At(orb.Point{4.8345, 45.7640}, 13).Bound()
	// ruralLozere is a z12 tile (about 7 km) of the Margeride, in Lozère.
	ruralLozere = maptile.At(orb.Point{3.37, 44.83}, 12).Bound()
)

// department returns the bounding box of a French department.
func department(tb testing.TB, code string) orb.Bound {
	tb.Helper()
	g := gaz(tb)
	id, ok := g.ByCode("FRA", gazetteer.Department, code)
	if !ok {
		tb.Fatalf("no department %s", code)
	}
	return g.Bound(id)
}

// searchAll runs a search through all its pages.
func searchAll(tb testing.TB, p provider.Provider, r provider.Request) []provider.Place {
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

// truth is World.Truth, failing the test on error.
func truth(tb testing.TB, w *sim.World, query string, b orb.Bound) []provider.Place {
	tb.Helper()
	ps, err := w.Truth(context.Background(), query, b)
	if err != nil {
		tb.Fatalf("Truth(%q, %v): %v", query, b, err)
	}
	return ps
}

func ids(ps []provider.Place) map[string]provider.Place {
	m := make(map[string]provider.Place, len(ps))
	for _, p := range ps {
		m[p.ID] = p
	}
	return m
}

// quarters splits b into its four quarters.
func quarters(b orb.Bound) []orb.Bound {
	c := b.Center()
	return []orb.Bound{
		{Min: b.Min, Max: c},
		{Min: orb.Point{c[0], b.Min[1]}, Max: orb.Point{b.Max[0], c[1]}},
		{Min: orb.Point{b.Min[0], c[1]}, Max: orb.Point{c[0], b.Max[1]}},
		{Min: c, Max: b.Max},
	}
}

func isTransient(err error) bool { return errors.Is(err, provider.ErrTransient) }

// around is the square of half-side d degrees around a point.
func around(lon, lat, d float64) orb.Bound {
	return orb.Bound{Min: orb.Point{lon - d, lat - d}, Max: orb.Point{lon + d, lat + d}}
}
