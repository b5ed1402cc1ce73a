package zones

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/paulmach/orb/geo"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/gazetteer"
)

func TestResolve(t *testing.T) {
	r, ids := testWorld(t)
	tests := []struct {
		country, zone string
		places        []string // fixture keys
		kind          gazetteer.Kind
		form          Form
		label         string
		radius        float64
	}{
		// Whole countries, in several languages.
		{"FRA", "France", []string{"FRA"}, country, FormName, "France", 0},
		{"FRA", "  FRANCE. ", []string{"FRA"}, country, FormName, "France", 0},
		{"DEU", "Allemagne", []string{"DEU"}, country, FormName, "Deutschland", 0},
		{"DEU", "Germany", []string{"DEU"}, country, FormName, "Deutschland", 0},
		{"DEU", "Deutschland", []string{"DEU"}, country, FormName, "Deutschland", 0},
		{"ESP", "Espagne", []string{"ESP"}, country, FormName, "España", 0},
		{"USA", "États-Unis", []string{"USA"}, country, FormName, "United States", 0},

		// Regions and states, in several languages.
		{"FRA", "Bretagne", []string{"BRE"}, region, FormName, "Bretagne", 0},
		{"FRA", "bretagne", []string{"BRE"}, region, FormName, "Bretagne", 0},
		{"FRA", "Brittany", []string{"BRE"}, region, FormName, "Bretagne", 0},
		{"FRA", "ile de france", []string{"IDF"}, region, FormName, "Île-de-France", 0},
		{"FRA", "Provence-Alpes-Cote d Azur", []string{"PAC"}, region, FormName, "Provence-Alpes-Côte d'Azur", 0},
		// A former region is its departments (the fixture has three of
		// Rhône-Alpes' eight).
		{"FRA", "Rhône-Alpes", []string{"d01", "d26", "d38", "d69"}, department, FormName, "Rhône-Alpes", 0},
		{"FRA", "rhone alpes", []string{"d01", "d26", "d38", "d69"}, department, FormName, "Rhône-Alpes", 0},
		{"DEU", "Bavière", []string{"BY"}, region, FormName, "Bayern", 0},
		{"DEU", "Bavaria", []string{"BY"}, region, FormName, "Bayern", 0},
		{"DEU", "BAYERN", []string{"BY"}, region, FormName, "Bayern", 0},
		{"DEU", "DE-BY", []string{"BY"}, region, FormCode, "Bayern", 0},
		{"ESP", "Catalogne", []string{"CT"}, region, FormName, "Cataluña", 0},
		{"ESP", "Cataluña", []string{"CT"}, region, FormName, "Cataluña", 0},
		{"ESP", "Catalonia", []string{"CT"}, region, FormName, "Cataluña", 0},
		{"USA", "Californie", []string{"CA"}, region, FormName, "California", 0},
		{"USA", "California", []string{"CA"}, region, FormName, "California", 0},
		{"USA", "US-NY", []string{"NY"}, region, FormCode, "New York", 0},

		// Departments by name and number.
		{"FRA", "Rhône", []string{"d69"}, department, FormName, "Rhône (69)", 0},
		{"FRA", "rhone", []string{"d69"}, department, FormName, "Rhône (69)", 0},
		{"FRA", "Finistère", []string{"d29"}, department, FormName, "Finistère (29)", 0},
		{"FRA", "69", []string{"d69"}, department, FormCode, "Rhône (69)", 0},
		{"FRA", "01", []string{"d01"}, department, FormCode, "Ain (01)", 0},
		{"FRA", "1", []string{"d01"}, department, FormCode, "Ain (01)", 0},
		{"FRA", "2A", []string{"d2A"}, department, FormCode, "Corse-du-Sud (2A)", 0},
		{"FRA", "2b", []string{"d2B"}, department, FormCode, "Haute-Corse (2B)", 0},
		{"FRA", "974", []string{"d974"}, department, FormCode, "La Réunion (974)", 0},
		{"FRA", "dép. 93", []string{"d93"}, department, FormCode, "Seine-Saint-Denis (93)", 0},
		{"FRA", "Département 86", []string{"d86"}, department, FormCode, "Vienne (86)", 0},
		{"ESP", "ES-B", []string{"pB"}, department, FormCode, "Barcelona", 0},

		// Cities, accents, hyphens, Saint/St.
		{"FRA", "Lyon", []string{"lyon"}, city, FormName, "Lyon (69)", 0},
		{"FRA", "LYON", []string{"lyon"}, city, FormName, "Lyon (69)", 0},
		{"FRA", "« Lyon »", []string{"lyon"}, city, FormName, "Lyon (69)", 0},
		{"FRA", "Ste Foy les Lyon", []string{"saintefoy"}, city, FormName, "Sainte-Foy-lès-Lyon (69)", 0},
		{"FRA", "sainte-foy-lès-lyon", []string{"saintefoy"}, city, FormName, "Sainte-Foy-lès-Lyon (69)", 0},
		{"FRA", "Bourg en Bresse", []string{"bourg"}, city, FormName, "Bourg-en-Bresse (01)", 0},
		{"FRA", "Paris", []string{"paris"}, city, FormName, "Paris (75)", 0},
		{"DEU", "München", []string{"munchen"}, city, FormName, "München", 0},
		{"DEU", "Munich", []string{"munchen"}, city, FormName, "München", 0},
		{"ESP", "Barcelone", []string{"barcelona"}, city, FormName, "Barcelona", 0},
		{"USA", "New York", []string{"nyc"}, city, FormName, "New York", 0},
		{"USA", "NYC", []string{"nyc"}, city, FormName, "New York", 0},

		// Radius.
		{"FRA", "Lyon 15km", []string{"lyon"}, city, FormName, "Lyon (69) 15 km", 15},
		{"FRA", "Lyon 15 km", []string{"lyon"}, city, FormName, "Lyon (69) 15 km", 15},
		{"FRA", "Lyon, 15km", []string{"lyon"}, city, FormName, "Lyon (69) 15 km", 15},
		{"FRA", "Lyon 2.5km", []string{"lyon"}, city, FormName, "Lyon (69) 2.5 km", 2.5},
		{"FRA", "Lyon 2,5 km", []string{"lyon"}, city, FormName, "Lyon (69) 2.5 km", 2.5},
		{"FRA", "Lyon, 2,5 KM", []string{"lyon"}, city, FormName, "Lyon (69) 2.5 km", 2.5},
		{"FRA", "Lyon15km", []string{"lyon"}, city, FormName, "Lyon (69) 15 km", 15},
		{"FRA", "Lyon - 10 kilomètres", []string{"lyon"}, city, FormName, "Lyon (69) 10 km", 10},
		{"FRA", "Lyon 1km", []string{"lyon"}, city, FormName, "Lyon (69) 1 km", 1},
		{"FRA", "Lyon 100km", []string{"lyon"}, city, FormName, "Lyon (69) 100 km", 100},
		{"FRA", "Lyon 15 ㎞", []string{"lyon"}, city, FormName, "Lyon (69) 15 km", 15},
		{"FRA", "Paris 11e 2km", []string{"paris11"}, district, FormDistrict, "Paris 11e (75) 2 km", 2},
		{"FRA", "Paris 11,5km", []string{"paris"}, city, FormName, "Paris (75) 11.5 km", 11.5},
		{"FRA", "Vienne 10km", []string{"vienne38"}, city, FormName, "Vienne (38) 10 km", 10},
		{"FRA", "38200 5km", []string{"vienne38", "jardin", "seyssuel"}, city, FormPostcode, "38200 Vienne +2 5 km", 5},
		{"USA", "New York 30km", []string{"nyc"}, city, FormName, "New York 30 km", 30},

		// Postal codes: a code shared by communes is all of them; a city
		// and its arrondissement sharing one is the arrondissement.
		{"FRA", "75011", []string{"paris11"}, district, FormPostcode, "75011 Paris 11e", 0},
		{"FRA", "75116", []string{"paris16"}, district, FormPostcode, "75116 Paris 16e", 0},
		{"FRA", "69001", []string{"lyon1"}, district, FormPostcode, "69001 Lyon 1er", 0},
		{"FRA", "38200", []string{"vienne38", "jardin", "seyssuel"}, city, FormPostcode, "38200 Vienne +2", 0},
		{"FRA", "1000", []string{"bourg"}, city, FormPostcode, "01000 Bourg-en-Bresse", 0},
		{"FRA", "20000", []string{"ajaccio"}, city, FormPostcode, "20000 Ajaccio", 0},

		// INSEE codes: when not a postal code, or asked for explicitly.
		{"FRA", "69123", []string{"lyon"}, city, FormINSEE, "Lyon (69)", 0},
		{"FRA", "75111", []string{"paris11"}, district, FormINSEE, "Paris 11e (75)", 0},
		{"FRA", "2A004", []string{"ajaccio"}, city, FormINSEE, "Ajaccio (2A)", 0},
		{"FRA", "INSEE 69001", []string{"affoux"}, city, FormINSEE, "Affoux (69)", 0},
		{"FRA", "insee:69001", []string{"affoux"}, city, FormINSEE, "Affoux (69)", 0},
		{"FRA", "code INSEE 69001", []string{"affoux"}, city, FormINSEE, "Affoux (69)", 0},

		// Arrondissements.
		{"FRA", "Paris 11e", []string{"paris11"}, district, FormDistrict, "Paris 11e (75)", 0},
		{"FRA", "Paris 11", []string{"paris11"}, district, FormDistrict, "Paris 11e (75)", 0},
		{"FRA", "Paris 11ème", []string{"paris11"}, district, FormDistrict, "Paris 11e (75)", 0},
		{"FRA", "Paris 11ᵉ", []string{"paris11"}, district, FormDistrict, "Paris 11e (75)", 0},
		{"FRA", "Paris XIe", []string{"paris11"}, district, FormDistrict, "Paris 11e (75)", 0},
		{"FRA", "Paris 1er arrondissement", []string{"paris1"}, district, FormName, "Paris 1er (75)", 0},
		{"FRA", "Paris 1er Arrondissement", []string{"paris1"}, district, FormName, "Paris 1er (75)", 0},
		{"FRA", "Paris Ier", []string{"paris1"}, district, FormDistrict, "Paris 1er (75)", 0},
		{"FRA", "Marseille 8e arrondissement", []string{"marseille8"}, district, FormName, "Marseille 8e (13)", 0},
		{"FRA", "Marseille 8e arr.", []string{"marseille8"}, district, FormDistrict, "Marseille 8e (13)", 0},
		{"FRA", "Lyon 1er", []string{"lyon1"}, district, FormDistrict, "Lyon 1er (69)", 0},
		{"FRA", "lyon 9", []string{"lyon9"}, district, FormDistrict, "Lyon 9e (69)", 0},
		{"FRA", "11e arrondissement de Paris", []string{"paris11"}, district, FormDistrict, "Paris 11e (75)", 0},
		{"FRA", "Marseille 13", []string{"marseille13"}, district, FormDistrict, "Marseille 13e (13)", 0},

		// Qualifiers pick among places of one name.
		{"FRA", "Saint-Denis 93", []string{"stdenis93"}, city, FormQualified, "Saint-Denis (93)", 0},
		{"FRA", "Saint-Denis (974)", []string{"stdenis974"}, city, FormQualified, "Saint-Denis (974)", 0},
		{"FRA", "Saint-Denis, Seine-Saint-Denis", []string{"stdenis93"}, city, FormQualified, "Saint-Denis (93)", 0},
		{"FRA", "St Denis (Île-de-France)", []string{"stdenis93"}, city, FormQualified, "Saint-Denis (93)", 0},
		{"FRA", "Saint-Denis, La Réunion", []string{"stdenis974"}, city, FormQualified, "Saint-Denis (974)", 0},
		{"FRA", "Saint-Denis 93200", []string{"stdenis93"}, city, FormQualified, "Saint-Denis (93)", 0},
		{"FRA", "93200 Saint-Denis", []string{"stdenis93"}, city, FormQualified, "Saint-Denis (93)", 0},
		{"FRA", "Vienne 38", []string{"vienne38"}, city, FormQualified, "Vienne (38)", 0},
		{"FRA", "Vienne (Isère)", []string{"vienne38"}, city, FormQualified, "Vienne (38)", 0},
		{"FRA", "Vienne (86)", []string{"d86"}, department, FormQualified, "Vienne (86)", 0},
		{"FRA", "Paris 75", []string{"paris"}, city, FormQualified, "Paris (75)", 0},
		{"FRA", "Paris 75011", []string{"paris11"}, district, FormQualified, "Paris 11e (75)", 0},
		{"FRA", "75011 Paris", []string{"paris11"}, district, FormQualified, "Paris 11e (75)", 0},
		{"FRA", "Lyon 69", []string{"lyon"}, city, FormQualified, "Lyon (69)", 0},
		{"FRA", "Marseille (13)", []string{"marseille"}, city, FormQualified, "Marseille (13)", 0},
		{"FRA", "Paris 11e (75)", []string{"paris11"}, district, FormQualified, "Paris 11e (75)", 0},
		{"FRA", "Saint-Denis (93) 10km", []string{"stdenis93"}, city, FormQualified, "Saint-Denis (93) 10 km", 10},
		{"USA", "New York (US-NY)", []string{"nyc"}, city, FormQualified, "New York", 0},

		// Country codes in any case, alpha-2, and the default.
		{"fra", "Lyon", []string{"lyon"}, city, FormName, "Lyon (69)", 0},
		{"FR", "Lyon", []string{"lyon"}, city, FormName, "Lyon (69)", 0},
		{"", "Lyon", []string{"lyon"}, city, FormName, "Lyon (69)", 0},
		{"de", "Munich", []string{"munchen"}, city, FormName, "München", 0},
	}
	for _, tt := range tests {
		if tt.places == nil {
			continue
		}
		z, err := r.Resolve(tt.country, tt.zone)
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", tt.country, tt.zone, err)
			continue
		}
		var want []gazetteer.ID
		for _, k := range tt.places {
			want = append(want, ids[k])
		}
		if !slices.Equal(z.Places, want) || z.Kind != tt.kind || z.Form != tt.form || z.Label != tt.label || z.RadiusKm != tt.radius {
			t.Errorf("Resolve(%q, %q) = places %v kind %v form %q label %q radius %v; want %v %v %q %q %v",
				tt.country, tt.zone, z.Places, z.Kind, z.Form, z.Label, z.RadiusKm, want, tt.kind, tt.form, tt.label, tt.radius)
		}
		if z.Input != tt.zone || len(z.Shape) == 0 || z.Country == "" {
			t.Errorf("Resolve(%q, %q): input %q, %d polygons, country %q", tt.country, tt.zone, z.Input, len(z.Shape), z.Country)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	r, _ := testWorld(t)
	tests := []struct {
		country, zone string
		reason        error
		suggestion    string
		en, fr        string // substrings of the messages
	}{
		{"FRA", "Pari", ErrUnknown, "Paris", `Unknown zone "Pari" in France. Did you mean "Paris"?`, `Zone inconnue « Pari » (France). Vouliez-vous dire « Paris » ?`},
		{"FRA", "Lyonn", ErrUnknown, "Lyon", `Did you mean "Lyon"?`, `Vouliez-vous dire « Lyon » ?`},
		{"FRA", "Lyonn 15km", ErrUnknown, "Lyon 15 km", `Did you mean "Lyon 15 km"?`, ""},
		{"FRA", "Bretagn", ErrUnknown, "Bretagne", "", ""},
		{"FRA", "Rhone-Alpe", ErrUnknown, "Rhône-Alpes", "", ""},
		{"FRA", "Rhône-Alpes 10km", ErrRadiusTarget, "", "", ""},
		{"FRA", "Alsace", ErrUnknown, "", "", ""}, // not in the fixture's departments
		{"FRA", "Finistere sud", ErrUnknown, "", `Unknown zone "Finistere sud" in France.`, ""},
		{"FRA", "Pari 11e", ErrUnknown, "Paris 11e", `Did you mean "Paris 11e"?`, ""},
		{"FRA", "Saint-Deni (93)", ErrUnknown, "Saint-Denis (93)", "", ""},
		{"FRA", "Lyon (75)", ErrUnknown, "Lyon", "", ""},
		{"FRA", "Vienne 10km (86)", ErrUnknown, "", "", ""},
		{"FRA", "Lyon 12e", ErrUnknown, "", "Lyon has arrondissements 1 to 9.", "Lyon a les arrondissements 1 à 9."},
		{"FRA", "Xyzzyq", ErrUnknown, "", `Unknown zone "Xyzzyq" in France.`, `Zone inconnue « Xyzzyq » (France).`},
		{"FRA", "99", ErrUnknown, "", "", ""},
		{"FRA", "20", ErrUnknown, "Corse", `Did you mean "Corse"?`, ""},
		{"FRA", "99999", ErrUnknown, "", "", ""},
		{"FRA", "Barcelone", ErrUnknown, "", `"Barcelone" exists in another country: Spain (ESP).`, "« Barcelone » existe dans un autre pays : Espagne (ESP)."},
		{"DEU", "Bavierre", ErrUnknown, "Bavière", `Unknown zone "Bavierre" in Germany. Did you mean "Bavière"?`, "(Allemagne)"},
		{"DEU", "Paris", ErrUnknown, "", "exists in another country: France (FRA)", ""},
		{"FRA", "Allemagne", ErrOtherCountry, "", `Zone "Allemagne" is another country (Germany, DEU) than the request's (France, FRA): set country to DEU`, "La zone « Allemagne » est un autre pays (Allemagne, DEU) que celui de la demande (France, FRA)"},
		{"FRA", "Germany", ErrOtherCountry, "", "", ""},
		{"DEU", "France", ErrOtherCountry, "", "", ""},
		{"FRA", "Lyon 0km", ErrRadius, "", `Zone "Lyon 0km": radius 0 km out of bounds (1 to 100 km).`, "rayon de 0 km hors limites (de 1 à 100 km)"},
		{"FRA", "Lyon 0,5km", ErrRadius, "", "radius 0.5 km", "rayon de 0,5 km"},
		{"FRA", "Lyon 150km", ErrRadius, "", "", ""},
		{"FRA", "Lyon 99999999999999999999km", ErrRadius, "", "", ""},
		{"FRA", "Bretagne 10km", ErrRadiusTarget, "", `a radius applies only to a city, and Bretagne is a region.`, "un rayon ne s'applique qu'à une ville, et Bretagne est une région."},
		{"FRA", "69 10km", ErrRadiusTarget, "", "", ""},
		{"FRA", "15km", ErrRadiusTarget, "", `a radius applies to a city`, ""},
		{"DEU", "insee 69001", ErrINSEE, "", "INSEE codes exist only in France", ""},
		{"FRA", "", ErrEmpty, "", "Empty zone.", "Zone vide."},
		{"FRA", "   ", ErrEmpty, "", "", ""},
		{"FRA", "--- !!", ErrNoName, "", `Zone "--- !!" has no letter or digit.`, ""},
		{"FRA", strings.Repeat("a", 201), ErrTooLong, "", "Zone too long (201 characters, at most 200).", "Zone trop longue (201 caractères, 200 au plus)."},
		{"FRA", strings.Repeat("é", 201), ErrTooLong, "", "", ""},
		{"FRA", strings.Repeat("x", 100_000), ErrTooLong, "", "", ""},
		{"XXX", "Lyon", ErrCountry, "", `Unknown country "XXX"`, "Pays inconnu « XXX »"},
	}
	for _, tt := range tests {
		_, err := r.Resolve(tt.country, tt.zone)
		if !errors.Is(err, tt.reason) {
			t.Errorf("Resolve(%q, %.30q) = %v, want %v", tt.country, tt.zone, err, tt.reason)
			continue
		}
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != apperr.Invalid || ae.FR == "" || ae.EN == "" {
			t.Errorf("Resolve(%q, %.30q): %#v is not an apperr.Invalid with both messages", tt.country, tt.zone, err)
			continue
		}
		var ze *ZoneError
		if !errors.As(err, &ze) || ze.Suggestion != tt.suggestion {
			t.Errorf("Resolve(%q, %.30q): suggestion %q, want %q (%v)", tt.country, tt.zone, ze.Suggestion, tt.suggestion, err)
		}
		if !strings.Contains(ae.EN, tt.en) || !strings.Contains(ae.FR, tt.fr) {
			t.Errorf("Resolve(%q, %.30q): messages\n  EN %s\n  FR %s\nwant them to contain\n  EN %s\n  FR %s", tt.country, tt.zone, ae.EN, ae.FR, tt.en, tt.fr)
		}
		if len(ae.EN) > 600 || len(ae.FR) > 600 {
			t.Errorf("Resolve(%q, %.30q): message of %d bytes", tt.country, tt.zone, len(ae.EN))
		}
	}
}

// TestSuggestionsResolve checks that every suggestion is a zone Resolve
// accepts: the user can take it as it is.
func TestSuggestionsResolve(t *testing.T) {
	r, _ := testWorld(t)
	for _, in := range []struct{ country, zone string }{
		{"FRA", "Pari"}, {"FRA", "Lyonn 15km"}, {"FRA", "Pari 11e"}, {"FRA", "Saint-Deni (93)"},
		{"FRA", "Vienn (38)"}, {"FRA", "Viene 5km"}, {"FRA", "Seine-St-Deni"}, {"DEU", "Bavierre"},
		{"DEU", "Munchn"}, {"ESP", "Barcelonne"}, {"USA", "Californa"}, {"USA", "New Yorkk"},
	} {
		s, ok := r.Suggest(in.country, in.zone)
		if !ok {
			t.Errorf("Suggest(%q, %q): none", in.country, in.zone)
			continue
		}
		if _, err := r.Resolve(in.country, s); err != nil {
			t.Errorf("Suggest(%q, %q) = %q, which does not resolve: %v", in.country, in.zone, s, err)
		}
	}
	if s, ok := r.Suggest("FRA", "Viene 5km"); s != "Vienne (38) 5 km" && s != "Vienne 5 km" || !ok {
		t.Errorf(`Suggest("Viene 5km") = %q, want the city Vienne with its radius`, s)
	}
}

func TestAmbiguity(t *testing.T) {
	r, ids := testWorld(t)
	tests := []struct {
		country, zone string
		place         string
		rule          Rule
		alternatives  []string // Input of each alternative
	}{
		// The department is more populous than the city of Isère.
		{"FRA", "Vienne", "d86", RuleMostPopular, []string{"Vienne (38)"}},
		// La Réunion's Saint-Denis is more populous than Seine-Saint-Denis' one.
		{"FRA", "Saint-Denis", "stdenis974", RuleMostPopular, []string{"Saint-Denis (93)"}},
		// The city holds a quarter or more of the department of its name.
		{"FRA", "Paris", "paris", RuleNamesake, []string{"75"}},
		// Not a quarter: the department.
		{"FRA", "Mayenne", "d53", RuleMostPopular, []string{"Mayenne (53)"}},
		// A region and its department of the same name and people: the department.
		{"FRA", "La Réunion", "d974", RuleNamesake, []string{""}},
		{"USA", "New York", "nyc", RuleNamesake, []string{"US-NY"}},
		{"ESP", "Barcelone", "barcelona", RuleNamesake, []string{"ES-B"}},
		// Region, province and city: down twice.
		{"ESP", "Madrid", "madrid", RuleNamesake, []string{"Comunidad de Madrid", "ES-M"}},
		{"DEU", "Berlin", "berlin", RuleNamesake, []string{"DE-BE"}},
		// An area of unknown population before a city elsewhere.
		{"USA", "Delaware", "DE", RuleMostPopular, []string{"Delaware (Ohio)"}},
		{"USA", "Washington", "WA", RuleMostPopular, []string{"Washington (District of Columbia)"}},
		{"GBR", "London", "london", RuleMostPopular, []string{"GB-LND"}},
		{"GBR", "Londres", "london", RuleNone, nil},
		{"FRA", "Lyon", "lyon", RuleNone, nil},
	}
	for _, tt := range tests {
		z, err := r.Resolve(tt.country, tt.zone)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.zone, err)
			continue
		}
		var inputs []string
		for _, a := range z.Alternatives {
			inputs = append(inputs, a.Input)
		}
		if z.Places[0] != ids[tt.place] || z.Rule != tt.rule || !slices.Equal(inputs, tt.alternatives) {
			t.Errorf("Resolve(%q) = %s (%v) rule %q alternatives %q; want %s rule %q alternatives %q",
				tt.zone, z.Label, z.Places, z.Rule, inputs, tt.place, tt.rule, tt.alternatives)
		}
		for _, a := range z.Alternatives {
			if a.Input == "" {
				continue
			}
			if alt, err := r.Resolve(tt.country, a.Input); err != nil || alt.Places[0] != a.ID {
				t.Errorf("alternative %q of %q does not resolve to %s: %v", a.Input, tt.zone, a.Label, err)
			}
		}
	}

	z, _ := r.Resolve("FRA", "Vienne")
	fr, en := z.Ambiguity()
	wantEN := `"Vienne" is read as the department Vienne (86), the most populous place of that name. For the city Vienne (38), write "Vienne (38)".`
	wantFR := `« Vienne » désigne le département Vienne (86), le lieu le plus peuplé de ce nom. Pour la ville Vienne (38), écrivez « Vienne (38) ».`
	if en != wantEN || fr != wantFR {
		t.Errorf("Ambiguity() =\n  %s\n  %s\nwant\n  %s\n  %s", fr, en, wantFR, wantEN)
	}
	z, _ = r.Resolve("FRA", "Paris")
	if fr, en := z.Ambiguity(); !strings.Contains(en, "home to at least a quarter") || !strings.Contains(fr, "au moins le quart des habitants du département") {
		t.Errorf("Ambiguity() for Paris:\n  %s\n  %s", fr, en)
	}
	z, _ = r.Resolve("FRA", "Lyon")
	if fr, en := z.Ambiguity(); fr != "" || en != "" {
		t.Errorf("Ambiguity() for Lyon = %q, %q; want none", fr, en)
	}
}

func TestShapes(t *testing.T) {
	r, ids := testWorld(t)

	// A radius replaces the city's disc with one of that radius.
	z := mustResolve(t, r, "FRA", "Lyon 15km")
	if d := geo.DistanceHaversine(z.Center, z.Shape[0][0][0]) / 1000; math.Abs(d-15) > 0.01 {
		t.Errorf("Lyon 15km: disc edge at %.3f km from the centre", d)
	}
	if got := withinCount(z); got != 1 {
		t.Errorf("Lyon 15km: within %d departments, want Rhône only", got)
	}
	if z.Department != ids["d69"] || z.Region != ids["ARA"] {
		t.Errorf("Lyon 15km: department %d region %d", z.Department, z.Region)
	}
	// A wider disc spills into the neighbouring departments.
	if got := withinCount(mustResolve(t, r, "FRA", "Lyon 50km")); got != 3 {
		t.Errorf("Lyon 50km: within %d departments, want Rhône, Ain and Isère", got)
	}
	// A city without radius keeps its own disc.
	z = mustResolve(t, r, "FRA", "Lyon")
	if d := geo.DistanceHaversine(z.Center, z.Shape[0][0][0]) / 1000; math.Abs(d-6) > 0.01 {
		t.Errorf("Lyon: disc edge at %.3f km, want its own 6 km", d)
	}
	// Areas are their polygons, not clipped.
	z = mustResolve(t, r, "FRA", "Bretagne")
	if len(z.Shape) != 1 || z.Within != nil || z.Region != ids["BRE"] || z.Department != gazetteer.None {
		t.Errorf("Bretagne: %d polygons, within %v, region %d, department %d", len(z.Shape), z.Within, z.Region, z.Department)
	}
	z = mustResolve(t, r, "FRA", "France")
	if z.Region != gazetteer.None || z.Department != gazetteer.None || z.Within != nil {
		t.Errorf("France: region %d department %d within %v", z.Region, z.Department, z.Within)
	}
	// A postal code of three communes is their three discs.
	z = mustResolve(t, r, "FRA", "38200")
	if len(z.Shape) != 3 || z.Department != ids["d38"] {
		t.Errorf("38200: %d polygons, department %d", len(z.Shape), z.Department)
	}
	// A German city: the region clips it, there are no departments.
	z = mustResolve(t, r, "DEU", "Munich 20km")
	if z.Within == nil || z.Department != gazetteer.None || z.Region != ids["BY"] {
		t.Errorf("Munich 20km: within %v, department %d, region %d", z.Within, z.Department, z.Region)
	}
}

func withinCount(z Zone) int { return len(z.Within) }

func mustResolve(t *testing.T, r *Resolver, country, zone string) Zone {
	t.Helper()
	z, err := r.Resolve(country, zone)
	if err != nil {
		t.Fatalf("Resolve(%q, %q): %v", country, zone, err)
	}
	return z
}

func TestSplitRadius(t *testing.T) {
	tests := []struct {
		in   string
		base string
		km   float64
		ok   bool
	}{
		{"Lyon 15km", "Lyon", 15, true},
		{"Lyon 15 km", "Lyon", 15, true},
		{"Lyon, 15km", "Lyon", 15, true},
		{"Lyon 2.5km", "Lyon", 2.5, true},
		{"Lyon 2,5km", "Lyon", 2.5, true},
		{"Lyon, 2,5 km", "Lyon", 2.5, true},
		{"Lyon 15 KM", "Lyon", 15, true},
		{"Lyon 15kms", "Lyon", 15, true},
		{"Lyon 15 kilometres", "Lyon", 15, true},
		{"Lyon 15km.", "Lyon", 15, true},
		{"Saint-Denis (93) 10km", "Saint-Denis (93)", 10, true},
		{"15km", "", 15, true},
		{"Lyon 15", "Lyon 15", 0, false},
		{"Lyon", "Lyon", 0, false},
		{"Lyon km", "Lyon km", 0, false},
		{"Lyon 1e5km", "Lyon 1e", 5, true}, // "Lyon 1e 5km"
	}
	for _, tt := range tests {
		base, km, ok := splitRadius(tt.in)
		if base != tt.base || km != tt.km || ok != tt.ok {
			t.Errorf("splitRadius(%q) = %q, %v, %v; want %q, %v, %v", tt.in, base, km, ok, tt.base, tt.km, tt.ok)
		}
	}
}

func TestParseDistrict(t *testing.T) {
	tests := []struct {
		in   string
		city string
		n    int
		ok   bool
	}{
		{"paris 11e", "paris", 11, true},
		{"paris 11", "paris", 11, true},
		{"paris 11 e", "paris", 11, true},
		{"paris 1er", "paris", 1, true},
		{"paris 11eme arrondissement", "paris", 11, true},
		{"paris xie", "paris", 11, true},
		{"paris xxe", "paris", 20, true},
		{"paris ier arr", "paris", 1, true},
		{"marseille 8e arrondissement", "marseille", 8, true},
		{"11e arrondissement de paris", "paris", 11, true},
		{"1er arrondissement paris", "paris", 1, true},
		{"8e marseille", "marseille", 8, true},
		{"75 paris", "", 0, false},
		{"paris", "", 0, false},
		{"paris vi", "", 0, false},
		{"paris iiiie", "", 0, false},
		{"paris 123", "", 0, false},
		{"paris 0", "", 0, false},
		{"arrondissement", "", 0, false},
		{"11e", "", 0, false},
	}
	for _, tt := range tests {
		city, n, ok := parseDistrict(tt.in)
		if city != tt.city || n != tt.n || ok != tt.ok {
			t.Errorf("parseDistrict(%q) = %q, %d, %v; want %q, %d, %v", tt.in, city, n, ok, tt.city, tt.n, tt.ok)
		}
	}
}

// TestPostcodeBeforeINSEE pins the rule for five digits that are both a
// postal code and an INSEE code.
func TestPostcodeBeforeINSEE(t *testing.T) {
	r, ids := testWorld(t)
	if z := mustResolve(t, r, "FRA", "69001"); z.Places[0] != ids["lyon1"] || z.Form != FormPostcode {
		t.Errorf("69001 = %s (%s), want Lyon 1er by postal code", z.Label, z.Form)
	}
	if z := mustResolve(t, r, "FRA", "INSEE 69001"); z.Places[0] != ids["affoux"] || z.Form != FormINSEE {
		t.Errorf("INSEE 69001 = %s (%s), want Affoux by INSEE code", z.Label, z.Form)
	}
	// 69123 is no postal code: the INSEE code of Lyon.
	if z := mustResolve(t, r, "FRA", "69123"); z.Places[0] != ids["lyon"] || z.Form != FormINSEE {
		t.Errorf("69123 = %s (%s), want Lyon by INSEE code", z.Label, z.Form)
	}
	// An explicit INSEE code is never read as a postal code.
	if _, err := r.Resolve("FRA", "INSEE 75011"); !errors.Is(err, ErrUnknown) {
		t.Errorf("INSEE 75011: %v, want unknown (75011 is a postal code only)", err)
	}
}

func TestResolveConcurrently(t *testing.T) {
	r, _ := testWorld(t)
	zones := []string{"Lyon 15km", "Paris 11e", "Pari", "38200", "Bretagne", "Vienne", "Saint-Denis (93)"}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				zone := zones[(i+j)%len(zones)]
				if _, err := r.Resolve("FRA", zone); err != nil && !errors.Is(err, ErrUnknown) {
					t.Errorf("Resolve(%q): %v", zone, err)
				}
			}
		}()
	}
	wg.Wait()
}

// TestFuzzyIsExact compares the pruned trie walk with a plain scan of
// every name.
func TestFuzzyIsExact(t *testing.T) {
	r, names := syntheticFrance(t, 3_000)
	all := r.g.Names("FRA")
	queries := []string{"pari", "lyonn", "saint morlan", "bertignac sur vau", "xq", "zzzzzzzzzzzz", "montaine", "ville", "saint", "a",
		"saint abcdefghijklmnopqrstuvwxyz", strings.Repeat("ber", 40)}
	for i := 0; i < len(names); i += 97 {
		n := []byte(gazetteer.Normalize(names[i]))
		n[len(n)/2], n[len(n)/2+1] = n[len(n)/2+1], n[len(n)/2] // a transposition
		queries = append(queries, string(n), string(n[1:]), string(n)+"x", string(n[:len(n)-2])+"qq",
			"x"+string(n[2:]), string(n[:len(n)/2])+"yz"+string(n[len(n)/2:]))
	}
	for _, q := range queries {
		n, dist, ok := r.fuzzy("FRA", q, maxDistance(len(q)), func(gazetteer.ID) bool { return true })
		id := n.ID
		want, wantDist := gazetteer.None, maxDistance(len(q))+1
		for _, n := range all {
			d := osa(q, n.Norm)
			if d < wantDist || d == wantDist && want != gazetteer.None && weight(r.g.Place(n.ID)) > weight(r.g.Place(want)) {
				want, wantDist = n.ID, d
			}
		}
		if wantDist > maxDistance(len(q)) {
			want = gazetteer.None
		}
		if ok != (want != gazetteer.None) || ok && (dist != wantDist || r.g.Place(id).Population != r.g.Place(want).Population) {
			t.Errorf("fuzzy(%q) = %v (%d), want %v (%d)", q, id, dist, want, wantDist)
		}
	}
}

func TestSuggestSynthetic(t *testing.T) {
	r, names := syntheticFrance(t, 60_000)
	for _, in := range []struct{ zone, want string }{{"Pari", "Paris"}, {"Lyonn", "Lyon"}, {"Lyon", "Lyon"}} {
		if got, ok := r.Suggest("FRA", in.zone); got != in.want || !ok {
			t.Errorf("Suggest(%q) = %q, %v; want %q", in.zone, got, ok, in.want)
		}
	}
	for i := 0; i < len(names); i += 5_000 {
		typo := names[i][:len(names[i])-1]
		got, ok := r.Suggest("FRA", typo)
		if !ok {
			t.Errorf("Suggest(%q): none", typo)
			continue
		}
		if _, err := r.Resolve("FRA", got); err != nil {
			t.Errorf("Suggest(%q) = %q: %v", typo, got, err)
		}
	}
}
