package mentions

import (
	"net/url"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

func legalPage(t *testing.T, body string) *crawl.Page {
	t.Helper()
	u, _ := url.Parse("https://www.boulangerie-martin.fr/mentions-legales/")
	return crawl.NewPage(u, 200, nil, []byte("<html><head><title>Mentions légales</title></head><body>"+body+"</body></html>"))
}

func TestParseLayouts(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Result
	}{
		{
			name: "paragraph",
			body: `<p>La société Boulangerie Martin, SARL au capital de 5 000 €, immatriculée au RCS de Lyon sous le numéro 812 345 678, dont le siège est situé 12 rue Paul Bert 69003 Lyon. Directeur de la publication : Jean Dupont.</p><p>Le site est hébergé par OVH SAS, 2 rue Kellermann 59100 Roubaix, RCS Lille Métropole 424 761 419.</p>`,
			want: Result{RaisonSociale: "Boulangerie Martin", FormeJuridique: "SARL", CapitalSocial: "5000 EUR", RCS: "RCS Lyon 812345678", AdressePostale: "12 rue Paul Bert 69003 Lyon", Dirigeant: "Jean Dupont"},
		},
		{
			name: "label lines",
			body: `<h2>Éditeur</h2><p>Raison sociale : SAS Garage du Parc<br>Capital social : 37.000,00 euros<br>Siège social :<br>4 avenue Foch<br>54000 Nancy<br>R.C.S. Nancy B 812 345 678<br>N° TVA : FR 40 812 345 678<br>Gérant : M. Paul Girard</p><h2>Hébergeur</h2><p>IONOS SARL, 7 place de la Gare, 57200 Sarreguemines, RCS Sarreguemines B 431 303 775</p>`,
			want: Result{RaisonSociale: "Garage du Parc", FormeJuridique: "SAS", CapitalSocial: "37000 EUR", RCS: "RCS Nancy 812345678", AdressePostale: "4 avenue Foch, 54000 Nancy", Dirigeant: "Paul Girard", TVAIntracom: "FR40812345678"},
		},
		{
			name: "definition list",
			body: `<dl><dt>Dénomination</dt><dd>Cabinet Roux</dd><dt>Forme juridique</dt><dd>Société d'exercice libéral à responsabilité limitée</dd><dt>Capital</dt><dd>1 500,50 €</dd><dt>Siège</dt><dd>3 place Bellecour<br>69002 Lyon</dd></dl><dl><dt>Hébergeur</dt><dd>o2switch, Chemin des Pardiaux, 63000 Clermont-Ferrand</dd></dl>`,
			want: Result{RaisonSociale: "Cabinet Roux", FormeJuridique: "SELARL", CapitalSocial: "1500.50 EUR", AdressePostale: "3 place Bellecour, 69002 Lyon"},
		},
		{
			name: "table",
			body: `<table><tr><th>Société</th><td>Les Gîtes du Lac</td></tr><tr><th>Forme</th><td>x</td></tr><tr><th>Statut juridique</th><td>S.C.I.</td></tr><tr><th>Numéro RCS</th><td>812 345 678 R.C.S. Annecy</td></tr><tr><th>Hébergeur</th><td>Wix.com Ltd., 40 Namal Tel Aviv St., Tel Aviv, Israël</td></tr></table>`,
			want: Result{RaisonSociale: "Les Gîtes du Lac", FormeJuridique: "SCI", RCS: "RCS Annecy 812345678"},
		},
		{
			name: "micro-entrepreneur",
			body: `<p>Éditeur : Sophie Lambert, micro-entrepreneur, 8 chemin des Vignes, 84000 Avignon. SIRET 812 345 678 00015.</p>`,
			want: Result{RaisonSociale: "Sophie Lambert", FormeJuridique: "EI", AdressePostale: "8 chemin des Vignes, 84000 Avignon"},
		},
		{
			name: "RCS city with the number from the SIRET",
			body: `<p>SARL Toitures Morel – RCS Le Mans – SIRET : 812 345 678 00015</p>`,
			want: Result{RaisonSociale: "", FormeJuridique: "SARL", RCS: "RCS Le Mans 812345678"},
		},
		{
			name: "host only: nothing of the publisher",
			body: `<h2>Hébergement</h2><p>OVH SAS au capital de 10 174 560 €, RCS Lille Métropole 424 761 419, 2 rue Kellermann 59100 Roubaix. Directeur de la publication d'OVH : Octave Klaba.</p>`,
			want: Result{},
		},
		{
			name: "mediator's address is not the publisher's",
			body: `<p>Éditeur : Fleurs de Julie</p><p>Médiateur de la consommation : CM2C, 14 rue Saint Jean, 75017 Paris.</p>`,
			want: Result{RaisonSociale: "Fleurs de Julie"},
		},
		{
			name: "association",
			body: `<p>Le site est édité par Association Sportive de Brest, association loi 1901, représentée par Yannick Le Gall, président.</p>`,
			want: Result{RaisonSociale: "Association Sportive de Brest", FormeJuridique: "Association", Dirigeant: "Yannick Le Gall"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(legalPage(t, tt.body))
			if got != tt.want {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestForms(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SARL", "SARL"}, {"S.A.R.L.", "SARL"}, {"société à responsabilité limitée", "SARL"},
		{"SAS", "SAS"}, {"S.A.S.", "SAS"}, {"Société par actions simplifiée", "SAS"},
		{"SASU", "SASU"}, {"société par actions simplifiée unipersonnelle", "SASU"},
		{"EURL", "EURL"}, {"SA", "SA"}, {"société anonyme", "SA"}, {"SCI", "SCI"}, {"SNC", "SNC"},
		{"SELARL", "SELARL"}, {"EI", "EI"}, {"Entreprise individuelle", "EI"},
		{"auto-entrepreneur", "EI"}, {"Micro-entreprise", "EI"}, {"micro entrepreneur", "EI"},
		{"Association loi 1901", "Association"}, {"en sa qualité de gérant", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got, _ := findForm(undot(tt.in)); got != tt.want {
				t.Errorf("findForm(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestValues(t *testing.T) {
	tests := []struct {
		name string
		f    func(string) string
		in   string
		want string
	}{
		{"capital spaces", capital, "capital de 10 000 €", "10000 EUR"},
		{"capital dots and cents", capital, "capital social : 1.000,00 euros", "1000 EUR"},
		{"capital no-break", capital, "capital de 8 000 EUR", "8000 EUR"},
		{"capital cents kept", capital, "capital de 214 410,50 €", "214410.50 EUR"},
		{"rcs number first", rcs, "812 345 678 R.C.S. Lyon", "RCS Lyon 812345678"},
		{"rcs compound city", rcs, "RCS Aix-en-Provence B 812 345 678", "RCS Aix-en-Provence 812345678"},
		{"rcs two-word city", rcs, "immatriculée au RCS de Lille Métropole sous le numéro 812345678", "RCS Lille Métropole 812345678"},
		{"tva spaced", tva, "TVA : FR 40 812 345 678", "FR40812345678"},
		{"tva compact", tva, "FR40812345678", "FR40812345678"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f(tt.in); got != tt.want {
				t.Errorf("%q gives %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIsLegalPage(t *testing.T) {
	tests := []struct {
		name, url, body string
		want            bool
	}{
		{"title", "https://a.fr/page-3", `<title>Mentions légales - A</title>`, true},
		{"heading", "https://a.fr/p", `<h1>Informations légales</h1>`, true},
		{"impressum", "https://a.de/p", `<h1>Impressum</h1>`, true},
		{"english", "https://a.co.uk/p", `<title>Legal Notice | A</title>`, true},
		{"address only", "https://a.fr/mentions-legales/", `<p>x</p>`, true},
		{"home with footer link", "https://a.fr/", `<title>A</title><h1>Bienvenue</h1><footer><h2>Mentions légales</h2><a href="/mentions-legales">Mentions légales</a></footer>`, false},
		{"contact", "https://a.fr/contact", `<title>Contact</title><h1>Contact</h1>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, _ := url.Parse(tt.url)
			if got := IsLegalPage(crawl.NewPage(u, 200, nil, []byte(tt.body))); got != tt.want {
				t.Errorf("IsLegalPage = %v, want %v", got, tt.want)
			}
		})
	}
}
