package registerssim_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
	"github.com/prospectdata/svc/shared/registers"
	"github.com/prospectdata/svc/shared/registers/registerssim"
)

func gaz(tb testing.TB) *gazetteer.Gazetteer { return simtest.Gazetteer(tb) }

func newWorld(tb testing.TB, opt sim.Options) *sim.World { return simtest.World(tb, opt) }

func fixedDay(d int) func(context.Context) (int, error) { return simtest.FixedDay(d) }

// twin serves the world's registers on loopback and returns a client of
// it on the world's clock, as the app wires it, pacing off.
func twin(tb testing.TB, w *sim.World) *registers.Client {
	tb.Helper()
	srv := httptest.NewServer(registerssim.Handler(w.View()))
	tb.Cleanup(srv.Close)
	c, err := registers.New(registers.Deps{
		Config:    registers.Config{SearchURL: srv.URL, BodaccURL: srv.URL, RatePerSecond: 1e6, BodaccRatePerSecond: 1e6},
		Gazetteer: func() (*gazetteer.Gazetteer, error) { return gaz(tb), nil },
		Clock:     registerssim.Clock(w.View()),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

var (
	legalSIREN   = regexp.MustCompile(`SIREN : (\d{9})`)
	legalCompany = regexp.MustCompile(`est édité par ([^<]+?), ([A-Z]+)(?: au capital|, immatriculée)`)
)

// siteLegal reads a place's legal notice from the fixture web: its SIREN,
// company name and form.
func siteLegal(tb testing.TB, w *sim.World, p provider.Place) (siren, company, form string, ok bool) {
	tb.Helper()
	c := &http.Client{Transport: w.Web()}
	resp, err := c.Get(strings.TrimSuffix(p.Website, "/") + "/mentions-legales")
	if err != nil {
		return "", "", "", false // a dead site
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	s := strings.ReplaceAll(string(body), "&#39;", "'")
	m, n := legalSIREN.FindStringSubmatch(s), legalCompany.FindStringSubmatch(s)
	if resp.StatusCode != 200 || m == nil || n == nil {
		return "", "", "", false
	}
	return m[1], strings.ReplaceAll(n[1], "&amp;", "&"), n[2], true
}

// TestRegistersTwinAgreesWithTheWebsites: a place found by its name and
// postcode is the company its website's legal notice names, and its
// SIREN finds it again, with or without the twin's memory of it.
func TestRegistersTwinAgreesWithTheWebsites(t *testing.T) {
	w := newWorld(t, sim.Options{})
	c := twin(t, w)
	places := simtest.SearchAll(t, w, provider.Request{Query: "boulangerie", Bound: simtest.CentralLyon, Country: "FRA", Language: "fr"})
	checked, matched := 0, 0
	for _, p := range places {
		siren, company, form, ok := siteLegal(t, w, p)
		if !ok {
			continue
		}
		checked++
		co, err := c.Lookup(context.Background(), registers.Query{Name: p.Name, Address: p.Address})
		if errors.Is(err, registers.ErrNotFound) {
			continue // namesakes at the same address make the name ambiguous
		}
		if err != nil {
			t.Fatal(err)
		}
		matched++
		if co.SIREN != siren || co.Nom != company || co.Match.By != registers.MatchNamePostcode && co.Match.By != registers.MatchNameAddress {
			t.Errorf("%q: the twin says %s %q by %s, the website %s %q", p.Name, co.SIREN, co.Nom, co.Match.By, siren, company)
		}
		wantForm := map[string]string{"EURL": "SARL", "SASU": "SAS"}[form]
		if wantForm == "" {
			wantForm = form
		}
		if co.FormeJuridique != wantForm {
			t.Errorf("%q: form %q, the website says %s", p.Name, co.FormeJuridique, form)
		}
		if co.NAF != "10.71C" || co.DateCreation == "" || co.LeadStatus == "" || co.Bodacc == nil {
			t.Errorf("%q: %+v", p.Name, co)
		}
		// The SIREN finds it: from the twin's memory, and from a fresh
		// twin through the postcode the client sends along.
		for _, cl := range []*registers.Client{c, twin(t, w)} {
			again, err := cl.Lookup(context.Background(), registers.Query{SIREN: siren, Address: p.Address})
			if err != nil || again.SIREN != siren || again.Match.By != registers.MatchSIREN {
				t.Errorf("SIREN %s: %v %+v", siren, err, again.Match)
			}
		}
	}
	if checked < 10 || matched*10 < checked*8 {
		t.Errorf("%d of %d places with a legal notice matched by name", matched, checked)
	}
	// A fresh twin without a postcode cannot find a SIREN it never showed.
	if _, err := twin(t, w).Lookup(context.Background(), registers.Query{SIREN: "812345676"}); !errors.Is(err, registers.ErrNotFound) {
		t.Errorf("an unknown SIREN: %v", err)
	}
}

// TestRegistersTwinActivitySearch: the sirene source over the twin lists
// a department's bakeries, each once, all in the department.
func TestRegistersTwinActivitySearch(t *testing.T) {
	w := newWorld(t, sim.Options{})
	c := twin(t, w)
	var rows []registers.Establishment
	err := c.Establishments(context.Background(), registers.Filter{Activites: []string{"boulangerie"}, Zones: registers.Zones{Departements: []string{"48"}}},
		func(e registers.Establishment) error { rows = append(rows, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 20 {
		t.Fatalf("%d bakeries in Lozère", len(rows))
	}
	seen := map[string]bool{}
	for _, e := range rows {
		if seen[e.SIRET] || !registers.ValidSIRET(e.SIRET) || e.NAF != "10.71C" || !strings.HasPrefix(e.CodePostal, "48") ||
			e.NAFLibelle == "" || e.Nom == "" || !e.IsSiege || e.DateCreation == "" {
			t.Errorf("row %+v", e)
		}
		seen[e.SIRET] = true
	}
	// The same search by its communes' postcodes finds the same rows.
	var again []string
	err = c.Establishments(context.Background(), registers.Filter{Activites: []string{"10.71C"}, StopAt: 5, Zones: registers.Zones{Departements: []string{"48"}}},
		func(e registers.Establishment) error { again = append(again, e.SIRET); return nil })
	if err != nil || len(again) != 5 || again[0] != rows[0].SIRET {
		t.Errorf("stop_at 5: %v %v", again, err)
	}
}

// TestRegistersTwinFormats: the twin's answers follow the real APIs'
// shapes and limits.
func TestRegistersTwinFormats(t *testing.T) {
	w := newWorld(t, sim.Options{})
	h := registerssim.Handler(w.View())
	get := func(u string) (int, map[string]any) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		var m map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &m)
		return rec.Code, m
	}
	for _, tc := range []struct {
		url    string
		status int
		key    string
	}{
		{"/search", 400, "erreur"},
		{"/search?q=boulangerie&per_page=26", 400, "erreur"},
		{"/search?activite_principale=10.71C&departement=69&page=401&per_page=25", 400, "erreur"},
		{"/search?q=boulangerie&code_postal=69003&per_page=3", 200, "total_results"},
		{"/search?activite_principale=56.10A&code_commune=69383&per_page=25", 200, "total_pages"},
		{"/api/explore/v2.1/catalog/datasets/annonces-commerciales/records?where=registre%20%3D%20%22812345676%22&limit=100", 200, "total_count"},
		{"/api/explore/v2.1/catalog/datasets/annonces-commerciales/records?limit=101", 400, "error_code"},
		{"/nowhere", 404, "erreur"},
	} {
		status, m := get(tc.url)
		if status != tc.status || m[tc.key] == nil {
			t.Errorf("%s: %d %v", tc.url, status, m)
		}
	}
	_, m := get("/search?activite_principale=56.10A&code_commune=69383&per_page=2")
	res := m["results"].([]any)
	r0 := res[0].(map[string]any)
	for _, k := range []string{"siren", "nom_complet", "siege", "nature_juridique", "activite_principale", "date_creation",
		"etat_administratif", "dirigeants", "finances", "complements", "matching_etablissements", "tranche_effectif_salarie"} {
		if _, ok := r0[k]; !ok {
			t.Errorf("result without %s", k)
		}
	}
	siege := r0["siege"].(map[string]any)
	if siege["commune"] != "69383" || siege["departement"] != "69" || siege["region"] != "84" || siege["est_siege"] != true {
		t.Errorf("siège %v", siege)
	}
}

// TestRegistersTwinBodacc: some companies have a collective proceeding,
// always the same, and the client reads its kind.
func TestRegistersTwinBodacc(t *testing.T) {
	w := newWorld(t, sim.Options{Day: fixedDay(200)})
	c := twin(t, w)
	var sirens []string
	err := c.Establishments(context.Background(), registers.Filter{Activites: []string{"restaurant"}, Zones: registers.Zones{Communes: []string{"69123"}}, StopAt: 400},
		func(e registers.Establishment) error { sirens = append(sirens, e.SIREN); return nil })
	if err != nil {
		t.Fatal(err)
	}
	procedures, modified := 0, 0
	for _, s := range sirens {
		b, err := c.Bodacc(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if b.ProcedureCollective != "" {
			procedures++
			if !slices.Contains([]string{"sauvegarde", "redressement judiciaire", "liquidation judiciaire"}, b.ProcedureCollective) || b.ProcedureDate < b.Since {
				t.Errorf("%s: %+v", s, b)
			}
		}
		if b.Modifications > 0 {
			modified++
		}
		if b.Since != w.Date(200).AddDate(-1, 0, 0).Format(time.DateOnly) {
			t.Fatalf("the window starts %s: not the world's last 12 months", b.Since)
		}
		again, _ := c.Bodacc(context.Background(), s)
		if *again != *b {
			t.Errorf("%s: BODACC changed between two reads", s)
		}
	}
	if procedures == 0 || procedures > len(sirens)/10 || modified < len(sirens)/10 {
		t.Errorf("%d restaurants: %d proceedings, %d modified", len(sirens), procedures, modified)
	}
}

// BenchmarkLegalDataTwin enriches the bakeries of central Lyon through
// the twin on loopback: rows a second, upstream calls a row.
func BenchmarkLegalDataTwin(b *testing.B) {
	w := newWorld(b, sim.Options{})
	c := twin(b, w)
	m := enrich.LegalDataModule(c, "sim")
	places := simtest.SearchAll(b, w, provider.Request{Query: "boulangerie", Bound: simtest.CentralLyon, Country: "FRA", Language: "fr"})
	n, found := 0, 0
	for b.Loop() {
		p := places[n%len(places)]
		r, err := m.Run(context.Background(), &enrich.Env{}, enrich.Input{"nom": p.Name, "adresse": p.Address})
		if err != nil {
			b.Fatal(err)
		}
		if r.Found {
			found++
		}
		n++
	}
	calls := c.Calls()
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(calls.Search)/float64(n), "search/row")
	b.ReportMetric(float64(calls.Bodacc)/float64(n), "bodacc/row")
	b.ReportMetric(float64(found)/float64(n), "found/row")
}
