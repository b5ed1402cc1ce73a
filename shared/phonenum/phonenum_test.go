package phonenum

import (
	"testing"

	"github.com/nyaruka/phonenumbers"
)

func TestRegion(t *testing.T) {
	for _, tt := range []struct{ country, want string }{
		{"FRA", "FR"},
		{"fra", "FR"},
		{"FR", "FR"},
		{" GBR ", "GB"},
		{"BEL", "BE"},
		{"ch", "CH"},
		{"MTQ", "MQ"}, // an overseas department is its own region
		{"USA", "US"},
		{"", ""},
		{"XX", ""},
		{"XXX", ""},
		{"France", ""},
		{"EU", ""}, // a grouping, not a country
		{"ZZZ", ""},
	} {
		if got := Region(tt.country); got != tt.want {
			t.Errorf("Region(%q) = %q, want %q", tt.country, got, tt.want)
		}
	}
	if Region(Home) != "FR" {
		t.Errorf("Home %q is not France", Home)
	}
}

func TestOrHome(t *testing.T) {
	for _, tt := range []struct{ country, want string }{
		{"BEL", "BEL"},
		{"be", "be"},
		{"", Home},
		{"Belgique", Home},
		{"XXX", Home},
	} {
		if got := OrHome(tt.country); got != tt.want {
			t.Errorf("OrHome(%q) = %q, want %q", tt.country, got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		name, raw, country string
		e164               string // "" when it does not parse
	}{
		{"national in France", "04 72 10 30 30", "FRA", "+33472103030"},
		{"alpha-2 reads the same", "04 72 10 30 30", "FR", "+33472103030"},
		{"national in Belgium", "02 555 12 34", "BEL", "+3225551234"},
		{"calling code wins over the country", "+32 2 555 12 34", "FRA", "+3225551234"},
		{"international prefix of the country", "0032 2 555 12 34", "FRA", "+3225551234"},
		{"national, unknown country", "04 72 10 30 30", "XXX", ""},
		{"national, no country", "04 72 10 30 30", "", ""},
		{"international, unknown country", "+33 4 72 10 30 30", "XXX", "+33472103030"},
		{"not a number", "n/a", "FRA", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse(tt.raw, tt.country)
			got := ""
			if err == nil {
				got = phonenumbers.Format(n, phonenumbers.E164)
			}
			if got != tt.e164 {
				t.Errorf("Parse(%q, %q) = %q (%v), want %q", tt.raw, tt.country, got, err, tt.e164)
			}
		})
	}
}

func TestDomestic(t *testing.T) {
	for _, tt := range []struct {
		raw, country string
		want         bool
	}{
		{"+33 4 72 10 30 30", "FRA", true},
		{"+262 262 12 34 56", "FRA", true}, // Réunion
		{"+262 269 61 12 34", "FRA", true}, // Mayotte
		{"+269 773 12 34", "FRA", false},   // the Comoros
		{"+590 590 12 34 56", "FRA", true}, // Guadeloupe
		{"+687 12 34 56", "FRA", true},     // New Caledonia
		{"+32 2 555 12 34", "FRA", false},
		{"+41 22 123 45 67", "FR", false},
		{"+32 2 555 12 34", "BEL", true},
		{"+262 262 12 34 56", "BEL", false},
		{"+33 4 72 10 30 30", "XXX", false}, // nothing is domestic to an unknown country
	} {
		n, err := phonenumbers.Parse(tt.raw, "")
		if err != nil {
			t.Fatalf("%s: %v", tt.raw, err)
		}
		if got := Domestic(n, tt.country); got != tt.want {
			t.Errorf("Domestic(%s, %q) = %v, want %v", tt.raw, tt.country, got, tt.want)
		}
	}
}
