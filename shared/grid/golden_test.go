package grid

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/maptile"
)

// slack is added to the AreaTolerance grids are held to, for measuring:
// Build estimates the outside part of a tile from planar shares in
// lon/lat, the tests measure shapes with geo.Area.
const slack = 0.01

// statedTolerance is the AreaTolerance the golden grids are built with
// (the default, spelt out so that the tests hold if the default moves).
const statedTolerance = 0.20

// checkGrid asserts the rules of the package comment for grid g built
// from zones: tiles sorted and disjoint, each intersecting the zones it
// claims (clipped independently with orb/clip), and n random points of
// each zone inside a base tile and located in their zone. It returns the
// sum of the zones' areas, m².
func checkGrid(t *testing.T, g *Grid, zones []Zone, n int) float64 {
	t.Helper()
	tiles := g.Tiles()
	if len(tiles) != g.Len() || len(tiles) == 0 {
		t.Fatalf("Tiles: %d, Len %d", len(tiles), g.Len())
	}
	set := make(map[maptile.Tile]bool, len(tiles))
	area := 0.0
	for i, tl := range tiles {
		set[tl] = true
		area += geo.Area(tl.Bound())
		if i > 0 {
			plo, phi := span(tiles[i-1])
			lo, _ := span(tl)
			if lo < plo || lo < phi {
				t.Fatalf("tiles %v then %v: not in quadkey order or overlapping", tiles[i-1], tl)
			}
		}
		zs := g.ZonesOf(tl)
		if len(zs) == 0 {
			t.Fatalf("tile %v belongs to no zone", tl)
		}
		for _, z := range zs {
			if !intersects(tl, zones[z]) {
				t.Fatalf("tile %v claims zone %d %q but lies outside it", tl, z, zones[z].Label)
			}
		}
	}
	if math.Abs(area/1e6-g.AreaKm2()) > 1e-6*area/1e6 {
		t.Errorf("AreaKm2 %.3f, tiles measure %.3f", g.AreaKm2(), area/1e6)
	}

	rng := rand.New(rand.NewPCG(7, 8))
	real := 0.0
	for zi, z := range zones {
		real += geo.Area(z.Shape)
		for _, pt := range pointsIn(rng, z.Shape, n) {
			if len(z.Within) > 0 && !contains(parts(z.Within), pt) {
				continue
			}
			if !covered(set, pt, g.Options()) {
				t.Fatalf("zone %q: point %v in no base tile", z.Label, pt)
			}
			found := false
			for _, l := range g.Locate(pt) {
				found = found || l == zi
			}
			if !found {
				t.Fatalf("zone %q: Locate(%v) = %v", z.Label, pt, g.Locate(pt))
			}
		}
	}
	return real
}

// checkArea asserts that the base tiles of g, which cover zones of area
// real (m²; zones without Within and not overlapping), measure at least
// that and at most 1 + AreaTolerance times it.
func checkArea(t *testing.T, g *Grid, real float64) {
	t.Helper()
	area := 0.0
	for _, tl := range g.Tiles() {
		area += geo.Area(tl.Bound())
	}
	tol := g.Options().AreaTolerance + slack
	if ratio := area / real; ratio < 1-0.005 || (ratio > 1+tol && !math.IsInf(tol, 1)) {
		t.Errorf("tile area %s, zones %s: ratio %.3f outside [1, %.2f]", km2(area), km2(real), ratio, 1+tol)
	}
}

// intersects reports whether tile tl and zone z share some area, by
// clipping z's full outlines to the tile.
func intersects(tl maptile.Tile, z Zone) bool {
	in := func(mp orb.MultiPolygon) bool {
		// Shapes may run past the antimeridian: try the tile a turn over.
		for _, dx := range []float64{0, 360, -360} {
			b := tl.Bound()
			b.Min[0] += dx
			b.Max[0] += dx
			for _, p := range mp {
				if p.Bound().Intersects(b) && geo.Area(clip.Polygon(b, p.Clone())) > 0 {
					return true
				}
			}
		}
		return false
	}
	return in(z.Shape) && (len(z.Within) == 0 || in(z.Within))
}

// covered reports whether pt lies in one of the tiles of set.
func covered(set map[maptile.Tile]bool, pt orb.Point, opt Options) bool {
	pt[0] = math.Remainder(pt[0], 360)
	for z := opt.MinZoom; z <= opt.MaxZoom; z++ {
		if set[maptile.At(pt, z)] {
			return true
		}
	}
	return false
}

// TestGolden builds grids for real shapes (Natural Earth, simplified; see
// testdata/gen.go) with and without the synthetic population of France,
// checks them with checkGrid and pins their tile counts and areas, so that
// a change of behaviour shows. The pins allow 2% of tiles and 1% of area:
// floating-point results may differ a little between platforms (fused
// multiply-adds on arm64) and move a split or two.
func TestGolden(t *testing.T) {
	pts, pops := syntheticFrance(t)
	pop := NewPopulation(pts, pops)
	deps := loadShapes(t, "fr-departments.geojson.gz")
	byCode := map[string]Zone{}
	var all []Zone
	for _, d := range deps {
		z := Zone{Label: d.Name + " (" + d.Code + ")", Shape: d.Shape}
		byCode[d.Code] = z
		all = append(all, z)
	}
	country := Zone{Label: "France", Shape: loadShapes(t, "fr-country.geojson.gz")[0].Shape}
	lyon := Zone{Label: "Lyon", Shape: disc(orb.Point{4.8357, 45.764}, 5)}

	tests := []struct {
		name    string
		zones   []Zone
		pop     *Population
		points  int // random points per zone
		tiles   int
		areaKm2 float64
	}{
		{"Rhône", []Zone{byCode["69"]}, nil, 3000, 78, 3929},
		{"Rhône/population", []Zone{byCode["69"]}, pop, 3000, 167, 3931},
		{"Finistère", []Zone{byCode["29"]}, nil, 3000, 118, 8092},
		{"Finistère/population", []Zone{byCode["29"]}, pop, 3000, 130, 8092},
		{"Paris", []Zone{byCode["75"]}, nil, 3000, 63, 153},
		{"Paris/population", []Zone{byCode["75"]}, pop, 3000, 169, 154},
		{"Corse-du-Sud", []Zone{byCode["2A"]}, pop, 3000, 86, 4770},
		{"Lyon disc/population", []Zone{lyon}, pop, 3000, 51, 93},
		{"France", []Zone{country}, nil, 3000, 972, 741056},
		{"France/population", []Zone{country}, pop, 3000, 3774, 733338},
		{"departments/population", all, pop, 100, 4430, 684258},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Build(tt.zones, tt.pop, Options{AreaTolerance: statedTolerance})
			if err != nil {
				t.Fatal(err)
			}
			real := checkGrid(t, g, tt.zones, tt.points)
			checkArea(t, g, real)
			zooms := map[maptile.Zoom]int{}
			for _, tl := range g.Tiles() {
				zooms[tl.Z]++
			}
			t.Logf("%d tiles, %.0f km² for %s (ratio %.3f), by zoom %v", g.Len(), g.AreaKm2(), km2(real), g.AreaKm2()*1e6/real, zooms)
			if d := math.Abs(float64(g.Len() - tt.tiles)); d > 0.02*float64(tt.tiles) {
				t.Errorf("%d tiles, want %d ± 2%%", g.Len(), tt.tiles)
			}
			if d := math.Abs(g.AreaKm2() - tt.areaKm2); d > 0.01*tt.areaKm2 {
				t.Errorf("%.0f km², want %.0f ± 1%%", g.AreaKm2(), tt.areaKm2)
			}
		})
	}
}
