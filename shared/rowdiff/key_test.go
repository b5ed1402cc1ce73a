package rowdiff

import (
	"regexp"
	"testing"
)

func TestKey(t *testing.T) {
	h := []string{"nom", "telephone", "adresse", "place_id"}
	tests := []struct {
		name   string
		header []string
		row    []string
		want   string
	}{
		{"place id first", h, []string{"Boulangerie", "04 78", "1 rue X", "ChIJabc"}, "id:ChIJabc"},
		{"place id trimmed", h, []string{"", "", "", "  ChIJabc \t"}, "id:ChIJabc"},
		{"place id guard undone", h, []string{"", "", "", "'=ChIJ"}, "id:=ChIJ"},
		{"name and address", h, []string{"Boulangerie Dupont", "04 78", "12 rue de la République", ""}, "na:boulangerie dupont|12 rue de la republique"},
		{"accents, case and punctuation folded", h, []string{"  L'Épi  d'Or -- SARL ", "", "12, Rue de l'Œuvre (Saint-Étienne)", ""}, "na:l epi d or sarl|12 rue de l oeuvre saint etienne"},
		{"name only", h, []string{"Straße Café", "", "", ""}, "na:strasse cafe|"},
		{"address only", h, []string{"", "", "Place Bellecour", ""}, "na:|place bellecour"},
		{"punctuation-only name is no name", h, []string{"--", "+33 4 78 12 34 56", "", ""}, "tel:33478123456"},
		{"phone digits when no name nor address", h, []string{"", "'+33 (0)4 78-12-34-56", " ", ""}, "tel:330478123456"},
		{"no place_id column", []string{"nom", "adresse"}, []string{"Garage", "Lyon"}, "na:garage|lyon"},
		{"short row", h, []string{"Garage"}, "na:garage|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Key(tt.header, tt.row); got != tt.want {
				t.Errorf("Key = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestKeyContentHash: a row with no id, name, address or phone is keyed
// by its content: equal content, equal key, whatever the column order.
func TestKeyContentHash(t *testing.T) {
	a := Key([]string{"nom", "site_web", "rating"}, []string{"", "https://x.fr/", "4.5"})
	b := Key([]string{"rating", "site_web", "nom"}, []string{" 4.5", "https://x.fr/", ""})
	c := Key([]string{"nom", "site_web", "rating"}, []string{"", "https://x.fr/", "4.6"})
	if !regexp.MustCompile(`^h:[0-9a-f]{32}$`).MatchString(a) {
		t.Fatalf("content key %q", a)
	}
	if a != b {
		t.Errorf("same content in another column order: %q and %q", a, b)
	}
	if a == c {
		t.Errorf("different content, same key %q", a)
	}
}

// TestKeyIsDiffKey: the keys Diff reports are Key's, on both of its paths
// (a plain record read cell by cell, a quoted one split whole).
func TestKeyIsDiffKey(t *testing.T) {
	rows := [][]string{
		scrapeRow("ChIJ1", "A", "4.5", "10"),
		scrapeRow("", "Le \"Bon\" Pain; Lyon", "4.5", "10"),
		scrapeRow("", "Château", "4.5", "10"),
		{"", "", "'+33 1 23", "", "", "", "", "", "", "", "", ""},
		{"", "https://x.fr/", "", "", "4,5", "", "", "", "", "", "", ""},
	}
	_, got := diffAll(t, csvOf(t, scrapeHeader), csvOf(t, scrapeHeader, rows...), Options{})
	for _, r := range rows {
		k := Key(scrapeHeader, r)
		if c, ok := got[k]; !ok || c.Kind != KindNew {
			t.Errorf("Key %q not among Diff's new keys %v", k, got)
		}
	}
}
