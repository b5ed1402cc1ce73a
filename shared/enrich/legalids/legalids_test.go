package legalids

import (
	"net/url"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

func TestValid(t *testing.T) {
	tests := []struct {
		name  string
		s     string
		siren bool
		siret bool
	}{
		{"valid SIREN", "732829320", true, false},
		{"Luhn-invalid SIREN", "732829321", false, false},
		{"valid SIRET", "73282932000074", false, true},
		{"Luhn-invalid SIRET", "73282932000075", false, false},
		{"La Poste SIRET, digits sum to a multiple of 5", "35600000000001", false, true},
		{"La Poste SIRET, sum not a multiple of 5", "35600000000002", false, false},
		{"La Poste SIREN itself", "356000000", true, false},
		{"letters", "73282932A", false, false},
		{"too short", "73282932", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidSIREN(tt.s); got != tt.siren {
				t.Errorf("ValidSIREN(%q) = %v, want %v", tt.s, got, tt.siren)
			}
			if got := ValidSIRET(tt.s); got != tt.siret {
				t.Errorf("ValidSIRET(%q) = %v, want %v", tt.s, got, tt.siret)
			}
		})
	}
}

func find(t *testing.T, body string) Result {
	t.Helper()
	u, _ := url.Parse("https://www.plomberie-dupont.fr/mentions-legales/")
	return Find([]*crawl.Page{crawl.NewPage(u, 200, nil, []byte(body))})
}

// 732829320 and 73282932000074 pass the check; 732829321 and
// 73282932000075 do not.
func TestFindTraps(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		siret, sirn string
	}{
		{"SIRET with spaces", `<p>SIRET : 732 829 320 00074</p>`, "73282932000074", "732829320"},
		{"SIRET with dots", `<p>Siret 732.829.320.00074</p>`, "73282932000074", "732829320"},
		{"SIRET with dashes", `<p>SIRET 732-829-320-00074</p>`, "73282932000074", "732829320"},
		{"SIRET with no-break spaces", "<p>SIRET\u00a0: 732\u00a0829\u00a0320\u00a000074</p>", "73282932000074", "732829320"},
		{"SIRET unlabelled in register groups", `<footer>Plomberie Dupont – 732 829 320 00074</footer>`, "73282932000074", "732829320"},
		{"SIREN with dots", `<p>SIREN : 732.829.320</p>`, "", "732829320"},
		{"RCS number", `<p>RCS Paris B 732 829 320</p>`, "", "732829320"},
		{"VAT number gives the SIREN", `<p>N° TVA FR44 732829320</p>`, "", "732829320"},
		{"VAT number spaced", `<p>TVA intracommunautaire : FR 44 732 829 320</p>`, "", "732829320"},
		{"VAT with a wrong key", `<p>TVA : FR12 732829320</p>`, "", ""},
		{"JSON-LD taxID", `<script type="application/ld+json">{"@type":"LocalBusiness","taxID":"73282932000074"}</script>`, "73282932000074", "732829320"},
		{"JSON-LD vatID", `<script type="application/ld+json">{"@type":"Organization","vatID":"FR44732829320"}</script>`, "", "732829320"},
		{"JSON-LD identifier", `<script type="application/ld+json">{"@type":"Organization","identifier":{"@type":"PropertyValue","propertyID":"SIRET","value":"732 829 320 00074"}}</script>`, "73282932000074", "732829320"},
		{"phone number", `<p>Tél : 01 23 45 67 89 – 0123456789</p>`, "", ""},
		{"mobile in international form", `<p>+33 7 32 82 93 20</p>`, "", ""},
		{"IBAN and BIC", `<p>IBAN FR76 3000 6000 0112 3456 7890 189 BIC AGRIFRPP882</p>`, "", ""},
		{"order number", `<p>Commande n° 732829320 expédiée</p>`, "", ""},
		{"tracking number", `<p>Suivi colis 73282932000074</p>`, "", ""},
		{"price", `<p>Villa à vendre : 732 829 320 €</p>`, "", ""},
		{"date", `<p>Publié le 2024-05-17 à 12:30, mis à jour le 17/05/2024</p>`, "", ""},
		{"Luhn-invalid SIREN", `<p>SIREN 732 829 321</p>`, "", ""},
		{"Luhn-invalid SIRET", `<p>SIRET 732 829 320 00075</p>`, "", ""},
		{"capital amount", `<p>SARL au capital de 732 829 320 euros</p>`, "", ""},
		{"capital then RCS", `<p>Capital 10 000 €, RCS Lyon 732 829 320</p>`, "", "732829320"},
		{"host's number in the host section", `<h2>Hébergement</h2><p>OVH SAS, 2 rue Kellermann 59100 Roubaix, RCS Lille Métropole 424 761 419</p>`, "", ""},
		{"host's number in a clause", `<p>Le site est hébergé par OVH SAS, RCS Lille 424 761 419. Éditeur : X, SIRET 732 829 320 00074</p>`, "73282932000074", "732829320"},
		{"agency's number", `<p>Site réalisé par Agence Pixel, SIRET 424 761 419 00045</p>`, "", ""},
		{"nine digits glued to letters", `<p>Ref A732829320B</p>`, "", ""},
		{"SIRET beats a stray SIREN", `<p>SIRET 732 829 320 00074</p><p>732829320</p>`, "73282932000074", "732829320"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := find(t, "<html><body>"+tt.body+"</body></html>")
			if r.SIRET != tt.siret || r.SIREN != tt.sirn {
				t.Errorf("Find = %+v, want SIRET %q SIREN %q", r, tt.siret, tt.sirn)
			}
			if (r.SIREN != "") != (r.SourceURL != "") {
				t.Errorf("SourceURL %q with SIREN %q", r.SourceURL, r.SIREN)
			}
		})
	}
}

func TestFindSourceIsThePageItCameFrom(t *testing.T) {
	home, _ := url.Parse("https://a.fr/")
	legal, _ := url.Parse("https://a.fr/mentions-legales")
	r := Find([]*crawl.Page{
		crawl.NewPage(home, 200, nil, []byte(`<p>Bienvenue, appelez le 04 78 00 00 00</p>`)),
		crawl.NewPage(legal, 200, nil, []byte(`<p>SIRET : 732 829 320 00074</p>`)),
	})
	if r.SourceURL != legal.String() {
		t.Errorf("SourceURL = %q, want %q", r.SourceURL, legal)
	}
	if got := r.Values(); len(got) != len(Columns) || got[0] != "73282932000074" {
		t.Errorf("Values = %q", got)
	}
}
