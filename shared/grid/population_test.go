package grid

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
)

// In agrees with counting the points of each tile one by one.
func TestPopulationIn(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var pts []orb.Point
	var pops []int64
	for range 5000 {
		// Around Lyon, with some points on tile edges and repeats.
		pt := orb.Point{4 + 2*rng.Float64(), 45 + 1.5*rng.Float64()}
		if rng.IntN(10) == 0 {
			pt = maptile.At(pt, 12).Bound().Min
		}
		pts = append(pts, pt, pt)
		pops = append(pops, rng.Int64N(10000), 1)
	}
	pts = append(pts, orb.Point{math.NaN(), 45}, orb.Point{5, 45.5}, orb.Point{5, 45.5})
	pops = append(pops, 1e6, -5, 0) // left out: NaN, negative, zero
	p := NewPopulation(pts, pops)

	var total int64
	for i := range 10000 {
		total += pops[i]
	}
	if p.Total() != total || p.Len() != 10000 {
		t.Fatalf("Total %d Len %d, want %d and 10000", p.Total(), p.Len(), total)
	}
	deep := make([]maptile.Tile, 10000)
	for i, pt := range pts[:10000] {
		deep[i] = tileAt(pt, keyZoom)
	}
	for _, z := range []maptile.Zoom{0, 6, 10, 12, 15, 20} {
		for range 50 {
			tl := maptile.At(orb.Point{4 + 2*rng.Float64(), 45 + 1.5*rng.Float64()}, z)
			var want int64
			for i, d := range deep {
				if tl.Contains(d) {
					want += pops[i]
				}
			}
			if got := p.In(tl); got != want {
				t.Fatalf("In(%v) = %d, want %d", tl, got, want)
			}
		}
	}
	if got := p.In(maptile.New(0, 0, 0)); got != total {
		t.Errorf("In(world) = %d, want %d", got, total)
	}
	if got := p.In(maptile.At(orb.Point{-70, -30}, 8)); got != 0 {
		t.Errorf("In(elsewhere) = %d", got)
	}
}

func TestPopulationEdges(t *testing.T) {
	var nilPop *Population
	if nilPop.In(maptile.New(0, 0, 0)) != 0 || nilPop.Len() != 0 || nilPop.Total() != 0 {
		t.Error("nil population not empty")
	}
	empty := NewPopulation(nil, nil)
	if empty.In(maptile.New(0, 0, 0)) != 0 || empty.Len() != 0 {
		t.Error("empty population not empty")
	}
	// Points at the edges of the map count in the edge tiles.
	p := NewPopulation([]orb.Point{{180, 0}, {-180, 89}, {-1, -89}}, []int64{1, 2, 4})
	tests := []struct {
		tile maptile.Tile
		want int64
	}{
		{maptile.New(1, 1, 1), 1},
		{maptile.New(0, 0, 1), 2},
		{maptile.New(0, 1, 1), 4},
		{maptile.Tile{X: 0, Y: 0, Z: 31}, 0},
	}
	for _, tt := range tests {
		if got := p.In(tt.tile); got != tt.want {
			t.Errorf("In(%v) = %d, want %d", tt.tile, got, tt.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic on slices of different lengths")
		}
	}()
	NewPopulation([]orb.Point{{0, 0}}, nil)
}
