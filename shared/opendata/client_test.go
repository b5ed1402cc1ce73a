package opendata_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/inproc"
	"github.com/prospectdata/svc/shared/opendata"
)

// answer is one canned answer of the fake interpreter.
type answer struct {
	status int
	file   string // under testdata/
	header map[string]string
}

// fakeOverpass is an interpreter that replays answers in turn (the last
// one again when they run out) and records what it was asked.
type fakeOverpass struct {
	t       *testing.T
	mu      sync.Mutex
	answers []answer
	queries []string
	agents  []string
	delay   time.Duration
	running atomic.Int32
	peak    atomic.Int32
}

func (f *fakeOverpass) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		http.Error(w, "want a form POST", http.StatusBadRequest)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.queries = append(f.queries, r.PostForm.Get("data"))
	f.agents = append(f.agents, r.Header.Get("User-Agent"))
	a := f.answers[min(len(f.queries)-1, len(f.answers)-1)]
	f.mu.Unlock()
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	body, err := os.ReadFile(filepath.Join("testdata", a.file))
	if err != nil {
		f.t.Error(err)
		return
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	if strings.HasSuffix(a.file, ".json") {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	w.WriteHeader(a.status)
	w.Write(body)
}

func (f *fakeOverpass) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queries)
}

// serve starts a fake interpreter with the answers and a client of it
// (no pacing, short backoffs).
func serve(t *testing.T, cfg opendata.Config, answers ...answer) (*fakeOverpass, *opendata.Client) {
	t.Helper()
	f := &fakeOverpass{t: t, answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.OverpassURL = srv.URL + "/api/interpreter"
	if cfg.Interval == 0 {
		cfg.Interval = -1
	}
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = time.Millisecond
	}
	c, err := opendata.New(cfg, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func ok(file string) answer { return answer{status: 200, file: file} }

// Rows of the fixtures.
var (
	bakeryRow = enrich.Input{"nom": "Boulangerie du Marché", "adresse": "16 rue Émile Zola, 69300 Caluire-et-Cuire",
		"latitude": "45.79", "longitude": "4.85"}
	nearRow     = enrich.Input{"nom": "Boulangerie Pâtisserie Martin", "lat": "45.7640", "lon": "4.8355"}
	pharmacyRow = enrich.Input{"nom": "PHARMACIE CENTRALE", "latitude": "45.7613", "longitude": "4.8598"}
	plumberRow  = enrich.Input{"nom": "Dupont Plomberie EURL", "adresse": "4 av. Général de Gaulle, 69300 Caluire-et-Cuire"}
)

func run(t *testing.T, c *opendata.Client, in enrich.Input) enrich.Result {
	t.Helper()
	r, err := enrich.OpendataModule(c, "").Run(context.Background(), &enrich.Env{}, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Values) != len(opendata.Columns) {
		t.Fatalf("%d values for %d columns", len(r.Values), len(opendata.Columns))
	}
	return r
}

func TestModuleOverFixtures(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		in    enrich.Input
		want  []string
		found bool
	}{
		{"an exact match with its contacts", "exact.json", bakeryRow, []string{
			"https://www.boulangerie-du-marche.fr/", "04 78 23 45 67", "contact@boulangerie-du-marche.fr",
			"opening_hours; wheelchair; payment:*; contact:facebook", "name_exact", "openstreetmap node/4829163351"}, true},
		{"a near name", "near.json", nearRow, []string{
			"", "04 78 37 12 09", "", "", "name_near", "openstreetmap node/2203917786"}, true},
		{"the nearest of two candidates", "two_candidates.json", pharmacyRow, []string{
			"https://pharmacie-centrale-part-dieu.fr/", "04 72 00 11 22", "", "dispensing", "name_exact", "openstreetmap node/1180552901"}, true},
		{"none", "none.json", bakeryRow, []string{"", "", "", "", "none", ""}, false},
		{"a way with its center, in the postcode's area", "way_center.json", plumberRow, []string{
			"https://dupont-plomberie.fr/", "06 12 34 56 78", "contact@dupont-plomberie.fr", "", "name_exact",
			"openstreetmap way/288417093"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := serve(t, opendata.Config{}, ok(tt.file))
			r := run(t, c, tt.in)
			for i, col := range opendata.Columns {
				if r.Values[i] != tt.want[i] {
					t.Errorf("%s = %q, want %q", col, r.Values[i], tt.want[i])
				}
			}
			if r.Found != tt.found || r.Unreachable {
				t.Errorf("found %v unreachable %v", r.Found, r.Unreachable)
			}
			if f.calls() != 1 {
				t.Errorf("%d calls, want 1", f.calls())
			}
			q := f.queries[0]
			if !strings.HasPrefix(q, "[out:json][timeout:25];") || !strings.Contains(q, "out tags center 500;") {
				t.Errorf("query:\n%s", q)
			}
			hasPoint := tt.in["latitude"] != "" || tt.in["lat"] != ""
			if hasPoint != strings.Contains(q, "(around:300,") {
				t.Errorf("around search %v for a row with coordinates %v:\n%s", !hasPoint, hasPoint, q)
			}
			if f.agents[0] != opendata.DefaultUserAgent {
				t.Errorf("User-Agent %q", f.agents[0])
			}
		})
	}
}

func TestModuleFailures(t *testing.T) {
	tests := []struct {
		name      string
		answers   []answer
		wantCalls int
		want      []string
		unreach   bool
	}{
		{"429 then success", []answer{{status: 429, file: "429.html"}, ok("exact.json")}, 2,
			[]string{"https://www.boulangerie-du-marche.fr/", "04 78 23 45 67"}, false},
		{"504 until the attempts are exhausted", []answer{{status: 504, file: "504.html"}}, 3, nil, true},
		{"a runtime-error remark in a 200 answer, retried then given up", []answer{ok("remark_timeout.json")}, 3, nil, true},
		{"a runtime-error remark, then an answer", []answer{ok("remark_timeout.json"), ok("exact.json")}, 2,
			[]string{"https://www.boulangerie-du-marche.fr/", "04 78 23 45 67"}, false},
		{"a malformed body is not retried", []answer{ok("malformed.json")}, 1, nil, true},
		{"a refused query is not retried", []answer{{status: 400, file: "400.html"}}, 1, nil, true},
		{"a 503 with Retry-After", []answer{{status: 503, file: "504.html", header: map[string]string{"Retry-After": "0"}}, ok("exact.json")}, 2,
			[]string{"https://www.boulangerie-du-marche.fr/", "04 78 23 45 67"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := serve(t, opendata.Config{MaxAttempts: 3}, tt.answers...)
			r := run(t, c, bakeryRow)
			if f.calls() != tt.wantCalls || c.Calls() != int64(tt.wantCalls) {
				t.Errorf("%d calls (client counted %d), want %d", f.calls(), c.Calls(), tt.wantCalls)
			}
			if r.Unreachable != tt.unreach {
				t.Errorf("unreachable %v, want %v", r.Unreachable, tt.unreach)
			}
			if tt.unreach {
				for i, v := range r.Values {
					if v != "" {
						t.Errorf("%s = %q for an unreachable row", opendata.Columns[i], v)
					}
				}
				if r.Found {
					t.Error("found")
				}
				return
			}
			for i, v := range tt.want {
				if r.Values[i] != v {
					t.Errorf("%s = %q, want %q", opendata.Columns[i], r.Values[i], v)
				}
			}
		})
	}
}

func TestQueryErrors(t *testing.T) {
	_, c := serve(t, opendata.Config{MaxAttempts: 2}, answer{status: 504, file: "504.html"})
	_, err := c.Query(context.Background(), "[out:json];node(1);out;")
	var se *opendata.StatusError
	if !errors.Is(err, opendata.ErrUnreachable) || !errors.As(err, &se) || se.Status != 504 ||
		!strings.Contains(se.Message, "The server is probably too busy") {
		t.Fatalf("error %v", err)
	}

	_, c = serve(t, opendata.Config{}, ok("remark_timeout.json"))
	_, err = c.Query(context.Background(), "[out:json];node(1);out;")
	var re *opendata.RuntimeError
	if !errors.As(err, &re) || !strings.Contains(re.Remark, "Query timed out") {
		t.Fatalf("error %v", err)
	}

	// A body over the cap is not read whole.
	_, c = serve(t, opendata.Config{MaxBody: 512}, ok("exact.json"))
	if _, err = c.Query(context.Background(), "[out:json];node(1);out;"); !errors.Is(err, opendata.ErrUnreachable) {
		t.Fatalf("oversized body: %v", err)
	}

	// A cancelled context is the caller's error, not the source's.
	_, c = serve(t, opendata.Config{}, ok("exact.json"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err = enrich.OpendataModule(c, "").Run(ctx, &enrich.Env{}, bakeryRow); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestNewRejectsABadURL(t *testing.T) {
	for _, u := range []string{"ftp://overpass", "overpass-api.de/api/interpreter", "http://"} {
		if _, err := opendata.New(opendata.Config{OverpassURL: u}, nil); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
	c, err := opendata.New(opendata.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.Config()
	if cfg.OverpassURL != opendata.DefaultOverpassURL || cfg.MaxConcurrent != 2 || cfg.Interval != opendata.DefaultInterval ||
		cfg.Radius != opendata.DefaultRadius || cfg.UserAgent == "" {
		t.Errorf("defaults %+v", cfg)
	}
}

// The public instance gives an address about two slots: the client never
// runs more queries at once than MaxConcurrent, whatever its callers do.
func TestClientSlots(t *testing.T) {
	f, c := serve(t, opendata.Config{MaxConcurrent: 2}, ok("exact.json"))
	f.delay = 20 * time.Millisecond
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(t, c, bakeryRow)
		}()
	}
	wg.Wait()
	if p := f.peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak of %d queries at once, want at most 2", p)
	}
	if f.calls() != 12 {
		t.Errorf("%d calls", f.calls())
	}
}

// The pause between two starts holds for every caller of the client.
func TestClientInterval(t *testing.T) {
	_, c := serve(t, opendata.Config{MaxConcurrent: 4, Interval: 30 * time.Millisecond}, ok("none.json"))
	start := time.Now()
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(t, c, bakeryRow)
		}()
	}
	wg.Wait()
	// Five starts 30 ms apart take at least 120 ms (a lower bound: no
	// timing is asserted from above).
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Errorf("5 queries in %v with a 30 ms interval", d)
	}
}

// A 429 holds back the other callers too: the backoff is the client's.
func TestBackoffIsShared(t *testing.T) {
	f, c := serve(t, opendata.Config{MaxConcurrent: 1, BackoffBase: 80 * time.Millisecond, BackoffMax: 80 * time.Millisecond},
		answer{status: 429, file: "429.html"}, ok("none.json"))
	first := make(chan struct{})
	go func() {
		run(t, c, bakeryRow) // meets the 429, waits, retries
		close(first)
	}()
	for f.calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	run(t, c, bakeryRow) // must wait out the backoff too
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("a second caller went ahead %v after a 429", d)
	}
	<-first
}

func TestHandlerTransport(t *testing.T) {
	f := &fakeOverpass{t: t, answers: []answer{ok("exact.json")}}
	c, err := opendata.New(opendata.Config{OverpassURL: "http://overpass.sim.test/api/interpreter", Interval: -1},
		&http.Client{Transport: inproc.HandlerTransport(f)})
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, c, bakeryRow)
	if r.Values[4] != "name_exact" {
		t.Fatalf("values %q", r.Values)
	}
	if q, err := url.QueryUnescape(url.QueryEscape(f.queries[0])); err != nil || !strings.Contains(q, "around:300") {
		t.Fatalf("query %q", f.queries[0])
	}
}
