package main

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// partition shares mp out among sites: site i gets the part of mp nearer
// to it than to any other site (its Voronoi cell clipped to mp), in
// distances on the ground (longitudes scaled by the cosine of the mean
// latitude). The cells cannot overlap, and together they cover mp up to
// the quantisation of the new vertices (a sliver under a metre wide,
// where CommuneAt answers the city). A cell may be empty (nil) when its
// site lies outside mp and nearer sites take all of it. Sites must be
// distinct.
//
// Why: the outlines of 2018 have no municipal arrondissements, and their
// discs, cut from the city's area by population, overlap one another and
// spill over the city's border. A partition of the city's own outline is
// exact at the city's border and wrong only between arrondissements,
// where a row's postal code settles it (zones.Resolver.Admits).
func partition(mp orb.MultiPolygon, sites []orb.Point) []orb.MultiPolygon {
	lat := 0.0
	for _, s := range sites {
		lat += s[1]
	}
	kx := math.Cos(lat / float64(max(len(sites), 1)) * math.Pi / 180)
	cells := make([]orb.MultiPolygon, len(sites))
	for i, si := range sites {
		cell := mp
		for j, sj := range sites {
			if i == j {
				continue
			}
			// Nearer to si than to sj: 2·S(x)·(S(sj)-S(si)) ≤ |S(sj)|² - |S(si)|²,
			// S scaling longitudes by kx; as a half-plane a·x ≤ b in degrees.
			dx, dy := kx*(sj[0]-si[0]), sj[1]-si[1]
			a := orb.Point{2 * kx * dx, 2 * dy}
			b := (kx*sj[0])*(kx*sj[0]) + sj[1]*sj[1] - (kx*si[0])*(kx*si[0]) - si[1]*si[1]
			cell = clipHalfPlane(cell, a, b)
			if len(cell) == 0 {
				break
			}
		}
		cells[i] = quantizeShape(cell)
	}
	return cells
}

// quantizeShape quantises mp's vertices once the clipping is done (cells
// clipped from quantised vertices would each round their shared borders
// their own way), dropping repeated vertices and rings that collapse.
func quantizeShape(mp orb.MultiPolygon) orb.MultiPolygon {
	return mapRings(mp, func(r orb.Ring) orb.Ring {
		var q orb.Ring
		for _, p := range r {
			if p = gazetteer.Quantize(p); len(q) == 0 || q[len(q)-1] != p {
				q = append(q, p)
			}
		}
		return q
	})
}

// clipHalfPlane keeps the part of mp where a·x ≤ b (Sutherland-Hodgman,
// ring by ring: the clip region is convex, so a ring's clipped part is
// right in area and containment, joined along the line where the
// half-plane cuts it in pieces).
func clipHalfPlane(mp orb.MultiPolygon, a orb.Point, b float64) orb.MultiPolygon {
	in := func(p orb.Point) bool { return a[0]*p[0]+a[1]*p[1] <= b }
	cut := func(p, q orb.Point) orb.Point {
		fp, fq := a[0]*p[0]+a[1]*p[1]-b, a[0]*q[0]+a[1]*q[1]-b
		t := fp / (fp - fq)
		return orb.Point{p[0] + t*(q[0]-p[0]), p[1] + t*(q[1]-p[1])}
	}
	return mapRings(mp, func(r orb.Ring) orb.Ring {
		pts := []orb.Point(r)
		if len(pts) > 1 && pts[0] == pts[len(pts)-1] {
			pts = pts[:len(pts)-1]
		}
		var res orb.Ring
		for i, q := range pts {
			p := pts[(i+len(pts)-1)%len(pts)]
			switch pin, qin := in(p), in(q); {
			case pin && qin:
				res = append(res, q)
			case pin && !qin:
				res = append(res, cut(p, q))
			case !pin && qin:
				res = append(res, cut(p, q), q)
			}
		}
		if len(res) > 0 {
			res = append(res, res[0])
		}
		return res
	})
}

// mapRings replaces every ring of mp by f's, dropping a ring f returns
// collapsed (fewer than four points, or no area) and a polygon whose outer
// ring collapses, holes and all.
func mapRings(mp orb.MultiPolygon, f func(orb.Ring) orb.Ring) orb.MultiPolygon {
	var out orb.MultiPolygon
	for _, poly := range mp {
		var np orb.Polygon
		for k, r := range poly {
			if nr := f(r); len(nr) >= 4 && planar.Area(nr) != 0 {
				np = append(np, nr)
			} else if k == 0 {
				break
			}
		}
		if len(np) > 0 {
			out = append(out, np)
		}
	}
	return out
}
