package zones

import (
	"errors"
	"slices"
	"testing"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
)

// realResolver resolves against the generated gazetteer.
func realResolver(tb testing.TB) *Resolver {
	tb.Helper()
	g, err := data.Load()
	if err != nil {
		tb.Fatal(err)
	}
	return NewResolver(g)
}

func TestRealData(t *testing.T) {
	r := realResolver(t)
	tests := []struct {
		country, zone string
		kind          gazetteer.Kind
		names         []string // the place's Name is one of these
		label         string   // when set, the exact label
	}{
		{"FRA", "France", country, []string{"France"}, "France"},
		{"FRA", "Paris", city, []string{"Paris"}, "Paris (75)"},
		{"FRA", "Lyon", city, []string{"Lyon"}, "Lyon (69)"},
		{"FRA", "Lyon 15km", city, []string{"Lyon"}, "Lyon (69) 15 km"},
		{"FRA", "Bretagne", region, []string{"Bretagne"}, "Bretagne"},
		{"FRA", "69", department, []string{"Rhône"}, "Rhône (69)"},
		{"FRA", "2A", department, []string{"Corse-du-Sud"}, "Corse-du-Sud (2A)"},
		{"FRA", "974", department, []string{"La Réunion"}, ""},
		{"FRA", "Finistère", department, []string{"Finistère"}, "Finistère (29)"},
		{"FRA", "Paris 11e", district, []string{"Paris 11e Arrondissement"}, "Paris 11e (75)"},
		{"FRA", "Paris XIe", district, []string{"Paris 11e Arrondissement"}, "Paris 11e (75)"},
		{"FRA", "Marseille 8e arrondissement", district, []string{"Marseille 8e Arrondissement"}, "Marseille 8e (13)"},
		{"FRA", "Lyon 1er", district, []string{"Lyon 1er Arrondissement"}, "Lyon 1er (69)"},
		{"FRA", "75011", district, []string{"Paris 11e Arrondissement"}, "75011 Paris 11e"},
		{"FRA", "69001", district, []string{"Lyon 1er Arrondissement"}, "69001 Lyon 1er"},
		{"FRA", "INSEE 69001", city, []string{"Affoux"}, "Affoux (69)"},
		{"FRA", "69123", city, []string{"Lyon"}, "Lyon (69)"},
		{"FRA", "Saint-Denis 93", city, []string{"Saint-Denis"}, "Saint-Denis (93)"},
		{"FRA", "Saint-Denis (974)", city, []string{"Saint-Denis"}, "Saint-Denis (974)"},
		{"FRA", "Vienne 38", city, []string{"Vienne"}, "Vienne (38)"},
		{"FRA", "Vienne 10km", city, []string{"Vienne"}, "Vienne (38) 10 km"},
		{"FRA", "St Etienne", city, []string{"Saint-Étienne"}, "Saint-Étienne (42)"},
		{"DEU", "Allemagne", country, []string{"Allemagne", "Deutschland", "Germany"}, ""},
		{"DEU", "Bavière", region, []string{"Bayern", "Bavière", "Bavaria"}, ""},
		{"DEU", "Bavaria", region, []string{"Bayern", "Bavière", "Bavaria"}, ""},
		{"DEU", "München", city, []string{"München", "Munich"}, ""},
		{"DEU", "Munich 20km", city, []string{"München", "Munich"}, ""},
		{"ESP", "Cataluña", region, []string{"Cataluña", "Catalogne", "Catalonia", "Catalunya"}, ""},
		{"ESP", "Catalogne", region, []string{"Cataluña", "Catalogne", "Catalonia", "Catalunya"}, ""},
		{"ESP", "Barcelone", city, []string{"Barcelona", "Barcelone"}, ""},
		{"USA", "Californie", region, []string{"California", "Californie"}, ""},
		{"USA", "New York", city, []string{"New York", "New York City"}, ""},
		{"USA", "Delaware", region, []string{"Delaware"}, ""},
		{"GBR", "London", city, []string{"London"}, ""},
		// Ambiguous names.
		{"FRA", "Vienne", department, []string{"Vienne"}, "Vienne (86)"},
		{"FRA", "Saint-Denis", city, []string{"Saint-Denis"}, "Saint-Denis (974)"},
		{"FRA", "Mayenne", department, []string{"Mayenne"}, "Mayenne (53)"},
		// Former regions: their departments.
		{"FRA", "Alsace", department, []string{"Bas-Rhin", "Haut-Rhin"}, "Alsace"},
		{"FRA", "Bourgogne", department, []string{"Côte-d'Or", "Nièvre", "Saône-et-Loire", "Yonne"}, "Bourgogne"},
		{"FRA", "Rhône-Alpes", department, []string{"Ain", "Ardèche", "Drôme", "Isère", "Loire", "Rhône", "Savoie", "Haute-Savoie"}, "Rhône-Alpes"},
	}
	for _, tt := range tests {
		z, err := r.Resolve(tt.country, tt.zone)
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", tt.country, tt.zone, err)
			continue
		}
		for _, id := range z.Places {
			p := r.g.Place(id)
			if z.Kind != tt.kind || !slices.Contains(tt.names, p.Name) || tt.label != "" && z.Label != tt.label {
				t.Errorf("Resolve(%q, %q) = %s %q (%q); want a %s among %q, label %q", tt.country, tt.zone, z.Kind, p.Name, z.Label, tt.kind, tt.names, tt.label)
			}
		}
		if len(z.Shape) == 0 || isPoint(z.Kind) && len(z.Within) == 0 {
			t.Errorf("Resolve(%q, %q): %d polygons, within %d", tt.country, tt.zone, len(z.Shape), len(z.Within))
		}
	}

	// "Pari" is refused with "Paris" suggested, or, in a gazetteer that
	// has it among Paris's GeoNames names, Paris itself.
	if z, err := r.Resolve("FRA", "Pari"); err != nil {
		var ze *ZoneError
		if !errors.As(err, &ze) || ze.Suggestion != "Paris" {
			t.Errorf(`Resolve("FRA", "Pari") = %v, want "Paris" suggested`, err)
		}
	} else if z.Label != "Paris (75)" {
		t.Errorf(`Resolve("FRA", "Pari") = %s, want Paris (75)`, z.Label)
	}

	errs := []struct {
		country, zone string
		reason        error
		suggestion    string
	}{
		{"FRA", "Lyonn", ErrUnknown, "Lyon"},
		{"FRA", "Marseile", ErrUnknown, "Marseille"},
		{"FRA", "Bordaux", ErrUnknown, "Bordeaux"},
		{"FRA", "Parsi 11e", ErrUnknown, "Paris 11e"},
		{"FRA", "Alsac", ErrUnknown, "Alsace"},
		{"DEU", "Bavierre", ErrUnknown, "Bavière"},
		{"FRA", "Allemagne", ErrOtherCountry, ""},
		{"FRA", "Lyon 500km", ErrRadius, ""},
		{"FRA", "Finistère 10km", ErrRadiusTarget, ""},
		{"FRA", "Lyon 12e", ErrUnknown, "Lyon 2e"},
	}
	for _, tt := range errs {
		_, err := r.Resolve(tt.country, tt.zone)
		var ze *ZoneError
		if !errors.Is(err, tt.reason) || !errors.As(err, &ze) || ze.Suggestion != tt.suggestion {
			t.Errorf("Resolve(%q, %q) = %v, want %v suggesting %q", tt.country, tt.zone, err, tt.reason, tt.suggestion)
		}
	}
}

func BenchmarkResolveCityRealData(b *testing.B) { benchCities(b, realResolver(b)) }

func BenchmarkSuggestRealData(b *testing.B) {
	r := realResolver(b)
	typos := []string{"Pari", "Lyonn", "Marseile", "Bordaux", "Saint-Etiene", "Montpelier", "Villeurbane", "Clermont-Ferand"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Suggest("FRA", typos[i%len(typos)])
		i++
	}
}

// BenchmarkResolveUnknownRealData is a whole refusal: every reading, the
// suggestion and the look-up in the other countries.
func BenchmarkResolveUnknownRealData(b *testing.B) {
	r := realResolver(b)
	typos := []string{"Lyonn", "Marseile", "Bordaux", "Saint-Etiene", "Montpelier", "Villeurbane", "Clermont-Ferand", "Xqzwkj-sur-Pqlvvv"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := r.Resolve("FRA", typos[i%len(typos)]); err == nil {
			b.Fatalf("%s resolved", typos[i%len(typos)])
		}
		i++
	}
}
