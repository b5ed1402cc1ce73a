package grid

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/maptile"
	"github.com/paulmach/orb/planar"
)

const (
	// keyZoom is the zoom of the quadkeys that order tiles and points: a
	// tile at zoom z spans the keys of its descendants at keyZoom, a
	// contiguous range. 30 leaves room below MaxZoomLimit for run-time
	// splits and fits in 60 bits.
	keyZoom maptile.Zoom = 30
	// maxLat is the latitude limit of Web Mercator tiles.
	maxLat = 85.05112877980659
	// eps is the share of a tile's area short of 1 above which a part of
	// an outline counts as the whole tile, and below which an overshoot
	// counts as none.
	eps = 1e-9
	// minArea is the planar area (deg²) at or below which a clipped
	// polygon is nothing: a ring reduced to the tile's edge (exactly 0, see
	// ringArea), rounding. It is about a hundredth of a square metre, far
	// below any place; a threshold relative to the tile would drop real
	// slivers of coarse tiles.
	minArea = 1e-12
)

// piece is the part of an outline (the Shape and Within of one or more
// zones) in a tile.
type piece struct {
	outline int32
	// shape is the zone's Shape clipped to the tile; nil when the tile
	// lies wholly inside it, so that interior tiles need no clipping.
	shape []part
	// within is the zone's Within clipped to the tile; nil when the zone
	// has none or the tile lies wholly inside it.
	within []part
	// frac is the share of the tile's area in the zone: exact when shape
	// or within is nil, else the smaller of their shares (an upper bound:
	// intersecting two polygons is beyond orb).
	frac float64
	// nested is the zone's Nested: its part adds nothing to the tile's
	// cover, its container's does.
	nested bool
}

// part is one polygon of a piece with its planar area and a bound that
// holds it (its own, or after clipping the clip window's intersection
// with the original's: computing bounds anew took most of the build).
type part struct {
	poly  orb.Polygon
	bound orb.Bound
	area  float64
}

// parts splits mp into parts, leaving out polygons without an area. A
// polygon across the antimeridian (a disc drawn around a place near it
// runs past 180°) is also taken a turn over, so that tiles on both sides
// cover it.
func parts(mp orb.MultiPolygon) []part {
	out := make([]part, 0, len(mp))
	for _, p := range mp {
		if len(p) == 0 || len(p[0]) < 3 {
			continue
		}
		a := polygonArea(p)
		if !(a > 0) || math.IsInf(a, 0) {
			continue
		}
		pt := part{poly: p, bound: ringBound(p[0]), area: a}
		out = append(out, pt)
		if pt.bound.Max[0] > 180 {
			out = append(out, pt.shift(-360))
		}
		if pt.bound.Min[0] < -180 {
			out = append(out, pt.shift(360))
		}
	}
	return out
}

// shift returns p moved by dx degrees of longitude.
func (p part) shift(dx float64) part {
	q := part{poly: p.poly.Clone(), bound: p.bound, area: p.area}
	for _, r := range q.poly {
		for i := range r {
			r[i][0] += dx
		}
	}
	q.bound.Min[0] += dx
	q.bound.Max[0] += dx
	return q
}

// partsBound is the bound of ps; false when ps is empty.
func partsBound(ps []part) (orb.Bound, bool) {
	if len(ps) == 0 {
		return orb.Bound{}, false
	}
	b := ps[0].bound
	for _, p := range ps[1:] {
		b = b.Union(p.bound)
	}
	return b, true
}

// contains reports whether pt lies in one of ps (on an edge counts).
func contains(ps []part, pt orb.Point) bool {
	for _, p := range ps {
		if p.bound.Contains(pt) && planar.PolygonContains(p.poly, pt) {
			return true
		}
	}
	return false
}

// clipPieces appends to dst the parts of ps in bound b that have an area.
func clipPieces(ps []piece, b orb.Bound, dst []piece) []piece {
	barea := (b.Max[0] - b.Min[0]) * (b.Max[1] - b.Min[1])
	for _, p := range ps {
		q := piece{outline: p.outline, nested: p.nested}
		sf, wf := 1.0, 1.0
		if p.shape != nil {
			if q.shape, sf = clipShare(p.shape, b, barea); sf == 0 {
				continue
			}
		}
		if p.within != nil {
			if q.within, wf = clipShare(p.within, b, barea); wf == 0 {
				continue
			}
		}
		q.frac = min(sf, wf)
		dst = append(dst, q)
	}
	return dst
}

// clipShare clips ps to b and returns the result with its share of b's
// planar area barea (clamped to 1: polygons of real data overlap; 0 when
// nothing is left). It returns nil and 1 when one polygon covers b: the
// tile is inside.
// Planar shares in lon/lat are true shares to within the change of scale
// across one tile (0.3% at z10 in France), well within the tolerance.
func clipShare(ps []part, b orb.Bound, barea float64) ([]part, float64) {
	var out []part
	sum := 0.0
	for _, p := range ps {
		if !p.bound.Intersects(b) {
			continue
		}
		if !inside(p.bound, b) {
			// clip uses its input as scratch space, and p.poly is shared
			// with the parent tile and the caller.
			poly := clip.Polygon(b, p.poly.Clone())
			if poly == nil {
				continue
			}
			p = part{poly: poly, bound: clip.Bound(p.bound, b), area: polygonArea(poly)}
		}
		if p.area <= minArea {
			continue
		}
		if p.area >= (1-eps)*barea {
			return nil, 1
		}
		sum += p.area
		out = append(out, p)
	}
	return out, min(1, sum/barea)
}

// ringBound is r's bound; orb's Bound is several times slower.
func ringBound(r orb.Ring) orb.Bound {
	b := orb.Bound{Min: r[0], Max: r[0]}
	for _, p := range r[1:] {
		b.Min[0], b.Max[0] = min(b.Min[0], p[0]), max(b.Max[0], p[0])
		b.Min[1], b.Max[1] = min(b.Min[1], p[1]), max(b.Max[1], p[1])
	}
	return b
}

// inside reports whether a lies within b.
func inside(a, b orb.Bound) bool {
	return a.Min[0] >= b.Min[0] && a.Min[1] >= b.Min[1] && a.Max[0] <= b.Max[0] && a.Max[1] <= b.Max[1]
}

// polygonArea is the planar area of p, holes removed. It is the shoelace
// formula: planar.Area would also compute centroids, on the hot path.
func polygonArea(p orb.Polygon) float64 {
	a := math.Abs(ringArea(p[0]))
	for _, r := range p[1:] {
		a -= math.Abs(ringArea(r))
	}
	return a
}

// ringArea is the signed shoelace area of r, measured from r's first
// point so that a ring reduced to a tile's edge (all its points on one
// line of constant x or y, as clipping leaves them) has an area of
// exactly 0, whatever its position.
func ringArea(r orb.Ring) float64 {
	if len(r) < 3 {
		return 0
	}
	o := r[0]
	s := 0.0
	prev := r[len(r)-1]
	for _, p := range r {
		s += (prev[0] - p[0]) * (prev[1] + p[1] - 2*o[1])
		prev = p
	}
	return s / 2
}

// tileArea is the area on the sphere of the lon/lat rectangle b, m²: the
// value geo.Area gives for b's polygon, in closed form.
func tileArea(b orb.Bound) float64 {
	const rad = math.Pi / 180
	return orb.EarthRadius * orb.EarthRadius * (b.Max[0] - b.Min[0]) * rad *
		(math.Sin(b.Max[1]*rad) - math.Sin(b.Min[1]*rad))
}

// span is the range [lo, hi) of the keys of t's descendants at keyZoom.
func span(t maptile.Tile) (lo, hi uint64) {
	shift := 2 * (keyZoom - t.Z)
	q := quadkey(t)
	return q << shift, (q + 1) << shift
}

// pointKey is the key of the keyZoom tile holding pt.
func pointKey(pt orb.Point) uint64 {
	return quadkey(tileAt(pt, keyZoom))
}

// quadkey is t.Quadkey() (x's bits at even places, y's at odd ones) by
// spreading bits rather than a loop over them: it is on the hot path of
// Population.In.
func quadkey(t maptile.Tile) uint64 {
	return spread(t.X) | spread(t.Y)<<1
}

func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// tileAt is the tile holding pt at zoom z, clamped to the valid tiles
// (maptile.At yields x = 2^z at longitude 180).
func tileAt(pt orb.Point, z maptile.Zoom) maptile.Tile {
	f := maptile.Fraction(pt, z)
	n := float64(uint64(1) << z)
	clamp := func(v float64) uint32 {
		if !(v >= 0) { // also NaN
			return 0
		}
		return uint32(min(math.Floor(v), n-1))
	}
	return maptile.Tile{X: clamp(f[0]), Y: clamp(f[1]), Z: z}
}

// children returns t's children in quadkey order (maptile's Children
// goes round the square instead).
func children(t maptile.Tile) [4]maptile.Tile {
	x, y, z := t.X<<1, t.Y<<1, t.Z+1
	return [4]maptile.Tile{{X: x, Y: y, Z: z}, {X: x + 1, Y: y, Z: z}, {X: x, Y: y + 1, Z: z}, {X: x + 1, Y: y + 1, Z: z}}
}
