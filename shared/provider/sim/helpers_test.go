package sim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

func gaz(tb testing.TB) *gazetteer.Gazetteer { return simtest.Gazetteer(tb) }

func newWorld(tb testing.TB, opt sim.Options) *sim.World { return simtest.World(tb, opt) }

func fixedDay(d int) func(context.Context) (int, error) { return simtest.FixedDay(d) }

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
