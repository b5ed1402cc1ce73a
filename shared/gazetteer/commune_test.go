package gazetteer

import (
	"testing"

	"github.com/paulmach/orb"
)

func TestCommuneAt(t *testing.T) {
	g, _ := smallGazetteer(t)
	tests := []struct {
		name    string
		country string
		pt      orb.Point
		want    ID
		ok      bool
	}{
		{"Lyon's centre: its only arrondissement, the nearest", "FRA", orb.Point{4.834277, 45.763421}, 9, true},
		{"Lyon's south edge: still the arrondissement (a partition of the city)", "FRA", orb.Point{4.834, 45.73}, 9, true},
		{"Villeurbanne's centre", "FRA", orb.Point{4.88, 45.77}, 7, true},
		{"overlap nearer Villeurbanne relative to radii", "FRA", orb.Point{4.87, 45.769}, 7, true},
		{"overlap nearer Lyon relative to radii", "FRA", orb.Point{4.845, 45.765}, 9, true},
		{"the small Lyon of Ain", "FRA", orb.Point{5.1, 46.2}, 8, true},
		{"between communes", "FRA", orb.Point{5.5, 46.5}, None, false},
		{"Munich in Germany", "DEU", orb.Point{11.6, 48.14}, 10, true},
		{"Munich asked of France", "FRA", orb.Point{11.6, 48.14}, None, false},
		{"unknown country", "XYZ", orb.Point{4.88, 45.77}, None, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := g.CommuneAt(tt.country, tt.pt)
			if got != tt.want || ok != tt.ok {
				t.Errorf("CommuneAt(%s, %v) = %d, %v; want %d, %v", tt.country, tt.pt, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestCommuneAtOutline: an outline holding the point beats an overlapping
// disc, and a point outside the outline falls to the disc.
func TestCommuneAtOutline(t *testing.T) {
	sq := orb.Ring{{4.80, 45.70}, {4.90, 45.70}, {4.90, 45.80}, {4.80, 45.80}, {4.80, 45.70}}
	places := []Place{
		{ID: 0, Kind: Country, Country: "FRA", Code: "FRA", Name: "France", Aliases: []string{"FR"}, Parent: None},
		{ID: 1, Kind: City, Country: "FRA", Code: "69001", Name: "Square", Parent: 0, Center: orb.Point{4.85, 45.75}},
		{ID: 2, Kind: City, Country: "FRA", Code: "69002", Name: "Disc", Parent: 0, Center: orb.Point{4.91, 45.75}, Radius: 3},
	}
	g, err := New(places, func(id ID) orb.MultiPolygon {
		if id == 1 {
			return orb.MultiPolygon{{sq}}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		pt   orb.Point
		want ID
	}{
		{orb.Point{4.85, 45.75}, 1},
		{orb.Point{4.895, 45.75}, 1}, // in both: the outline wins
		{orb.Point{4.905, 45.75}, 2},
	} {
		if got, ok := g.CommuneAt("FRA", tt.pt); got != tt.want || !ok {
			t.Errorf("CommuneAt(%v) = %d, %v; want %d", tt.pt, got, ok, tt.want)
		}
	}
}
