package enrich_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/registers"
)

// registersReply is one canned answer of the registers' APIs: a file of
// shared/registers/testdata (the recorded formats) with a status and
// headers.
type registersReply struct {
	status int
	file   string
	header map[string]string
}

// registersClock is a fake clock that advances when slept on, so that
// retries and pacing cost no time.
type registersClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *registersClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *registersClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return nil
}

// registersClient is a registers client over an httptest server answering
// both APIs by route, on a fake clock whose BODACC window starts
// 2025-06-15 (the fixtures' dates).
func registersClient(t testing.TB, route func(*http.Request) registersReply, cfg registers.Config) *registers.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep := route(r)
		var body []byte
		if rep.file != "" {
			var err error
			if body, err = os.ReadFile(filepath.Join("..", "registers", "testdata", rep.file)); err != nil {
				t.Errorf("fixture: %v", err)
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
		}
		ctype := "application/json; charset=utf-8"
		if filepath.Ext(rep.file) == ".html" {
			ctype = "text/html"
		}
		w.Header().Set("Content-Type", ctype)
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		if rep.status == 0 {
			rep.status = http.StatusOK
		}
		w.WriteHeader(rep.status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	cfg.SearchURL, cfg.BodaccURL = srv.URL, srv.URL
	clk := &registersClock{now: time.Date(2026, time.June, 15, 10, 0, 0, 0, time.UTC)}
	c, err := registers.New(registers.Deps{Config: cfg, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// isBodacc tells a BODACC request from a search one (BODACC's dataset
// path on the Opendatasoft portal).
func isBodacc(r *http.Request) bool {
	return strings.Contains(r.URL.Path, "/datasets/annonces-commerciales/")
}

// registersFixtures is the route of the recorded answers: search by name,
// by SIREN, by SIRET, and BODACC by SIREN.
func registersFixtures(r *http.Request) registersReply {
	q := r.URL.Query()
	if isBodacc(r) {
		switch w := q.Get("where"); {
		case strings.Contains(w, "790000129"):
			return registersReply{file: "bodacc_liquidation.json"}
		case strings.Contains(w, "812345676"):
			return registersReply{file: "bodacc_modifications.json"}
		}
		return registersReply{file: "bodacc_empty.json"}
	}
	switch q.Get("q") {
	case "790000129":
		return registersReply{file: "search_siren.json"}
	case "79000012900029":
		return registersReply{file: "search_siret.json"}
	case "Boulangerie Dupont":
		if q.Get("code_postal") == "69003" {
			return registersReply{file: "search_name.json"}
		}
		return registersReply{file: "search_name_elsewhere.json"}
	}
	return registersReply{file: "search_empty.json"}
}

func TestLegalDataModuleShape(t *testing.T) {
	m := enrich.LegalDataModule(registersClient(t, registersFixtures, registers.Config{}), "registres (test)")
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
		route       func(*http.Request) registersReply
		in          enrich.Input
		found       bool
		unreachable bool
		cells       map[int]string // column index → cell
	}{
		{"a scrape row: name and address", registersFixtures,
			enrich.Input{"nom": "Boulangerie Dupont", "adresse": "12 rue de la République, 69003 Lyon"}, true, false,
			map[int]string{0: "812345676", 1: "SARL", 2: "", 3: "3 à 5 salariés", 4: "10.71C", 5: "2012-05-14", 6: "Marc Henri DUPONT (Gérant)",
				7: "412000", 8: "18500", 9: "", 10: "actif", 11: "", 12: "3"}},
		{"a legal_ids row: the SIRET wins", registersFixtures,
			enrich.Input{"nom": "Martin Élec", "siret": "790 000 129 00029", "adresse": "8 av. Henri Barbusse, 69100 Villeurbanne"}, true, false,
			map[int]string{0: "790000129", 1: "SAS", 10: "procédure collective", 11: "liquidation judiciaire (2026-03-04)", 12: "2"}},
		{"a legal_mentions row: the VAT number", registersFixtures,
			enrich.Input{"nom": "Électricité Martin", "tva_intracom": "FR78790000129"}, true, false, map[int]string{0: "790000129", 4: "43.21A"}},
		{"no match: empty cells, not an error", registersFixtures,
			enrich.Input{"nom": "Boulangerie Dupont", "code_postal": "75011"}, false, false, nil},
		{"no place to search: empty cells", registersFixtures, enrich.Input{"nom": "Boulangerie Dupont"}, false, false, nil},
		{"the search API down after retries: unreachable",
			func(*http.Request) registersReply { return registersReply{status: 500, file: "error_500.html"} },
			enrich.Input{"nom": "Boulangerie Dupont", "code_postal": "69003"}, false, true, nil},
		{"rate limited past patience: unreachable",
			func(*http.Request) registersReply {
				return registersReply{status: 429, file: "error_429.html", header: map[string]string{"Retry-After": "3600"}}
			},
			enrich.Input{"nom": "Boulangerie Dupont", "code_postal": "69003"}, false, true, nil},
		{"malformed answers: unreachable",
			func(*http.Request) registersReply { return registersReply{file: "search_malformed.json"} },
			enrich.Input{"nom": "Boulangerie Dupont", "code_postal": "69003"}, false, true, nil},
		{"BODACC down: the company's cells, the row unreachable",
			func(r *http.Request) registersReply {
				if isBodacc(r) {
					return registersReply{status: 503}
				}
				return registersFixtures(r)
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
	m := enrich.LegalDataModule(registersClient(t, registersFixtures, registers.Config{}), "test")
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
	c := registersClient(b, registersFixtures, registers.Config{RatePerSecond: 1e9, BodaccRatePerSecond: 1e9})
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
