package enrich

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/nyaruka/phonenumbers"
	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/phonenum"
	"github.com/prospectdata/svc/shared/provider"
)

// site_finder finds a business's website from its name and address. Its
// source is the configured map provider (SVC_MAP_PROVIDER: Google Places,
// or the simulated world offline), the same port scrapes use: a search
// for the business's name within the commune of its postcode, then, when
// the row says its category (a scrape's rows do), a search of that
// category there; the listing that matches the row is the business, and
// its website the answer. docs/enrichment.md says how a match is judged.

// siteFinderPages is how many result pages of one search are read.
const siteFinderPages = 3

// siteFinderCountry is the country site_finder searches (alpha-3): the
// communes it places rows in are France's in the gazetteer, its searches
// ask the provider for France, so the listings it compares are French and
// the row's number and theirs are read as that country's (a national
// number takes France's calling code). The module reads no country cell:
// a row of another country has no commune here to search.
const siteFinderCountry = "FRA"

// Kinds of site_finder_match: what tied the listing to the row.
const (
	MatchPhone = "phone"     // the same phone number (and a close name)
	MatchName  = "name"      // the same name, in the row's commune
	MatchFuzzy = "name_near" // most of the name's words, in the row's commune
)

// SiteFinderDeps are site_finder's sources.
type SiteFinderDeps struct {
	Provider  provider.Provider
	Gazetteer func() (*gazetteer.Gazetteer, error)
}

type siteFinder struct{ d SiteFinderDeps }

// SiteFinderModule is the site_finder module.
func SiteFinderModule(d SiteFinderDeps) Module { return &siteFinder{d: d} }

func (m *siteFinder) Slug() string      { return modules.SiteFinder }
func (m *siteFinder) Columns() []string { return []string{"site_web", "site_finder_match"} }
func (m *siteFinder) Reads() []string {
	return []string{"nom", "adresse", "telephone", "category", "code_postal", "commune"}
}

var postcodeRe = regexp.MustCompile(`\b(\d{5})\b`)

func (m *siteFinder) Run(ctx context.Context, _ *Env, in Input) (Result, error) {
	out := []string{"", ""}
	name := strings.TrimSpace(in["nom"])
	if name == "" {
		return Result{Values: out}, nil
	}
	g, err := m.d.Gazetteer()
	if err != nil {
		return Result{}, err
	}
	bound, ok := locate(g, in)
	if !ok {
		return Result{Values: out}, nil
	}
	// The name with its category, as one types it on a map ("Maison
	// Marie boulangerie"), then the name alone, then the category alone.
	queries := []string{name}
	if c := strings.TrimSpace(in["category"]); c != "" {
		if !strings.Contains(gazetteer.Normalize(name), gazetteer.Normalize(c)) {
			queries = []string{name + " " + c, name}
		}
		queries = append(queries, c)
	}
	row := rowOf(in)
	budget := siteFinderRequests
	for _, q := range queries {
		p, kind, found, err := m.search(ctx, row, q, bound, 0, &budget)
		switch {
		case err != nil && ctx.Err() != nil:
			return Result{}, ctx.Err()
		case errors.Is(err, provider.ErrTransient):
			return Result{Values: out, Unreachable: true}, nil
		case found:
			// A business found without a site is an answer too: the
			// match says so, site_web stays empty.
			return Result{Values: []string{p.Website, kind}, Found: true}, nil
		}
	}
	return Result{Values: out}, nil
}

// Bounds of one item's search.
const (
	// siteFinderRequests caps the provider requests of one item.
	siteFinderRequests = 24
	// siteFinderDepth is how many times a saturated rectangle is split
	// into quarters: the provider lists at most its Cap places per
	// search, the most prominent first, so a common category in a large
	// commune is searched quarter by quarter, as a scrape does.
	siteFinderDepth = 2
)

// search looks for the row's listing among the results of q in bound,
// splitting the rectangle when its search is saturated and found nothing.
// A query the provider refuses ends quietly (the next query is tried).
func (m *siteFinder) search(ctx context.Context, r row, q string, bound orb.Bound, depth int, budget *int) (provider.Place, string, bool, error) {
	token, listed := "", 0
	for range siteFinderPages {
		if *budget <= 0 {
			return provider.Place{}, "", false, nil
		}
		*budget--
		page, err := m.d.Provider.Search(ctx, provider.Request{
			Query: q, Bound: bound, Country: siteFinderCountry, Language: "fr", PageToken: token,
		})
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, provider.ErrTransient) {
				return provider.Place{}, "", false, err
			}
			return provider.Place{}, "", false, nil
		}
		listed += len(page.Places)
		if p, kind, ok := r.best(page.Places); ok {
			return p, kind, true, nil
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	if limit := m.d.Provider.Limits().Cap; depth >= siteFinderDepth || limit <= 0 || listed < limit {
		return provider.Place{}, "", false, nil
	}
	c := bound.Center()
	for _, quarter := range []orb.Bound{
		{Min: bound.Min, Max: c},
		{Min: orb.Point{c[0], bound.Min[1]}, Max: orb.Point{bound.Max[0], c[1]}},
		{Min: orb.Point{bound.Min[0], c[1]}, Max: orb.Point{c[0], bound.Max[1]}},
		{Min: c, Max: bound.Max},
	} {
		if p, kind, ok, err := m.search(ctx, r, q, quarter, depth+1, budget); ok || err != nil {
			return p, kind, ok, err
		}
	}
	return provider.Place{}, "", false, nil
}

// locate is the rectangle of the row's commune: from its code_postal or
// the postcode in its address, the commune among that postcode's whose
// name the row gives (commune, or the words after the postcode), else the
// most populous; or from the commune's name alone.
func locate(g *gazetteer.Gazetteer, in Input) (orb.Bound, bool) {
	pc := strings.TrimSpace(in["code_postal"])
	town := strings.TrimSpace(in["commune"])
	addr := in["adresse"]
	if pc == "" {
		if loc := postcodeRe.FindStringIndex(addr); loc != nil {
			pc = addr[loc[0]:loc[1]]
			if town == "" {
				town = strings.TrimSpace(strings.Split(addr[loc[1]:], ",")[0])
			}
		}
	}
	var ids []gazetteer.ID
	if pc != "" {
		ids = g.ByPostcode(siteFinderCountry, pc)
	}
	if len(ids) == 0 && town != "" {
		ids = g.Lookup(siteFinderCountry, town)
	}
	if len(ids) == 0 {
		return orb.Bound{}, false
	}
	best := ids[0]
	if town != "" {
		want := gazetteer.Normalize(town)
		for _, id := range ids {
			if gazetteer.Normalize(g.Place(id).Name) == want {
				best = id
				break
			}
		}
	}
	return g.Bound(best), true
}

// row is what a listing is matched against.
type row struct {
	words []string // the name's words, normalised
	name  string
	phone string // E.164, "" when none
	pc    string
}

func rowOf(in Input) row {
	r := row{name: gazetteer.Normalize(in["nom"])}
	r.words = strings.Fields(r.name)
	if n, err := phonenum.Parse(in["telephone"], siteFinderCountry); err == nil && phonenumbers.IsValidNumber(n) {
		r.phone = phonenumbers.Format(n, phonenumbers.E164)
	}
	if loc := postcodeRe.FindString(in["adresse"]); loc != "" {
		r.pc = loc
	}
	if pc := strings.TrimSpace(in["code_postal"]); pc != "" {
		r.pc = pc
	}
	return r
}

// best is the listing that is the row's business: the same phone number
// with a name sharing a word, else the same name (normalised), else a
// name holding most of the row's words; in each case in the row's
// postcode when the row gives one.
func (r row) best(ps []provider.Place) (provider.Place, string, bool) {
	var byName, byWords *provider.Place
	for i := range ps {
		p := &ps[i]
		if r.pc != "" && !strings.Contains(p.Address, r.pc) {
			continue
		}
		name := gazetteer.Normalize(p.Name)
		shared := sharedWords(r.words, strings.Fields(name))
		if r.phone != "" {
			phone := ""
			if n, err := phonenum.Parse(p.Phone, siteFinderCountry); err == nil {
				phone = phonenumbers.Format(n, phonenumbers.E164)
			}
			switch {
			case phone == r.phone && shared > 0:
				return *p, MatchPhone, true
			case phone != "" && phone != r.phone:
				continue // another business of the same name
			}
		}
		switch {
		case name == r.name && byName == nil:
			byName = p
		case len(r.words) > 0 && shared*4 >= len(r.words)*3 && byWords == nil:
			byWords = p
		}
	}
	if byName != nil {
		return *byName, MatchName, true
	}
	if byWords != nil {
		return *byWords, MatchFuzzy, true
	}
	return provider.Place{}, "", false
}

// sharedWords counts the words of a found in b.
func sharedWords(a, b []string) int {
	n := 0
	for _, w := range a {
		for _, v := range b {
			if w == v {
				n++
				break
			}
		}
	}
	return n
}
