package rowdiff

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

var signalHeader = []string{"nom", "adresse", "telephone", "site_web", "rating", "reviews_count", "lien_maps", "email"}

func signalRows(ratingBefore, ratingAfter, reviewsBefore, reviewsAfter string) (Row, Row) {
	before := NewRow(signalHeader, []string{"Avant", "1 rue A", "'+33 1", "https://a.fr/", ratingBefore, reviewsBefore, "https://maps/a", "a@a.fr"})
	after := NewRow(signalHeader, []string{"Après", "2 rue B", "'+33 2", "https://b.fr/", ratingAfter, reviewsAfter, "https://maps/b", "b@b.fr"})
	return before, after
}

// TestSignalThresholds pins the spec's thresholds ("Reputation signal": a
// rating drop of at least 0.2 points or a review count grown by at least 3)
// at their edges, where float subtraction would be off (4.1 - 3.9 is
// 0.19999999999999973 in float64).
func TestSignalThresholds(t *testing.T) {
	tests := []struct {
		name                    string
		rb, ra, nb, na          string
		signal                  bool
		deltaNote               float64
		deltaAvis, avant, apres int
	}{
		{"drop 0.19 is not a signal", "4.5", "4.31", "10", "10", false, 0, 0, 10, 10},
		{"drop 0.2 is a signal", "4.5", "4.3", "10", "10", true, -0.2, 0, 10, 10},
		{"drop 0.21 is a signal", "4.5", "4.29", "10", "10", true, -0.21, 0, 10, 10},
		{"drop 0.2 from 4.1 to 3.9", "4.1", "3.9", "10", "10", true, -0.2, 0, 10, 10},
		{"drop 0.2 from 0.3 to 0.1", "0.3", "0.1", "10", "10", true, -0.2, 0, 10, 10},
		{"drop 0.2 with decimal commas", "4,5", "4,3", "10", "10", true, -0.2, 0, 10, 10},
		{"drop 0.2 with trailing zeros", "4.50", "4.30", "10", "10", true, -0.2, 0, 10, 10},
		{"drop 0.2 from an integer", "5", "4.8", "10", "10", true, -0.2, 0, 10, 10},
		{"third decimal rounds up", "4.505", "4.3", "10", "10", true, -0.21, 0, 10, 10},
		{"third decimal rounds down", "4.494", "4.3", "10", "10", false, 0, 0, 10, 10},
		{"rating up", "4.3", "4.5", "10", "10", false, 0, 0, 10, 10},
		{"rating appears", "", "1.0", "10", "10", false, 0, 0, 10, 10},
		{"rating disappears", "4.5", "", "10", "10", false, 0, 0, 10, 10},
		{"reviews +2 is not a signal", "4.5", "4.5", "10", "12", false, 0, 2, 10, 12},
		{"reviews +3 is a signal", "4.5", "4.5", "10", "13", true, 0, 3, 10, 13},
		{"reviews +3 from none", "4.5", "4.5", "0", "3", true, 0, 3, 0, 3},
		{"reviews down", "4.5", "4.5", "13", "10", false, 0, -3, 13, 10},
		{"reviews count appears", "4.5", "4.5", "", "50", false, 0, 0, 0, 50},
		{"reviews with spaces", "4.5", "4.5", "1 200", "1 203", true, 0, 3, 1200, 1203},
		{"small drop and a surge", "4.5", "4.4", "10", "20", true, -0.1, 10, 10, 20},
		{"rating up and a surge", "4.0", "4.5", "10", "20", true, 0.5, 10, 10, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := SignalOf(signalRows(tt.rb, tt.ra, tt.nb, tt.na))
			if ok != tt.signal {
				t.Fatalf("signal = %v, want %v (%+v)", ok, tt.signal, s)
			}
			if !ok {
				return
			}
			if s.DeltaNote != tt.deltaNote || s.DeltaAvis != tt.deltaAvis || s.AvisAvant != tt.avant || s.AvisApres != tt.apres {
				t.Errorf("delta_note %v delta_avis %d avis %d→%d, want %v %d %d→%d",
					s.DeltaNote, s.DeltaAvis, s.AvisAvant, s.AvisApres, tt.deltaNote, tt.deltaAvis, tt.avant, tt.apres)
			}
		})
	}
}

func TestSignalFields(t *testing.T) {
	before, after := signalRows("4.5", "4.3", "10", "11")
	s, ok := SignalOf(before, after)
	want := Signal{Nom: "Après", Adresse: "2 rue B", Telephone: "+33 2", SiteWeb: "https://b.fr/", Email: "b@b.fr", LienMaps: "https://maps/b",
		NoteAvant: 4.5, NoteApres: 4.3, DeltaNote: -0.2, AvisAvant: 10, AvisApres: 11, DeltaAvis: 1, Score: 2}
	if !ok || s != want {
		t.Errorf("signal %+v, want %+v", s, want)
	}
	// No email column: "". An empty cell after: the value before.
	h := []string{"nom", "adresse", "rating", "reviews_count"}
	s, ok = SignalOf(NewRow(h, []string{"Avant", "1 rue A", "4.0", "1"}), NewRow(h, []string{"Après", "", "3.0", "1"}))
	if !ok || s.Email != "" || s.Adresse != "1 rue A" || s.Nom != "Après" || s.Telephone != "" {
		t.Errorf("signal %+v", s)
	}
}

// TestScoreOrdering pins the ordering rule of docs/veille-diff.md: a row
// whose rating dropped by at least 0.1 point more than another's always
// ranks above it, whatever the review counts; with equal drops, the
// larger review surge relative to the place's size ranks first.
func TestScoreOrdering(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	type sig struct{ drop, growth, before int64 }
	random := func() sig {
		return sig{drop: r.Int64N(500), growth: r.Int64N(100000), before: r.Int64N(100000)}
	}
	for range 200000 {
		a, b := random(), random()
		if r.IntN(4) == 0 {
			b.drop = a.drop + 10 // exactly 0.1 point more
		}
		sa, sb := score(a.drop, a.growth, a.before), score(b.drop, b.growth, b.before)
		if b.drop >= a.drop+10 && !(sb > sa) {
			t.Fatalf("drop %d (%+v) scores %v, not above drop %d (%+v) at %v", b.drop, b, sb, a.drop, a, sa)
		}
		if a.drop == b.drop && a.growth >= 3 && b.growth >= 3 {
			ra := float64(a.growth) / float64(max(a.before, 10))
			rb := float64(b.growth) / float64(max(b.before, 10))
			if ra > rb && sa < sb {
				t.Fatalf("equal drops: relative surge %v scores %v below %v at %v", ra, sa, rb, sb)
			}
		}
	}
	// The review boost: 3 new reviews on a place of 5 matter more than on
	// one of 2,000, and a surge below the threshold adds nothing.
	if s5, s2000 := score(20, 3, 5), score(20, 3, 2000); !(s5 > s2000 && s2000 > score(20, 0, 2000)) {
		t.Errorf("3 new reviews: on 5 %v, on 2000 %v", s5, s2000)
	}
	if score(20, 2, 5) != score(20, 0, 5) {
		t.Error("2 new reviews add to the score")
	}
	// The rule's limit: within less than 0.1 point, a surge may rank a
	// smaller drop first.
	if small, big := score(25, 50, 10), score(30, 0, 10); !(small > big) {
		t.Errorf("drop 0.25 with 50 new reviews on 10 scores %v, drop 0.3 alone %v", small, big)
	}
	// The boost stays below 0.9, whatever the surge.
	if s := score(0, 1<<40, 0); !(s < maxReviewBoost) {
		t.Errorf("boost %v", s)
	}
}

// TestSortSignals: score descending; ties by larger drop, larger growth,
// then names; the input's order does not matter.
func TestSortSignals(t *testing.T) {
	want := []Signal{
		{Nom: "a", Score: 5, DeltaNote: -0.5},
		{Nom: "b", Score: 2, DeltaNote: -0.2},
		{Nom: "c", Score: 2, DeltaNote: -0.1, DeltaAvis: 9},
		{Nom: "d", Score: 2, DeltaNote: -0.1, DeltaAvis: 3},
		{Nom: "e", Score: 2, DeltaNote: -0.1, DeltaAvis: 3, Adresse: "1"},
		{Nom: "e", Score: 2, DeltaNote: -0.1, DeltaAvis: 3, Adresse: "2"},
		{Nom: "f", Score: 0.3, DeltaAvis: 40},
	}
	for seed := range 20 {
		got := slices.Clone(want)
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		r.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		SortSignals(got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: %v", seed, names(got))
		}
	}
}

func names(s []Signal) string {
	out := ""
	for _, x := range s {
		out += fmt.Sprintf("%s%s(%v) ", x.Nom, x.Adresse, x.Score)
	}
	return out
}

func TestParseHundredths(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4.3", 430, true}, {"4,3", 430, true}, {"4.30", 430, true}, {"4", 400, true}, {"4.", 400, true}, {".5", 50, true},
		{"4.125", 413, true}, {"4.1249", 412, true}, {"-0.5", -50, true}, {"+1", 100, true},
		{"", 0, false}, {".", 0, false}, {"4.3.1", 0, false}, {"abc", 0, false}, {"4e1", 0, false}, {"1234567890123456", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseHundredths(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseHundredths(%q) = %d %v, want %d %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
