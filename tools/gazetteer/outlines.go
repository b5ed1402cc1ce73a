package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/planar"
)

// communeTolerance is the Douglas-Peucker tolerance of commune outlines, in
// degrees (about 55 m of latitude, 38 m of longitude in France): a commune
// is often under 2 km across, and a zone's rows are kept or dropped by
// which side of its border they lie, so the outline must stay within a
// street's width of the real one. Neighbours are simplified apart, so
// their borders may leave slivers of that width between or across them;
// CommuneAt gives a point in a gap to the nearest outline.
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
	for _, code := range codes {
		c := fr.communes[code]
		raw := outlines[c]
		if raw == nil {
			b.stats.count("communes without an outline (kept as discs)", 1)
			b.stats.detail("communes without an outline (kept as discs)", code+" "+c.place.Name)
			continue
		}
		mp := simplifyShape(raw, communeTolerance)
		if len(mp) == 0 {
			// A commune smaller than the tolerance keeps its detail.
			mp = simplifyShape(raw, communeTolerance/10)
		}
		if len(mp) == 0 {
			b.stats.count("communes whose outline collapses (kept as discs)", 1)
			continue
		}
		c.shape = mp
		c.place.Radius = 0
		c.place.AreaKm2 = areaKm2(mp)
		b.stats.count("communes given their outline (IGN Admin Express COG 2018)", 1)
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
