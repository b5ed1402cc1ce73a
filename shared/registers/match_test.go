package registers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestNameScore(t *testing.T) {
	for _, tc := range []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"accents and case", "Boulangerie du Marché", "BOULANGERIE DU MARCHE", 1, 1},
		{"legal-form words", "SARL Le Petit Bistrot", "LE PETIT BISTROT", 1, 1},
		{"a legal form in parentheses", "Dupont Plomberie (SASU)", "DUPONT PLOMBERIE", 1, 1},
		{"punctuation and abbreviations", "St-Jean Optique", "SAINT JEAN OPTIQUE", 1, 1},
		{"word order", "Plomberie Dupont", "DUPONT PLOMBERIE", 1, 1},
		{"a typo", "Boulangerie Dupond", "BOULANGERIE DUPONT", 0.95, 0.999},
		{"an activity word added", "Boulangerie Dupont", "DUPONT", 0.8, 0.8},
		{"two words of three", "Garage Martin Automobiles", "GARAGE MARTIN", 0.9, 0.9},
		{"the trade alone is shared", "Boulangerie du Marché", "BOUCHERIE DU MARCHE", 0, 0.7},
		{"one surname shared", "Boulangerie Dupont", "DUPONT PLOMBERIE", 0, 0.6},
		{"close words do not match", "Le Marché", "LE MARCHAND", 0, 0},
		{"unrelated", "Boulangerie Dupont", "PHARMACIE CENTRALE", 0, 0},
		{"a name of legal words only", "SAS", "SAS", 1, 1},
		{"empty", "", "DUPONT", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NameScore(tc.a, tc.b)
			if got < tc.min-1e-9 || got > tc.max+1e-9 {
				t.Errorf("NameScore(%q, %q) = %.3f, want in [%.2f, %.2f]", tc.a, tc.b, got, tc.min, tc.max)
			}
			if back := NameScore(tc.b, tc.a); back != got {
				t.Errorf("not symmetric: %.3f and %.3f", got, back)
			}
		})
	}
}

func TestJaroWinkler(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"martha", "marhta", 0.961},
		{"dwayne", "duane", 0.840},
		{"dixon", "dicksonx", 0.813},
		{"abc", "xyz", 0},
	} {
		if got := jaroWinkler([]rune(tc.a), []rune(tc.b)); got < tc.want-0.001 || got > tc.want+0.001 {
			t.Errorf("jaroWinkler(%q, %q) = %.4f, want %.3f", tc.a, tc.b, got, tc.want)
		}
	}
}

// company is a search result in a postcode, for the matching rule's
// tests.
func company(siren, name, postcode, etat string, enseignes ...string) apiCompany {
	e := apiEstablishment{SIRET: siren + "00010", CodePostal: postcode, EstSiege: true, EtatAdministratif: "A", ListeEnseignes: enseignes,
		Adresse: "1 RUE DU MOULIN " + postcode + " LYON"}
	if etat == "C" {
		e.EtatAdministratif = "F"
	}
	return apiCompany{SIREN: siren, NomComplet: name, NomRaisonSociale: name, EtatAdministratif: etat, Siege: e,
		MatchingEtablissements: []apiEstablishment{e}}
}

func TestMatchingRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		query    string
		postcode string
		results  []apiCompany
		want     string // SIREN, "" no match
	}{
		{"the same name in the postcode", "Boulangerie Dupont", "69003",
			[]apiCompany{company("812345676", "BOULANGERIE DUPONT", "69003", "A")}, "812345676"},
		{"a homonym in another postcode is no candidate", "Boulangerie Dupont", "69003",
			[]apiCompany{company("888111226", "BOULANGERIE DUPONT", "69300", "A")}, ""},
		{"the homonym elsewhere does not take the margin", "Boulangerie Dupont", "69003",
			[]apiCompany{company("812345676", "BOULANGERIE DUPONT", "69003", "A"), company("888111226", "BOULANGERIE DUPONT", "69300", "A")}, "812345676"},
		{"two active homonyms in the postcode: ambiguous", "Pharmacie Centrale", "69003",
			[]apiCompany{company("812345676", "PHARMACIE CENTRALE", "69003", "A"), company("498765437", "SELARL PHARMACIE CENTRALE", "69003", "A")}, ""},
		{"the active company wins over its ceased namesake", "Boulangerie Dupont", "69003",
			[]apiCompany{company("532111093", "BOULANGERIE DUPONT", "69003", "C"), company("812345676", "BOULANGERIE DUPONT", "69003", "A")}, "812345676"},
		{"a ceased company alone is matched", "Boulangerie Dupont", "69003",
			[]apiCompany{company("532111093", "BOULANGERIE DUPONT", "69003", "C")}, "532111093"},
		{"the enseigne under another denomination", "Au Pain Doré", "69003",
			[]apiCompany{company("790000129", "MARTIN ET FILS", "69003", "A", "AU PAIN DORE")}, "790000129"},
		{"legal-form words and accents", "SARL Boulangerie du Marché", "69003",
			[]apiCompany{company("812345676", "BOULANGERIE DU MARCHE", "69003", "A")}, "812345676"},
		{"below the threshold", "Boulangerie du Marché", "69003",
			[]apiCompany{company("812345676", "BOUCHERIE DU MARCHE", "69003", "A")}, ""},
		{"namesakes told apart by the street address", "Pharmacie Centrale", "69003",
			[]apiCompany{company("812345676", "PHARMACIE CENTRALE", "69003", "A"), at(company("498765437", "PHARMACIE CENTRALE", "69003", "A"), "12 AVENUE JEAN JAURES")}, "498765437"},
		{"the best needs a margin over the next: ambiguous", "Boulangerie Dupont", "69003",
			[]apiCompany{company("812345676", "DUPONT", "69003", "A"), company("498765437", "BOULANGERIE DUPONT ET FILS", "69003", "A")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t, func(r *http.Request) reply {
				body, _ := json.Marshal(searchResponse{Results: tc.results, TotalResults: len(tc.results), Page: 1, PerPage: 25, TotalPages: 1})
				return reply{body: string(body)}
			})
			c, _ := u.client(t, Config{})
			a, _, m, err := c.byName(context.Background(), tc.query, Query{Postcode: tc.postcode, Address: "12 av. Jean-Jaurès, " + tc.postcode + " Lyon"})
			got := ""
			if err == nil {
				got = a.SIREN
				if m.By != MatchNamePostcode && m.By != MatchNameAddress || m.Score < MatchThreshold {
					t.Errorf("match %+v", m)
				}
			} else if !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
			// Namesakes the address cannot tell apart say so.
			if amb := strings.Contains(tc.name, "ambiguous"); errors.Is(err, ErrAmbiguous) != amb {
				t.Errorf("err %v, ambiguous %v", err, amb)
			}
			if got != tc.want {
				t.Errorf("matched %q, want %q", got, tc.want)
			}
		})
	}
}

// at moves a company's establishment to a street address.
func at(a apiCompany, line string) apiCompany {
	a.Siege.Adresse = line + " " + a.Siege.CodePostal + " LYON"
	a.MatchingEtablissements[0].Adresse = a.Siege.Adresse
	return a
}

func TestStreets(t *testing.T) {
	for _, tc := range []struct {
		row, register string
		same          bool
	}{
		{"12 av. Jean-Jaurès, 69007 Lyon", "12 AVENUE JEAN JAURES 69007 LYON 7EME", true},
		{"12 bis bd de la Croix-Rousse, 69004 Lyon", "12 BOULEVARD DE LA CROIX ROUSSE 69004 LYON 4EME", true},
		{"12 av. Jean-Jaurès, 69007 Lyon", "14 AVENUE JEAN JAURES 69007 LYON 7EME", false},
		{"12 av. Jean-Jaurès, 69007 Lyon", "12 RUE DE MARSEILLE 69007 LYON 7EME", false},
		{"Centre commercial, 69007 Lyon", "12 RUE DE MARSEILLE 69007 LYON 7EME", false},
	} {
		s := streetOf(tc.row)
		if got := s != nil && sameStreet(s, tc.register); got != tc.same {
			t.Errorf("%q vs %q: %v", tc.row, tc.register, got)
		}
	}
}
