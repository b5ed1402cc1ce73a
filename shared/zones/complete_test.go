package zones

import (
	"testing"
)

// TestComplete: what a person types brings the zones they mean, the most
// populous first, each label reading back as the zone it names.
func TestComplete(t *testing.T) {
	r := realResolver(t)
	for _, tt := range []struct {
		country, prefix string
		first           string // the first completion, "" for none
		contains        string // another expected among them
	}{
		{"FRA", "lyo", "Lyon (69)", ""},
		{"FRA", "Villeurb", "Villeurbanne (69)", ""},
		{"FRA", "rhô", "Rhône (69)", ""},
		{"FRA", "RHONE", "Rhône (69)", ""},
		{"FRA", "auvergne", "Auvergne-Rhône-Alpes", ""},
		{"FRA", "paris", "Paris (75)", ""},
		{"FRA", "saint-mar", "", "Saint-Martin-d'Hères (38)"},
		{"FRA", "l", "", ""},
		{"FRA", "zzzz", "", ""},
		{"XYZ", "lyon", "", ""},
		{"DEU", "münch", "Munich", ""},
	} {
		t.Run(tt.country+" "+tt.prefix, func(t *testing.T) {
			got := r.Complete(tt.country, tt.prefix, 10)
			if tt.first == "" && tt.contains == "" {
				if len(got) != 0 {
					t.Errorf("%v, want none", got)
				}
				return
			}
			if len(got) == 0 || len(got) > 10 {
				t.Fatalf("%d completions %v", len(got), got)
			}
			if tt.first != "" && got[0].Label != tt.first {
				t.Errorf("first %q, want %q (%v)", got[0].Label, tt.first, got)
			}
			found := tt.contains == ""
			for _, c := range got {
				found = found || c.Label == tt.contains
				z, err := r.Resolve(tt.country, c.Label)
				if err != nil || z.Label != c.Label {
					t.Errorf("%q reads back as %q (%v)", c.Label, z.Label, err)
				}
			}
			if !found {
				t.Errorf("%q not among %v", tt.contains, got)
			}
		})
	}
}
