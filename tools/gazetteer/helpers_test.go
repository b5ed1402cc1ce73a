package main

import (
	"slices"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/prospectdata/svc/shared/gazetteer"
)

func TestParseDistrictRow(t *testing.T) {
	tests := []struct {
		in      string
		city    string
		num     int
		quarter string
		ok      bool
	}{
		{"Paris 11 Popincourt", "Paris", 11, "Popincourt", true},
		{"Paris 17 Batignolles-Monceau", "Paris", 17, "Batignolles-Monceau", true},
		{"Lyon 01", "Lyon", 1, "", true},
		{"Marseille 16", "Marseille", 16, "", true},
		{"Paris", "", 0, "", false},
		{"Parisot 12", "", 0, "", false},
		{"Lyon 1", "", 0, "", false},
	}
	for _, tt := range tests {
		city, num, quarter, ok := parseDistrictRow(tt.in)
		if city != tt.city || num != tt.num || quarter != tt.quarter || ok != tt.ok {
			t.Errorf("parseDistrictRow(%q) = %q %d %q %v, want %q %d %q %v", tt.in, city, num, quarter, ok, tt.city, tt.num, tt.quarter, tt.ok)
		}
	}
}

func TestUsableAlternate(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"München", true}, {"Monaco di Baviera", true}, {"Londres", true},
		{"MUC", false}, {"LON", false}, {"mywnkh", false}, {"Москва", false},
		{"Paris 01", false}, {"http://x", false}, {"X", false},
	}
	for _, tt := range tests {
		if got := usableAlternate(tt.in); got != tt.want {
			t.Errorf("usableAlternate(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDistrictAliases(t *testing.T) {
	got := map[string]bool{"paris 11e arrondissement": true, "lyon 1er arrondissement": true} // the names
	for _, a := range append(districtAliases("Paris 11e Arrondissement", "Paris", 11, "Popincourt"),
		districtAliases("Lyon 1er Arrondissement", "Lyon", 1, "")...) {
		got[gazetteer.Normalize(a)] = true
	}
	for _, want := range []string{
		"paris 11e", "paris 11", "paris 11eme", "paris 11 arrondissement", "11e arrondissement de paris",
		"paris popincourt", "lyon 1er", "lyon 1", "lyon 01", "lyon premier",
	} {
		if !got[want] {
			t.Errorf("no alias normalising to %q", want)
		}
	}
	if got["popincourt"] {
		t.Error(`"Popincourt" alone is an alias: it would outrank communes of that name`)
	}
}

func TestSimplifyShape(t *testing.T) {
	square := orb.Ring{{0, 0}, {1, 0}, {1, 0.0001}, {1, 1}, {0, 1}, {0, 0}}
	islet := orb.Ring{{5, 5}, {5.001, 5}, {5.001, 5.001}, {5, 5}}
	got := simplifyShape(orb.MultiPolygon{{square}, {islet}}, tolerance)
	want := orb.MultiPolygon{{orb.Ring{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}}
	if !slices.EqualFunc(got, want, func(a, b orb.Polygon) bool { return a.Equal(b) }) {
		t.Errorf("simplifyShape = %v, want %v (the islet dropped)", got, want)
	}
	if square[2] != (orb.Point{1, 0.0001}) {
		t.Error("simplifyShape modified its input")
	}
}

func TestMoveInside(t *testing.T) {
	land := orb.MultiPolygon{{orb.Ring{{0, 45}, {1, 45}, {1, 46}, {0, 46}, {0, 45}}}}
	tests := []struct {
		pt orb.Point
		ok bool
	}{
		{orb.Point{1.01, 45.5}, true}, // 0.8 km off the east edge
		{orb.Point{0.5, 44.99}, true}, // 1.1 km south
		{orb.Point{1.1, 45.5}, false}, // 7.8 km off
	}
	for _, tt := range tests {
		in, ok := moveInside(land, tt.pt, moveMaxKm)
		if ok != tt.ok || (ok && !planar.MultiPolygonContains(land, in)) {
			t.Errorf("moveInside(%v) = %v %v, want ok=%v and inside", tt.pt, in, ok, tt.ok)
		}
	}
}

func TestPartsCenter(t *testing.T) {
	sq := func(x, y, s float64) *node {
		shape := orb.MultiPolygon{{orb.Ring{{x, y}, {x + s, y}, {x + s, y + s}, {x, y + s}, {x, y}}}}
		return &node{shape: shape, place: gazetteer.Place{Center: orb.Point{x + s/2, y + s/2}}}
	}
	// Three touching squares on the mainland and a larger one far away
	// (French Guiana): the mainland wins on its total area, and its middle
	// square is the nearest to the mainland's mean.
	mainland := []*node{sq(0, 45, 1), sq(1, 45, 1), sq(2, 45, 1)}
	far := sq(-53, 3, 1.2)
	n := &node{parts: append(slices.Clone(mainland), far)}
	if got, want := partsCenter(n), mainland[1].place.Center; got != want {
		t.Errorf("partsCenter = %v, want %v", got, want)
	}
}
