package placerow

import "testing"

func TestClassifyPhone(t *testing.T) {
	for _, tt := range []struct {
		country string
		raw     string
		e164    string
		foreign bool
	}{
		{"FRA", "04 72 10 30 30", "+33472103030", false},
		{"FRA", "+33 4 72 10 30 30", "+33472103030", false},
		{"FRA", "0033 4 72 10 30 30", "+33472103030", false},
		{"FRA", "  04 72 10 30 30 ", "+33472103030", false},
		{"FRA", "+32 2 555 12 34", "+3225551234", true},
		{"FRA", "0032 2 555 12 34", "+3225551234", true},
		{"FRA", "+262 262 12 34 56", "+262262123456", false}, // Réunion is France
		{"FRA", "+596 596 12 34 56", "+596596123456", false}, // so is Martinique
		{"FRA", "+41 22 123 45 67", "+41221234567", true},
		{"FRA", "", "", false},
		{"FRA", "n/a", "", false},
		{"FRA", "12", "", false},
		{"BEL", "02 555 12 34", "+3225551234", false},
		{"BEL", "+33 4 72 10 30 30", "+33472103030", true},
		{"BEL", "+262 262 12 34 56", "+262262123456", true}, // France's overseas are not Belgium's
		{"XXX", "+33 4 72 10 30 30", "", false},             // no region: nothing usable, nothing dropped
		{"", "+33 4 72 10 30 30", "", false},
	} {
		e164, foreign := ClassifyPhone(tt.raw, tt.country)
		if e164 != tt.e164 || foreign != tt.foreign {
			t.Errorf("%q in %q: %q, foreign %v; want %q, %v", tt.raw, tt.country, e164, foreign, tt.e164, tt.foreign)
		}
	}
}
