package main

import (
	"math"
	"slices"
	"strconv"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// World cities (France's are its communes).
const (
	// cityMinPopulation keeps the towns a prospecting zone is named by
	// and the file compact: about 24,500 rows of cities500.
	cityMinPopulation = 15_000
	// cityDensity, in inhabitants per km², sizes a city's disc from its
	// population: that of Berlin, Munich or Vienna (about 4,000). Denser
	// cities (Barcelona, Milan, New York) get too large a disc, sprawling
	// ones (Rome, Hamburg) too small a one; docs/gazetteer.md has figures.
	cityDensity = 4000
	// cityMinRadiusKm keeps small towns from a disc smaller than a tile.
	cityMinRadiusKm = 1.0
	// parentMaxKm is how far off its country's units (a coastal town
	// beyond the simplified coastline) a city still takes the nearest.
	parentMaxKm = 50
)

// skippedFcodes are the GeoNames populated places that are not towns of
// today: sections of a town (its population is counted in the town's),
// historical, abandoned and destroyed places.
func skippedFcodes() []string { return []string{"PPLX", "PPLH", "PPLQ", "PPLW", "PPLCH"} }

func (b *builder) addWorldCities() {
	for i := range b.src.geonames {
		g := &b.src.geonames[i]
		if g.population < cityMinPopulation || slices.Contains(skippedFcodes(), g.fcode) ||
			slices.Contains(frenchCountryCodes(), g.country) {
			continue
		}
		country := b.byAlpha2[g.country]
		if country == nil {
			b.stats.count("world cities skipped: no country shape for "+g.country, 1)
			continue
		}
		pt := gazetteer.Quantize(g.pt)
		ns := newNames(g.name)
		geonameAliases(g, ns)
		n := b.add(&node{parent: b.cityParent(g.country, country, pt), sortKey: strconv.FormatInt(g.id, 10), place: gazetteer.Place{
			Kind: gazetteer.City, Country: country.place.Country, Code: strconv.FormatInt(g.id, 10), Name: g.name,
			Aliases: ns.list, Population: g.population, Center: pt,
		}})
		setDisc(n, math.Max(float64(g.population)/cityDensity, gazetteer.DiscAreaKm2(cityMinRadiusKm)))
		b.stats.count("world cities", 1)
	}
}

// cityParent is the unit (region, or department of a grouped country)
// whose polygons hold pt, else the nearest within parentMaxKm, else the
// country.
func (b *builder) cityParent(a2 string, country *node, pt orb.Point) *node {
	for _, u := range b.unitsByCountry[a2] {
		if u.shape.Bound().Contains(pt) && planar.MultiPolygonContains(u.shape, pt) {
			b.stats.count("world cities in their unit's polygons", 1)
			return u.node
		}
	}
	var near *node
	nearKm := math.Inf(1)
	for _, u := range b.unitsByCountry[a2] {
		if _, d := nearestOnBoundary(u.shape, pt); d < nearKm {
			near, nearKm = u.node, d
		}
	}
	if near != nil && nearKm <= parentMaxKm {
		b.stats.count("world cities given the nearest unit", 1)
		return near
	}
	b.stats.count("world cities under their country (no unit within 50 km)", 1)
	return country
}
