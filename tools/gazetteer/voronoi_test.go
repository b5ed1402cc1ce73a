package main

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// TestPartition: the cells of a partition cover the shape, each holds its
// site, and no point lies in two; a shape with a hole and two parts too.
func TestPartition(t *testing.T) {
	square := orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}
	holed := orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}, {{0.4, 0.4}, {0.4, 0.6}, {0.6, 0.6}, {0.6, 0.4}, {0.4, 0.4}}}
	island := orb.Polygon{{{1.2, 0.2}, {1.4, 0.2}, {1.4, 0.4}, {1.2, 0.4}, {1.2, 0.2}}}
	for _, tt := range []struct {
		name  string
		shape orb.MultiPolygon
		sites []orb.Point
	}{
		{"one site", orb.MultiPolygon{square}, []orb.Point{{0.5, 0.5}}},
		{"two sites", orb.MultiPolygon{square}, []orb.Point{{0.25, 0.5}, {0.75, 0.5}}},
		{"four sites", orb.MultiPolygon{square}, []orb.Point{{0.2, 0.2}, {0.8, 0.3}, {0.3, 0.9}, {0.7, 0.7}}},
		{"a hole", orb.MultiPolygon{holed}, []orb.Point{{0.2, 0.5}, {0.8, 0.5}, {0.5, 0.9}}},
		{"an island", orb.MultiPolygon{square, island}, []orb.Point{{0.3, 0.3}, {0.9, 0.4}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cells := partition(tt.shape, tt.sites)
			sum := 0.0
			for i, c := range cells {
				if !planar.MultiPolygonContains(c, tt.sites[i]) {
					t.Errorf("site %v outside its cell %v", tt.sites[i], c)
				}
				sum += planar.Area(c)
			}
			if want := planar.Area(tt.shape); math.Abs(sum-want) > 1e-6 {
				t.Errorf("cells cover %v of %v", sum, want)
			}
			for i := range 41 {
				for j := range 41 {
					pt := orb.Point{float64(i)*0.036 + 0.001, float64(j)*0.024 + 0.001}
					n := 0
					for _, c := range cells {
						if planar.MultiPolygonContains(c, pt) {
							n++
						}
					}
					if want := map[bool]int{true: 1, false: 0}[planar.MultiPolygonContains(tt.shape, pt)]; n != want {
						t.Errorf("%v in %d cells, want %d", pt, n, want)
					}
				}
			}
		})
	}
}
