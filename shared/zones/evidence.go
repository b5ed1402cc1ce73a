package zones

import (
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// Admits tells whether a place at address may be kept in zone z on the
// evidence of its address, whatever its coordinates say: false when the
// address's postal code and locality name a commune (or arrondissement)
// outside the zone, or, for a department or region, a postal code whose
// communes all lie outside it. An address that names nothing the
// gazetteer knows (no postal code, a code of a country whose codes it
// lacks) is no evidence, and is admitted: the zone's shape decides.
//
// A radius zone ("Lyon 15km") is pure geometry: every address is admitted.
//
// Why: a commune's shape is at best a simplified outline, and a map
// provider places a business at its entrance, its car park or a
// geocoder's guess; the address is what the business says of itself, and
// what the user checks a row against.
func (r *Resolver) Admits(z Zone, address string) bool {
	if z.RadiusKm > 0 || len(z.Places) == 0 {
		return true
	}
	named := r.AddressPlaces(z.Country, address)
	if len(named) == 0 {
		return true
	}
	for _, x := range named {
		for _, zp := range z.Places {
			if x == zp || r.above(zp, x) {
				return true
			}
		}
	}
	return false
}

// AddressPlaces returns the communes and arrondissements of country an
// address names, innermost: those of its postal code whose name is its
// locality (an arrondissement when its city is named: "75011 Paris" is
// Paris 11e), else every place of the postal code (a delivery-office name,
// a hamlet, a Cedex). Nil when the address has no postal code the
// gazetteer knows.
func (r *Resolver) AddressPlaces(country, address string) []gazetteer.ID {
	pc, locality, ok := SplitAddress(address)
	if !ok {
		return nil
	}
	cands := r.g.ByPostcode(country, pc)
	if len(cands) == 0 {
		return nil
	}
	norm := gazetteer.Normalize(locality)
	var named []gazetteer.ID
	for _, id := range cands {
		p := r.g.Place(id)
		if r.namedAs(p, norm) || p.Kind == gazetteer.District && r.namedAs(r.g.Place(p.Parent), norm) {
			named = append(named, id)
		}
	}
	if len(named) == 0 {
		named = slices.Clone(cands)
	}
	return r.innermostOf(named)
}

// innermostOf drops the places of ids that contain another of them (Paris
// beside Paris 11e).
func (r *Resolver) innermostOf(ids []gazetteer.ID) []gazetteer.ID {
	out := ids[:0:0]
	for _, a := range ids {
		outer := false
		for _, b := range ids {
			if a != b && r.above(a, b) {
				outer = true
				break
			}
		}
		if !outer {
			out = append(out, a)
		}
	}
	return out
}

// namedAs tells whether the place's name or an alias normalises to norm.
func (r *Resolver) namedAs(p *gazetteer.Place, norm string) bool {
	if norm == "" {
		return false
	}
	if gazetteer.Normalize(p.Name) == norm {
		return true
	}
	for _, a := range p.Aliases {
		if gazetteer.Normalize(a) == norm {
			return true
		}
	}
	return false
}

// SplitAddress reads the postal code and locality of an address written
// the European way, "<street>, <5-digit code> <locality>[, <country>]"
// (France, Germany, Spain, Italy): "12 rue Émile Zola, 69100
// Villeurbanne", "Gartenstraße 56, 63755 Alzenau". A trailing Cedex
// ("69003 Lyon Cedex 03") is not part of the locality. ok is false when no
// part of the address starts with a five-digit code.
func SplitAddress(address string) (postcode, locality string, ok bool) {
	parts := strings.Split(address, ",")
	for i := len(parts) - 1; i >= 0; i-- {
		f := strings.Fields(parts[i])
		if len(f) == 0 || len(f[0]) != 5 || !isDigits(f[0]) {
			continue
		}
		loc := f[1:]
		for j, w := range loc {
			if strings.EqualFold(w, "cedex") {
				loc = loc[:j]
				break
			}
		}
		return f[0], strings.Join(loc, " "), true
	}
	return "", "", false
}
