package registers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestLookupByNameAndPostcode(t *testing.T) {
	u := newUpstream(t, fixtures)
	c, _ := u.client(t, Config{})
	co, err := c.Lookup(context.Background(), Query{Name: "Boulangerie Dupont", Address: "12 rue de la République, 69003 Lyon"})
	if err != nil {
		t.Fatal(err)
	}
	if co.SIREN != "812345676" || co.Match.By != MatchNamePostcode || co.Match.Score != 1 {
		t.Fatalf("matched %s by %+v, want the active 812345676 by name_postcode", co.SIREN, co.Match)
	}
	want := Company{
		SIREN: "812345676", SIRETSiege: "81234567600017", Nom: "BOULANGERIE DUPONT", Enseignes: []string{"BOULANGERIE DUPONT"},
		NatureJuridique: "5499", FormeJuridique: "SARL", FormeJuridiqueLibelle: "Société à responsabilité limitée (sans autre indication)",
		NAF: "10.71C", NAFLibelle: "Boulangerie et boulangerie-pâtisserie", TrancheEffectif: "02", Effectif: "3 à 5 salariés",
		DateCreation: "2012-05-14", Etat: "actif", LeadStatus: StatusActif,
	}
	if co.NatureJuridique != want.NatureJuridique || co.FormeJuridique != want.FormeJuridique || co.FormeJuridiqueLibelle != want.FormeJuridiqueLibelle ||
		co.NAF != want.NAF || co.NAFLibelle != want.NAFLibelle || co.Effectif != want.Effectif || co.DateCreation != want.DateCreation ||
		co.Etat != want.Etat || co.LeadStatus != want.LeadStatus || co.SIRETSiege != want.SIRETSiege || !slices.Equal(co.Enseignes, want.Enseignes) {
		t.Errorf("company\n got %+v\nwant %+v", co, want)
	}
	if co.Siege.CodePostal != "69003" || co.Siege.Commune != "LYON 3EME" || co.Siege.CodeCommune != "69383" {
		t.Errorf("siège %+v", co.Siege)
	}
	if len(co.Finances) != 2 || co.Finances[0].Annee != 2023 || *co.Finances[0].CA != 412000 {
		t.Errorf("finances %+v", co.Finances)
	}
	if co.Bodacc == nil || co.Bodacc.Modifications != 3 || co.Bodacc.Annonces != 4 || co.Bodacc.ProcedureCollective != "" || co.Bodacc.Since != "2025-06-15" {
		t.Errorf("bodacc %+v", co.Bodacc)
	}
	if co.CapitalSocial != "" {
		t.Errorf("capital social %q: no source gives it", co.CapitalSocial)
	}
	// One search, one BODACC request; the postcode read from the address.
	reqs := u.requests()
	if len(reqs) != 2 || reqs[0].Query().Get("code_postal") != "69003" || reqs[0].Query().Get("per_page") != "25" {
		t.Errorf("requests %v", reqs)
	}
	w := reqs[1].Query().Get("where")
	if w != `registre = "812345676" AND dateparution >= date'2025-06-15'` || reqs[1].Query().Get("order_by") != "dateparution desc" {
		t.Errorf("BODACC where %q", w)
	}
}

func TestLookupHomonymsElsewhereDoNotMatch(t *testing.T) {
	u := newUpstream(t, func(r *http.Request) reply {
		if isBodacc(r) {
			return reply{file: "bodacc_empty.json"}
		}
		return reply{file: "search_name_elsewhere.json"} // the name, with its siège in 69300 only
	})
	c, _ := u.client(t, Config{})
	_, err := c.Lookup(context.Background(), Query{Name: "Boulangerie Dupont", Postcode: "69003"})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

func TestLookupByIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		q       Query
		by      string
		siret   string // the establishment named, "" the siège
		queries []string
	}{
		{"SIREN", Query{SIREN: "790 000 129", Name: "anything"}, MatchSIREN, "", []string{"790000129"}},
		{"SIRET of a secondary establishment", Query{SIRET: "790 000 129 00029"}, MatchSIRET, "79000012900029", []string{"79000012900029"}},
		{"VAT number", Query{VAT: "FR 78 790000129"}, MatchVAT, "", []string{"790000129"}},
		{"a SIRET unknown to the register falls back to its SIREN", Query{SIRET: "79000012900037"}, MatchSIREN, "", []string{"79000012900037", "790000129"}},
		{"a SIREN failing Luhn is not asked", Query{SIREN: "790000128", VAT: "FR78790000129"}, MatchVAT, "", []string{"790000129"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t, fixtures)
			c, _ := u.client(t, Config{})
			co, err := c.Lookup(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if co.SIREN != "790000129" || co.Match.By != tc.by || co.Match.Score != 1 {
				t.Errorf("matched %s by %+v", co.SIREN, co.Match)
			}
			if got := ""; co.Etablissement != nil {
				got = co.Etablissement.SIRET
				if got != tc.siret {
					t.Errorf("establishment %s, want %q", got, tc.siret)
				}
			} else if tc.siret != "" {
				t.Errorf("no establishment, want %s", tc.siret)
			}
			var qs []string
			for _, r := range u.requests() {
				if r.Path == searchPath {
					qs = append(qs, r.Query().Get("q"))
				}
			}
			if !slices.Equal(qs, tc.queries) {
				t.Errorf("searched %v, want %v", qs, tc.queries)
			}
		})
	}
}

func TestLookupCompanyFields(t *testing.T) {
	u := newUpstream(t, fixtures)
	c, _ := u.client(t, Config{})
	co, err := c.Lookup(context.Background(), Query{SIREN: "790000129"})
	if err != nil {
		t.Fatal(err)
	}
	if co.FormeJuridique != "SAS" || co.Effectif != "10 à 19 salariés" || co.NAF != "43.21A" || co.Etablissements != 2 {
		t.Errorf("company %+v", co)
	}
	wantOfficers := []Officer{{"Sophie Claire MARTIN", "Présidente de SAS"}, {"AUDIT CONSEIL RHONE", "Commissaire aux comptes titulaire"}}
	if !slices.Equal(co.Dirigeants, wantOfficers) {
		t.Errorf("officers %+v", co.Dirigeants)
	}
	if !slices.Equal(co.Labels, []string{"RGE", "Qualiopi"}) {
		t.Errorf("labels %v", co.Labels)
	}
	// BODACC: a liquidation opened after a redressement; the statement of
	// debts between them names no kind; a cancellation is not counted.
	b := co.Bodacc
	if b == nil || b.ProcedureCollective != "liquidation judiciaire" || b.ProcedureDate != "2026-03-04" ||
		b.Modifications != 2 || b.Annonces != 6 || !strings.Contains(b.ProcedureJugement, "liquidation") {
		t.Fatalf("bodacc %+v", b)
	}
	if co.LeadStatus != StatusProcedure {
		t.Errorf("lead_status %q", co.LeadStatus)
	}
	vals := LegalDataValues(&co)
	want := []string{"790000129", "SAS", "", "10 à 19 salariés", "43.21A", "2016-02-01",
		"Sophie Claire MARTIN (Présidente de SAS); AUDIT CONSEIL RHONE (Commissaire aux comptes titulaire)",
		"1840000", "96000", "RGE, Qualiopi", "procédure collective", "liquidation judiciaire (2026-03-04)", "2"}
	if !slices.Equal(vals, want) {
		t.Errorf("cells\n got %q\nwant %q", vals, want)
	}
}

func TestLookupBadQuery(t *testing.T) {
	u := newUpstream(t, fixtures)
	c, _ := u.client(t, Config{})
	for _, q := range []Query{{}, {Name: "Boulangerie Dupont"}, {SIREN: "123"}, {Postcode: "69003"}} {
		if _, err := c.Lookup(context.Background(), q); !errors.Is(err, ErrBadQuery) {
			t.Errorf("Lookup(%+v) = %v, want ErrBadQuery", q, err)
		}
	}
	if n := len(u.requests()); n != 0 {
		t.Errorf("%d requests for queries that cannot be asked", n)
	}
}

func TestLeadStatus(t *testing.T) {
	now := testNow
	for _, tc := range []struct {
		name string
		c    Company
		want string
	}{
		{"ceased", Company{Etat: "cessé", DateCreation: "2026-01-01"}, StatusCesse},
		{"a proceeding announced", Company{Etat: "actif", Bodacc: &BodaccSummary{ProcedureCollective: "sauvegarde"}}, StatusProcedure},
		{"created less than a year ago", Company{Etat: "actif", DateCreation: "2025-09-01"}, StatusRecent},
		{"created over a year ago", Company{Etat: "actif", DateCreation: "2025-06-01"}, StatusActif},
		{"no creation date", Company{Etat: "actif"}, StatusActif},
		{"no state", Company{}, ""},
	} {
		if got := LeadStatus(&tc.c, now); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestBodaccKinds(t *testing.T) {
	for nature, want := range map[string]string{
		"Jugement d'ouverture d'une procédure de sauvegarde":                              "sauvegarde",
		"Jugement d'ouverture d'une procédure de redressement judiciaire":                 "redressement judiciaire",
		"Jugement de conversion en liquidation judiciaire":                                "liquidation judiciaire",
		"Jugement de conversion de la procédure de sauvegarde en redressement judiciaire": "redressement judiciaire",
		"Jugement arrêtant le plan de redressement":                                       "redressement judiciaire",
		"Jugement de clôture pour insuffisance d'actif":                                   "liquidation judiciaire clôturée",
		"Jugement d'ouverture d'une procédure de rétablissement professionnel":            "rétablissement professionnel",
		"Dépôt de l'état des créances":                                                    "",
	} {
		if got := procedureKind(jugement{Nature: nature}); got != want {
			t.Errorf("%q: %q, want %q", nature, got, want)
		}
	}
	// The judgment as an object rather than JSON text, and a statement of
	// debts alone: "procédure collective".
	recs := []bodaccRecord{
		{DateParution: "2026-01-02", FamilleAvis: "collective", Jugement: []byte(`{"nature":"Dépôt de l'état des créances"}`)},
		{DateParution: "2024-01-02", FamilleAvis: "collective", Jugement: []byte(`{"nature":"Jugement d'ouverture de liquidation judiciaire"}`)},
	}
	s := summarize(recs, "2025-06-15")
	if s.ProcedureCollective != "procédure collective" || s.Annonces != 1 || s.ProcedureCell() != "procédure collective (2026-01-02)" {
		t.Errorf("summary %+v", s)
	}
	var none *BodaccSummary
	if none.ProcedureCell() != "" {
		t.Error("a nil summary has no cell")
	}
}

func TestLookupCommuneByName(t *testing.T) {
	u := newUpstream(t, fixtures)
	c, _ := u.client(t, Config{})
	// Without a gazetteer a commune's name places nothing.
	if _, err := c.Lookup(context.Background(), Query{Name: "Boulangerie Dupont", Commune: "Lyon"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v", err)
	}
	// A commune code is used as given.
	_, _ = c.Lookup(context.Background(), Query{Name: "Boulangerie Dupont", CommuneCode: "69383"})
	reqs := u.requests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Query().Get("code_commune") != "69383" {
		t.Errorf("requests %v", reqs)
	}
}
