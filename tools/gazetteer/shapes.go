package main

import (
	"math"
	"slices"
	"sort"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/planar"
	"github.com/paulmach/orb/simplify"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// tolerance is the Douglas-Peucker tolerance of every outline, in degrees
// (about 550 m of latitude, 390 m of longitude in France): below the
// 1-40 km tiles the grid covers zones with, and about the accuracy of
// Natural Earth's 1:10m boundaries themselves.
const tolerance = 0.005

// simplifyShape simplifies mp with Douglas-Peucker and quantises it as the
// codec stores it; rings that collapse (an islet narrower than the
// tolerance, a sliver of a hole) are dropped. mp is not modified.
func simplifyShape(mp orb.MultiPolygon, tol float64) orb.MultiPolygon {
	var out orb.MultiPolygon
	for _, poly := range mp {
		if len(poly) == 0 {
			continue
		}
		outer := simplifyRing(poly[0], tol)
		if outer == nil {
			continue
		}
		p := orb.Polygon{outer}
		for _, hole := range poly[1:] {
			if h := simplifyRing(hole, tol); h != nil {
				p = append(p, h)
			}
		}
		out = append(out, p)
	}
	return out
}

func simplifyRing(r orb.Ring, tol float64) orb.Ring {
	if len(r) < 4 {
		return nil
	}
	ls := simplify.DouglasPeucker(tol).LineString(slices.Clone(orb.LineString(r)))
	out := make(orb.Ring, 0, len(ls)+1)
	for _, p := range ls {
		q := gazetteer.Quantize(p)
		if len(out) == 0 || out[len(out)-1] != q {
			out = append(out, q)
		}
	}
	if out[0] != out[len(out)-1] {
		out = append(out, out[0])
	}
	// A ring needs three distinct corners to enclose anything.
	if len(out) < 4 || planar.Area(out) == 0 {
		return nil
	}
	return out
}

// areaKm2 is the area of mp on the sphere.
func areaKm2(mp orb.MultiPolygon) float64 { return geo.Area(mp) / 1e6 }

// interiorPoint returns a point well inside the largest polygon of mp: the
// middle of the widest inside stretch of a few horizontal lines across it.
func interiorPoint(mp orb.MultiPolygon) orb.Point {
	if len(mp) == 0 {
		return orb.Point{}
	}
	best := mp[0]
	for _, p := range mp[1:] {
		if geo.Area(p) > geo.Area(best) {
			best = p
		}
	}
	b := best.Bound()
	var pt orb.Point
	width := -1.0
	for k := 1; k <= 7; k++ {
		y := b.Min[1] + (b.Max[1]-b.Min[1])*float64(k)/8
		xs := crossings(best, y)
		for i := 0; i+1 < len(xs); i += 2 {
			if w := xs[i+1] - xs[i]; w > width {
				width, pt = w, orb.Point{(xs[i] + xs[i+1]) / 2, y}
			}
		}
	}
	pt = gazetteer.Quantize(pt)
	if width < 0 || !planar.PolygonContains(best, pt) {
		return best[0][0]
	}
	return pt
}

// interiorPointWithin is like interiorPoint, but returns the widest
// stretch's middle that also lies in within (a commune's centre must lie
// in its department's coarser outline too); false when no candidate does.
func interiorPointWithin(mp, within orb.MultiPolygon) (orb.Point, bool) {
	type cand struct {
		pt    orb.Point
		width float64
	}
	var cands []cand
	for _, poly := range mp {
		b := poly.Bound()
		for k := 1; k <= 15; k++ {
			y := b.Min[1] + (b.Max[1]-b.Min[1])*float64(k)/16
			xs := crossings(poly, y)
			for i := 0; i+1 < len(xs); i += 2 {
				// Widths in degrees of longitude: the polygons of one
				// commune share a latitude.
				cands = append(cands, cand{gazetteer.Quantize(orb.Point{(xs[i] + xs[i+1]) / 2, y}), xs[i+1] - xs[i]})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].width > cands[j].width })
	for _, c := range cands {
		if planar.MultiPolygonContains(mp, c.pt) && planar.MultiPolygonContains(within, c.pt) {
			return c.pt, true
		}
	}
	return orb.Point{}, false
}

// crossings are the sorted longitudes where the rings of p cross the
// parallel y.
func crossings(p orb.Polygon, y float64) []float64 {
	var xs []float64
	for _, r := range p {
		for i := 0; i+1 < len(r); i++ {
			a, b := r[i], r[i+1]
			if (a[1] > y) != (b[1] > y) {
				xs = append(xs, a[0]+(y-a[1])*(b[0]-a[0])/(b[1]-a[1]))
			}
		}
	}
	sort.Float64s(xs)
	return xs
}

// kmPerDegree converts small offsets near pt to kilometres (equirectangular).
func kmPerDegree(pt orb.Point) (lon, lat float64) {
	return 111.32 * math.Cos(pt[1]*math.Pi/180), 110.57
}

// nearestOnBoundary returns the point of mp's rings nearest to pt and its
// distance in km.
func nearestOnBoundary(mp orb.MultiPolygon, pt orb.Point) (orb.Point, float64) {
	kx, ky := kmPerDegree(pt)
	best, bestD := orb.Point{}, math.Inf(1)
	for _, poly := range mp {
		for _, r := range poly {
			for i := 0; i+1 < len(r); i++ {
				q := nearestOnSegment(r[i], r[i+1], pt, kx, ky)
				if d := math.Hypot((q[0]-pt[0])*kx, (q[1]-pt[1])*ky); d < bestD {
					best, bestD = q, d
				}
			}
		}
	}
	return best, bestD
}

func nearestOnSegment(a, b, p orb.Point, kx, ky float64) orb.Point {
	dx, dy := (b[0]-a[0])*kx, (b[1]-a[1])*ky
	l2 := dx*dx + dy*dy
	if l2 == 0 {
		return a
	}
	t := ((p[0]-a[0])*kx*dx + (p[1]-a[1])*ky*dy) / l2
	t = math.Max(0, math.Min(1, t))
	return orb.Point{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1])}
}

// moveInside moves pt, which lies outside mp, just across mp's nearest edge
// when that edge is within maxKm: the point a coastline generalised by the
// simplification (or by Natural Earth's scale) left at sea. It reports
// false when the edge is farther or no small step lands inside.
func moveInside(mp orb.MultiPolygon, pt orb.Point, maxKm float64) (orb.Point, bool) {
	q, d := nearestOnBoundary(mp, pt)
	if d > maxKm {
		return pt, false
	}
	kx, ky := kmPerDegree(pt)
	ux, uy := (q[0]-pt[0])*kx, (q[1]-pt[1])*ky
	if n := math.Hypot(ux, uy); n > 0 {
		ux, uy = ux/n, uy/n
	}
	for _, step := range []float64{0.02, 0.05, 0.1, 0.2, 0.4} {
		c := gazetteer.Quantize(orb.Point{q[0] + ux*step/kx, q[1] + uy*step/ky})
		if planar.MultiPolygonContains(mp, c) {
			return c, true
		}
	}
	return pt, false
}
