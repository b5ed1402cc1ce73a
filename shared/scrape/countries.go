package scrape

import (
	"context"
	"math"
	"sort"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/gazetteer"
)

// Pinned are the five countries GET /api/countries pins first: France and
// the French-speaking markets next to it.
var Pinned = [5]string{"FRA", "BEL", "CHE", "LUX", "CAN"}

// Country is one scrapable country.
type Country struct {
	Code   string `json:"code"`   // ISO 3166-1 alpha-3, the request's country
	Alpha2 string `json:"alpha2"` // ISO 3166-1 alpha-2
	Name   string `json:"name"`   // in the caller's language
}

// Countries is the body of GET /api/countries.
type Countries struct {
	Countries   []Country `json:"countries"`
	LastCountry *Country  `json:"last_country"`
	Pinned      []Country `json:"pinned"`
}

// Countries lists the scrapable countries (every country of the
// gazetteer), sorted by name in the caller's language, with the user's
// last country and the pinned ones.
func (s *Service) Countries(u *accounts.User, english bool) (*Countries, error) {
	gz, err := s.geo()
	if err != nil {
		return nil, err
	}
	names := display.French.Regions()
	if english {
		names = display.English.Regions()
	}
	out := &Countries{Countries: []Country{}, Pinned: []Country{}}
	by := map[string]Country{}
	for _, id := range gz.g.Countries() {
		p := gz.g.Place(id)
		c := Country{Code: p.Code, Name: p.Name}
		if r, err := language.ParseRegion(p.Code); err == nil {
			c.Alpha2 = r.String()
			if n := names.Name(r); n != "" {
				c.Name = n
			}
		}
		by[c.Code] = c
		out.Countries = append(out.Countries, c)
	}
	// Sorted on the folded names, so that "Égypte" sorts among the E.
	sort.SliceStable(out.Countries, func(i, j int) bool {
		return gazetteer.Normalize(out.Countries[i].Name) < gazetteer.Normalize(out.Countries[j].Name)
	})
	for _, code := range Pinned {
		if c, ok := by[code]; ok {
			out.Pinned = append(out.Pinned, c)
		}
	}
	if c, ok := by[u.LastCountry]; ok {
		out.LastCountry = &c
	}
	return out, nil
}

// Usage is the body of GET /api/ef/usage: the caller's EF this month.
type Usage struct {
	Month     string  `json:"month"` // yyyy-mm, UTC
	Quota     float64 `json:"quota"`
	Spent     float64 `json:"spent"`
	Remaining float64 `json:"remaining"`
	// CostThreshold is the worst-case EF above which a pipeline is
	// refused (reason cost).
	CostThreshold float64 `json:"cost_threshold"`
}

// Usage reports what the user spent this month and may still spend.
func (s *Service) Usage(ctx context.Context, u *accounts.User) (*Usage, error) {
	spent, err := s.d.Ledger.Spent(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	q := s.d.Ledger.Quota()
	return &Usage{
		Month: s.d.Ledger.Month(), Quota: q, Spent: spent, Remaining: math.Max(0, math.Round((q-spent)*100)/100),
		CostThreshold: s.d.CostThreshold,
	}, nil
}
