package registers

import (
	"errors"
	"strings"
	"testing"
)

func TestIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     string
		siren bool
		siret bool
	}{
		{"a Luhn-valid SIREN", "812345676", true, false},
		{"a SIREN failing Luhn", "812345677", false, false},
		{"eight digits", "81234567", false, false},
		{"a Luhn-valid SIRET", "81234567600017", false, true},
		{"a SIRET failing Luhn", "81234567600018", false, false},
		{"La Poste's siège by Luhn", "35600000000048", false, true},
		{"a La Poste office by its sum of digits", "35600000049837", false, true},
		{"letters", "81234567A", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidSIREN(tc.s); got != tc.siren {
				t.Errorf("ValidSIREN(%q) = %v", tc.s, got)
			}
			if got := ValidSIRET(tc.s); got != tc.siret {
				t.Errorf("ValidSIRET(%q) = %v", tc.s, got)
			}
		})
	}
}

func TestSIRENFromVAT(t *testing.T) {
	for _, tc := range []struct {
		vat, siren string
		ok         bool
	}{
		{"FR19812345676", "812345676", true},
		{"fr 19 812 345 676", "812345676", true},
		{"FR-78-790000129", "790000129", true},
		{"FR20812345676", "", false}, // wrong key
		{"FR19812345677", "", false}, // SIREN fails Luhn
		{"DE19812345676", "", false}, // not French
		{"FR1981234567", "", false},  // too short
		{"FR19812345676/", "", false},
		{"", "", false},
	} {
		siren, ok := SIRENFromVAT(tc.vat)
		if siren != tc.siren || ok != tc.ok {
			t.Errorf("SIRENFromVAT(%q) = %q, %v; want %q, %v", tc.vat, siren, ok, tc.siren, tc.ok)
		}
	}
}

func TestTrancheDecoding(t *testing.T) {
	for code, want := range map[string]string{
		"NN": "Unité non employeuse", "00": "0 salarié", "01": "1 ou 2 salariés", "02": "3 à 5 salariés",
		"03": "6 à 9 salariés", "11": "10 à 19 salariés", "12": "20 à 49 salariés", "21": "50 à 99 salariés",
		"22": "100 à 199 salariés", "31": "200 à 249 salariés", "32": "250 à 499 salariés",
		"41": "500 à 999 salariés", "42": "1 000 à 1 999 salariés", "51": "2 000 à 4 999 salariés",
		"52": "5 000 à 9 999 salariés", "53": "10 000 salariés et plus",
		"nn": "Unité non employeuse", "": "", "99": "99",
	} {
		if got := TrancheLabel(code); got != want {
			t.Errorf("TrancheLabel(%q) = %q, want %q", code, got, want)
		}
	}
	if got := strings.Join(tranchesFrom("11"), ","); got != "11,12,21,22,31,32,41,42,51,52,53" {
		t.Errorf("tranchesFrom(11) = %s", got)
	}
	if tranchesFrom("7") != nil {
		t.Error("tranchesFrom of an unknown code should be nil")
	}
}

func TestLegalForms(t *testing.T) {
	for code, short := range map[string]string{
		"1000": "EI", "5499": "SARL", "5710": "SAS", "5720": "SASU", "5485": "SELARL", "5785": "SELAS",
		"5599": "SA", "5202": "SNC", "6540": "SCI", "6589": "SCM", "6565": "SCP", "9220": "Association",
		"9224": "AARPI", "6533": "GAEC",
	} {
		if got := LegalFormOf(code).Short; got != short {
			t.Errorf("LegalFormOf(%s).Short = %q, want %q", code, got, short)
		}
	}
	if got := LegalFormOf("5499").Label; got != "Société à responsabilité limitée (sans autre indication)" {
		t.Errorf("5499 label = %q", got)
	}
	if got := LegalFormOf("7383"); got.Short != "catégorie juridique 7383" {
		t.Errorf("an unknown code = %+v", got)
	}
	if got := LegalFormOf(""); got != (LegalForm{}) {
		t.Errorf("no code = %+v", got)
	}
}

func TestNAFLabels(t *testing.T) {
	if n := len(nafLabels()); n != 732 {
		t.Errorf("%d NAF sous-classes, want 732", n)
	}
	for code, want := range map[string]string{
		"56.10A": "Restauration traditionnelle", "5610a": "Restauration traditionnelle",
		"10.71C": "Boulangerie et boulangerie-pâtisserie", "96.02A": "Coiffure", "99.99Z": "", "": "",
	} {
		if got := NAFLabel(code); got != want {
			t.Errorf("NAFLabel(%q) = %q, want %q", code, got, want)
		}
	}
}

func TestTradesTable(t *testing.T) {
	if len(trades) < 40 {
		t.Errorf("%d trades, want at least 40", len(trades))
	}
	for name, codes := range trades {
		for _, c := range codes {
			if !isNAF(c) || normalizeNAF(c) != c {
				t.Errorf("trade %q: %q is not a NAF sous-classe", name, c)
			}
		}
	}
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"boulangerie", "10.71C,47.24Z"},
		{"Boulangeries", "10.71C,47.24Z"},
		{"PLOMBIER", "43.22A"},
		{"plombiers", "43.22A"},
		{"Restaurant", "56.10A"},
		{"coiffeur", "96.02A"},
		{"Café", "56.30Z"},
		{"Agence immobilière", "68.31Z"},
		{"peintre en bâtiment", "43.34Z"},
		{"56.10A", "56.10A"},
		{"5610a", "56.10A"},
		{" 43.22.A ", "43.22A"},
	} {
		got, err := ResolveActivity(tc.in)
		if err != nil || strings.Join(got, ",") != tc.want {
			t.Errorf("ResolveActivity(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	_, err := ResolveActivity("boulangeri artisanale du coin")
	if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), "boulangerie") {
		t.Errorf("an unknown trade: %v", err)
	}
	if _, err := ResolveActivity("99.99Z"); !errors.Is(err, ErrBadQuery) {
		t.Errorf("a code outside the nomenclature: %v", err)
	}
}
