package grid

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/planar"
)

// shape is one feature of the testdata files (see testdata/gen.go).
type shape struct {
	Code, Name string
	Shape      orb.MultiPolygon
}

// loadShapes reads a testdata file written by testdata/gen.go. It decodes
// GeoJSON with encoding/json: orb/geojson needs the MongoDB driver.
func loadShapes(tb testing.TB, name string) []shape {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties struct{ Code, Name string }
			Geometry   struct {
				Type        string
				Coordinates [][][][2]float64
			}
		}
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	var out []shape
	for _, ft := range fc.Features {
		if ft.Geometry.Type != "MultiPolygon" {
			tb.Fatalf("%s: %s: geometry %s", name, ft.Properties.Code, ft.Geometry.Type)
		}
		mp := make(orb.MultiPolygon, 0, len(ft.Geometry.Coordinates))
		for _, p := range ft.Geometry.Coordinates {
			poly := make(orb.Polygon, 0, len(p))
			for _, r := range p {
				ring := make(orb.Ring, len(r))
				for i, c := range r {
					ring[i] = orb.Point(c)
				}
				poly = append(poly, ring)
			}
			mp = append(mp, poly)
		}
		out = append(out, shape{Code: ft.Properties.Code, Name: ft.Properties.Name, Shape: mp})
	}
	return out
}

// department returns the department with the INSEE code.
func department(tb testing.TB, code string) shape {
	tb.Helper()
	for _, s := range loadShapes(tb, "fr-departments.geojson.gz") {
		if s.Code == code {
			return s
		}
	}
	tb.Fatalf("no department %s", code)
	return shape{}
}

// metropolitan reports whether a department code is of mainland France or
// Corsica (the overseas ones have letters: GF, GP, MQ, RE, YT).
func metropolitan(code string) bool {
	return code == "2A" || code == "2B" || (code[0] >= '0' && code[0] <= '9')
}

// disc is a 48-gon of radius km around c, as the gazetteer draws cities.
func disc(c orb.Point, km float64) orb.MultiPolygon {
	const n = 48
	ring := make(orb.Ring, 0, n+1)
	for i := range n {
		ring = append(ring, geo.PointAtBearingAndDistance(c, 360*float64(i)/n, km*1000))
	}
	ring = append(ring, ring[0])
	return orb.MultiPolygon{{ring}}
}

// pointsIn draws n points uniformly (in lon/lat) inside mp: a polygon
// chosen by area, then a point of its bound until one falls inside.
func pointsIn(rng *rand.Rand, mp orb.MultiPolygon, n int) []orb.Point {
	cum := make([]float64, len(mp))
	bounds := make([]orb.Bound, len(mp))
	total := 0.0
	for i, p := range mp {
		total += planar.Area(p)
		cum[i] = total
		bounds[i] = p.Bound()
	}
	out := make([]orb.Point, 0, n)
	for len(out) < n {
		r := rng.Float64() * total
		i := 0
		for i < len(cum)-1 && cum[i] < r {
			i++
		}
		b := bounds[i]
		pt := orb.Point{b.Min[0] + rng.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rng.Float64()*(b.Max[1]-b.Min[1])}
		if planar.PolygonContains(mp[i], pt) {
			out = append(out, pt)
		}
	}
	return out
}

// city is a population anchor of the synthetic population: a commune's
// centre and population, and the population of its suburbs.
type city struct {
	name         string
	lon, lat     float64
	pop, suburbs int64
	spreadKm     float64 // standard deviation of the suburbs' normal spread, km
	districts    int     // the commune's population split into arrondissements
	districtKm   float64 // the radius of the commune, over which they spread
	suburbPoints int
}

// bigCities are the largest French communes (rounded census figures, the
// suburbs roughly their urban area's remainder).
var bigCities = []city{
	{name: "Paris", lon: 2.3522, lat: 48.8566, pop: 2_100_000, suburbs: 8_700_000, spreadKm: 14, districts: 20, districtKm: 5.5, suburbPoints: 420},
	{name: "Marseille", lon: 5.3698, lat: 43.2965, pop: 870_000, suburbs: 900_000, spreadKm: 15, districts: 16, districtKm: 9, suburbPoints: 60},
	{name: "Lyon", lon: 4.8357, lat: 45.764, pop: 520_000, suburbs: 1_300_000, spreadKm: 10, districts: 9, districtKm: 4, suburbPoints: 150},
	{name: "Toulouse", lon: 1.4442, lat: 43.6047, pop: 500_000, suburbs: 900_000, spreadKm: 12, suburbPoints: 120},
	{name: "Nice", lon: 7.262, lat: 43.7102, pop: 345_000, suburbs: 600_000, spreadKm: 12, suburbPoints: 80},
	{name: "Nantes", lon: -1.5536, lat: 47.2184, pop: 320_000, suburbs: 700_000, spreadKm: 10, suburbPoints: 80},
	{name: "Montpellier", lon: 3.8767, lat: 43.6108, pop: 300_000, suburbs: 500_000, spreadKm: 10, suburbPoints: 80},
	{name: "Strasbourg", lon: 7.7521, lat: 48.5734, pop: 290_000, suburbs: 500_000, spreadKm: 10, suburbPoints: 80},
	{name: "Bordeaux", lon: -0.5792, lat: 44.8378, pop: 260_000, suburbs: 1_000_000, spreadKm: 12, suburbPoints: 120},
	{name: "Lille", lon: 3.0573, lat: 50.6292, pop: 235_000, suburbs: 1_300_000, spreadKm: 12, suburbPoints: 150},
	{name: "Rennes", lon: -1.6778, lat: 48.1173, pop: 222_000, suburbs: 500_000, spreadKm: 12, suburbPoints: 80},
	{name: "Reims", lon: 4.0317, lat: 49.2583, pop: 180_000, suburbs: 120_000, spreadKm: 8, suburbPoints: 30},
	{name: "Toulon", lon: 5.928, lat: 43.1242, pop: 180_000, suburbs: 400_000, spreadKm: 10, suburbPoints: 40},
	{name: "Saint-Étienne", lon: 4.3872, lat: 45.4397, pop: 173_000, suburbs: 250_000, spreadKm: 8, suburbPoints: 40},
	{name: "Le Havre", lon: 0.1079, lat: 49.4944, pop: 168_000, suburbs: 100_000, spreadKm: 6, suburbPoints: 20},
	{name: "Grenoble", lon: 5.7245, lat: 45.1885, pop: 157_000, suburbs: 550_000, spreadKm: 10, suburbPoints: 60},
	{name: "Dijon", lon: 5.0415, lat: 47.322, pop: 159_000, suburbs: 230_000, spreadKm: 8, suburbPoints: 40},
	{name: "Angers", lon: -0.5632, lat: 47.4784, pop: 157_000, suburbs: 250_000, spreadKm: 8, suburbPoints: 40},
	{name: "Nîmes", lon: 4.3601, lat: 43.8367, pop: 150_000, suburbs: 120_000, spreadKm: 8, suburbPoints: 25},
	{name: "Clermont-Ferrand", lon: 3.087, lat: 45.7772, pop: 147_000, suburbs: 350_000, spreadKm: 10, suburbPoints: 60},
	{name: "Le Mans", lon: 0.1996, lat: 48.0061, pop: 145_000, suburbs: 200_000, spreadKm: 8, suburbPoints: 40},
	{name: "Aix-en-Provence", lon: 5.4474, lat: 43.5297, pop: 147_000, suburbs: 100_000, spreadKm: 8, suburbPoints: 20},
	{name: "Brest", lon: -4.4861, lat: 48.3904, pop: 140_000, suburbs: 180_000, spreadKm: 8, suburbPoints: 30},
	{name: "Tours", lon: 0.6848, lat: 47.3941, pop: 136_000, suburbs: 350_000, spreadKm: 9, suburbPoints: 50},
	{name: "Amiens", lon: 2.2958, lat: 49.8941, pop: 134_000, suburbs: 160_000, spreadKm: 8, suburbPoints: 30},
	{name: "Limoges", lon: 1.2611, lat: 45.8336, pop: 130_000, suburbs: 150_000, spreadKm: 8, suburbPoints: 30},
	{name: "Perpignan", lon: 2.8948, lat: 42.6887, pop: 120_000, suburbs: 200_000, spreadKm: 8, suburbPoints: 30},
	{name: "Metz", lon: 6.1757, lat: 49.1193, pop: 120_000, suburbs: 280_000, spreadKm: 9, suburbPoints: 40},
	{name: "Besançon", lon: 6.0241, lat: 47.2378, pop: 118_000, suburbs: 150_000, spreadKm: 8, suburbPoints: 30},
	{name: "Orléans", lon: 1.9093, lat: 47.9029, pop: 116_000, suburbs: 330_000, spreadKm: 9, suburbPoints: 40},
	{name: "Rouen", lon: 1.0999, lat: 49.4432, pop: 114_000, suburbs: 550_000, spreadKm: 10, suburbPoints: 60},
	{name: "Mulhouse", lon: 7.3359, lat: 47.7508, pop: 108_000, suburbs: 170_000, spreadKm: 8, suburbPoints: 30},
	{name: "Caen", lon: -0.3707, lat: 49.1829, pop: 106_000, suburbs: 300_000, spreadKm: 9, suburbPoints: 40},
	{name: "Nancy", lon: 6.1844, lat: 48.6921, pop: 104_000, suburbs: 330_000, spreadKm: 9, suburbPoints: 40},
	{name: "Avignon", lon: 4.8055, lat: 43.9493, pop: 91_000, suburbs: 250_000, spreadKm: 9, suburbPoints: 30},
	{name: "Pau", lon: -0.3708, lat: 43.2951, pop: 76_000, suburbs: 120_000, spreadKm: 8, suburbPoints: 25},
	{name: "Ajaccio", lon: 8.7386, lat: 41.9192, pop: 72_000, suburbs: 20_000, spreadKm: 5, suburbPoints: 8},
	{name: "Quimper", lon: -4.1024, lat: 47.996, pop: 63_000, suburbs: 40_000, spreadKm: 6, suburbPoints: 10},
	{name: "Bayonne", lon: -1.4748, lat: 43.4929, pop: 52_000, suburbs: 250_000, spreadKm: 10, suburbPoints: 30},
	{name: "Bastia", lon: 9.4508, lat: 42.6977, pop: 48_000, suburbs: 30_000, spreadKm: 5, suburbPoints: 8},
}

// syntheticFrance is a stand-in for the index of French communes the
// service builds from the gazetteer: 35,000 points and 57 million people
// (France has about 35,000 communes and 68 million), the big cities above (Paris, Lyon and Marseille in districts)
// with suburbs spread around them, and the rest as villages drawn
// uniformly over mainland departments with a skewed population (median
// about 400). It is deterministic.
func syntheticFrance(tb testing.TB) ([]orb.Point, []int64) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var pts []orb.Point
	var pops []int64
	add := func(p orb.Point, n int64) {
		pts = append(pts, p)
		pops = append(pops, n)
	}
	// around draws a point of a 2D normal distribution around c (its
	// distance follows Rayleigh's law, so the density is finite at c).
	around := func(c orb.Point, sigmaKm float64) orb.Point {
		d := sigmaKm * 1000 * math.Sqrt(-2*math.Log(1-rng.Float64()))
		return geo.PointAtBearingAndDistance(c, rng.Float64()*360, d)
	}
	for _, c := range bigCities {
		centre := orb.Point{c.lon, c.lat}
		if c.districts > 0 {
			for range c.districts {
				d := math.Sqrt(rng.Float64()) * c.districtKm * 1000
				add(geo.PointAtBearingAndDistance(centre, rng.Float64()*360, d), c.pop/int64(c.districts))
			}
		} else {
			add(centre, c.pop)
		}
		for range c.suburbPoints {
			add(around(centre, c.spreadKm), c.suburbs/int64(c.suburbPoints))
		}
	}
	var land orb.MultiPolygon
	for _, d := range loadShapes(tb, "fr-departments.geojson.gz") {
		if metropolitan(d.Code) {
			land = append(land, d.Shape...)
		}
	}
	bounds := make([]orb.Bound, len(land))
	for i, p := range land {
		bounds[i] = p.Bound()
	}
	b := land.Bound()
	for len(pts) < 35000 {
		pt := orb.Point{b.Min[0] + rng.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rng.Float64()*(b.Max[1]-b.Min[1])}
		for i, p := range land {
			if bounds[i].Contains(pt) && planar.PolygonContains(p, pt) {
				add(pt, int64(math.Exp(6+rng.NormFloat64()*1.1)))
				break
			}
		}
	}
	return pts, pops
}

// km2 formats an area.
func km2(m2 float64) string { return fmt.Sprintf("%.0f km²", m2/1e6) }
