package scrape

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/density"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/grid"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/zones"
)

// Deps are what the scrape service acts on.
type Deps struct {
	// Gazetteer loads the gazetteer; the service calls it once, on first
	// use (or at Warm), and keeps the result.
	Gazetteer func() (*gazetteer.Gazetteer, error)
	Ledger    *accounts.Ledger
	Limits    *ratelimit.Limiter
	Accounts  *accounts.Service
	// CostThreshold is the worst-case EF above which a pipeline is
	// refused (SVC_EF_COST_THRESHOLD, pricing.DefaultThreshold).
	CostThreshold float64
	// Densities are the places per person learnt of each query (Price);
	// nil prices with the flat model.
	Densities *density.Rates
}

// Service plans and prices scrapes.
type Service struct {
	d    Deps
	geo  func() (*loaded, error)
	mu   sync.Mutex
	pops map[string]*grid.Population // per country, built on first use
	// surfaces are the spread populations (surface), per country.
	surfaces map[string]*grid.Population
}

// loaded is the gazetteer with its resolver.
type loaded struct {
	g *gazetteer.Gazetteer
	r *zones.Resolver
}

// New returns the service. Nothing is loaded until first use or Warm.
func New(d Deps) *Service {
	s := &Service{d: d, pops: map[string]*grid.Population{}, surfaces: map[string]*grid.Population{}}
	s.geo = sync.OnceValues(func() (*loaded, error) {
		g, err := d.Gazetteer()
		if err != nil {
			return nil, fmt.Errorf("load gazetteer: %w", err)
		}
		return &loaded{g: g, r: zones.NewResolver(g)}, nil
	})
	return s
}

// Warm loads the gazetteer now: a Lambda that resolves zones pays it at
// init instead of on its first request.
func (s *Service) Warm() error {
	_, err := s.geo()
	return err
}

// Plan is a request resolved over the map: its zones and their grid.
type Plan struct {
	Settings Settings
	Zones    []zones.Zone
	Grid     *grid.Grid
	Estimate pricing.Estimate
	// Problems are the hard blockers of the estimate: unknown zones,
	// empty lists, an empty grid, a cost over the quota.
	Problems []apperr.FieldError

	// admits is the resolver's address evidence (zones.Resolver.Admits);
	// nil on a plan built by hand, which then trusts the grid alone.
	admits func(zones.Zone, string) bool
	// people is the country's spread population (Service.surface).
	people *grid.Population
	// Rates are the places per person of each query that priced the plan
	// (Service.Price; nil when it was not): the job keeps them, and the
	// engine plans its searches with them (Skips).
	Rates []float64
}

// ZonesAt returns the zones (ascending indexes) a place at pt with the
// given address belongs to: those whose shape holds pt (Grid.Locate) and
// whose address evidence does not name a commune, arrondissement or
// department outside them (zones.Resolver.Admits). None means the place is
// out of the request.
func (p *Plan) ZonesAt(pt orb.Point, address string) []int {
	zs := p.Grid.Locate(pt)
	if p.admits == nil {
		return zs
	}
	out := zs[:0]
	for _, i := range zs {
		if p.admits(p.Zones[i], address) {
			out = append(out, i)
		}
	}
	return out
}

// Valid tells whether the plan can run.
func (p *Plan) Valid() bool { return len(p.Problems) == 0 }

// CountValidation counts one attempt of the user against the validation
// limit (ratelimit.Validate), the one the estimate counts in: pipeline
// validation shares it (429 past it).
func (s *Service) CountValidation(ctx context.Context, u *accounts.User) error {
	return s.d.Limits.Allow(ctx, ratelimit.Validate, accounts.UserPK(u.ID))
}

// Estimate answers POST /api/estimate for the user: it counts against the
// validation limit, cleans the request (422 when malformed), resolves its
// zones, builds the grid and prices it against what the user may still
// spend this month. Unknown zones, empty lists, an empty grid and a cost
// over the quota are problems of a 200 answer, not errors.
func (s *Service) Estimate(ctx context.Context, u *accounts.User, r Request) (*Plan, error) {
	if err := s.d.Limits.Allow(ctx, ratelimit.Validate, accounts.UserPK(u.ID)); err != nil {
		return nil, err
	}
	set, err := Clean(r, false)
	if err != nil {
		return nil, err
	}
	p, err := s.plan(set)
	if err != nil {
		return nil, err
	}
	if err := s.Price(ctx, p, nil); err != nil {
		return nil, err
	}
	if len(p.Problems) == 0 {
		rem, err := s.d.Ledger.Remaining(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		if p.Estimate.EF > rem {
			e := pricing.OverQuota(p.Estimate.EF, rem)
			p.Problems = append(p.Problems, apperr.Field("ef_cost", e.FR, e.EN))
		}
	}
	if len(p.Problems) == 0 {
		if err := s.d.Accounts.SetLastCountry(ctx, u, set.Country); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Plan resolves and grids cleaned settings and prices them, without the
// estimate's rate limit and quota check: job creation applies its own.
func (s *Service) Plan(set Settings) (*Plan, error) { return s.plan(set) }

// plan resolves and grids cleaned settings.
func (s *Service) plan(set Settings) (*Plan, error) {
	gz, err := s.geo()
	if err != nil {
		return nil, err
	}
	p := &Plan{Settings: set, admits: gz.r.Admits}
	if len(set.Queries) == 0 {
		p.Problems = append(p.Problems, apperr.Field("queries", "au moins une requête", "at least one query"))
	}
	if len(set.Zones) == 0 {
		p.Problems = append(p.Problems, apperr.Field("zones", "au moins une zone", "at least one zone"))
	}
	if _, ok := gz.g.Country(set.Country); !ok {
		p.Problems = append(p.Problems, apperr.Field("country",
			fmt.Sprintf("pays %s inconnu ou non couvert", set.Country), fmt.Sprintf("unknown or unsupported country %s", set.Country)))
		return p, nil
	}
	var gzones []grid.Zone
	for i, in := range set.Zones {
		z, err := gz.r.Resolve(set.Country, in)
		if err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) {
				return nil, err
			}
			p.Problems = append(p.Problems, apperr.Field(fmt.Sprintf("zones[%d]", i), ae.FR, ae.EN))
			continue
		}
		p.Zones = append(p.Zones, z)
		gzones = append(gzones, grid.Zone{Label: z.Label, Shape: z.Shape, Within: z.Within})
	}
	if len(gzones) == 0 {
		return p, nil
	}
	// A zone inside another of the request (Lyon 1er beside Lyon) leaves
	// the tiles to it: naming it changes no tile and no cost.
	for i, z := range p.Zones {
		gzones[i].Nested = slices.ContainsFunc(p.Zones, func(o zones.Zone) bool { return gz.r.Inside(z, o) })
	}
	g, err := grid.Build(gzones, s.population(gz.g, set.Country), grid.Options{})
	if errors.Is(err, grid.ErrEmptyZone) {
		p.Problems = append(p.Problems, apperr.Field("zones", "les zones ne couvrent aucune tuile", "the zones cover no tile"))
		return p, nil
	}
	if errors.Is(err, grid.ErrTooManyTiles) {
		p.Problems = append(p.Problems, apperr.Field("zones",
			"zones trop vastes pour une seule recherche : découpez-les en plusieurs", "zones too large for one scrape: split them"))
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	p.Grid = g
	p.people = s.surface(gz.g, set.Country)
	if g.Len() == 0 {
		p.Problems = append(p.Problems, apperr.Field("zones", "les zones ne couvrent aucune tuile", "the zones cover no tile"))
	}
	p.Estimate = pricing.Compute(pricing.Params{
		Tiles: g.Len(), Queries: len(set.Queries), Mode: set.Mode, IncludeReviews: set.IncludeReviews, StopAt: set.StopAt,
	})
	return p, nil
}

// population is the population index of a country's cities, built on the
// first grid of that country and kept: it decides tile sizes.
func (s *Service) population(g *gazetteer.Gazetteer, country string) *grid.Population {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pops[country]; ok {
		return p
	}
	towns := countryTowns(g, country)
	pts := make([]orb.Point, len(towns))
	pops := make([]int64, len(towns))
	for i, t := range towns {
		pts[i], pops[i] = t.Center, t.Population
	}
	p := grid.NewPopulation(pts, pops)
	s.pops[country] = p
	return p
}

// CostThreshold is the worst-case EF above which a pipeline is refused.
func (s *Service) CostThreshold() float64 { return s.d.CostThreshold }

// countryTowns are the cities of country with people: its communes, each
// once (a city's arrondissements are part of its population, not towns
// of their own).
func countryTowns(g *gazetteer.Gazetteer, country string) []*gazetteer.Place {
	var out []*gazetteer.Place
	c, _ := g.Country(country)
	var walk func(id gazetteer.ID)
	walk = func(id gazetteer.ID) {
		for _, k := range g.Children(id) {
			if pl := g.Place(k); pl.Kind == gazetteer.City && pl.Population > 0 {
				out = append(out, pl)
				continue
			}
			walk(k)
		}
	}
	walk(c)
	return out
}
