package grid

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/paulmach/orb"
)

// FuzzBuild builds grids for one or two random discs and checks the rules
// of the package comment (checkGrid) on them.
func FuzzBuild(f *testing.F) {
	f.Add(4.8357, 45.764, 5.0, 0.05, 0.02, 3.0, true)
	f.Add(-4.4861, 48.3904, 12.0, 0.0, 0.0, 12.0, true)
	f.Add(179.95, 0.0, 20.0, -0.3, 0.1, 1.0, true)
	f.Add(0.0, 84.9, 25.0, 0.0, 0.0, 0.0, false)
	f.Add(-0.001, -0.001, 0.05, 0.0, 0.0, 0.0, false)
	f.Fuzz(func(t *testing.T, lon, lat, km, dLon, dLat, km2 float64, two bool) {
		for _, v := range []float64{lon, lat, km, dLon, dLat, km2} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Skip()
			}
		}
		// Discs of 50 m to 30 km anywhere Web Mercator reaches.
		wrap := func(v, lo, hi float64) float64 { return lo + math.Mod(math.Abs(v), hi-lo) }
		radius := func(v float64) float64 { return wrap(v, 0.05, 30) }
		c := orb.Point{wrap(lon+180, -179.99, 179.99), wrap(lat+80, -80, 80)}
		zones := []Zone{{Label: "a", Shape: disc(c, radius(km))}}
		if two {
			c2 := orb.Point{c[0] + wrap(dLon, -0.5, 0.5), math.Max(-80, math.Min(80, c[1]+wrap(dLat, -0.5, 0.5)))}
			zones = append(zones, Zone{Label: "b", Shape: disc(c2, radius(km2))})
		}
		g, err := Build(zones, nil, Options{MaxTiles: 5000})
		if errors.Is(err, ErrTooManyTiles) {
			return
		}
		if err != nil {
			t.Fatalf("Build(%v): %v", zones, err)
		}
		checkGrid(t, g, zones, 50)
		if got := g.Locate(c); !slices.Contains(got, 0) {
			t.Errorf("Locate(centre %v) = %v", c, got)
		}
		for _, tl := range g.Children(g.Tiles()[0]) {
			if len(g.ZonesOf(tl)) == 0 {
				t.Errorf("child %v of %v in no zone", tl, g.Tiles()[0])
			}
		}
	})
}
