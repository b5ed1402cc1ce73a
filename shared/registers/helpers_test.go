package registers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testNow is the fake clock's start: the BODACC window is 2025-06-15 on.
var testNow = time.Date(2026, time.June, 15, 10, 0, 0, 0, time.UTC)

// fakeClock advances when slept on, and remembers the sleeps.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return nil
}

func (c *fakeClock) total() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var t time.Duration
	for _, d := range c.slept {
		t += d
	}
	return t
}

// reply is one canned answer: a testdata file (or body) with a status
// and headers.
type reply struct {
	status int
	file   string
	body   string
	header map[string]string
}

// apiServer is an httptest server answering both APIs by a route
// function, and remembering the requests.
type apiServer struct {
	t     testing.TB
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []*url.URL
	route func(r *http.Request) reply
}

func newUpstream(t testing.TB, route func(r *http.Request) reply) *apiServer {
	t.Helper()
	u := &apiServer{t: t, route: route}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *apiServer) serve(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.reqs = append(u.reqs, r.URL)
	u.mu.Unlock()
	rep := u.route(r)
	body := []byte(rep.body)
	if rep.file != "" {
		var err error
		if body, err = os.ReadFile(filepath.Join("testdata", rep.file)); err != nil {
			u.t.Errorf("fixture: %v", err)
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
}

// requests are the requests received so far.
func (u *apiServer) requests() []*url.URL {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*url.URL(nil), u.reqs...)
}

// client is a Client over the upstream, on a fake clock, without jitter
// worth waiting for.
func (u *apiServer) client(t testing.TB, cfg Config) (*Client, *fakeClock) {
	t.Helper()
	clk := &fakeClock{now: testNow}
	cfg.SearchURL, cfg.BodaccURL = u.srv.URL, u.srv.URL
	c, err := New(Deps{Config: cfg, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return c, clk
}

// isBodacc tells a BODACC request from a search one.
func isBodacc(r *http.Request) bool { return r.URL.Path == bodaccPath }

// fixtures is the route of the recorded answers: search by name, by
// SIREN, by SIRET, and BODACC by SIREN.
func fixtures(r *http.Request) reply {
	q := r.URL.Query()
	if isBodacc(r) {
		switch w := q.Get("where"); {
		case strings.Contains(w, "790000129"):
			return reply{file: "bodacc_liquidation.json"}
		case strings.Contains(w, "812345676"):
			return reply{file: "bodacc_modifications.json"}
		}
		return reply{file: "bodacc_empty.json"}
	}
	switch q.Get("q") {
	case "790000129":
		return reply{file: "search_siren.json"}
	case "79000012900029":
		return reply{file: "search_siret.json"}
	case "Boulangerie Dupont":
		if q.Get("code_postal") == "69003" {
			return reply{file: "search_name.json"}
		}
		return reply{file: "search_name_elsewhere.json"}
	}
	return reply{file: "search_empty.json"}
}
