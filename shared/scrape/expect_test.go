package scrape

import (
	"math"
	"slices"
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

// TestExpectedSearches: the expectation is the tile count without a
// density, fewer searches than tiles for a query too rare to fill a page
// (base tiles merge), grows with the density and with the mode's depth,
// and the surface holds the zone's people.
func TestExpectedSearches(t *testing.T) {
	s := newPlanner(t)
	p := mustPlan(t, s, "FRA", pricing.Normal, "Lyon")
	tiles := float64(p.Grid.Len())
	if got := p.ExpectedSearches(0, nil); got != tiles {
		t.Errorf("rate 0: %v, want the %v tiles", got, tiles)
	}
	rare := p.ExpectedSearches(1e-9, nil)
	if rare < 1 || rare > tiles/2 {
		t.Errorf("a rare query: %v searches, want merges to bring the %v tiles' searches below half", rare, tiles)
	}
	sparse, dense := p.ExpectedSearches(1.0/8000, nil), p.ExpectedSearches(1.0/330, nil)
	if !(rare < sparse && sparse < dense) {
		t.Errorf("rare %v, sparse %v, dense %v: want increasing", rare, sparse, dense)
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

// TestMerges: merged base tiles are runs under their merged tile, each
// base tile in one merge at most, leader first; a rare query merges, a
// dense one not in the city's centre; a resume's roots count a merge by
// its leader.
func TestMerges(t *testing.T) {
	p := mustPlan(t, newPlanner(t), "FRA", pricing.Normal, "Lyon")
	tiles := p.Grid.Tiles()
	crowded := 0
	for i, tl := range tiles {
		if p.People(tl) > p.People(tiles[crowded]) {
			crowded = i
		}
	}
	for _, tt := range []struct {
		name        string
		rate        float64
		wantMerge   bool
		wantCrowded bool // the most crowded base tile is merged
	}{
		{"rare query", 1e-9, true, true},
		{"sparse trade", 1.0 / 8000, true, true},
		{"dense query", 1.0 / 330, true, false},
		{"no density", 0, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ms := p.Merges(tt.rate)
			if (len(ms) > 0) != tt.wantMerge {
				t.Fatalf("%d merges, want some: %v", len(ms), tt.wantMerge)
			}
			merged := false
			for _, m := range ms {
				merged = merged || slices.Contains(m.Members, crowded)
			}
			if merged != tt.wantCrowded {
				t.Errorf("the most crowded base tile (%.0f people) merged: %v, want %v", p.People(tiles[crowded]), merged, tt.wantCrowded)
			}
			seen := map[int]bool{}
			for _, m := range ms {
				if len(m.Members) < 2 || m.Searches <= 0 {
					t.Errorf("merge %v: %d members, %.2f searches", m.Tile, len(m.Members), m.Searches)
				}
				for k, i := range m.Members {
					if seen[i] {
						t.Errorf("base tile %d in two merges", i)
					}
					seen[i] = true
					if k > 0 && i != m.Members[k-1]+1 {
						t.Errorf("merge %v: members %v not a run", m.Tile, m.Members)
					}
					if c := tiles[i]; c.Z-m.Tile.Z > MergeLevels || !m.Tile.Contains(c) {
						t.Errorf("merge %v: base tile %v not within %d levels under it", m.Tile, c, MergeLevels)
					}
				}
			}
		})
	}
	ms := p.Merges(1e-9)
	m := ms[0]
	all := p.ExpectedSearches(1e-9, nil)
	withoutLeader := p.ExpectedSearches(1e-9, m.Members[1:])
	onlyLeader := p.ExpectedSearches(1e-9, m.Members[:1])
	if withoutLeader != 0 || math.Abs(onlyLeader-m.Searches) > 1e-9 || all < onlyLeader {
		t.Errorf("roots: members without their leader %v (want 0), leader alone %v (want %v), all %v",
			withoutLeader, onlyLeader, m.Searches, all)
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
