package scrape

import (
	"math"
	"testing"

	"github.com/prospectdata/svc/shared/pricing"
)

func TestPoissonPages(t *testing.T) {
	for _, tt := range []struct {
		mu              float64
		pages, sat, tol float64
	}{
		{0, 1, 0, 0},
		{3, 1, 0, 1e-6},   // a handful: one page
		{30, 2, 0, 0.05},  // about 30: two pages, no cap
		{60, 3, 0.5, 0.1}, // at the cap half the time
		{500, 3, 1, 0},    // far over: three pages, saturated
	} {
		pages, sat := poissonPages(tt.mu)
		if math.Abs(pages-tt.pages) > tt.tol*3+1e-9 || math.Abs(sat-tt.sat) > tt.tol+1e-9 {
			t.Errorf("poissonPages(%v) = %.4f pages, %.4f saturated; want about %v, %v", tt.mu, pages, sat, tt.pages, tt.sat)
		}
	}
}

// TestExpectedSearches: the expectation is the tile count for a query too
// rare to fill a page, grows with the density and with the mode's depth,
// and the surface holds the zone's people.
func TestExpectedSearches(t *testing.T) {
	s := newPlanner(t)
	p := mustPlan(t, s, "FRA", pricing.Normal, "Lyon")
	tiles := float64(p.Grid.Len())
	if got := p.ExpectedSearches(0, nil); got != tiles {
		t.Errorf("rate 0: %v, want the %v tiles", got, tiles)
	}
	if got := p.ExpectedSearches(1e-9, nil); math.Abs(got-tiles) > 1e-6 {
		t.Errorf("a rare query: %v, want the %v tiles", got, tiles)
	}
	sparse, dense := p.ExpectedSearches(1.0/8000, nil), p.ExpectedSearches(1.0/330, nil)
	if !(tiles <= sparse && sparse < dense) {
		t.Errorf("tiles %v, sparse %v, dense %v: want increasing", tiles, sparse, dense)
	}
	fast := mustPlan(t, s, "FRA", pricing.Fast, "Lyon").ExpectedSearches(1.0/330, nil)
	ultra := mustPlan(t, s, "FRA", pricing.Ultra, "Lyon").ExpectedSearches(1.0/330, nil)
	if !(fast < dense && dense <= ultra) {
		t.Errorf("fast %v, normal %v, ultra %v: want increasing", fast, dense, ultra)
	}
	people := 0.0
	for _, tl := range p.Grid.Tiles() {
		people += p.People(tl)
	}
	// Lyon's 520,000 people, and some of its neighbours' in the edge
	// tiles.
	if people < 500_000 || people > 1_000_000 {
		t.Errorf("Lyon's tiles hold %.0f people", people)
	}
}

// BenchmarkExpectedSearchesFrance prices the largest zone an estimate
// meets, a whole country of about 4,400 base tiles, for a dense query in
// ultra (the deepest recursion): it runs on every estimate and creation.
func BenchmarkExpectedSearchesFrance(b *testing.B) {
	p := mustPlan(b, newPlanner(b), "FRA", pricing.Ultra, "France")
	for b.Loop() {
		p.ExpectedSearches(1.0/330, nil)
	}
}
