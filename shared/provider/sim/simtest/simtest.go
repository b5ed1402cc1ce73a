// Package simtest builds simulated worlds for tests: the world's own
// tests and those of the twins that read it (registerssim, opendatasim).
package simtest

import (
	"context"
	"sync"
	"testing"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/provider/sim"
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
