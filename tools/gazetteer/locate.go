package main

import (
	"fmt"
	"slices"
	"sort"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// method is how a French commune's centre was derived, in the order they
// are tried (docs/gazetteer.md gives the counts).
type method int

const (
	unlocated method = iota
	byGeonames
	byGeonamesMoved
	byGeonamesIsland
	byGeonamesName
	byAcheminement
	byFormer
	byPostcode
	byEPCI
	byUnitLabel
	byArrondissement
	byDepartment
	byDepartmentLabel
)

func (m method) String() string {
	return [...]string{
		unlocated:         "unlocated",
		byGeonames:        "GeoNames point of its INSEE code",
		byGeonamesMoved:   "GeoNames point of its INSEE code, moved inside its department's outline (under 3 km away)",
		byGeonamesIsland:  "GeoNames point of its INSEE code, on an island the outline lacks (a disc joins the department)",
		byGeonamesName:    "GeoNames point of its name in its department or territory (or the territory's capital)",
		byAcheminement:    "point of its delivery-office town (libelleAcheminement), same department",
		byFormer:          "mean GeoNames point of its former communes (déléguées, associées)",
		byPostcode:        "mean GeoNames point of the communes sharing a postal code",
		byEPCI:            "mean GeoNames point of the communes of its intercommunality (EPCI)",
		byUnitLabel:       "label point of the Natural Earth unit bearing its name",
		byArrondissement:  "point of its arrondissement's chef-lieu",
		byDepartment:      "point of its department's chef-lieu",
		byDepartmentLabel: "label point of its department",
	}[m]
}

const (
	// moveMaxKm is how far outside its department's outline a GeoNames
	// point may lie and be moved just inside. Natural Earth's 1:10m
	// boundaries are themselves off by up to 2-3 km around Paris (Clichy,
	// Vincennes and Boulogne-Billancourt fall in Paris, Dinard across the
	// Rance), and the simplification cuts capes off.
	moveMaxKm = 3
	// islandMaxKm is how far off its department's coast a GeoNames point
	// lying at sea (in no Natural Earth unit) may be: an island the 1:10m
	// outline lacks or the simplification dropped (Groix, the atolls of
	// French Polynesia, where any distance goes). A point beyond, or inside
	// another unit farther than moveMaxKm, is taken as wrong.
	islandMaxKm = 100
)

// locateCommunes gives every commune a centre inside its department's
// polygons, trying the methods in order. The later methods lean only on
// GeoNames points, so the result does not depend on the order communes
// are visited in.
func (b *builder) locateCommunes(fr *france) error {
	fr.formerCodes = map[string][]string{}
	fr.arrondissement = map[string]string{}
	for _, c := range b.src.communes {
		switch c.Type {
		case "commune-deleguee", "commune-associee":
			if c.ChefLieu != c.Code {
				fr.formerCodes[c.ChefLieu] = append(fr.formerCodes[c.ChefLieu], c.Code)
			}
		case "commune-actuelle":
			fr.arrondissement[c.Code] = c.Arrondissement
		}
	}
	fr.epciMembers = map[string][]string{}
	for _, e := range b.src.epci {
		for _, m := range e.Membres {
			for _, o := range e.Membres {
				fr.epciMembers[m.Code] = append(fr.epciMembers[m.Code], o.Code)
			}
		}
	}
	byDept := fr.communesByDept()
	var codes []string
	for code := range byDept {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	byName := b.geonamesByName()
	for _, dc := range codes {
		for _, c := range byDept[dc] {
			b.locateByGeonames(fr, c)
		}
	}
	for _, dc := range codes {
		for _, c := range byDept[dc] {
			if c.located == unlocated {
				b.locateByName(fr, c, byName, len(byDept[dc]))
			}
		}
	}
	for _, dc := range codes {
		for _, c := range byDept[dc] {
			if c.located == unlocated {
				b.locateNearby(fr, c, byDept[dc])
			}
		}
	}
	for _, dc := range codes {
		for _, c := range byDept[dc] {
			if c.located == unlocated {
				b.locateBySeat(fr, c)
			}
			if c.located == unlocated {
				return fmt.Errorf("commune %s %s: no location", c.place.Code, c.place.Name)
			}
			b.stats.count(fmt.Sprintf("communes located, method %2d: %s", c.located, c.located), 1)
			if c.located >= byUnitLabel || c.located == byGeonamesName || c.located == byGeonamesIsland {
				b.stats.detail(c.located.String(), c.place.Code+" "+c.place.Name)
			}
		}
	}
	return nil
}

// accept sets c's centre to pt if pt lies in its department. A GeoNames
// point (geo) just off the outline is moved in, one at sea off it is kept
// (an island, whose disc joinIslands adds to the department).
func (b *builder) accept(fr *france, c *node, pt orb.Point, m method, geo bool) bool {
	pt = gazetteer.Quantize(pt)
	shape := c.parent.polygons()
	if planar.MultiPolygonContains(shape, pt) {
		c.place.Center, c.located = pt, m
		return true
	}
	if !geo {
		return false
	}
	if in, ok := moveInside(shape, pt, moveMaxKm); ok {
		c.place.Center, c.located = in, byGeonamesMoved
		return true
	}
	if b.atSea(pt) {
		_, d := nearestOnBoundary(shape, pt)
		if d <= islandMaxKm || collectivities()[c.parent.place.Code] != "" {
			c.place.Center, c.located = pt, byGeonamesIsland
			return true
		}
	}
	return false
}

// atSea tells whether pt lies in no Natural Earth unit of any country.
func (b *builder) atSea(pt orb.Point) bool {
	for _, u := range b.units {
		if u.bound.Contains(pt) && planar.MultiPolygonContains(u.shape, pt) {
			return false
		}
	}
	return true
}

func (b *builder) locateByGeonames(fr *france, c *node) {
	if g := fr.geo[c.place.Code]; g != nil {
		b.accept(fr, c, g.pt, byGeonames, true)
	}
}

// geonamesByName indexes the GeoNames rows of French communes by
// department (GeoNames admin2; the territory's code for the collectivities
// GeoNames gives no codes) and normalised name.
func (b *builder) geonamesByName() map[[2]string][]*geoname {
	out := map[[2]string][]*geoname{}
	for i := range b.src.geonames {
		g := &b.src.geonames[i]
		if !slices.Contains(frenchCountryCodes(), g.country) {
			continue
		}
		dept := g.admin2
		if g.country != "FR" && len(dept) != 3 {
			dept = g.country
		}
		k := [2]string{dept, gazetteer.Normalize(g.name)}
		out[k] = append(out[k], g)
	}
	return out
}

// locateByName takes the GeoNames row bearing the commune's name in its
// department when it is the only one (GeoNames files Tassin-la-Demi-Lune
// under Lyon's code), or in a collectivity GeoNames gives no codes to, the
// row of its name or the capital of a one-commune territory.
func (b *builder) locateByName(fr *france, c *node, byName map[[2]string][]*geoname, communes int) {
	dept := c.parent.place.Code
	if cc := collectivities()[dept]; cc != "" {
		dept = cc
	}
	if rows := byName[[2]string{dept, gazetteer.Normalize(c.place.Name)}]; len(rows) == 1 && b.accept(fr, c, rows[0].pt, byGeonamesName, true) {
		return
	}
	if communes != 1 || dept == c.parent.place.Code {
		return
	}
	for i := range b.src.geonames {
		if g := &b.src.geonames[i]; g.country == dept && g.fcode == "PPLC" && b.accept(fr, c, g.pt, byGeonamesName, true) {
			return
		}
	}
}

// locateNearby tries the methods that lean on neighbours located by
// GeoNames: the delivery-office town, the former communes, the postal
// code, the intercommunality.
func (b *builder) locateNearby(fr *france, c *node, dept []*node) {
	geoLocated := func(n *node) bool { return n.located >= byGeonames && n.located <= byGeonamesName }
	for _, lib := range b.src.acheminement[c.place.Code] {
		norm := gazetteer.Normalize(lib)
		for _, o := range dept {
			if o != c && geoLocated(o) && gazetteer.Normalize(o.place.Name) == norm && b.accept(fr, c, o.place.Center, byAcheminement, false) {
				return
			}
		}
	}
	var pts []orb.Point
	for _, code := range fr.formerCodes[c.place.Code] {
		if g := fr.geo[code]; g != nil {
			pts = append(pts, g.pt)
		}
	}
	if len(pts) > 0 && b.accept(fr, c, meanPoint(pts), byFormer, false) {
		return
	}
	pts = pts[:0]
	for _, o := range dept {
		if o == c || !geoLocated(o) {
			continue
		}
		for _, pc := range c.place.Postcodes {
			if slices.Contains(o.place.Postcodes, pc) {
				pts = append(pts, o.place.Center)
				break
			}
		}
	}
	if len(pts) > 0 && b.accept(fr, c, meanPoint(pts), byPostcode, false) {
		return
	}
	pts = pts[:0]
	for _, code := range fr.epciMembers[c.place.Code] {
		if o := fr.communes[code]; o != nil && o != c && geoLocated(o) {
			pts = append(pts, o.place.Center)
		}
	}
	if len(pts) > 0 {
		b.accept(fr, c, meanPoint(pts), byEPCI, false)
	}
}

// locateBySeat falls back on the Natural Earth unit of the commune's name,
// then on the seat of its arrondissement or department, then on the
// department's label point.
func (b *builder) locateBySeat(fr *france, c *node) {
	for _, u := range fr.units[c.parent.place.Code] {
		if gazetteer.Normalize(u.str("name")) == gazetteer.Normalize(c.place.Name) && b.accept(fr, c, u.label, byUnitLabel, false) {
			return
		}
	}
	seat := func(code string) *node {
		if s := fr.communes[code]; s != nil && s.located != unlocated && s != c {
			return s
		}
		return nil
	}
	for _, a := range b.src.arrondissmts {
		if a.Code == fr.arrondissement[c.place.Code] {
			if s := seat(a.ChefLieu); s != nil && b.accept(fr, c, s.place.Center, byArrondissement, false) {
				return
			}
		}
	}
	for _, d := range b.src.departments {
		if d.Code == c.parent.place.Code {
			if s := seat(d.ChefLieu); s != nil && b.accept(fr, c, s.place.Center, byDepartment, false) {
				return
			}
		}
	}
	b.accept(fr, c, c.parent.place.Center, byDepartmentLabel, false)
}

// joinIslands adds to its department (to the Natural Earth unit nearest
// to it) the disc of each commune located on an island the outline lacks,
// so that the department contains the commune and covers its island.
// It runs once the communes have their radii.
func (b *builder) joinIslands(fr *france) {
	var codes []string
	for code, c := range fr.communes {
		if c.located == byGeonamesIsland {
			codes = append(codes, code)
		}
	}
	sort.Strings(codes)
	for _, code := range codes {
		c := fr.communes[code]
		var near *unit
		nearKm := -1.0
		for _, u := range fr.units[c.parent.place.Code] {
			if _, d := nearestOnBoundary(u.shape, c.place.Center); near == nil || d < nearKm {
				near, nearKm = u, d
			}
		}
		disc := orb.Polygon{quantRing(gazetteer.Disc(c.place.Center, c.place.Radius)[0])}
		near.shape = append(slices.Clip(near.shape), disc)
		near.bound = near.shape.Bound()
		near.node.shape = near.shape
	}
}

func quantRing(r orb.Ring) orb.Ring {
	out := make(orb.Ring, len(r))
	for i, p := range r {
		out[i] = gazetteer.Quantize(p)
	}
	return out
}
