package app_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/provider"
)

// TestSimProviderIsTheDefault: the app's map provider is the simulated
// world, built on first use over the gazetteer, and it finds bakeries in
// central Lyon.
func TestSimProviderIsTheDefault(t *testing.T) {
	e := apptest.Start(t)
	p := e.App.Provider
	if p.Name() != "sim" {
		t.Fatalf("provider %q, want sim", p.Name())
	}
	req := provider.Request{
		Query: "boulangerie", Country: "FRA", Language: "fr",
		Bound: orb.Bound{Min: orb.Point{4.82, 45.75}, Max: orb.Point{4.86, 45.77}},
	}
	// The simulated provider fails a small share of calls, as the real one
	// does: retried like the engine retries them.
	var page provider.Page
	var err error
	for range 5 {
		if page, err = p.Search(context.Background(), req); !errors.Is(err, provider.ErrTransient) {
			break
		}
	}
	if err != nil || len(page.Places) == 0 {
		t.Fatalf("search: %d places, %v", len(page.Places), err)
	}
}
