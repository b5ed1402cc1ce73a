package grid

import (
	"math"
	"slices"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
)

// Population is an index of population points (town centres with their
// populations) that tells how many people a tile holds. Build it once per
// country and reuse it: it is immutable and safe for concurrent use.
//
// The points are sorted by the quadkey of their tile at zoom 30, with
// prefix sums of the populations. A tile's descendants are a contiguous
// range of those keys, so In is two binary searches.
type Population struct {
	keys []uint64
	sums []int64 // sums[i]: people of the points before keys[i]; one more than keys
}

// NewPopulation indexes points[i] with pops[i] people. Points with a NaN
// coordinate and non-positive populations are left out; points beyond
// Web Mercator's latitudes count in the edge tiles. It panics when the
// slices differ in length, as a programming error.
func NewPopulation(points []orb.Point, pops []int64) *Population {
	if len(points) != len(pops) {
		panic("grid: NewPopulation: points and pops differ in length")
	}
	type entry struct {
		key uint64
		n   int64
	}
	es := make([]entry, 0, len(points))
	for i, pt := range points {
		if pops[i] <= 0 || math.IsNaN(pt[0]) || math.IsNaN(pt[1]) {
			continue
		}
		es = append(es, entry{pointKey(pt), pops[i]})
	}
	// Points with equal keys may end in any order: In never splits them.
	slices.SortFunc(es, func(a, b entry) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	p := &Population{keys: make([]uint64, len(es)), sums: make([]int64, len(es)+1)}
	for i, e := range es {
		p.keys[i] = e.key
		p.sums[i+1] = p.sums[i] + e.n
	}
	return p
}

// Len is the number of indexed points.
func (p *Population) Len() int {
	if p == nil {
		return 0
	}
	return len(p.keys)
}

// Total is the population of all indexed points.
func (p *Population) Total() int64 {
	if p == nil {
		return 0
	}
	return p.sums[len(p.sums)-1]
}

// In returns the population of the points in t (0 for a nil index).
func (p *Population) In(t maptile.Tile) int64 {
	if p == nil || t.Z > keyZoom {
		return 0
	}
	lo, hi := span(t)
	i, _ := slices.BinarySearch(p.keys, lo)
	j, _ := slices.BinarySearch(p.keys[i:], hi)
	return p.sums[i+j] - p.sums[i]
}
