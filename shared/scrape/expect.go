package scrape

import (
	"context"
	"math"
	"slices"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/grid"
	"github.com/prospectdata/svc/shared/pricing"
)

// spreadPoints is how many points carry a town's people in the surface
// (people): enough that a tile a tenth of a town's width holds a fair
// share. A village (under villagePeople) gets villagePoints: the tiles
// that cut it are rural ones, kilometres wide, and a country's index
// builds three times faster (France: 35,000 communes, most of them
// villages), which every worker's first task pays.
const (
	spreadPoints  = 16
	villagePoints = 4
	villagePeople = 2000
)

// metresPerDegree is a degree of latitude (and of longitude at the
// equator), near enough for spreading a town's people.
const metresPerDegree = 111_195

// goldenAngle places the spread points on a sunflower spiral (Vogel's
// model): even cover of the disc without randomness, so the surface is the
// same in every process.
var goldenAngle = math.Pi * (3 - math.Sqrt(5))

// surface is the people of a country spread over their towns: each city
// (or arrondissement where it has them) contributes spreadPoints points
// (villagePoints for a village) over the disc of its area around its
// centre. The population
// index of the grid (population) keeps people at town centres, which is
// what tile sizes need; counting the people of a tile finer than a town
// needs them where they live.
func (s *Service) surface(g *gazetteer.Gazetteer, country string) *grid.Population {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.surfaces[country]; ok {
		return p
	}
	// A city with arrondissements is spread by arrondissement: their
	// people add up to the city's.
	var towns []*gazetteer.Place
	for _, pl := range countryTowns(g, country) {
		n := len(towns)
		for _, d := range g.Children(pl.ID) {
			if dp := g.Place(d); dp.Kind == gazetteer.District && dp.Population > 0 {
				towns = append(towns, dp)
			}
		}
		if len(towns) == n {
			towns = append(towns, pl)
		}
	}
	pts := make([]orb.Point, 0, len(towns)*villagePoints)
	pops := make([]int64, 0, len(towns)*villagePoints)
	// The spiral's offsets for a disc of radius 1, east and north: the
	// same for every town, scaled by its radius (a town is small enough
	// for degrees to be taken as flat around its centre).
	town, village := spiral(spreadPoints), spiral(villagePoints)
	add := func(pl *gazetteer.Place) {
		r := math.Sqrt(pl.AreaKm2/math.Pi) * 1000
		if r <= 0 {
			pts, pops = append(pts, pl.Center), append(pops, pl.Population)
			return
		}
		unit := town
		if pl.Population < villagePeople {
			unit = village
		}
		dLon := r / (metresPerDegree * math.Cos(pl.Center[1]*math.Pi/180))
		dLat := r / metresPerDegree
		spread := make([]orb.Point, 0, len(unit))
		for _, u := range unit {
			pt := orb.Point{pl.Center[0] + u[0]*dLon, pl.Center[1] + u[1]*dLat}
			// An arrondissement is its share of its city's outline, often
			// long and narrow: its people stay inside it. (Checked for the
			// few arrondissements only: every commune's would cost the
			// index most of its build.)
			if pl.Kind == gazetteer.District && !g.Contains(pl.ID, pt) {
				continue
			}
			spread = append(spread, pt)
		}
		if len(spread) == 0 {
			spread = append(spread, pl.Center)
		}
		k := int64(len(spread))
		share, rest := pl.Population/k, pl.Population%k
		for i, pt := range spread {
			n := share
			if int64(i) < rest {
				n++
			}
			pts = append(pts, pt)
			pops = append(pops, n)
		}
	}
	for _, t := range towns {
		add(t)
	}
	p := grid.NewPopulation(pts, pops)
	s.surfaces[country] = p
	return p
}

// spiral is n points of a disc of radius 1 (east, north offsets) on a
// sunflower spiral, their distance from the centre ∝ (i/n)^0.7: towns are
// denser at their centre.
func spiral(n int) [][2]float64 {
	out := make([][2]float64, n)
	for i := range out {
		d := math.Pow((float64(i)+0.5)/float64(n), 0.7)
		a := float64(i) * goldenAngle
		out[i] = [2]float64{d * math.Sin(a), d * math.Cos(a)}
	}
	return out
}

// People is how many people live in tile t by the spread surface; 0 on a
// plan built by hand.
func (p *Plan) People(t maptile.Tile) float64 {
	if p.people == nil {
		return 0
	}
	return float64(p.people.In(t))
}

// ExpectedSearches is the number of searches the engine is expected to
// make for one query of density rate (places per person) over the plan's
// grid in its mode. A tile's count of places is taken as Poisson of mean
// rate × its people (places in its rectangle, inside the zones or not: the
// provider lists both); searching it pays its pages, and when it lists the
// provider's cap above the mode's depth, its children that reach a zone are
// searched in turn. The engine takes, tile by tile, the cheaper of
// searching it and splitting it at once (Skips):
//
//	search(t, d) = E[pages(min(N, cap))] + P(N ≥ cap) · Σ_children E(c, d+1)
//	E(t, d)      = min(search(t, d), Σ_children E(c, d+1))   (d below the depth)
//
// Where base tiles merge (Merges), their leader pays the merged search
// and its members pay nothing for the query. roots, when not nil,
// restricts it to those base tiles (indexes in the grid's order: a
// resume's remaining tiles); a merge counts when its leader is among them.
func (p *Plan) ExpectedSearches(rate float64, roots []int) float64 {
	if p.Grid == nil {
		return 0
	}
	if rate <= 0 {
		return float64(len(p.roots(roots)))
	}
	own, merges := p.mergePlan(rate)
	// A merge's members leave the query to it; its leader pays for it.
	member := make([]bool, len(own))
	lead := make(map[int]float64, len(merges))
	for _, m := range merges {
		for _, i := range m.Members {
			member[i] = true
		}
		lead[m.Leader()] = m.Searches
	}
	total := 0.0
	for _, i := range p.rootIndexes(roots) {
		if !member[i] {
			total += own[i]
		}
		total += lead[i]
	}
	return total
}

// Skips tells whether the engine splits tile t (at depth d) for a query
// of density rate without searching it: by the density, searching it costs
// more searches, its children's included when it saturates, than
// searching its children at once. ExpectedSearches prices the same rule.
func (p *Plan) Skips(rate float64, t maptile.Tile, d int) bool {
	if rate <= 0 {
		return false
	}
	_, skip := p.cheapest(rate, t, d, p.Settings.Mode.MaxDepth())
	return skip
}

// cheapest returns the expected searches of tile t at depth d for a query
// of density rate, and whether splitting it without searching costs less
// than searching it. A tile at the mode's depth, or with no child reaching
// a zone, is searched.
func (p *Plan) cheapest(rate float64, t maptile.Tile, d, depth int) (float64, bool) {
	pages, sat := poissonPages(rate * p.People(t))
	if d >= depth || sat < 1e-4 {
		return pages, false
	}
	cs := p.Grid.Children(t)
	if len(cs) == 0 {
		return pages, false
	}
	children := 0.0
	for _, c := range cs {
		e, _ := p.cheapest(rate, c, d+1, depth)
		children += e
	}
	if search := pages + sat*children; search <= children {
		return search, false
	}
	return children, true
}

// rootIndexes returns the given indexes of base tiles that exist, or
// every one.
func (p *Plan) rootIndexes(idx []int) []int {
	n := p.Grid.Len()
	if idx == nil {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, len(idx))
	for _, i := range idx {
		if i >= 0 && i < n {
			out = append(out, i)
		}
	}
	return out
}

// roots returns the base tiles of the given indexes, or every one.
func (p *Plan) roots(idx []int) []maptile.Tile {
	all := p.Grid.Tiles()
	is := p.rootIndexes(idx)
	out := make([]maptile.Tile, len(is))
	for k, i := range is {
		out[k] = all[i]
	}
	return out
}

// Price sets the plan's estimate from the densities learnt for its
// queries (Deps.Densities): per query, the expected searches of its
// density over the plan's base tiles (roots, when not nil, the tiles left
// to a resume) and the places they list. Without densities, or on a plan
// that cannot run, the estimate stays the flat model's.
func (s *Service) Price(ctx context.Context, p *Plan, roots []int) error {
	if s.d.Densities == nil || p.Grid == nil || !p.Valid() {
		return nil
	}
	rates := make([]float64, len(p.Settings.Queries))
	for i, q := range p.Settings.Queries {
		rate, err := s.d.Densities.Rate(ctx, p.Settings.Country, q)
		if err != nil {
			return err
		}
		rates[i] = rate
	}
	p.PriceAt(rates, roots)
	return nil
}

// PriceAt sets the plan's rates and its estimate from them (see Price): a
// resume continues the job it resumes with the densities that planned it,
// so that it merges and splits as that job did and no base tile is left
// to a merged search that neither makes.
func (p *Plan) PriceAt(rates []float64, roots []int) {
	if p.Grid == nil || !p.Valid() || len(rates) != len(p.Settings.Queries) {
		return
	}
	people := 0.0
	for _, t := range p.roots(roots) {
		people += p.People(t)
	}
	var searches, places float64
	p.Rates = slices.Clone(rates)
	for _, rate := range rates {
		searches += p.ExpectedSearches(rate, roots)
		places += rate * people
	}
	p.Estimate = pricing.Compute(pricing.Params{
		Tiles: len(p.rootIndexes(roots)), Queries: len(p.Settings.Queries), Mode: p.Settings.Mode, IncludeReviews: p.Settings.IncludeReviews,
		StopAt: p.Settings.StopAt, Searches: searches, Places: places,
	})
}

// poissonPages returns, for a count N ~ Poisson(mu), the expected pages a
// search pays (at least one, pricing.ProviderPageSize places each, up to
// pricing.ProviderCap) and the probability that it lists the cap.
func poissonPages(mu float64) (pages, saturated float64) {
	if mu <= 0 {
		return 1, 0
	}
	if mu > 4*pricing.ProviderCap {
		// The cap is reached but for a vanishing chance.
		return float64((pricing.ProviderCap + pricing.ProviderPageSize - 1) / pricing.ProviderPageSize), 1
	}
	pk := math.Exp(-mu) // P(N = k), k from 0
	below := 0.0
	for k := range pricing.ProviderCap {
		if k > 0 {
			pk *= mu / float64(k)
		}
		pages += pk * math.Max(1, math.Ceil(float64(k)/pricing.ProviderPageSize))
		below += pk
	}
	saturated = math.Max(0, 1-below)
	pages += saturated * float64((pricing.ProviderCap+pricing.ProviderPageSize-1)/pricing.ProviderPageSize)
	return pages, saturated
}
