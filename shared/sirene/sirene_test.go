package sirene_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob/dir"
	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/registers"
	"github.com/prospectdata/svc/shared/registers/registerstest"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/sirene"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// places is the scrape service over the real gazetteer, loaded once for
// every test of the package (it only reads).
var places = sync.OnceValue(func() *scrape.Service {
	s := scrape.New(scrape.Deps{Gazetteer: data.Load})
	if err := s.Warm(); err != nil {
		panic(err)
	}
	return s
})

// valid is a configuration every check accepts.
func valid() sirene.Config {
	return sirene.Config{Activites: []string{"boulangerie"}, Zones: []string{"Rhône"}}
}

// wantField fails unless err is a 422 naming field.
func wantField(t *testing.T, err error, field string) *apperr.Error {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.Unprocessable || len(ae.Fields) != 1 || ae.Fields[0].Field != field {
		t.Fatalf("err %v, want a 422 naming %s", err, field)
	}
	return ae
}

// TestCheckFields: each field's rule (spec: node table, sirene), a 422
// naming the field, and the defaults filled.
func TestCheckFields(t *testing.T) {
	many := func(n int, v string) []string { return slices.Repeat([]string{v}, n) }
	tests := []struct {
		name   string
		change func(c *sirene.Config)
		field  string // "" when valid
	}{
		{"the minimal configuration", func(*sirene.Config) {}, ""},
		{"a NAF code", func(c *sirene.Config) { c.Activites = []string{"10.71C"} }, ""},
		{"a trade in the plural", func(c *sirene.Config) { c.Activites = []string{" Boulangeries "} }, ""},
		{"20 activities", func(c *sirene.Config) { c.Activites = many(20, "boulangerie") }, ""},
		{"50 zones", func(c *sirene.Config) { c.Zones = many(50, "Rhône") }, ""},
		{"sieges", func(c *sirene.Config) { c.Etablissements = sirene.Sieges }, ""},
		{"tous", func(c *sirene.Config) { c.Etablissements = sirene.Tous }, ""},
		{"a creation date", func(c *sirene.Config) { c.CreeApres = "2020-01-31" }, ""},
		{"a headcount band", func(c *sirene.Config) { c.EffectifMin = "11" }, ""},
		{"the smallest band", func(c *sirene.Config) { c.EffectifMin = "NN" }, ""},
		{"stop_at 1", func(c *sirene.Config) { c.StopAt = 1 }, ""},
		{"stop_at at the ceiling", func(c *sirene.Config) { c.StopAt = registers.MaxStopAt }, ""},
		{"no activity", func(c *sirene.Config) { c.Activites = nil }, "activites"},
		{"21 activities", func(c *sirene.Config) { c.Activites = many(21, "boulangerie") }, "activites"},
		{"an unknown activity", func(c *sirene.Config) { c.Activites = []string{"boulangerie", "téléportation"} }, "activites"},
		{"a blank activity", func(c *sirene.Config) { c.Activites = []string{"  "} }, "activites"},
		{"no zone", func(c *sirene.Config) { c.Zones = nil }, "zones"},
		{"51 zones", func(c *sirene.Config) { c.Zones = many(51, "Rhône") }, "zones"},
		{"another etablissements", func(c *sirene.Config) { c.Etablissements = "secondaires" }, "etablissements"},
		{"a French date", func(c *sirene.Config) { c.CreeApres = "31/01/2020" }, "cree_apres"},
		{"an impossible date", func(c *sirene.Config) { c.CreeApres = "2020-02-30" }, "cree_apres"},
		{"an unknown band", func(c *sirene.Config) { c.EffectifMin = "99" }, "effectif_min"},
		{"a band written as a number of people", func(c *sirene.Config) { c.EffectifMin = "10" }, "effectif_min"},
		{"stop_at negative", func(c *sirene.Config) { c.StopAt = -1 }, "stop_at"},
		{"stop_at over the ceiling", func(c *sirene.Config) { c.StopAt = registers.MaxStopAt + 1 }, "stop_at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.change(&c)
			err := c.CheckFields()
			if tt.field != "" {
				wantField(t, err, tt.field)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCheckFieldsDefaults: etablissements defaults to tous and stop_at to
// the spec's 5000; activities are trimmed.
func TestCheckFieldsDefaults(t *testing.T) {
	c := sirene.Config{Activites: []string{"  boulangerie  "}, Zones: []string{"Rhône"}}
	if err := c.CheckFields(); err != nil {
		t.Fatal(err)
	}
	if c.Etablissements != sirene.Tous || c.StopAt != 5000 || c.Activites[0] != "boulangerie" {
		t.Fatalf("defaults: %+v", c)
	}
	c = sirene.Config{Activites: []string{"boulangerie"}, Zones: []string{"Rhône"}, Etablissements: sirene.Sieges, StopAt: 12}
	if err := c.CheckFields(); err != nil {
		t.Fatal(err)
	}
	if c.Etablissements != sirene.Sieges || c.StopAt != 12 {
		t.Fatalf("given values changed: %+v", c)
	}
}

// TestUnknownActivityMessage: the refusal names the activity and shows
// what an activity looks like, in both languages.
func TestUnknownActivityMessage(t *testing.T) {
	c := sirene.Config{Activites: []string{"téléportation"}, Zones: []string{"Rhône"}}
	ae := wantField(t, c.CheckFields(), "activites")
	f := ae.Fields[0]
	if !strings.Contains(f.FR, `"téléportation"`) || !strings.Contains(f.FR, "10.71C") ||
		!strings.Contains(f.EN, `"téléportation"`) || !strings.Contains(f.EN, "NAF code") {
		t.Fatalf("messages %q / %q", f.FR, f.EN)
	}
}

// TestValidateZones: the zones must be French places the registers filter
// on; a radius is refused with a message that says why.
func TestValidateZones(t *testing.T) {
	tests := []struct {
		name  string
		zones []string
		ok    bool
		field string // the 422's field; "" for another refusal
	}{
		{"a department", []string{"Rhône"}, true, ""},
		{"a region", []string{"Bretagne"}, true, ""},
		{"a commune", []string{"Villeurbanne"}, true, ""},
		{"a postcode", []string{"69003"}, true, ""},
		{"the whole country", []string{"France"}, true, ""},
		{"several kinds", []string{"Rhône", "69003", "Bretagne"}, true, ""},
		{"a city with a radius", []string{"Lyon 10km"}, false, "zones"},
		{"a radius after a good zone", []string{"Rhône", "Lyon 5km"}, false, "zones"},
		{"an unknown zone", []string{"Atlantide"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			c.Zones = tt.zones
			err := c.Validate(places())
			switch {
			case tt.ok:
				if err != nil {
					t.Fatal(err)
				}
			case tt.field != "":
				ae := wantField(t, err, tt.field)
				if !strings.Contains(ae.Fields[0].EN, "radius") {
					t.Fatalf("message %q does not say a radius is the problem", ae.Fields[0].EN)
				}
			default:
				if err == nil {
					t.Fatal("accepted")
				}
			}
		})
	}
}

type env struct {
	jobs  *jobs.Service
	files *dir.Store
}

// newEnv wires the job service over the embedded tables and the
// directory file store in a temp dir, with a monthly quota of quota EF.
func newEnv(t *testing.T, quota float64) *env {
	t.Helper()
	d := t.TempDir()
	c := clocktest.New(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	db, err := bolt.Open(filepath.Join(d, "tables.db"),
		[]store.Schema{accounts.Schema(), ratelimit.Schema(), jobs.Schema()}, bolt.WithNoSync(), bolt.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	files, err := dir.New(filepath.Join(d, "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	limits := ratelimit.New(db, c.Now)
	acc := accounts.New(accounts.Deps{DB: db, Limits: limits, Now: c.Now}, accounts.Config{})
	js := jobs.New(jobs.Deps{DB: db, Scrape: places(), Ledger: accounts.NewLedger(db, c.Now, quota), Limits: limits,
		Accounts: acc, Now: c.Now, Source: "sim", Files: files})
	return &env{jobs: js, files: files}
}

// TestCreate: the configuration is checked before anything is written
// (422, no job); a sirene job is created pending, charged stop_at rows at
// creation, with its checked configuration as parameters; the admission
// of every job applies (verified email, the month's EF).
func TestCreate(t *testing.T) {
	verified := &accounts.User{ID: 1, EmailVerified: true}
	tests := []struct {
		name    string
		user    *accounts.User
		quota   float64
		change  func(c *sirene.Config)
		code    apperr.Code // "" on success
		wantEF  float64
		wantCfg sirene.Config
	}{
		{"defaults: 5000 rows at 0.001 EF", verified, 1000, func(*sirene.Config) {}, "", 5,
			sirene.Config{Activites: []string{"boulangerie"}, Zones: []string{"Rhône"}, Etablissements: sirene.Tous, StopAt: 5000}},
		{"stop_at 200", verified, 1000, func(c *sirene.Config) { c.StopAt = 200; c.Etablissements = sirene.Sieges }, "", 0.2,
			sirene.Config{Activites: []string{"boulangerie"}, Zones: []string{"Rhône"}, Etablissements: sirene.Sieges, StopAt: 200}},
		{"a bad field: nothing written", verified, 1000, func(c *sirene.Config) { c.CreeApres = "hier" }, apperr.Unprocessable, 0, sirene.Config{}},
		{"a radius: nothing written", verified, 1000, func(c *sirene.Config) { c.Zones = []string{"Lyon 3km"} }, apperr.Unprocessable, 0, sirene.Config{}},
		{"an unverified email", &accounts.User{ID: 1}, 1000, func(*sirene.Config) {}, apperr.Forbidden, 0, sirene.Config{}},
		{"over the month's EF", verified, 4, func(*sirene.Config) {}, apperr.Invalid, 0, sirene.Config{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.quota)
			ctx := context.Background()
			c := valid()
			tt.change(&c)
			j, err := sirene.Create(ctx, e.jobs, tt.user, places(), c)
			if tt.code != "" {
				if !apperr.Is(err, tt.code) {
					t.Fatalf("err %v, want %s", err, tt.code)
				}
				if js, _ := e.jobs.List(ctx, tt.user.ID, 10, 0); len(js) != 0 {
					t.Fatalf("%d jobs written by a refused creation", len(js))
				}
				if n, _ := e.jobs.Active(ctx, tt.user.ID); n != 0 {
					t.Fatalf("%d active after a refused creation", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if j.JobType != jobs.TypeSirene || j.Status != jobs.Pending || j.EFCost != tt.wantEF || j.Country != "FRA" {
				t.Fatalf("job %s %s, EF %v, country %s; want sirene pending at %v EF in FRA", j.JobType, j.Status, j.EFCost, j.Country, tt.wantEF)
			}
			got, err := e.jobs.Get(ctx, tt.user.ID, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := jobs.ReadParams(ctx, e.files, got); err != nil {
				t.Fatal(err)
			}
			var stored sirene.Config
			if err := json.Unmarshal(got.Params, &stored); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(stored) != fmt.Sprint(tt.wantCfg) {
				t.Fatalf("parameters %+v, want %+v", stored, tt.wantCfg)
			}
			if n, _ := e.jobs.Active(ctx, tt.user.ID); n != 1 {
				t.Fatalf("%d active, want 1", n)
			}
		})
	}
}

// upstream is the search API's twin (registerstest): it answers page n
// of search_activity_p<n>.json (or no result), and the test reads the
// queries it was asked.
type upstream struct {
	srv   *registerstest.Server
	empty bool
}

// route answers a search by its page.
func (u *upstream) route(r *http.Request) registerstest.Reply {
	if u.empty {
		return registerstest.Reply{File: "search_empty.json"}
	}
	page := r.URL.Query().Get("page")
	if page == "" {
		page = "1"
	}
	return registerstest.Reply{File: "search_activity_p" + page + ".json"}
}

// asked are the queries of the requests so far.
func (u *upstream) asked() []url.Values {
	var out []url.Values
	for _, r := range u.srv.Requests() {
		out = append(out, r.Query())
	}
	return out
}

func newRunner(t *testing.T, u *upstream) *sirene.Runner {
	t.Helper()
	u.srv = registerstest.New(t, u.route)
	rc, err := registers.New(registers.Deps{Config: registers.Config{SearchURL: u.srv.URL(), RatePerSecond: 1000},
		HTTP: u.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return &sirene.Runner{Registers: rc, Places: places()}
}

func jobOf(t *testing.T, c sirene.Config) *jobs.Job {
	t.Helper()
	if err := c.CheckFields(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return &jobs.Job{ID: "sirenejob", JobType: jobs.TypeSirene, Params: b}
}

// TestZonesAsked: each kind of zone is asked of the registers as the codes
// they filter on: a department by its code, a region by its code, a
// postcode as a postcode, a commune by its INSEE code, the whole country
// as its regions.
func TestZonesAsked(t *testing.T) {
	tests := []struct {
		name  string
		zones []string
		param string
		want  []string // codes the param must hold, in any request
	}{
		{"a department", []string{"Rhône"}, "departement", []string{"69"}},
		{"a region", []string{"Bretagne"}, "region", []string{"53"}},
		{"a postcode", []string{"69003"}, "code_postal", []string{"69003"}},
		{"a commune", []string{"Villeurbanne"}, "code_commune", []string{"69266"}},
		{"the whole country", []string{"France"}, "region", []string{"11", "53", "84", "93"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &upstream{empty: true}
			c := valid()
			c.Zones = tt.zones
			var out bytes.Buffer
			n, err := newRunner(t, u).RunCSV(context.Background(), jobOf(t, c), &out, func(string, string) {})
			if err != nil || n != 0 {
				t.Fatalf("rows %d, err %v", n, err)
			}
			var got []string
			for _, q := range u.asked() {
				if v := q.Get(tt.param); v != "" {
					got = append(got, strings.Split(v, ",")...)
				}
			}
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Fatalf("%s asked %v, want %s among them (requests %v)", tt.param, got, w, u.asked())
				}
			}
		})
	}
}

// TestRunCSV: the establishments as rows under the node's Produces
// columns, at most stop_at of them, head offices only when asked.
func TestRunCSV(t *testing.T) {
	for _, tt := range []struct {
		name   string
		stopAt int
		sieges bool
		want   int
	}{
		{"every page", 0, false, -1},
		{"stopped at 10", 10, false, 10},
		{"head offices only", 0, true, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := &upstream{}
			c := valid()
			c.StopAt = tt.stopAt
			if tt.sieges {
				c.Etablissements = sirene.Sieges
			}
			var out bytes.Buffer
			n, err := newRunner(t, u).RunCSV(context.Background(), jobOf(t, c), &out, func(string, string) {})
			if err != nil {
				t.Fatal(err)
			}
			rd, err := export.ReadCSV(&out)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rd.Header(), sirene.Columns) {
				t.Fatalf("header %v, want %v", rd.Header(), sirene.Columns)
			}
			rows := 0
			for {
				row, err := rd.Read()
				if err != nil {
					break
				}
				if len(row) != len(sirene.Columns) || row[4] == "" {
					t.Fatalf("row %v", row)
				}
				if tt.sieges && row[10] != "true" {
					t.Fatalf("an establishment that is not a head office: %v", row)
				}
				rows++
			}
			if rows != n || n == 0 || (tt.want >= 0 && n != tt.want) {
				t.Fatalf("%d rows written, %d counted, want %d", rows, n, tt.want)
			}
			if q := u.asked()[0]; !strings.Contains(q.Get("activite_principale"), "10.71C") || q.Get("departement") != "69" {
				t.Fatalf("first request %v", q)
			}
		})
	}
}

// TestRunCSVBand: the headcount band reaches the registers' query as that
// band and the larger ones.
func TestRunCSVBand(t *testing.T) {
	u := &upstream{empty: true}
	c := valid()
	c.EffectifMin = "11"
	if _, err := newRunner(t, u).RunCSV(context.Background(), jobOf(t, c), &bytes.Buffer{}, func(string, string) {}); err != nil {
		t.Fatal(err)
	}
	band := u.asked()[0].Get("tranche_effectif_salarie")
	if band == "" || strings.Contains(band, "03") || !strings.Contains(band, "11") {
		t.Fatalf("tranche_effectif_salarie %q, want 11 and larger bands only", band)
	}
}
