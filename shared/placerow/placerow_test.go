package placerow

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/provider"
)

func TestAggregatorSite(t *testing.T) {
	for site, want := range map[string]bool{
		"https://www.pagesjaunes.fr/pros/123":        true,
		"https://fr.tripadvisor.be/Restaurant":       true,
		"https://www.booking.com/hotel/fr/x.html":    true,
		"https://www.booking.co.uk/hotel":            true,
		"https://www.ubereats.com/fr/store/x":        true,
		"https://deliveroo.fr/menu/lyon":             true,
		"https://www.doctolib.fr/dentiste/lyon/x":    true,
		"http://fr-fr.facebook.com/boulangerie":      true,
		"instagram.com/boulangerie":                  true,
		"https://x.com/boulangerie":                  true,
		"https://boulangerie-durand.fr":              false,
		"https://booking.restaurant-durand.fr/table": false,
		"https://www.facebookfan.fr":                 false,
		"":                                           false,
		"not a url ::":                               false,
	} {
		if got := AggregatorSite(site); got != want {
			t.Errorf("%q: %v", site, got)
		}
	}
}

func TestColumns(t *testing.T) {
	if got := Columns(nil, false); len(got) != 12 || got[8] != "aggregator_flag" || got[11] != "zone" {
		t.Errorf("%q", got)
	}
	got := Columns([]string{"region", "gps"}, false)
	if !slices.Equal(got[12:], []string{"latitude", "longitude", "region"}) {
		t.Errorf("%q", got)
	}
	r := Row{Name: "A", Rating: 4.5, Reviews: 3, Lat: 45.1, Lon: 4.2, Region: "R", Department: "D"}
	c := Cells(&r, true, []string{"gps", "departement", "region"}, false)
	if !slices.Equal(c[4:6], []string{"4.5", "3"}) || c[8] != "true" || !slices.Equal(c[12:], []string{"45.1", "4.2", "D", "R"}) {
		t.Errorf("%q", c)
	}
	if c := Cells(&Row{}, false, nil, false); c[4] != "" || c[5] != "0" {
		t.Errorf("no rating: %q", c)
	}
}

func TestReviewCell(t *testing.T) {
	long := strings.Repeat("é", 600)
	for _, tt := range []struct {
		name string
		in   provider.Review
		want string
	}{
		{"full", provider.Review{Rating: 4, Author: "Marie D.", Text: "Très bon."}, "4/5 — Marie D. — Très bon."},
		{"half star", provider.Review{Rating: 4.5, Author: "A", Text: "B"}, "4.5/5 — A — B"},
		{"no text", provider.Review{Rating: 5, Author: "Marie D."}, "5/5 — Marie D."},
		{"no author", provider.Review{Rating: 2, Text: "Bof"}, "2/5 — Bof"},
		{"no rating", provider.Review{Author: "A", Text: "B"}, "A — B"},
		{"one line", provider.Review{Rating: 3, Author: " A\t", Text: "ligne 1\r\nligne 2\n\n  fin "}, "3/5 — A — ligne 1 ligne 2 fin"},
		{"empty", provider.Review{}, ""},
		{"long", provider.Review{Rating: 1, Author: "A", Text: long}, "1/5 — A — " + strings.Repeat("é", ReviewCellChars-utf8.RuneCountInString("1/5 — A — ")-1) + "…"},
		{"long, cut on a space", provider.Review{Rating: 1, Text: strings.Repeat("a", 494) + " " + long}, "1/5 — " + strings.Repeat("a", 493) + "…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ReviewCell(tt.in)
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > ReviewCellChars {
				t.Errorf("%d characters", n)
			}
		})
	}
	r := Row{LatestReviews: []provider.Review{{Rating: 5, Author: "A"}, {Rating: 1, Author: "B"}}}
	if c := Cells(&r, false, nil, true); !slices.Equal(c[12:], []string{"5/5 — A", "1/5 — B", "", "", ""}) {
		t.Errorf("review cells %q", c[12:])
	}
	if got := Columns(nil, true); !slices.Equal(got[12:], []string{"avis_1", "avis_2", "avis_3", "avis_4", "avis_5"}) {
		t.Errorf("columns %q", got)
	}
}

func TestSetReviews(t *testing.T) {
	many := make([]provider.Review, MaxReviews+2)
	for i := range many {
		many[i] = provider.Review{Author: strings.Repeat("a", i+1)}
	}
	for _, tt := range []struct {
		name string
		in   []provider.Review
		want []provider.Review
	}{
		{"none", nil, nil},
		{"fewer", many[:2], many[:2]},
		{"as many as columns", many[:MaxReviews], many[:MaxReviews]},
		{"more: the latest kept", many, many[:MaxReviews]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Row
			r.SetReviews(tt.in)
			if !slices.Equal(r.LatestReviews, tt.want) {
				t.Errorf("%d reviews kept, want %d", len(r.LatestReviews), len(tt.want))
			}
		})
	}
}
