package enrich_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/registers"
	"github.com/prospectdata/svc/shared/registers/registerstest"
)

// registersClient is a registers client over the registers' twin
// answering both APIs by route, on a clock that advances when slept on
// (registerstest).
func registersClient(t testing.TB, route func(*http.Request) registerstest.Reply, cfg registers.Config) *registers.Client {
	t.Helper()
	srv := registerstest.New(t, route)
	cfg.SearchURL, cfg.BodaccURL = srv.URL(), srv.URL()
	c, err := registers.New(registers.Deps{Config: cfg, Clock: registerstest.NewClock()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLegalDataModuleShape(t *testing.T) {
	m := enrich.LegalDataModule(registersClient(t, registerstest.Fixtures, registers.Config{}), "registres (test)")
	want := []string{"siren", "forme_juridique", "capital_social", "effectif_tranche", "code_naf", "date_creation", "dirigeants", "ca",
		"resultat_net", "labels_qualite", "lead_status", "bodacc_procedure_collective", "bodacc_modifs_12m"}
	if m.Slug() != "legal_data" || !slices.Equal(m.Columns(), want) {
		t.Errorf("slug %q columns %v", m.Slug(), m.Columns())
	}
	if r := m.Reads(); r[0] != "nom" || !slices.Contains(r, "siret") || !slices.Contains(r, "code_postal") {
		t.Errorf("reads %v", r)
	}
	if enrich.SourceOf(m) != "registres (test)" {
		t.Errorf("source %q", enrich.SourceOf(m))
	}
}

func TestLegalDataRows(t *testing.T) {
	cols := registers.LegalDataColumns
	for _, tc := range []struct {
		name        string
		route       func(*http.Request) registerstest.Reply
		in          enrich.Input
		found       bool
		unreachable bool
		cells       map[int]string // column index → cell
	}{
		{"a scrape row: name and address", registerstest.Fixtures,
			enrich.Input{"nom": "Boulangerie Dupont", "adresse": "12 rue de la République, 69003 Lyon"}, true, false,
			map[int]string{0: "812345676", 1: "SARL", 2: "", 3: "3 à 5 salariés", 4: "10.71C", 5: "2012-05-14", 6: "Marc Henri DUPONT (Gérant)",
				7: "412000", 8: "18500", 9: "", 10: "actif", 11: "", 12: "3"}},
		{"a legal_ids row: the SIRET wins", registerstest.Fixtures,
			enrich.Input{"nom": "Martin Élec", "siret": "790 000 129 00029", "adresse": "8 av. Henri Barbusse, 69100 Villeurbanne"}, true, false,
			map[int]string{0: "790000129", 1: "SAS", 10: "procédure collective", 11: "liquidation judiciaire (2026-03-04)", 12: "2"}},
		{"a legal_mentions row: the VAT number", registerstest.Fixtures,
			enrich.Input{"nom": "Électricité Martin", "tva_intracom": "FR78790000129"}, true, false, map[int]string{0: "790000129", 4: "43.21A"}},
		{"no match: empty cells, not an error", registerstest.Fixtures,
			enrich.Input{"nom": "Boulangerie Dupont", "code_postal": "75011"}, false, false, nil},
		{"no place to search: empty cells", registerstest.Fixtures, enrich.Input{"nom": "Boulangerie Dupont"}, false, false, nil},
		{"the search API down after retries: unreachable",
			func(*http.Request) registerstest.Reply {
				return registerstest.Reply{Status: 500, File: "error_500.html"}
			},
			enrich.Input{"nom": "Boulangerie Dupont", "code_postal": "69003"}, false, true, nil},
		{"rate limited past patience: unreachable",
			func(*http.Request) registerstest.Reply {
				return registerstest.Reply{Status: 429, File: "error_429.html", Header: map[string]string{"Retry-After": "3600"}}
			},
			enrich.Input{"nom": "Boulangerie Dupont", "code_postal": "69003"}, false, true, nil},
		{"malformed answers: unreachable",
			func(*http.Request) registerstest.Reply { return registerstest.Reply{File: "search_malformed.json"} },
			enrich.Input{"nom": "Boulangerie Dupont", "code_postal": "69003"}, false, true, nil},
		{"BODACC down: the company's cells, the row unreachable",
			func(r *http.Request) registerstest.Reply {
				if registerstest.IsBodacc(r) {
					return registerstest.Reply{Status: 503}
				}
				return registerstest.Fixtures(r)
			},
			enrich.Input{"nom": "x", "siren": "790000129"}, true, true, map[int]string{0: "790000129", 1: "SAS", 10: "actif", 11: "", 12: ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := enrich.LegalDataModule(registersClient(t, tc.route, registers.Config{MaxAttempts: 2}), "test")
			r, err := m.Run(context.Background(), &enrich.Env{}, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if r.Found != tc.found || r.Unreachable != tc.unreachable || len(r.Values) != len(cols) {
				t.Fatalf("found %v unreachable %v, %d values", r.Found, r.Unreachable, len(r.Values))
			}
			for i, want := range tc.cells {
				if r.Values[i] != want {
					t.Errorf("%s = %q, want %q", cols[i], r.Values[i], want)
				}
			}
			if !tc.found && slices.ContainsFunc(r.Values, func(v string) bool { return v != "" }) {
				t.Errorf("cells of a row not found: %q", r.Values)
			}
		})
	}
}

func TestLegalDataCancelled(t *testing.T) {
	m := enrich.LegalDataModule(registersClient(t, registerstest.Fixtures, registers.Config{}), "test")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Run(ctx, &enrich.Env{}, enrich.Input{"nom": "x", "siren": "790000129"}); err == nil {
		t.Error("a cancelled run should return the context's error")
	}
}

// BenchmarkLegalData enriches rows over the recorded answers (httptest on
// loopback, pacing off): rows a second, and upstream calls a row (search
// plus BODACC).
func BenchmarkLegalData(b *testing.B) {
	rows := []enrich.Input{
		{"nom": "Boulangerie Dupont", "adresse": "12 rue de la République, 69003 Lyon"}, // name: 1 search + 1 BODACC
		{"nom": "Martin Élec", "siret": "79000012900029"},                               // SIRET: 1 + 1
		{"nom": "Électricité Martin", "siren": "790000129"},                             // SIREN: 1 + 1
		{"nom": "Boulangerie Dupont", "code_postal": "75011"},                           // no match: 1
	}
	c := registersClient(b, registerstest.Fixtures, registers.Config{RatePerSecond: 1e9, BodaccRatePerSecond: 1e9})
	m := enrich.LegalDataModule(c, "bench")
	n := 0
	for b.Loop() {
		if _, err := m.Run(context.Background(), &enrich.Env{}, rows[n%len(rows)]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	calls := c.Calls()
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(calls.Search)/float64(n), "search/row")
	b.ReportMetric(float64(calls.Bodacc)/float64(n), "bodacc/row")
}
