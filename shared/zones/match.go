package zones

import (
	"cmp"
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// match is what one reading found.
type match struct {
	form  Form
	ids   []gazetteer.ID // candidates, most populous first
	all   bool           // the zone is all of ids (a postal code), not one of them
	code  string         // the postal code, for the label
	label string         // the label, when no place gives it (a former region)
}

// failures remembers why readings found nothing, for the error message.
type failures struct {
	insee     bool             // an INSEE code outside France
	radiusOn  *gazetteer.Place // a place found, but a radius cannot apply to it
	districts *districtHint    // a city found, but not the arrondissement
}

// match looks a reading up and keeps the places a radius can apply to.
func (r *Resolver) match(q *query, rd reading, f *failures) (match, bool) {
	m := r.lookup(q, rd, f)
	if len(m.ids) == 0 {
		return m, false
	}
	if q.radius > 0 {
		kept := slices.DeleteFunc(slices.Clone(m.ids), func(id gazetteer.ID) bool { return !isPoint(r.g.Place(id).Kind) })
		if len(kept) == 0 {
			if f.radiusOn == nil {
				f.radiusOn = r.g.Place(m.ids[0])
			}
			return m, false
		}
		m.ids = kept
	}
	return m, true
}

// isPoint tells the kinds that are discs around a point: a radius applies
// to them.
func isPoint(k gazetteer.Kind) bool { return k == gazetteer.City || k == gazetteer.District }

// lookup finds the places of one reading.
func (r *Resolver) lookup(q *query, rd reading, f *failures) match {
	c := q.country.Code
	switch rd.form {
	case FormPostcode:
		return match{form: rd.form, ids: r.innermost(r.g.ByPostcode(c, rd.code)), all: true, code: rd.code}
	case FormINSEE:
		if !q.fr {
			f.insee = true
			return match{}
		}
		return match{form: rd.form, ids: r.byCode(c, rd.code, gazetteer.City, gazetteer.District)}
	case FormCode:
		if q.fr {
			return match{form: rd.form, ids: r.byCode(c, rd.code, gazetteer.Department)}
		}
		return match{form: rd.form, ids: r.byCode(c, rd.code, gazetteer.Region, gazetteer.Department)}
	case FormName:
		if m, ok := r.former(q, rd.name); ok {
			return m
		}
		ids, form := r.named(q, rd.name, !rd.exact, f)
		return match{form: form, ids: ids}
	case FormQualified:
		ids, _ := r.named(q, rd.name, true, f)
		quals, postal := r.qualifiers(q, rd.qual)
		return match{form: rd.form, ids: r.qualify(ids, quals, postal)}
	}
	return match{}
}

// byCode returns the first place with the code among kinds.
func (r *Resolver) byCode(country, code string, kinds ...gazetteer.Kind) []gazetteer.ID {
	for _, k := range kinds {
		if id, ok := r.g.ByCode(country, k, code); ok {
			return []gazetteer.ID{id}
		}
	}
	return nil
}

// innermost drops the places that contain another of the list: a postal
// code given both to a city and to one of its arrondissements means the
// arrondissement.
func (r *Resolver) innermost(ids []gazetteer.ID) []gazetteer.ID {
	var out []gazetteer.ID
	for _, a := range ids {
		if !slices.ContainsFunc(ids, func(b gazetteer.ID) bool { return r.above(a, b) }) {
			out = append(out, a)
		}
	}
	return out
}

// named returns the places with a normalised name, or when districts
// allows, the arrondissement an "<city> <n>e" form names.
func (r *Resolver) named(q *query, name string, districts bool, f *failures) ([]gazetteer.ID, Form) {
	if ids := r.g.Lookup(q.country.Code, name); len(ids) > 0 {
		return ids, FormName
	}
	if !q.fr || !districts {
		return nil, FormName
	}
	city, n, ok := parseDistrict(name)
	if !ok {
		return nil, FormName
	}
	cities := slices.DeleteFunc(slices.Clone(r.g.Lookup(q.country.Code, city)), func(id gazetteer.ID) bool {
		return len(r.districts(id)) == 0
	})
	if len(cities) == 0 {
		return nil, FormName
	}
	pick, _, _ := r.choose(cities)
	if d, ok := r.district(pick, n); ok {
		return []gazetteer.ID{d}, FormDistrict
	}
	if f.districts == nil {
		lo, hi := r.districtRange(pick)
		f.districts = &districtHint{city: r.g.Place(pick).Name, min: lo, max: hi}
	}
	return nil, FormName
}

// qualifiers returns the places a qualifier names: in France a postal
// code (then postal is true) or a department number; an ISO 3166-2 code;
// or any place of that name (a department, a region).
func (r *Resolver) qualifiers(q *query, qual string) (ids []gazetteer.ID, postal bool) {
	c := q.country.Code
	n := gazetteer.Normalize(qual)
	if q.fr {
		if code, ok := postcode(n); ok {
			if ids := r.innermost(r.g.ByPostcode(c, code)); len(ids) > 0 {
				return ids, true
			}
		}
		if code, ok := deptCode(n); ok {
			return r.byCode(c, code, gazetteer.Department), false
		}
	}
	if isISOSubdivision(strings.TrimSpace(qual)) {
		if ids := r.byCode(c, strings.ToUpper(strings.TrimSpace(qual)), gazetteer.Region, gazetteer.Department); len(ids) > 0 {
			return ids, false
		}
	}
	return r.g.Lookup(c, n), false
}

// qualify keeps the candidates a qualifier allows: those inside a
// qualifier place, failing any the qualifier place itself ("Vienne (86)"
// is the department, "Mayenne (53)" the city), and for a postal code the
// postal code's places inside a candidate ("Paris 75011" is the 11th
// arrondissement).
func (r *Resolver) qualify(ids, quals []gazetteer.ID, postal bool) []gazetteer.ID {
	var inside, self []gazetteer.ID
	for _, id := range ids {
		if slices.ContainsFunc(quals, func(q gazetteer.ID) bool { return r.above(q, id) }) {
			inside = append(inside, id)
		} else if slices.Contains(quals, id) {
			self = append(self, id)
		}
	}
	if postal {
		for _, q := range quals {
			if slices.ContainsFunc(ids, func(id gazetteer.ID) bool { return r.above(id, q) }) {
				inside = append(inside, q)
			}
		}
	}
	if len(inside) > 0 {
		return inside
	}
	return self
}

// above tells whether a is a strict ancestor of b.
// Inside tells whether zone z lies wholly inside zone outer by the
// gazetteer's hierarchy: each of z's places is under one of outer's (an
// arrondissement under its city, a commune under its department). Radius
// zones are geometry, inside nothing and holding nothing.
func (r *Resolver) Inside(z, outer Zone) bool {
	if z.RadiusKm > 0 || outer.RadiusKm > 0 || len(z.Places) == 0 {
		return false
	}
	for _, x := range z.Places {
		if !slices.ContainsFunc(outer.Places, func(o gazetteer.ID) bool { return r.above(o, x) }) {
			return false
		}
	}
	return true
}

func (r *Resolver) above(a, b gazetteer.ID) bool {
	for p := r.g.Place(b).Parent; p != gazetteer.None; p = r.g.Place(p).Parent {
		if p == a {
			return true
		}
	}
	return false
}

// enclosing returns the place of kind that is id or contains it.
func (r *Resolver) enclosing(id gazetteer.ID, kind gazetteer.Kind) gazetteer.ID {
	for ; id != gazetteer.None; id = r.g.Place(id).Parent {
		if r.g.Place(id).Kind == kind {
			return id
		}
	}
	return gazetteer.None
}

// choose applies the ambiguity rule (see the package doc) to the places
// of one name. It returns the chosen place, the rule, and the others,
// most populous first.
func (r *Resolver) choose(ids []gazetteer.ID) (gazetteer.ID, Rule, []gazetteer.ID) {
	if len(ids) == 1 {
		return ids[0], RuleNone, nil
	}
	sorted := slices.Clone(ids)
	slices.SortStableFunc(sorted, r.larger)
	if i := slices.IndexFunc(sorted, func(id gazetteer.ID) bool { return r.g.Place(id).Kind == gazetteer.Country }); i >= 0 {
		return sorted[i], RuleCountry, slices.Delete(sorted, i, i+1)
	}
	pick, rule := sorted[0], RuleMostPopular
	for {
		next, ok := r.namesake(pick, sorted)
		if !ok {
			break
		}
		pick, rule = next, RuleNamesake
	}
	return pick, rule, slices.DeleteFunc(sorted, func(id gazetteer.ID) bool { return id == pick })
}

// larger orders places by population, most populous first (see weight).
func (r *Resolver) larger(a, b gazetteer.ID) int {
	return cmp.Compare(weight(r.g.Place(b)), weight(r.g.Place(a)))
}

// unknownDensity, in people per km², estimates the population of a region
// or department the gazetteer has none for (outside France): about
// Europe's density.
const unknownDensity = 100

// weight is the population a place is ranked by: its own, or an estimate
// from its area for a region or department whose population is unknown.
// "Delaware" is then the state (about 600,000) rather than the Ohio town
// (41,000), and "London" the city (9 million) rather than the 3 km² City
// of London.
func weight(p *gazetteer.Place) float64 {
	if unknownArea(p) {
		return p.AreaKm2 * unknownDensity
	}
	return float64(p.Population)
}

func unknownArea(p *gazetteer.Place) bool { return p.Population <= 0 && !isPoint(p.Kind) }

// namesake finds, among the places of the same name, the most populous one
// inside pick that holds at least a quarter of its population (any, when
// pick's population is an estimate): the city people mean by "New York",
// "Barcelona" or "Paris" rather than the state, province or department of
// the same name.
func (r *Resolver) namesake(pick gazetteer.ID, sorted []gazetteer.ID) (gazetteer.ID, bool) {
	p := r.g.Place(pick)
	if p.Population <= 0 && !unknownArea(p) {
		return gazetteer.None, false
	}
	for _, id := range sorted {
		if id != pick && r.above(pick, id) && (unknownArea(p) || 4*r.g.Place(id).Population >= p.Population) {
			return id, true
		}
	}
	return gazetteer.None, false
}

// districts are the arrondissements of a city.
func (r *Resolver) districts(city gazetteer.ID) []gazetteer.ID {
	var out []gazetteer.ID
	for _, id := range r.g.Children(city) {
		if r.g.Place(id).Kind == gazetteer.District {
			out = append(out, id)
		}
	}
	return out
}

// districtNumber is the number of an arrondissement: the first number in
// its name ("Paris 11e Arrondissement"), or failing one its rank by code
// among its city's (INSEE codes follow the numbers: 75111, 69381).
func (r *Resolver) districtNumber(id gazetteer.ID, siblings []gazetteer.ID) int {
	name := r.g.Place(id).Name
	i := strings.IndexFunc(name, func(c rune) bool { return c >= '0' && c <= '9' })
	if i >= 0 {
		j := i
		for j < len(name) && name[j] >= '0' && name[j] <= '9' && j-i < 3 {
			j++
		}
		n := 0
		for _, c := range name[i:j] {
			n = n*10 + int(c-'0')
		}
		return n
	}
	rank := 1
	for _, s := range siblings {
		if r.g.Place(s).Code < r.g.Place(id).Code {
			rank++
		}
	}
	return rank
}

// district returns a city's arrondissement number n.
func (r *Resolver) district(city gazetteer.ID, n int) (gazetteer.ID, bool) {
	ds := r.districts(city)
	for _, d := range ds {
		if r.districtNumber(d, ds) == n {
			return d, true
		}
	}
	return gazetteer.None, false
}

// districtRange is the lowest and highest arrondissement numbers of a city.
func (r *Resolver) districtRange(city gazetteer.ID) (lo, hi int) {
	ds := r.districts(city)
	for i, d := range ds {
		n := r.districtNumber(d, ds)
		if i == 0 || n < lo {
			lo = n
		}
		if n > hi {
			hi = n
		}
	}
	return lo, hi
}
