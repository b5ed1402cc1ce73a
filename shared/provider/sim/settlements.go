package sim

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// kmPerDegree is the length of a degree of latitude (and of longitude at
// the equator): positions are drawn on the local tangent plane, which is
// exact enough within a town.
const kmPerDegree = 111.32

// settlement is a populated disc of the gazetteer where businesses are
// drawn: a city, or the arrondissement of a city that has them (Paris,
// Lyon, Marseille), whose smaller discs place the city's people better
// than the city's one disc would.
type settlement struct {
	id     gazetteer.ID
	kind   gazetteer.Kind
	center orb.Point
	km     float64 // radius
	pop    float64
	bound  orb.Bound
	// country is the alpha-3 code, code the gazetteer's code of the place.
	country, code string
}

// bucketDeg is the side of the buckets of the settlement index, in
// degrees: about 25 km, the size of the largest tiles a scrape searches.
const bucketDeg = 0.25

// settlementIndex finds the settlements near a rectangle. It is two flat
// slices, built in a few tens of milliseconds for the whole gazetteer.
type settlementIndex struct {
	all []settlement // by gazetteer ID
	// cells lists each settlement under every bucket its disc's bounding
	// box overlaps, sorted by bucket then settlement.
	cells []cellEntry
}

type cellEntry struct {
	bucket uint64
	n      int32 // index in all
}

// newSettlementIndex indexes every city and district of g that has people
// and a disc, except the cities that have districts.
func newSettlementIndex(g *gazetteer.Gazetteer) *settlementIndex {
	var ids []gazetteer.ID
	for id := range gazetteer.ID(g.Len()) {
		if isSettlement(g, id) {
			ids = append(ids, id)
		}
	}
	// Most discs overlap one bucket, some two or four.
	ix := &settlementIndex{all: make([]settlement, 0, len(ids)), cells: make([]cellEntry, 0, len(ids)*5/4)}
	for _, id := range ids {
		p := g.Place(id)
		km := p.Radius
		if km <= 0 {
			// An outline (a French commune): places are drawn in the disc
			// of its area around its centre, which lies inside it, and
			// kept where the commune contains them (inSettlement).
			km = math.Sqrt(p.AreaKm2 / math.Pi)
		}
		s := settlement{id: id, kind: p.Kind, center: p.Center, km: km, pop: float64(p.Population),
			bound: discBound(p.Center, km), country: p.Country, code: p.Code}
		n := int32(len(ix.all))
		ix.all = append(ix.all, s)
		forBuckets(s.bound, func(b uint64) { ix.cells = append(ix.cells, cellEntry{b, n}) })
	}
	slices.SortFunc(ix.cells, func(a, b cellEntry) int {
		if c := cmp.Compare(a.bucket, b.bucket); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	return ix
}

func isSettlement(g *gazetteer.Gazetteer, id gazetteer.ID) bool {
	p := g.Place(id)
	if (p.Kind != gazetteer.City && p.Kind != gazetteer.District) || p.Population <= 0 || (p.Radius <= 0 && p.AreaKm2 <= 0) || p.Code == "" {
		return false
	}
	return p.Kind == gazetteer.District || !hasDistricts(g, id)
}

func hasDistricts(g *gazetteer.Gazetteer, id gazetteer.ID) bool {
	for _, k := range g.Children(id) {
		if g.Place(k).Kind == gazetteer.District {
			return true
		}
	}
	return false
}

// discBound is the bounding box of a disc on the tangent plane.
func discBound(c orb.Point, km float64) orb.Bound {
	dLat := km / kmPerDegree
	dLon := km / (kmPerDegree * math.Max(math.Cos(c[1]*math.Pi/180), 0.01))
	return orb.Bound{Min: orb.Point{c[0] - dLon, c[1] - dLat}, Max: orb.Point{c[0] + dLon, c[1] + dLat}}
}

// forBuckets calls f with every bucket b overlaps.
func forBuckets(b orb.Bound, f func(uint64)) {
	x0, x1 := int32(math.Floor(b.Min[0]/bucketDeg)), int32(math.Floor(b.Max[0]/bucketDeg))
	y0, y1 := int32(math.Floor(b.Min[1]/bucketDeg)), int32(math.Floor(b.Max[1]/bucketDeg))
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			f(uint64(uint32(x))<<32 | uint64(uint32(y)))
		}
	}
}

// near returns the settlements whose disc's box overlaps b, each once, in
// index order (so that everything built from them is deterministic).
func (ix *settlementIndex) near(b orb.Bound) []*settlement {
	var ns []int32
	buckets := (b.Max[0]-b.Min[0])/bucketDeg*(b.Max[1]-b.Min[1])/bucketDeg + 1
	if buckets > float64(len(ix.cells)) { // a huge rectangle: scan all
		for n := range ix.all {
			ns = append(ns, int32(n))
		}
	} else {
		forBuckets(b, func(k uint64) {
			i, _ := slices.BinarySearchFunc(ix.cells, k, func(e cellEntry, k uint64) int { return cmp.Compare(e.bucket, k) })
			for ; i < len(ix.cells) && ix.cells[i].bucket == k; i++ {
				ns = append(ns, ix.cells[i].n)
			}
		})
		slices.Sort(ns)
		ns = slices.Compact(ns)
	}
	out := make([]*settlement, 0, len(ns))
	for _, n := range ns {
		if s := &ix.all[n]; s.bound.Intersects(b) {
			out = append(out, s)
		}
	}
	return out
}

// lookup finds a settlement by its token parts: country and kind letter
// plus code, in lower case ("fra", "d69381").
func (ix *settlementIndex) lookup(g *gazetteer.Gazetteer, country, code string) *settlement {
	if len(code) < 2 {
		return nil
	}
	kind := gazetteer.City
	switch code[0] {
	case 'c':
	case 'd':
		kind = gazetteer.District
	default:
		return nil
	}
	id, ok := g.ByCode(strings.ToUpper(country), kind, strings.ToUpper(code[1:]))
	if !ok {
		return nil
	}
	n, ok := slices.BinarySearchFunc(ix.all, id, func(s settlement, id gazetteer.ID) int { return cmp.Compare(s.id, id) })
	if !ok {
		return nil
	}
	return &ix.all[n]
}

// tokenCode is the settlement's code in place tokens: kind letter, then
// the gazetteer code in lower case.
func (s *settlement) tokenCode() string {
	if s.kind == gazetteer.District {
		return "d" + strings.ToLower(s.code)
	}
	return "c" + strings.ToLower(s.code)
}
