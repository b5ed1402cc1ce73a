package scrape

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/planar"

	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/pricing"
)

func newPlanner(t testing.TB) *Service {
	t.Helper()
	s := New(Deps{Gazetteer: data.Load})
	if err := s.Warm(); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPlan(t testing.TB, s *Service, country string, mode pricing.Mode, zones ...string) *Plan {
	t.Helper()
	p, err := s.plan(Settings{Queries: []string{"plombier"}, Country: country, Zones: zones, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Valid() {
		t.Fatalf("%s %q: %+v", country, zones, p.Problems)
	}
	return p
}

// TestGoldenGrids pins the grids of known zones over the real gazetteer and
// population: the tile count (within 3%, so that a regenerated gazetteer
// or another platform's floating point does not break it, while a change
// of the grid's rules does), the shape's area against the official one
// (the gazetteer's outline is simplified), the tiles' area against the
// shape's (edge tiles overshoot by at most the grid's default tolerance,
// half the zone's area, plus 1% for the build's planar estimate), and that
// no tile lies wholly outside the zone and every point of the zone lies in
// a tile.
func TestGoldenGrids(t *testing.T) {
	s := newPlanner(t)
	tests := []struct {
		zone        string
		tiles       int
		officialKm2 float64 // 0: not compared (France's outline includes overseas departments)
		shapeTol    float64 // relative difference allowed between the outline's area and the official one
	}{
		{"Rhône", 126, 3249, 0.06},
		{"Finistère", 66, 6733, 0.06},
		{"Corse-du-Sud", 34, 4014, 0.06},
		{"Bretagne", 234, 27208, 0.06},
		// French communes have IGN's outlines (docs/gazetteer.md),
		// simplified to about 100 m.
		{"Paris", 153, 105.4, 0.02},
		{"Lyon", 38, 47.87, 0.02},
		{"France", 4401, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			p := mustPlan(t, s, "FRA", pricing.Ultra, tt.zone)
			z := p.Zones[0]
			shapeKm2 := geo.Area(z.Shape) / 1e6
			n := p.Grid.Len()
			t.Logf("%s: %d tiles, %.0f km² of tiles for a shape of %.0f km² (%.2f)", tt.zone, n, p.Grid.AreaKm2(), shapeKm2, p.Grid.AreaKm2()/shapeKm2)
			if math.Abs(float64(n-tt.tiles)) > 0.03*float64(tt.tiles) {
				t.Errorf("%d tiles, want %d ± 3%%", n, tt.tiles)
			}
			if tt.officialKm2 > 0 && math.Abs(shapeKm2-tt.officialKm2) > tt.shapeTol*tt.officialKm2 {
				t.Errorf("shape of %.0f km², officially %.0f km²", shapeKm2, tt.officialKm2)
			}
			if f := p.Grid.AreaKm2() / shapeKm2; f > 1.51 || (z.Within == nil && f < 1) {
				t.Errorf("tiles cover %.2f times the shape's area", f)
			}
			// Every tile of the smaller zones, 400 spread over France's
			// (clipping a country's outline to each of its tiles is slow).
			tiles := p.Grid.Tiles()
			step := max(1, len(tiles)/400)
			for i := 0; i < len(tiles); i += step {
				tl := tiles[i]
				if len(clip.MultiPolygon(tl.Bound(), z.Shape.Clone())) == 0 {
					t.Fatalf("tile %v lies wholly outside %s", tl, tt.zone)
				}
			}
			// Points drawn in the outline's polygons (one picked at random,
			// then a point in its bound), so that France's overseas parts do
			// not make the draw miss almost always.
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			for hits := 0; hits < 500; {
				poly := z.Shape[rng.IntN(len(z.Shape))]
				b := poly.Bound()
				pt := orb.Point{b.Min[0] + rng.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rng.Float64()*(b.Max[1]-b.Min[1])}
				if !planar.PolygonContains(poly, pt) || (z.Within != nil && !planar.MultiPolygonContains(z.Within, pt)) {
					continue
				}
				hits++
				if len(p.Grid.Locate(pt)) == 0 {
					t.Fatalf("point %v of %s is in no tile", pt, tt.zone)
				}
			}
		})
	}
}

// TestBoundingBoxNotBilled: a coastal department's tiles cover far less
// than its bounding box (the sea and Brittany's other departments).
func TestBoundingBoxNotBilled(t *testing.T) {
	s := newPlanner(t)
	p := mustPlan(t, s, "FRA", pricing.Fast, "Finistère")
	b := p.Zones[0].Shape.Bound()
	boxKm2 := geo.Area(orb.MultiPolygon{b.ToPolygon()}) / 1e6
	if p.Grid.AreaKm2() > 0.75*boxKm2 {
		t.Errorf("Finistère's tiles cover %.0f km², its bounding box %.0f km²", p.Grid.AreaKm2(), boxKm2)
	}
	byNumber := mustPlan(t, s, "FRA", pricing.Fast, "29")
	if byNumber.Grid.Len() != p.Grid.Len() {
		t.Errorf("Finistère by name %d tiles, by number %d", p.Grid.Len(), byNumber.Grid.Len())
	}
}

// BenchmarkPlanFrance resolves and grids all of France in ultra mode, the
// issue's target: under 50 ms (the country's population index is built
// once per process, before the timer; BenchmarkPopulationIndex measures it).
func BenchmarkPlanFrance(b *testing.B) {
	s := newPlanner(b)
	mustPlan(b, s, "FRA", pricing.Ultra, "France")
	b.ReportAllocs()
	var tiles int
	for b.Loop() {
		tiles = mustPlan(b, s, "FRA", pricing.Ultra, "France").Grid.Len()
	}
	b.ReportMetric(float64(tiles), "tiles")
}

// BenchmarkPlanFranceRegions is the same over the 13 metropolitan regions
// named one by one: more, overlapping outlines to clip.
func BenchmarkPlanFranceRegions(b *testing.B) {
	regions := []string{"Auvergne-Rhône-Alpes", "Bourgogne-Franche-Comté", "Bretagne", "Centre-Val de Loire", "Corse",
		"Grand Est", "Hauts-de-France", "Île-de-France", "Normandie", "Nouvelle-Aquitaine", "Occitanie", "Pays de la Loire",
		"Provence-Alpes-Côte d'Azur"}
	s := newPlanner(b)
	mustPlan(b, s, "FRA", pricing.Ultra, regions...)
	b.ReportAllocs()
	var tiles int
	for b.Loop() {
		tiles = mustPlan(b, s, "FRA", pricing.Ultra, regions...).Grid.Len()
	}
	b.ReportMetric(float64(tiles), "tiles")
}

// BenchmarkPlanCity resolves and grids one city.
func BenchmarkPlanCity(b *testing.B) {
	s := newPlanner(b)
	mustPlan(b, s, "FRA", pricing.Fast, "Lyon")
	b.ReportAllocs()
	for b.Loop() {
		mustPlan(b, s, "FRA", pricing.Fast, "Lyon")
	}
}

// BenchmarkPopulationIndex builds France's population index from the
// gazetteer, as the first grid of a process does.
func BenchmarkPopulationIndex(b *testing.B) {
	s := newPlanner(b)
	gz, _ := s.geo()
	b.ReportAllocs()
	for b.Loop() {
		s.mu.Lock()
		delete(s.pops, "FRA")
		s.mu.Unlock()
		s.population(gz.g, "FRA")
	}
}
