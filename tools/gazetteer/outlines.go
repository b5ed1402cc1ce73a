package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/planar"
	"github.com/paulmach/orb/simplify"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// communeTolerance is the Douglas-Peucker tolerance of commune outlines, in
// degrees (about 55 m of latitude, 38 m of longitude in France): a commune
// is often under 2 km across, and a zone's rows are kept or dropped by
// which side of its border they lie, so the outline must stay within a
// street's width of the real one. Borders are simplified once for both
// neighbours (simplifyTopology), so that no sliver opens between them.
const communeTolerance = 0.0009

// communeOutlines gives every French commune it finds in dir (IGN Admin
// Express COG 2018, one gzipped GeoJSON FeatureCollection per department,
// properties code and nom) its real outline in place of its disc. The
// outlines are of 2018's communes: a commune merged since is the union of
// its former communes' outlines, found by the former codes
// (anciensCodes, communes déléguées and associées). Paris, Lyon and
// Marseille are single communes there: the city takes the outline, and
// its arrondissements stay discs that CommuneAt shares out by nearest
// centre, a partition of the city that cannot overlap.
//
// A missing dir keeps every commune a disc, and says so: a clone without
// the data still builds.
func (b *builder) communeOutlines(fr *france, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.geojson.gz"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		b.stats.note(fmt.Sprintf("no commune outlines in %s: French communes stay discs", dir))
		return nil
	}
	current := map[string]*node{} // 2018 code -> today's commune
	for code, c := range fr.communes {
		current[code] = c
	}
	for code, olds := range fr.formerCodes {
		for _, old := range olds {
			if current[old] == nil {
				current[old] = fr.communes[code]
			}
		}
	}
	for _, c := range b.src.communes {
		for _, old := range c.AnciensCodes {
			if current[old] == nil && fr.communes[c.Code] != nil {
				current[old] = fr.communes[c.Code]
			}
		}
	}
	outlines := map[*node]orb.MultiPolygon{}
	sort.Strings(files) // the union's polygon order must not depend on the file system
	for _, f := range files {
		fc, err := readOutlines(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for _, feat := range fc.Features {
			code, _ := feat.Properties["code"].(string)
			c := current[code]
			if c == nil {
				b.stats.count("commune outlines of 2018 with no current commune (dropped)", 1)
				b.stats.detail("commune outlines of 2018 with no current commune (dropped)", code)
				continue
			}
			switch g := feat.Geometry.(type) {
			case orb.Polygon:
				outlines[c] = append(outlines[c], g)
			case orb.MultiPolygon:
				outlines[c] = append(outlines[c], g...)
			default:
				return fmt.Errorf("%s: commune %s: geometry %s, want a polygon", f, code, feat.Geometry.GeoJSONType())
			}
		}
	}
	var codes []string
	for code := range fr.communes {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	simplified := simplifyTopology(outlines, communeTolerance)
	for _, code := range codes {
		c := fr.communes[code]
		raw := outlines[c]
		if raw == nil {
			b.stats.count("communes without an outline (kept as discs)", 1)
			b.stats.detail("communes without an outline (kept as discs)", code+" "+c.place.Name)
			continue
		}
		mp := simplified[c]
		if len(mp) == 0 {
			b.stats.count("communes whose outline collapses (kept as discs)", 1)
			continue
		}
		c.shape = mp
		c.place.Radius = 0
		c.place.AreaKm2 = areaKm2(mp)
		b.stats.count("communes given their outline (IGN Admin Express COG 2018)", 1)
		old := c.place.Center
		if !planar.MultiPolygonContains(mp, c.place.Center) {
			// The centre is where the simulated world and the zones' labels
			// put the commune: it must lie in it, and in its department's
			// (coarser) outline, which the department's places are looked
			// up by.
			pt, ok := interiorPointWithin(mp, c.parent.polygons())
			if !ok {
				// On the department's border: the outline is the truth, the
				// department's shape a 1:10m generalisation.
				pt = interiorPoint(mp)
				b.stats.count("communes whose centre moved inside their outline, outside the department's generalised one", 1)
				b.stats.detail("communes whose centre moved inside their outline, outside the department's generalised one", code+" "+c.place.Name)
			}
			c.place.Center = pt
			b.stats.count("communes whose centre moved inside their outline", 1)
			b.stats.detail("communes whose centre moved inside their outline", fmt.Sprintf("%s %s %v -> %v %s", code, c.place.Name, old, pt, c.located))
		}
	}
	return nil
}

func readOutlines(path string) (*geojson.FeatureCollection, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var fc geojson.FeatureCollection
	if err := json.NewDecoder(z).Decode(&fc); err != nil {
		return nil, err
	}
	return &fc, nil
}

// simplifyTopology simplifies the outlines with Douglas-Peucker border by
// border: a vertex where the set of outlines sharing it changes (a point
// where three communes meet, the end of a stretch of coast) is kept, and
// each stretch between two kept vertices is simplified alone. A border
// shared by two communes is the same run of vertices in both (the source
// is topologically simplified), so both get the same simplified border
// and no gap or overlap opens between them. A ring that shares nothing
// keeps its lowest vertex, which an enclave and the hole around it share.
// Rings that collapse are dropped, as simplifyShape does.
func simplifyTopology(outlines map[*node]orb.MultiPolygon, tol float64) map[*node]orb.MultiPolygon {
	type key [2]int64
	q := func(p orb.Point) key { return key{int64(math.Round(p[0] * 1e5)), int64(math.Round(p[1] * 1e5))} }
	// owners hashes, per vertex, the polygons whose rings hold it: two
	// vertices have equal hashes when the same outlines share them.
	owners := map[key]uint64{}
	poly := uint64(0)
	for _, mp := range outlines {
		for _, p := range mp {
			poly++
			h := poly * 0x9E3779B97F4A7C15
			seen := map[key]bool{}
			for _, r := range p {
				for _, pt := range r {
					if k := q(pt); !seen[k] {
						seen[k] = true
						owners[k] += h
					}
				}
			}
		}
	}
	owner := func(pt orb.Point) uint64 { return owners[q(pt)] }
	out := make(map[*node]orb.MultiPolygon, len(outlines))
	for n, mp := range outlines {
		out[n] = mapRings(mp, func(r orb.Ring) orb.Ring { return simplifyArcs(r, tol, owner) })
	}
	return out
}

// simplifyArcs simplifies ring r stretch by stretch between the vertices
// where owner changes, and quantises it; nil when it collapses.
func simplifyArcs(r orb.Ring, tol float64, owner func(orb.Point) uint64) orb.Ring {
	pts := []orb.Point(r)
	if len(pts) > 1 && pts[0] == pts[len(pts)-1] {
		pts = pts[:len(pts)-1]
	}
	n := len(pts)
	if n < 3 {
		return nil
	}
	var pins []int
	for i := range pts {
		o := owner(pts[i])
		if o != owner(pts[(i+n-1)%n]) || o != owner(pts[(i+1)%n]) {
			pins = append(pins, i)
		}
	}
	if len(pins) == 0 {
		low := 0
		for i, p := range pts {
			if p[0] < pts[low][0] || p[0] == pts[low][0] && p[1] < pts[low][1] {
				low = i
			}
		}
		pins = []int{low}
	}
	var out orb.Ring
	for k, a := range pins {
		b := pins[(k+1)%len(pins)]
		if b <= a {
			b += n
		}
		run := make(orb.LineString, 0, b-a+1)
		for i := a; i <= b; i++ {
			run = append(run, pts[i%n])
		}
		run = simplify.DouglasPeucker(tol).LineString(run)
		for _, p := range run[:len(run)-1] {
			qp := gazetteer.Quantize(p)
			if len(out) == 0 || out[len(out)-1] != qp {
				out = append(out, qp)
			}
		}
	}
	if len(out) > 1 && out[0] == out[len(out)-1] {
		out = out[:len(out)-1]
	}
	out = append(out, out[0])
	if len(out) < 4 || planar.Area(out) == 0 {
		return nil
	}
	return out
}
