package emails

import (
	"net/url"
	"testing"
)

func TestPick(t *testing.T) {
	tests := []struct {
		name         string
		site         string
		found        []string
		wantEmail    string
		wantPersonal string
	}{
		{"nothing found", "https://a.fr", nil, "", ""},
		{"prefer the site's own domain", "https://www.boulangerie-petit.fr", []string{"boulangerie.petit@gmail.com", "contact@boulangerie-petit.fr"}, "contact@boulangerie-petit.fr", ""},
		{"generic over person on same domain", "https://roux.fr", []string{"a.roux@roux.fr", "contact@roux.fr"}, "contact@roux.fr", "a.roux@roux.fr"},
		{"bonjour and hello are generic", "https://lea.fr", []string{"lea.martin@lea.fr", "bonjour@lea.fr"}, "bonjour@lea.fr", "lea.martin@lea.fr"},
		{"accueil is generic", "https://cabinet.fr", []string{"secretariat.medical@cabinet.fr", "accueil@cabinet.fr"}, "accueil@cabinet.fr", ""},
		{"generic over noreply", "https://x.fr", []string{"noreply@x.fr", "info@x.fr"}, "info@x.fr", ""},
		{"noreply alone gives nothing", "https://x.fr", []string{"no-reply@x.fr"}, "", ""},
		{"webmaster after contact", "https://x.fr", []string{"webmaster@x.fr", "contact@x.fr"}, "contact@x.fr", ""},
		{"free mailbox over agency", "https://garage-leroy.fr", []string{"contact@agence-web31.fr", "garage.leroy@orange.fr"}, "garage.leroy@orange.fr", ""},
		{"host's address is never the business", "https://garage-leroy.fr", []string{"support@ovh.com"}, "", ""},
		{"same name other tld", "https://boulangerie-martin.fr", []string{"contact@webagence.fr", "info@boulangeriemartin.com"}, "info@boulangeriemartin.com", ""},
		{"only a person", "https://vidal-avocat.fr", []string{"m.vidal@vidal-avocat.fr"}, "m.vidal@vidal-avocat.fr", "m.vidal@vidal-avocat.fr"},
		{"first name alone", "https://salon.fr", []string{"contact@salon.fr", "sophie@salon.fr"}, "contact@salon.fr", "sophie@salon.fr"},
		{"last name first", "https://salon.fr", []string{"dupont.marie@salon.fr"}, "dupont.marie@salon.fr", "dupont.marie@salon.fr"},
		{"trade word is no person", "https://x.fr", []string{"plomberie.martin@gmail.com"}, "plomberie.martin@gmail.com", ""},
		{"personal prefers own domain", "https://x.fr", []string{"jean.roux@gmail.com", "p.roux@x.fr"}, "p.roux@x.fr", "p.roux@x.fr"},
		{"nil site", "", []string{"contact@x.fr"}, "contact@x.fr", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var site *url.URL
			if tt.site != "" {
				site, _ = url.Parse(tt.site)
			}
			var found []Found
			for _, a := range tt.found {
				found = append(found, Found{Address: a, Kind: KindText})
			}
			e, p := Pick(site, found)
			if e != tt.wantEmail || p != tt.wantPersonal {
				t.Errorf("Pick = %q, %q; want %q, %q", e, p, tt.wantEmail, tt.wantPersonal)
			}
		})
	}
}

func TestIsPersonal(t *testing.T) {
	tests := []struct {
		local string
		want  bool
	}{
		{"marie.martin", true},
		{"jean-pierre.roux", true},
		{"m.martin", true},
		{"sophie", true},
		{"jeanmartin", true},
		{"martin_marie", true},
		{"contact", false},
		{"info.lyon", false},
		{"boulangerie.petit", false},
		{"alainplomberie", false},
		{"sav", false},
		{"garage.leroy", false},
		{"x", false},
		{"contact2", false},
		{"r2d2", false},
		{"gwendal.le-goff", true},
		{"atelier.bois", false},
		{"chez.nous", false},
		{"les.delices", false},
	}
	for _, tt := range tests {
		if got := isPersonal(tt.local); got != tt.want {
			t.Errorf("isPersonal(%q) = %v, want %v", tt.local, got, tt.want)
		}
	}
}
