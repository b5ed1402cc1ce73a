package engine

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/scrape"
)

// BenchmarkCostBound measures how close to the floor (places ÷ 20) any
// plan of searches can come on the zones and queries of BenchmarkCost,
// under the provider's rules (20 a page, 60 a search, nothing beyond the
// rectangle), so that the engine's figures read against what is reachable:
//
//   - quadtree: the cheapest plan of the engine's tiles (base tiles, their
//     quarters down to ultra's depth, their ancestors up to
//     scrape.MergeLevels) made knowing every place in advance: a tile is
//     searched only if it holds at most 60 places, at ceil(n/20) requests,
//     else split for free; a tile with no place of the zone costs nothing.
//   - k-d, exact density: rectangles of any shape, cut where the world's
//     own density (the mean of 8 other draws of the simulated world, which
//     no planner has) puts t places on a side, for the best t; a rectangle
//     that reaches the cap pays its 3 pages and is cut in two at its true
//     median, for free.
//
// Both are lower bounds of a kind (they know more than a scrape can), not
// plans a scrape can follow. Run it with -benchtime 1x.
func BenchmarkCostBound(b *testing.B) {
	g, err := data.Load()
	if err != nil {
		b.Fatal(err)
	}
	for _, zone := range costZones {
		b.Run(zone, func(b *testing.B) {
			for _, query := range costQueries {
				b.Run(query, func(b *testing.B) {
					p, bound := benchPlan(b, zone, query)
					var quad, kd float64
					var n int
					for b.Loop() {
						draw := func(seed uint64) []boundPlace { return boundPlaces(b, g, p, bound, query, seed) }
						world := draw(0)
						n = 0
						for _, x := range world {
							if x.in {
								n++
							}
						}
						quad = quadBound(p, world)
						var density []boundPlace
						const draws = 8
						for s := uint64(1); s <= draws; s++ {
							for _, x := range draw(s) {
								x.w = 1.0 / draws
								density = append(density, x)
							}
						}
						kd = math.Inf(1)
						for _, t := range []float64{35, 40, 45, 50, 55} {
							kd = math.Min(kd, kdBound(p, world, density, t))
						}
					}
					floor := float64(requestFloor(n))
					b.Logf("%s, %q: %d places, floor %.0f; quadtree knowing every place %.0f requests (%.2f × the floor); "+
						"k-d with the exact density %.0f (%.2f ×)", zone, query, n, floor, quad, quad/floor, kd, kd/floor)
					b.ReportMetric(quad/floor, "quadtree-req/floor")
					b.ReportMetric(kd/floor, "kd-req/floor")
				})
			}
		})
	}
}

// boundPlace is a place of the query in the zone's bound: in says the
// engine keeps it (scrape.Plan.ZonesAt); w weighs it in a density.
type boundPlace struct {
	pt orb.Point
	in bool
	w  float64
}

func boundPlaces(b *testing.B, g *gazetteer.Gazetteer, p *scrape.Plan, bound orb.Bound, query string, seed uint64) []boundPlace {
	b.Helper()
	places, err := sim.New(g, sim.Options{TransientRate: -1, Seed: seed}).Truth(context.Background(), query, bound)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]boundPlace, len(places))
	for i, pl := range places {
		pt := orb.Point{pl.Lon, pl.Lat}
		out[i] = boundPlace{pt: pt, in: len(p.ZonesAt(pt, pl.Address)) > 0, w: 1}
	}
	return out
}

// within returns the places in r (south and west edges in, north and east
// out, as the provider shares a rectangle's places out among its quarters),
// how many, and how many the zone keeps.
func within(r orb.Bound, ps []boundPlace) (sub []boundPlace, n float64, in int) {
	for _, x := range ps {
		if x.pt[0] >= r.Min[0] && x.pt[0] < r.Max[0] && x.pt[1] >= r.Min[1] && x.pt[1] < r.Max[1] {
			sub = append(sub, x)
			n += x.w
			if x.in {
				in++
			}
		}
	}
	return sub, n, in
}

// pagesOf is what a search listing n places (at most 60) costs.
func pagesOf(n float64) float64 { return math.Max(1, math.Ceil(n/20)) }

// quadBound is the cheapest plan of quadtree tiles knowing every place.
func quadBound(p *scrape.Plan, ps []boundPlace) float64 {
	depth := pricing.Ultra.MaxDepth()
	var below func(t maptile.Tile, d int, ps []boundPlace) float64
	below = func(t maptile.Tile, d int, ps []boundPlace) float64 {
		sub, n, in := within(t.Bound(), ps)
		if in == 0 {
			return 0
		}
		best := math.Inf(1)
		if n <= 60 {
			best = pagesOf(n)
		} else if d == depth {
			best = 3 // flagged: the best the deepest tile can do
		}
		if d < depth {
			split := 0.0
			for _, c := range t.Children() {
				split += below(c, d+1, sub)
			}
			best = math.Min(best, split)
		}
		return best
	}
	tiles := p.Grid.Tiles()
	base := map[maptile.Tile]bool{}
	above := map[maptile.Tile]bool{}
	for _, t := range tiles {
		base[t] = true
		for a, k := t, 0; k < scrape.MergeLevels && a.Z > 0; k++ {
			a = a.Parent()
			above[a] = true
		}
	}
	var merged func(a maptile.Tile, ps []boundPlace) float64
	merged = func(a maptile.Tile, ps []boundPlace) float64 {
		if base[a] {
			return below(a, 0, ps)
		}
		sub, n, in := within(a.Bound(), ps)
		if in == 0 {
			return 0
		}
		split := 0.0
		for _, c := range a.Children() {
			if base[c] || above[c] {
				split += merged(c, sub)
			}
		}
		if n <= 60 {
			return math.Min(split, pagesOf(n))
		}
		return split
	}
	total := 0.0
	for a := range above {
		if !above[a.Parent()] {
			total += merged(a, ps)
		}
	}
	for _, t := range tiles {
		if !above[t.Parent()] {
			total += below(t, 0, ps)
		}
	}
	return total
}

// kdBound cuts each base tile into rectangles holding about t places of
// the density, searches them in the world, and cuts one that reaches the
// cap at its true median.
func kdBound(p *scrape.Plan, world, density []boundPlace, t float64) float64 {
	total := 0.0
	var search func(r orb.Bound, ps []boundPlace, depth int)
	search = func(r orb.Bound, ps []boundPlace, depth int) {
		sub, n, in := within(r, ps)
		switch {
		case in == 0:
		case n <= 60 || depth > 30:
			total += pagesOf(n)
		default:
			total += 3
			a, b := cutAtWeight(r, sub, 0.5)
			search(a, sub, depth+1)
			search(b, sub, depth+1)
		}
	}
	var plan func(r orb.Bound, ws, ps []boundPlace, depth int)
	plan = func(r orb.Bound, ws, ps []boundPlace, depth int) {
		wsub, lambda, _ := within(r, ws)
		psub, _, in := within(r, ps)
		if in == 0 {
			return
		}
		if lambda <= t || depth > 30 {
			search(r, psub, depth)
			return
		}
		m := math.Ceil(lambda / t)
		a, b := cutAtWeight(r, wsub, math.Floor(m/2)/m)
		plan(a, wsub, psub, depth+1)
		plan(b, wsub, psub, depth+1)
	}
	for _, tl := range p.Grid.Tiles() {
		plan(tl.Bound(), density, world, 0)
	}
	return total
}

// cutAtWeight splits r across its longer side (on the ground) where the weight of
// ps below the cut is frac of theirs.
func cutAtWeight(r orb.Bound, ps []boundPlace, frac float64) (orb.Bound, orb.Bound) {
	ax := 1
	if (r.Max[0]-r.Min[0])*math.Cos(r.Center()[1]*math.Pi/180) >= r.Max[1]-r.Min[1] {
		ax = 0
	}
	s := slices.Clone(ps)
	slices.SortFunc(s, func(a, b boundPlace) int { return cmp.Compare(a.pt[ax], b.pt[ax]) })
	total := 0.0
	for _, x := range s {
		total += x.w
	}
	at, acc := (r.Min[ax]+r.Max[ax])/2, 0.0
	for i, x := range s {
		if acc += x.w; acc >= frac*total {
			if i+1 < len(s) {
				at = (x.pt[ax] + s[i+1].pt[ax]) / 2
			} else {
				at = math.Nextafter(x.pt[ax], math.Inf(1))
			}
			break
		}
	}
	a, b := r, r
	a.Max[ax], b.Min[ax] = at, at
	return a, b
}
