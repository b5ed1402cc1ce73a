package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// node is a place while the gazetteer is assembled; IDs are given once
// every place exists (flatten), in the order the codec compresses best:
// by kind, then by country and code.
type node struct {
	place  gazetteer.Place
	parent *node
	// shape holds the polygons of a place that has its own (quantised);
	// parts instead lists the places whose polygons make it up (a region
	// of its departments, a country of its regions).
	shape orb.MultiPolygon
	parts []*node
	// located, for a French commune, is how its centre was derived.
	located method
	sortKey string
}

// builder accumulates the places and what the report says about them.
type builder struct {
	src            *sources
	countries      []*node
	regions        []*node
	departments    []*node
	cities         []*node
	districts      []*node
	byAlpha2       map[string]*node
	units          []*unit
	unitsByCountry map[string][]*unit
	fr             *france
	stats          *stats
	// communesDir holds the commune outlines (communeOutlines); empty or
	// missing, French communes stay discs.
	communesDir string
}

func newBuilder(src *sources) *builder {
	return &builder{src: src, byAlpha2: map[string]*node{}, unitsByCountry: map[string][]*unit{}, stats: newStats()}
}

func (b *builder) add(n *node) *node {
	switch n.place.Kind {
	case gazetteer.Country:
		b.countries = append(b.countries, n)
	case gazetteer.Region:
		b.regions = append(b.regions, n)
	case gazetteer.Department:
		b.departments = append(b.departments, n)
	case gazetteer.City:
		b.cities = append(b.cities, n)
	case gazetteer.District:
		b.districts = append(b.districts, n)
	}
	return n
}

// polygons returns the polygons of n: its own, or its parts' in order.
func (n *node) polygons() orb.MultiPolygon {
	if n.parts == nil {
		return n.shape
	}
	var mp orb.MultiPolygon
	for _, p := range n.parts {
		mp = append(mp, p.polygons()...)
	}
	return mp
}

// flatten numbers the places (by kind; within a kind by sortKey) and
// returns them with their shapes, as gazetteer.New and Encode take them.
func (b *builder) flatten() ([]gazetteer.Place, func(gazetteer.ID) orb.MultiPolygon, func(gazetteer.ID) []gazetteer.ID) {
	var all []*node
	for _, kind := range [][]*node{b.countries, b.regions, b.departments, b.cities, b.districts} {
		// The cities sort under their parents, whose IDs exist by then:
		// neighbours in the file are neighbours on the ground, which keeps
		// the delta-encoded centres short.
		for _, n := range kind {
			if n.parent != nil && n.place.Kind == gazetteer.City && n.place.Country != "FRA" {
				n.sortKey = fmt.Sprintf("%s/%08d/%s", n.place.Country, n.parent.place.ID, n.sortKey)
			}
		}
		slices.SortStableFunc(kind, func(a, c *node) int { return strings.Compare(a.sortKey, c.sortKey) })
		for _, n := range kind {
			n.place.ID = gazetteer.ID(len(all))
			all = append(all, n)
		}
	}
	places := make([]gazetteer.Place, len(all))
	shapes := make(map[gazetteer.ID]orb.MultiPolygon)
	parts := make(map[gazetteer.ID][]gazetteer.ID)
	for i, n := range all {
		n.place.Parent = gazetteer.None
		if n.parent != nil {
			n.place.Parent = n.parent.place.ID
		}
		places[i] = n.place
		if n.place.Radius > 0 {
			continue
		}
		// Areas are measured last: islands join departments late.
		shapes[n.place.ID] = n.polygons()
		n.place.AreaKm2 = areaKm2(shapes[n.place.ID])
		places[i].AreaKm2 = n.place.AreaKm2
		for _, p := range flatParts(n) {
			parts[n.place.ID] = append(parts[n.place.ID], p.place.ID)
		}
		if n.parts == nil {
			for _, poly := range n.shape {
				for _, r := range poly {
					b.stats.count("outline vertices stored (places with polygons of their own)", len(r))
				}
			}
		}
	}
	return places, func(id gazetteer.ID) orb.MultiPolygon { return shapes[id] },
		func(id gazetteer.ID) []gazetteer.ID { return parts[id] }
}

// flatParts are the places with polygons of their own that make up n's
// shape (the codec stores one level of references).
func flatParts(n *node) []*node {
	var out []*node
	for _, p := range n.parts {
		if p.parts == nil {
			out = append(out, p)
		} else {
			out = append(out, flatParts(p)...)
		}
	}
	return out
}

// names is a place's name list under construction: a name is kept when its
// normalised form is new, so that aliases differing only by case or
// accents (which match anyway) do not take space.
type names struct {
	seen map[string]bool
	list []string
}

func newNames(name string) *names {
	n := &names{seen: map[string]bool{}}
	n.seen[gazetteer.Normalize(name)] = true
	return n
}

func (n *names) add(ss ...string) {
	for _, s := range ss {
		s = strings.TrimSpace(s)
		norm := gazetteer.Normalize(s)
		if norm == "" || n.seen[norm] {
			continue
		}
		n.seen[norm] = true
		n.list = append(n.list, s)
	}
}

// latin tells whether every letter of s is of the Latin script: the names
// users of the service type. Other scripts would double the name index for
// no query.
func latin(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if !unicode.Is(unicode.Latin, r) {
				return false
			}
			letters++
		}
	}
	return letters > 0
}

// partsCenter is the centre of a place made of parts: of its largest
// group of touching parts (mainland France rather than French Guiana, the
// contiguous United States rather than Alaska), the centre of the part
// nearest to the group's area-weighted mean centre. It lies inside that
// part, and near the middle of what people picture.
func partsCenter(n *node) orb.Point {
	parts := flatParts(n)
	group := make([]int, len(parts)) // union-find over touching bounds
	for i := range group {
		group[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if group[i] != i {
			group[i] = find(group[i])
		}
		return group[i]
	}
	bounds := make([]orb.Bound, len(parts))
	areas := make([]float64, len(parts))
	for i, p := range parts {
		bounds[i], areas[i] = p.shape.Bound(), areaKm2(p.shape)
	}
	for i := range parts {
		for j := i + 1; j < len(parts); j++ {
			if bounds[i].Intersects(bounds[j]) {
				group[find(i)] = find(j)
			}
		}
	}
	total := map[int]float64{}
	best := -1
	for i := range parts {
		g := find(i)
		total[g] += areas[i]
		if best < 0 || total[g] > total[best] || (total[g] == total[best] && g < best) {
			best = g
		}
	}
	var mean orb.Point
	for i, p := range parts {
		if find(i) == find(best) {
			mean[0] += p.place.Center[0] * areas[i] / total[find(best)]
			mean[1] += p.place.Center[1] * areas[i] / total[find(best)]
		}
	}
	center, dist := orb.Point{}, math.Inf(1)
	for i, p := range parts {
		if d := math.Hypot(p.place.Center[0]-mean[0], p.place.Center[1]-mean[1]); find(i) == find(best) && d < dist {
			center, dist = p.place.Center, d
		}
	}
	return center
}
