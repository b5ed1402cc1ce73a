package zones

import (
	"fmt"
	"strings"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// maxAlternatives bounds the alternatives listed for an ambiguous name.
const maxAlternatives = 5

// build turns a match into a Zone.
func (r *Resolver) build(q *query, m match) Zone {
	z := Zone{
		Input:    q.input,
		Country:  q.country.Code,
		Form:     m.form,
		RadiusKm: q.radius,
	}
	if m.all {
		z.Places = m.ids
	} else {
		pick, rule, others := r.choose(m.ids)
		z.Places, z.Rule = []gazetteer.ID{pick}, rule
		z.Alternatives = r.alternatives(others)
	}
	first := r.g.Place(z.Places[0])
	z.Kind, z.Center = first.Kind, first.Center
	z.Label = r.zoneLabel(q, m, z.Places)
	z.Shape = r.shape(q, z.Places)
	if q.radius > 0 || isPoint(z.Kind) {
		z.Within = r.within(q.country.Code, z.Shape.Bound())
	}
	z.Department = r.common(z.Places, gazetteer.Department)
	z.Region = r.common(z.Places, gazetteer.Region)
	return z
}

// zoneLabel is the canonical display of a zone.
func (r *Resolver) zoneLabel(q *query, m match, ids []gazetteer.ID) string {
	var s string
	if m.label != "" {
		s = m.label
	} else if m.form == FormPostcode {
		s = m.code + " " + shortName(r.g.Place(ids[0]))
		if len(ids) > 1 {
			s += fmt.Sprintf(" +%d", len(ids)-1)
		}
	} else {
		s = r.label(ids[0])
	}
	if q.radius > 0 {
		s += " " + formatKm(q.radius) + " km"
	}
	return s
}

// label is the display of a place: French departments, cities and
// arrondissements with their department number ("Rhône (69)", "Lyon (69)",
// "Paris 11e (75)"); elsewhere the name, and for a city whose name is not
// unique in its country, its department's or region's name.
func (r *Resolver) label(id gazetteer.ID) string {
	p := r.g.Place(id)
	name := shortName(p)
	if p.Kind == gazetteer.Country || p.Kind == gazetteer.Region {
		return name
	}
	if p.Country == "FRA" {
		if d := r.enclosing(id, gazetteer.Department); d != gazetteer.None && r.g.Place(d).Code != "" {
			return name + " (" + r.g.Place(d).Code + ")"
		}
		return name
	}
	if !r.sharedByPoints(p) {
		return name
	}
	if area := r.area(id); area != gazetteer.None {
		return name + " (" + r.g.Place(area).Name + ")"
	}
	return name
}

// sharedByPoints tells whether another city or arrondissement of the
// country has the name of p (a city): then its label names its area.
func (r *Resolver) sharedByPoints(p *gazetteer.Place) bool {
	if !isPoint(p.Kind) {
		return false
	}
	for _, id := range r.g.Lookup(p.Country, p.Name) {
		if id != p.ID && isPoint(r.g.Place(id).Kind) {
			return true
		}
	}
	return false
}

// area is the department, or failing one the region, a place lies in.
func (r *Resolver) area(id gazetteer.ID) gazetteer.ID {
	for p := r.g.Place(id).Parent; p != gazetteer.None; p = r.g.Place(p).Parent {
		if k := r.g.Place(p).Kind; k == gazetteer.Department || k == gazetteer.Region {
			return p
		}
	}
	return gazetteer.None
}

// shortName is a place's name, without the " Arrondissement" of the
// official names of arrondissements ("Paris 11e Arrondissement").
func shortName(p *gazetteer.Place) string {
	const suffix = " arrondissement"
	if p.Kind == gazetteer.District && len(p.Name) > len(suffix) && strings.EqualFold(p.Name[len(p.Name)-len(suffix):], suffix) {
		return p.Name[:len(p.Name)-len(suffix)]
	}
	return p.Name
}

// shape is the area of a zone: the user's disc, or the places' shapes.
func (r *Resolver) shape(q *query, ids []gazetteer.ID) orb.MultiPolygon {
	if q.radius > 0 {
		return orb.MultiPolygon{gazetteer.Disc(r.g.Place(ids[0]).Center, q.radius)}
	}
	if len(ids) == 1 {
		return r.g.Shape(ids[0])
	}
	var mp orb.MultiPolygon
	for _, id := range ids {
		mp = append(mp, r.g.Shape(id)...)
	}
	return mp
}

// within gathers the land units of a country whose bounds meet b.
func (r *Resolver) within(country string, b orb.Bound) orb.MultiPolygon {
	var mp orb.MultiPolygon
	for _, id := range r.landUnits(country) {
		if r.g.Bound(id).Intersects(b) {
			mp = append(mp, r.g.Shape(id)...)
		}
	}
	return mp
}

// common is the place of kind enclosing all of ids, None if they differ.
func (r *Resolver) common(ids []gazetteer.ID, kind gazetteer.Kind) gazetteer.ID {
	out := r.enclosing(ids[0], kind)
	for _, id := range ids[1:] {
		if r.enclosing(id, kind) != out {
			return gazetteer.None
		}
	}
	return out
}

// alternatives describes the places an ambiguous name did not choose.
func (r *Resolver) alternatives(others []gazetteer.ID) []Alternative {
	if len(others) > maxAlternatives {
		others = others[:maxAlternatives]
	}
	out := make([]Alternative, 0, len(others))
	for _, id := range others {
		input, _ := r.nameFor(id)
		out = append(out, Alternative{ID: id, Kind: r.g.Place(id).Kind, Label: r.label(id), Input: input})
	}
	return out
}

// nameFor returns a zone string that resolves to the place: its name when
// the ambiguity rule picks it, else its name with a qualifier, else its
// code.
func (r *Resolver) nameFor(id gazetteer.ID) (string, bool) {
	p := r.g.Place(id)
	c := r.g.Place(r.countryOf(id))
	for _, s := range r.namings(p) {
		if got, ok := r.pick(c, s); ok && got == id {
			return s, true
		}
	}
	return "", false
}

// namings are the candidate zone strings for a place, in order of
// preference.
func (r *Resolver) namings(p *gazetteer.Place) []string {
	out := []string{shortName(p)}
	switch {
	case p.Kind == gazetteer.Department && p.Country == "FRA":
		out = append(out, p.Code)
	case isPoint(p.Kind):
		if a := r.area(p.ID); a != gazetteer.None {
			qual := r.g.Place(a).Name
			if p.Country == "FRA" && r.g.Place(a).Kind == gazetteer.Department {
				qual = r.g.Place(a).Code
			}
			out = append(out, shortName(p)+" ("+qual+")")
		}
	case isISOSubdivision(p.Code):
		out = append(out, p.Code)
	}
	return out
}

// pick resolves s without building the zone: the place it names first.
func (r *Resolver) pick(c *gazetteer.Place, s string) (gazetteer.ID, bool) {
	q, err := prepare(c, s)
	if err != nil {
		return gazetteer.None, false
	}
	var f failures
	for _, rd := range q.readings() {
		if m, ok := r.match(q, rd, &f); ok {
			if m.all {
				return m.ids[0], true
			}
			id, _, _ := r.choose(m.ids)
			return id, true
		}
	}
	return gazetteer.None, false
}

// Ambiguity explains, in French and English, which place an ambiguous
// zone was read as and how to name the others; empty when the zone's
// name was not ambiguous.
func (z Zone) Ambiguity() (fr, en string) {
	if len(z.Alternatives) == 0 {
		return "", ""
	}
	in := echo(z.Input)
	switch z.Rule {
	case RuleCountry:
		fr = fmt.Sprintf("« %s » désigne le pays entier %s.", in, z.Label)
		en = fmt.Sprintf("%q is read as the whole country %s.", in, z.Label)
	case RuleNamesake:
		fr = fmt.Sprintf("« %s » désigne %s %s, qui compte au moins le quart des habitants %s du même nom.", in, theFR(z.Kind), z.Label, ofKindFR(z.Alternatives[0].Kind))
		en = fmt.Sprintf("%q is read as the %s %s, home to at least a quarter of the people of the %s of the same name.", in, kindEN(z.Kind, false), z.Label, kindEN(z.Alternatives[0].Kind, false))
	default:
		fr = fmt.Sprintf("« %s » désigne %s %s, le lieu le plus peuplé de ce nom.", in, theFR(z.Kind), z.Label)
		en = fmt.Sprintf("%q is read as the %s %s, the most populous place of that name.", in, kindEN(z.Kind, false), z.Label)
	}
	for _, a := range z.Alternatives {
		if a.Input == "" {
			continue
		}
		fr += fmt.Sprintf(" Pour %s %s, écrivez « %s ».", theFR(a.Kind), a.Label, a.Input)
		en += fmt.Sprintf(" For the %s %s, write %q.", kindEN(a.Kind, false), a.Label, a.Input)
	}
	return fr, en
}

// theFR is "le département", "la région", "l'arrondissement"...
func theFR(k gazetteer.Kind) string {
	switch k {
	case gazetteer.Region, gazetteer.City:
		return "la " + kindFR(k, false)
	case gazetteer.District:
		return "l'" + kindFR(k, false)
	}
	return "le " + kindFR(k, false)
}

// ofKindFR is "du département", "de la région", "de l'arrondissement"...
func ofKindFR(k gazetteer.Kind) string {
	switch k {
	case gazetteer.Region, gazetteer.City:
		return "de la " + kindFR(k, false)
	case gazetteer.District:
		return "de l'" + kindFR(k, false)
	}
	return "du " + kindFR(k, false)
}
