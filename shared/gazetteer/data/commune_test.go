package data_test

import (
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
)

// TestCommuneAt checks the commune found at known points of the generated
// gazetteer: town halls, arrondissements, the sea.
func TestCommuneAt(t *testing.T) {
	g := load(t)
	tests := []struct {
		name string
		pt   orb.Point
		want string // INSEE code, "" for none
	}{
		{"Villeurbanne town hall", orb.Point{4.8803, 45.7665}, "69266"},
		{"Lyon, place Bellecour (2e)", orb.Point{4.8320, 45.7578}, "69382"},
		{"Paris, rue de Vaugirard (15e)", orb.Point{2.2920, 48.8412}, "75115"},
		{"Bordeaux, place de la Bourse", orb.Point{-0.5695, 44.8413}, "33063"},
		{"Roubaix town hall", orb.Point{3.1746, 50.6903}, "59512"},
		{"Bay of Biscay", orb.Point{-3.0, 45.5}, ""},
	}
	for _, tt := range tests {
		id, ok := g.CommuneAt("FRA", tt.pt)
		got := ""
		if ok {
			got = g.Place(id).Code
		}
		if got != tt.want {
			t.Errorf("%s: CommuneAt = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// BenchmarkCommuneAt is the simulated world's cost per generated place:
// random points around Lyon, index built before the timer.
func BenchmarkCommuneAt(b *testing.B) {
	g := load(b)
	rng := rand.New(rand.NewPCG(1, 2))
	pts := make([]orb.Point, 1024)
	for i := range pts {
		pts[i] = orb.Point{4.6 + rng.Float64()*0.6, 45.5 + rng.Float64()*0.5}
	}
	g.CommuneAt("FRA", pts[0])
	i := 0
	for b.Loop() {
		g.CommuneAt("FRA", pts[i%len(pts)])
		i++
	}
}
