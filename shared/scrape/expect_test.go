package scrape

import (
	"math"
	"testing"

	"github.com/paulmach/orb/maptile"

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

// TestSkips: a tile whose search would surely reach the cap is split
// unsearched; one too sparse to, or at the mode's depth, is searched; and
// choosing tile by tile never expects more searches than searching every
// tile, the engine's rule before densities.
func TestSkips(t *testing.T) {
	p := mustPlan(t, newPlanner(t), "FRA", pricing.Ultra, "Lyon")
	const dense, rare = 1.0 / 330, 1e-7
	depth := p.Settings.Mode.MaxDepth()
	tiles := p.Grid.Tiles()
	crowded := tiles[0]
	for _, tl := range tiles {
		if p.People(tl) > p.People(crowded) {
			crowded = tl
		}
	}
	for _, tt := range []struct {
		name string
		rate float64
		d    int
		want bool
	}{
		{"dense query, crowded base tile", dense, 0, true},
		{"rare query, crowded base tile", rare, 0, false},
		{"dense query, crowded tile at the mode's depth", dense, depth, false},
		{"no density learnt", 0, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Skips(tt.rate, crowded, tt.d); got != tt.want {
				t.Errorf("Skips(%v, %v people, depth %d) = %v, want %v", tt.rate, p.People(crowded), tt.d, got, tt.want)
			}
		})
	}
	var always func(tl maptile.Tile, d int) float64
	always = func(tl maptile.Tile, d int) float64 {
		pages, sat := poissonPages(dense * p.People(tl))
		if d < depth {
			for _, c := range p.Grid.Children(tl) {
				pages += sat * always(c, d+1)
			}
		}
		return pages
	}
	searchAll := 0.0
	for _, tl := range tiles {
		searchAll += always(tl, 0)
	}
	if got := p.ExpectedSearches(dense, nil); got > searchAll+1e-9 || got < searchAll*0.5 {
		t.Errorf("expected searches %.1f, searching every tile %.1f: want at most that, and not absurdly less", got, searchAll)
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
