package registers

import (
	"context"
	"errors"
	"fmt"
	"github.com/prospectdata/svc/shared/registers/registerstest"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
)

// activityPages answers the recorded activity search by its page.
func activityPages(r *http.Request) reply {
	switch r.URL.Query().Get("page") {
	case "", "1":
		return reply{file: "search_activity_p1.json"}
	case "2":
		return reply{file: "search_activity_p2.json"}
	case "3":
		return reply{file: "search_activity_p3.json"}
	}
	return reply{file: "search_empty.json"}
}

func collect(t *testing.T, c *Client, f Filter) []Establishment {
	t.Helper()
	var out []Establishment
	if err := c.Establishments(context.Background(), f, func(e Establishment) error {
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEstablishmentsPagination(t *testing.T) {
	u := newUpstream(t, activityPages)
	c, _ := u.client(t, Config{})
	got := collect(t, c, Filter{Activites: []string{"boulangerie"}, Zones: Zones{Departements: []string{"69"}}})
	// 53 companies over 3 pages: 53 sièges, 5 second shops, 5 closed
	// former shops left out.
	if len(got) != 58 {
		t.Fatalf("%d establishments, want 58", len(got))
	}
	seen := map[string]bool{}
	sieges := 0
	for _, e := range got {
		if seen[e.SIRET] {
			t.Errorf("%s twice", e.SIRET)
		}
		seen[e.SIRET] = true
		if !ValidSIRET(e.SIRET) || e.SIRET[:9] != e.SIREN || e.NAFLibelle == "" || e.Nom == "" || e.CodePostal == "" {
			t.Errorf("establishment %+v", e)
		}
		if e.IsSiege {
			sieges++
		}
	}
	if sieges != 53 {
		t.Errorf("%d sièges", sieges)
	}
	first := got[0]
	want := Establishment{Nom: "AU PAIN DORE PETIT", Adresse: "1 RUE DE LA REPUBLIQUE 69001 LYON 1ER", CodePostal: "69001",
		Commune: "LYON 1ER", SIRET: first.SIRET, SIREN: first.SIREN, NAF: "10.71C", NAFLibelle: "Boulangerie et boulangerie-pâtisserie",
		TrancheEffectif: "Unité non employeuse", DateCreation: "1995-01-01", IsSiege: true}
	if first != want {
		t.Errorf("first\n got %+v\nwant %+v", first, want)
	}
	if v := first.Values(); len(v) != len(EstablishmentColumns) || v[10] != "true" {
		t.Errorf("values %q", v)
	}
	reqs := u.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	q := reqs[0].Query()
	for k, v := range map[string]string{"activite_principale": "10.71C,47.24Z", "departement": "69", "per_page": "25",
		"limite_matching_etablissements": "100", "etat_administratif": "A"} {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	if reqs[2].Query().Get("page") != "3" {
		t.Errorf("last request %v", reqs[2])
	}
}

func TestEstablishmentsStopAt(t *testing.T) {
	u := newUpstream(t, activityPages)
	c, _ := u.client(t, Config{})
	got := collect(t, c, Filter{Activites: []string{"10.71C"}, Zones: Zones{Departements: []string{"69"}}, StopAt: 30})
	if len(got) != 30 || len(u.requests()) != 2 {
		t.Errorf("%d establishments in %d requests, want 30 in 2", len(got), len(u.requests()))
	}
}

func TestEstablishmentsFilters(t *testing.T) {
	u := newUpstream(t, activityPages)
	c, _ := u.client(t, Config{})
	for _, tc := range []struct {
		name string
		f    Filter
		keep func(Establishment) bool
		n    int
	}{
		{"sièges only", Filter{SiegesOnly: true}, func(e Establishment) bool { return e.IsSiege }, 53},
		{"created on or after", Filter{CreeApres: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)},
			func(e Establishment) bool { return e.DateCreation >= "2020-01-01" }, 15},
		{"headcount band 10 to 19 or more", Filter{EffectifMin: "11"},
			func(e Establishment) bool {
				return e.TrancheEffectif == "10 à 19 salariés" || e.TrancheEffectif == "20 à 49 salariés"
			}, 14},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Activites, tc.f.Zones = []string{"boulangerie"}, Zones{Departements: []string{"69"}}
			got := collect(t, c, tc.f)
			for _, e := range got {
				if !tc.keep(e) {
					t.Errorf("kept %+v", e)
				}
			}
			if len(got) != tc.n {
				t.Errorf("%d kept, want %d", len(got), tc.n)
			}
		})
	}
	reqs := u.requests()
	if got := reqs[len(reqs)-1].Query().Get("tranche_effectif_salarie"); got != "11,12,21,22,31,32,41,42,51,52,53" {
		t.Errorf("tranche_effectif_salarie = %q", got)
	}
}

func TestEstablishmentsBadFilters(t *testing.T) {
	c, _ := newUpstream(t, activityPages).client(t, Config{})
	for _, f := range []Filter{
		{Zones: Zones{Departements: []string{"69"}}},
		{Activites: []string{"licorne"}, Zones: Zones{Departements: []string{"69"}}},
		{Activites: []string{"boulangerie"}},
		{Activites: []string{"boulangerie"}, Zones: Zones{Departements: []string{"69"}}, EffectifMin: "7"},
	} {
		if err := c.Establishments(context.Background(), f, func(Establishment) error { return nil }); !errors.Is(err, ErrBadQuery) {
			t.Errorf("%+v: %v", f, err)
		}
	}
}

func TestEstablishmentsCallbackError(t *testing.T) {
	c, _ := newUpstream(t, activityPages).client(t, Config{})
	stop := errors.New("enough")
	n := 0
	err := c.Establishments(context.Background(), Filter{Activites: []string{"10.71C"}, Zones: Zones{Departements: []string{"69"}}},
		func(Establishment) error {
			if n++; n == 3 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("err = %v after %d", err, n)
	}
}

func TestEstablishmentsUpstreamFailure(t *testing.T) {
	u := newUpstream(t, func(r *http.Request) reply {
		if r.URL.Query().Get("page") == "2" {
			return reply{status: 500, file: "error_500.html"}
		}
		return activityPages(r)
	})
	c, _ := u.client(t, Config{MaxAttempts: 2})
	n := 0
	err := c.Establishments(context.Background(), Filter{Activites: []string{"10.71C"}, Zones: Zones{Departements: []string{"69"}}},
		func(Establishment) error { n++; return nil })
	if !errors.Is(err, ErrUnavailable) || n == 0 {
		t.Errorf("err = %v after %d rows", err, n)
	}
}

var loadGazetteer = sync.OnceValues(data.Load)

// TestEstablishmentsSplitPastTheCap: a department whose answer passes
// 10,000 companies is read commune by commune, in lists of 50; a single
// commune still too large is read to the cap and reported.
func TestEstablishmentsSplitPastTheCap(t *testing.T) {
	g, err := loadGazetteer()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var communes []string
	u := newUpstream(t, func(r *http.Request) reply {
		q := r.URL.Query()
		if q.Get("departement") != "" {
			return reply{body: `{"results":[],"total_results":15000,"page":1,"per_page":25,"total_pages":600}`}
		}
		cs := strings.Split(q.Get("code_commune"), ",")
		mu.Lock()
		defer mu.Unlock()
		if q.Get("page") == "" {
			communes = append(communes, cs...)
		}
		if slices.Contains(cs, "69381") { // Lyon 1er: too large even alone
			page, _ := strconv.Atoi(q.Get("page"))
			return reply{body: fmt.Sprintf(`{"results":[{"siren":"123456789","matching_etablissements":[`+
				`{"siret":"%014d","commune":"69381","etat_administratif":"A"}]}],`+
				`"total_results":12000,"page":%d,"per_page":25,"total_pages":480}`, page, page)}
		}
		return reply{file: "search_empty.json"}
	})
	clk := registerstest.NewClock()
	c, err := New(Deps{Config: Config{SearchURL: u.URL(), BodaccURL: u.URL()}, Clock: clk,
		Gazetteer: func() (*gazetteer.Gazetteer, error) { return g, nil }})
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	got := collect(t, c, Filter{Activites: []string{"56.10A"}, Zones: Zones{Departements: []string{"69"}},
		Warn: func(m string) { warnings = append(warnings, m) }})
	if len(got) != MaxResults/MaxPerPage { // one row a page of Lyon 1er
		t.Errorf("%d rows", len(got))
	}
	id, _ := g.ByCode("FRA", gazetteer.Department, "69")
	want := communesOf(g, id)
	seen := map[string]bool{}
	for _, code := range communes {
		seen[code] = true
	}
	for _, code := range want {
		if !seen[code] {
			t.Errorf("commune %s never asked", code)
		}
	}
	if seen["69123"] || !seen["69381"] {
		t.Error("Lyon is asked by arrondissement")
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "69381") {
		t.Errorf("warnings %q", warnings)
	}
	// Lyon 1er alone was read to the cap: 400 pages.
	pages := 0
	for _, r := range u.requests() {
		if r.Query().Get("code_commune") == "69381" {
			pages++
		}
	}
	if pages != MaxResults/MaxPerPage {
		t.Errorf("%d pages of Lyon 1er, want %d", pages, MaxResults/MaxPerPage)
	}
}

func TestExpandCities(t *testing.T) {
	g, err := loadGazetteer()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(Deps{Gazetteer: func() (*gazetteer.Gazetteer, error) { return g, nil }})
	got, err := c.expandCities([]string{"69123", "69034"})
	if err != nil || len(got) != 10 || got[0] != "69381" || got[9] != "69034" {
		t.Errorf("expandCities = %v, %v", got, err)
	}
}

// BenchmarkEstablishments reads the three recorded pages (58 rows).
func BenchmarkEstablishments(b *testing.B) {
	u := newUpstream(b, activityPages)
	c, _ := u.client(b, Config{RatePerSecond: 1e9})
	rows := 0
	for b.Loop() {
		_ = c.Establishments(context.Background(), Filter{Activites: []string{"10.71C"}, Zones: Zones{Departements: []string{"69"}}},
			func(Establishment) error { rows++; return nil })
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
