package sim

import (
	"slices"
	"testing"

	"github.com/nyaruka/phonenumbers"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// TestPhonePatterns: every phone pattern gives numbers libphonenumber
// finds valid, in the region they belong to.
func TestPhonePatterns(t *testing.T) {
	type pattern struct{ region, pattern string }
	var tests []pattern
	for _, ps := range nationalPhones {
		for _, p := range ps {
			tests = append(tests, pattern{"ZZ", p}) // international format
		}
	}
	for _, ps := range frBorder {
		for _, p := range ps {
			tests = append(tests, pattern{"ZZ", p})
		}
	}
	for _, areas := range frAreas {
		for _, area := range areas {
			tests = append(tests, pattern{"FR", area + " ## ## ##"})
		}
	}
	tests = append(tests, pattern{"FR", "06 M# ## ## ##"}, pattern{"FR", "07 S# ## ## ##"})
	regions := map[string]string{"971": "GP", "972": "MQ", "973": "GF", "974": "RE", "976": "YT"}
	for dept, p := range frOverseas {
		tests = append(tests, pattern{regions[dept], p})
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			r := key(0).str(tt.pattern).rng()
			for range 200 {
				s := fill(&r, tt.pattern)
				num, err := phonenumbers.Parse(s, tt.region)
				if err != nil || !phonenumbers.IsValidNumber(num) {
					t.Fatalf("%q (region %s) is not valid: %v", s, tt.region, err)
				}
			}
		})
	}
}

// TestLuhn pins the check digits of SIREN and SIRET numbers.
func TestLuhn(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"732829320", true},      // 9 digits, Luhn sum 40
		{"73282932000074", true}, // 14 digits, Luhn sum 50
		{"732829321", false},
		{"73282932000075", false},
		{"", false},
		{"12a", false},
	}
	for _, tt := range tests {
		if got := luhnValid(tt.in); got != tt.want {
			t.Errorf("luhnValid(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	r := key(3).rng()
	for range 100 {
		s := luhnComplete(fill(&r, "########"))
		if !luhnValid(s) || len(s) != 9 {
			t.Fatalf("luhnComplete gave %q", s)
		}
	}
}

// TestPoisson: the draws have about the mean asked, small and large.
func TestPoisson(t *testing.T) {
	for _, lambda := range []float64{0, 0.02, 1, 7.5, 29, 31, 500} {
		r := key(0).int(int64(lambda * 100)).rng()
		sum := 0
		const n = 20000
		for range n {
			sum += r.poisson(lambda)
		}
		mean := float64(sum) / n
		if d := mean - lambda; d > 0.05*lambda+0.02 || d < -0.05*lambda-0.02 {
			t.Errorf("poisson(%v): mean %v", lambda, mean)
		}
	}
}

// TestCategoryMatch: queries find their categories.
func TestCategoryMatch(t *testing.T) {
	cs := slices.Clone(categories)
	ix := newCategoryIndex(cs, withTrades(cs))
	tests := []struct{ query, want string }{
		{"boulangerie", "boulangerie"},
		{"Boulangeries", "boulangerie"},
		{"bakery", "boulangerie"},
		{"boulangerie pâtisserie", "boulangerie"},
		{"plombier chauffagiste", "plombier"},
		{"Plombiers", "plombier"},
		{"agence immobilière", "immobilier"},
		{"Agences Immobilières", "immobilier"},
		{"expert-comptable", "comptable"},
		{"cabinet d'avocats", "avocat"},
		{"restaurant italien", "restaurant"},
		{"auto-école", "autoecole"},
		{"notary", "notaire"},
		{"hôtel", "hotel"},
		{"Klempner", "plombier"},
		{"Klempnerei", "plombier"},
		{"fontanero", "plombier"},
		{"Fontanería", "plombier"},
		{"idraulico", "plombier"},
		{"Bäckerei", "boulangerie"},
		{"panadería", "boulangerie"},
		{"Steuerberater", "comptable"},
		{"commercialista", "comptable"},
		{"Rechtsanwälte", ""},
		{"escape game", ""},
		{"fabricant de drones", ""},
	}
	for _, tt := range tests {
		c := ix.resolve(gazetteer.Normalize(tt.query))
		got := ""
		if c != nil {
			got = c.key
		}
		if got != tt.want {
			t.Errorf("resolve(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
}
