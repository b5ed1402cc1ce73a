package grid

import (
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
)

// benchInput is what the benchmarks build grids from: the synthetic
// population of France (35,000 points) and the test shapes.
type benchInput struct {
	pop         *Population
	departments []Zone
	rhone       Zone
	country     Zone
}

func newBenchInput(b *testing.B) benchInput {
	pts, pops := syntheticFrance(b)
	in := benchInput{pop: NewPopulation(pts, pops)}
	for _, d := range loadShapes(b, "fr-departments.geojson.gz") {
		z := Zone{Label: d.Code, Shape: d.Shape}
		in.departments = append(in.departments, z)
		if d.Code == "69" {
			in.rhone = z
		}
	}
	in.country = Zone{Label: "France", Shape: loadShapes(b, "fr-country.geojson.gz")[0].Shape}
	return in
}

// densify returns mp with n-1 points added evenly along every edge: the
// same outline with n times the vertices, as more detailed data would be.
func densify(mp orb.MultiPolygon, n int) orb.MultiPolygon {
	out := make(orb.MultiPolygon, 0, len(mp))
	for _, p := range mp {
		var poly orb.Polygon
		for _, r := range p {
			ring := make(orb.Ring, 0, len(r)*n)
			for i := 0; i+1 < len(r); i++ {
				for k := range n {
					f := float64(k) / float64(n)
					ring = append(ring, orb.Point{r[i][0] + f*(r[i+1][0]-r[i][0]), r[i][1] + f*(r[i+1][1]-r[i][1])})
				}
			}
			poly = append(poly, append(ring, r[len(r)-1]))
		}
		out = append(out, poly)
	}
	return out
}

func vertices(zones []Zone) int {
	n := 0
	for _, z := range zones {
		for _, p := range z.Shape {
			for _, r := range p {
				n += len(r)
			}
		}
	}
	return n
}

// BenchmarkBuild builds the grid of one city (a 5 km disc), one
// department, France as one shape and France as its 101 departments,
// with the population index, then without it, and with departments of
// four times the vertices.
func BenchmarkBuild(b *testing.B) {
	in := newBenchInput(b)
	var detailed []Zone
	for _, z := range in.departments {
		detailed = append(detailed, Zone{Label: z.Label, Shape: densify(z.Shape, 4)})
	}
	cases := []struct {
		name  string
		zones []Zone
		pop   *Population
	}{
		{"city", []Zone{{Label: "Lyon", Shape: disc(lyonCentre, 5)}}, in.pop},
		{"department", []Zone{in.rhone}, in.pop},
		{"country", []Zone{in.country}, in.pop},
		{"departments", in.departments, in.pop},
		{"country/no-population", []Zone{in.country}, nil},
		{"departments/no-population", in.departments, nil},
		{"departments/4x-vertices", detailed, in.pop},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var g *Grid
			for b.Loop() {
				var err error
				if g, err = Build(c.zones, c.pop, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(g.Len()), "tiles")
			b.ReportMetric(float64(vertices(c.zones)), "vertices")
		})
	}
}

// BenchmarkNewPopulation indexes 35,000 commune-like points.
func BenchmarkNewPopulation(b *testing.B) {
	pts, pops := syntheticFrance(b)
	b.ReportAllocs()
	for b.Loop() {
		NewPopulation(pts, pops)
	}
}

// BenchmarkLocate places random points of France in the grid of its
// departments, as the scrape does for every place it finds.
func BenchmarkLocate(b *testing.B) {
	in := newBenchInput(b)
	g, err := Build(in.departments, in.pop, Options{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	pts := pointsIn(rng, in.country.Shape, 4096)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.Locate(pts[i%len(pts)])
		i++
	}
}

// BenchmarkChildren splits edge tiles of the departments' grid, as the
// scrape does for saturated searches.
func BenchmarkChildren(b *testing.B) {
	in := newBenchInput(b)
	g, err := Build(in.departments, in.pop, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var edge []maptile.Tile
	for _, t := range g.Tiles() {
		if len(g.Children(t)) < 4 {
			edge = append(edge, t)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.Children(edge[i%len(edge)])
		i++
	}
}
