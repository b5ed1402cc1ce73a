package zones

import (
	"sort"
	"strings"
	"sync"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// DefaultCountry is the country of a request that names none.
const DefaultCountry = "FRA"

// Radius bounds, in kilometres, of the form "<city> <n>km".
const (
	MinRadiusKm = 1
	MaxRadiusKm = 100
)

// maxRunes bounds a zone's length in characters.
const maxRunes = 200

// Form says how the input was read.
type Form string

// The forms of a zone.
const (
	FormName      Form = "name"      // a place's name or alias
	FormCode      Form = "code"      // a French department number or an ISO 3166-2 code
	FormPostcode  Form = "postcode"  // a French postal code
	FormINSEE     Form = "insee"     // a French INSEE commune or arrondissement code
	FormDistrict  Form = "district"  // "<city> <n>e", an arrondissement by number
	FormQualified Form = "qualified" // "<name> (<qualifier>)", "<name>, <qualifier>", "<name> <code>"
)

// Rule is the ambiguity rule that chose the place among several of the
// same name.
type Rule string

// The ambiguity rules, in the order they apply (see the package doc).
const (
	RuleNone        Rule = ""              // one place had the name
	RuleCountry     Rule = "country"       // a country name means the whole country
	RuleNamesake    Rule = "namesake"      // a place inside a larger namesake, holding a quarter of its people
	RuleMostPopular Rule = "most_populous" // the most populous place of the name
)

// Zone is a resolved zone.
type Zone struct {
	// Input is the zone as the user wrote it.
	Input string
	// Label is the canonical display: "Lyon (69)", "Paris 11e (75)",
	// "Bretagne", "Rhône (69)", "Lyon (69) 15 km", "75011 Paris 11e".
	Label string
	// Kind is the kind of the zone's place(s).
	Kind gazetteer.Kind
	// Form is how the input was read.
	Form Form
	// Places are the place the zone names, or the communes and
	// arrondissements sharing a postal code.
	Places []gazetteer.ID
	// Country is the request's country, alpha-3.
	Country string
	// RadiusKm is the radius the user gave ("Lyon 15km"), 0 when none.
	RadiusKm float64
	// Center is the centre of the first place: the centre of a city's
	// disc and of the user's radius disc.
	Center orb.Point
	// Shape is the area to scrape: the places' shapes concatenated, or the
	// user's disc. It may share memory with the gazetteer: do not modify.
	Shape orb.MultiPolygon
	// Within is set on disc-shaped zones (cities, arrondissements, radius
	// discs): the polygons of the departments (of the regions, in countries
	// without departments) whose bounding boxes meet the disc's. The land
	// part of the disc lies in their union, so a grid clips the disc to it
	// (discs reach over the sea and across borders). Nil otherwise.
	Within orb.MultiPolygon
	// Department and Region are the department and region the zone lies
	// in (the zone itself when it is one; for a radius disc, those of its
	// centre place), gazetteer.None when there is none or its places are
	// in several.
	Department, Region gazetteer.ID
	// Rule is the ambiguity rule that chose the place, when several had
	// the name; Alternatives are the others, with how to name each.
	Rule         Rule
	Alternatives []Alternative
}

// Alternative is another place an ambiguous zone could have meant.
type Alternative struct {
	ID    gazetteer.ID
	Kind  gazetteer.Kind
	Label string
	// Input is a zone string that names this place, for the user to write
	// instead ("Vienne (38)", "75", "US-NY"); empty when none is known.
	Input string
}

// Resolver resolves zone strings against a gazetteer. It is safe for
// concurrent use; hold one per gazetteer, as it caches per-country data.
type Resolver struct {
	g            *gazetteer.Gazetteer
	countries    []gazetteer.ID          // every country, by name
	countryCodes map[string]gazetteer.ID // alpha-3 and alpha-2 codes, upper case

	mu   sync.Mutex
	land map[string][]gazetteer.ID // country -> departments, or regions without departments
}

// NewResolver returns a resolver over g.
func NewResolver(g *gazetteer.Gazetteer) *Resolver {
	r := &Resolver{
		g:            g,
		countries:    g.Countries(),
		countryCodes: map[string]gazetteer.ID{},
		land:         map[string][]gazetteer.ID{},
	}
	// Country() scans every place for alpha-2 codes; one map makes each
	// resolution's country lookup O(1).
	for _, id := range r.countries {
		p := g.Place(id)
		r.countryCodes[p.Code] = id
		for _, a := range p.Aliases {
			if len(a) == 2 && a == strings.ToUpper(a) {
				if _, taken := r.countryCodes[a]; !taken {
					r.countryCodes[a] = id
				}
			}
		}
	}
	return r
}

// country returns the country place of an alpha-3 or alpha-2 code.
func (r *Resolver) country(code string) (*gazetteer.Place, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if code == "" {
		code = DefaultCountry
	}
	id, ok := r.countryCodes[code]
	if !ok {
		return nil, false
	}
	return r.g.Place(id), true
}

// Resolve reads one zone of a request for country (ISO 3166-1 alpha-3 or
// alpha-2, any case; empty means DefaultCountry). A refused zone is an
// *apperr.Error (code apperr.Invalid) with French and English messages
// naming the zone and the country, and a suggestion when one exists.
func (r *Resolver) Resolve(country, zone string) (Zone, error) {
	c, ok := r.country(country)
	if !ok {
		return Zone{}, errCountry(country)
	}
	q, err := prepare(c, zone)
	if err != nil {
		return Zone{}, err
	}
	return r.resolve(q)
}

// resolve tries each reading of the input in order; the first that names
// places wins.
func (r *Resolver) resolve(q *query) (Zone, error) {
	var failed failures
	for _, rd := range q.readings() {
		m, ok := r.match(q, rd, &failed)
		if ok {
			return r.build(q, m), nil
		}
	}
	return Zone{}, r.refuse(q, &failed)
}

// refuse explains why no reading matched.
func (r *Resolver) refuse(q *query, f *failures) error {
	if f.insee {
		return errINSEE(q.input, q.country.Code)
	}
	if p := f.radiusOn; p != nil {
		return errRadiusTarget(q.input, q.country.Code, p.Kind, p.Name)
	}
	if q.radius > 0 && q.base == "" {
		return errRadiusTarget(q.input, q.country.Code, 0, "")
	}
	other, elsewhere := r.abroad(q)
	if other != nil {
		return errOtherCountry(q.input, q.country, other)
	}
	u := unknown{districts: f.districts, elsewhere: elsewhere}
	// A name that exists as such in another country most likely means
	// that place (the country was left at its default): a near name here
	// would mislead ("Bavière" in France is not "Aviré").
	if elsewhere == nil {
		u.suggestion, _ = r.suggest(q)
	}
	return errUnknown(q.input, q.country, u)
}

// abroad looks the zone's name up in the other countries: other is the
// country it names, if any; elsewhere the country of the most populous
// place it names, for a user who forgot to set the country.
func (r *Resolver) abroad(q *query) (other, elsewhere *gazetteer.Place) {
	var best *gazetteer.Place
	for _, id := range r.countries {
		c := r.g.Place(id)
		if c.Code == q.country.Code {
			continue
		}
		for _, n := range namesEqual(r.g.Names(c.Code), q.norm) {
			p := r.g.Place(n.ID)
			if p.Kind == gazetteer.Country {
				return c, nil
			}
			if best == nil || weight(p) > weight(best) {
				best = p
			}
		}
	}
	if best == nil {
		return nil, nil
	}
	return nil, r.g.Place(r.countryOf(best.ID))
}

// namesEqual is the run of names equal to norm, already normalised: over
// every country, Lookup would normalise it again each time.
func namesEqual(names []gazetteer.Name, norm string) []gazetteer.Name {
	i := sort.Search(len(names), func(i int) bool { return names[i].Norm >= norm })
	j := i
	for j < len(names) && names[j].Norm == norm {
		j++
	}
	return names[i:j]
}

// countryOf walks up to the country of a place.
func (r *Resolver) countryOf(id gazetteer.ID) gazetteer.ID {
	for r.g.Place(id).Parent != gazetteer.None {
		id = r.g.Place(id).Parent
	}
	return id
}

// landUnits are the polygons a disc is clipped to in a country: its
// departments, and its regions that have none. Computed once per country.
func (r *Resolver) landUnits(country string) []gazetteer.ID {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ids, ok := r.land[country]; ok {
		return ids
	}
	var ids []gazetteer.ID
	if c, ok := r.countryCodes[country]; ok {
		for _, reg := range r.g.Children(c) {
			if r.g.Place(reg).Kind != gazetteer.Region {
				continue
			}
			n := len(ids)
			for _, d := range r.g.Children(reg) {
				if r.g.Place(d).Kind == gazetteer.Department {
					ids = append(ids, d)
				}
			}
			if len(ids) == n {
				ids = append(ids, reg)
			}
		}
	}
	r.land[country] = ids
	return ids
}
