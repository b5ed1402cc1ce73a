// Package registerstest serves the company registers' recorded answers
// (shared/registers/testdata: the search API and BODACC, in their real
// formats) over loopback, for the tests of the registers client and of
// what is built over it (the legal_data module, sirene searches). It
// imports nothing of the service, so the client's own tests use it too.
package registerstest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// BodaccPath is the path of the BODACC API's records, as the client asks
// for them; every other path is the search API's.
const BodaccPath = "/api/explore/v2.1/catalog/datasets/annonces-commerciales/records"

// Start is the clocks' start: the recorded BODACC answers fall within
// the year before it.
var Start = time.Date(2026, time.June, 15, 10, 0, 0, 0, time.UTC)

// Clock advances when slept on, so that retries and pacing cost no time,
// and remembers the sleeps.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

// NewClock returns a clock at Start.
func NewClock() *Clock { return &Clock{now: Start} }

// Set puts the clock at t (a test whose context's deadline is on the
// real clock).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock by d, or returns ctx's error when it has ended.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return nil
}

// Slept is the sum of the sleeps so far.
func (c *Clock) Slept() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var t time.Duration
	for _, d := range c.slept {
		t += d
	}
	return t
}

// Reply is one canned answer: a file of the recorded answers (or a
// body), with a status (200 when 0) and headers.
type Reply struct {
	Status int
	File   string
	Body   string
	Header map[string]string
}

// Server answers both APIs by a route function and remembers the
// requests.
type Server struct {
	t     testing.TB
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []*url.URL
	route func(r *http.Request) Reply
}

// New starts a server answering by route; it stops with the test.
func New(t testing.TB, route func(r *http.Request) Reply) *Server {
	t.Helper()
	s := &Server{t: t, route: route}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base address, for both APIs.
func (s *Server) URL() string { return s.srv.URL }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Requests are the requests received so far.
func (s *Server) Requests() []*url.URL {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*url.URL(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.URL)
	s.mu.Unlock()
	rep := s.route(r)
	body := []byte(rep.Body)
	if rep.File != "" {
		var err error
		if body, err = os.ReadFile(filepath.Join(Dir(), rep.File)); err != nil {
			s.t.Errorf("fixture: %v", err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
	}
	ctype := "application/json; charset=utf-8"
	if filepath.Ext(rep.File) == ".html" {
		ctype = "text/html"
	}
	w.Header().Set("Content-Type", ctype)
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Status == 0 {
		rep.Status = http.StatusOK
	}
	w.WriteHeader(rep.Status)
	_, _ = w.Write(body)
}

// Dir is the directory of the recorded answers.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// IsBodacc tells a BODACC request from a search one.
func IsBodacc(r *http.Request) bool { return r.URL.Path == BodaccPath }

// Fixtures is the route of the recorded answers: search by name, by
// SIREN, by SIRET, and BODACC by SIREN.
func Fixtures(r *http.Request) Reply {
	q := r.URL.Query()
	if IsBodacc(r) {
		switch w := q.Get("where"); {
		case strings.Contains(w, "790000129"):
			return Reply{File: "bodacc_liquidation.json"}
		case strings.Contains(w, "812345676"):
			return Reply{File: "bodacc_modifications.json"}
		}
		return Reply{File: "bodacc_empty.json"}
	}
	switch q.Get("q") {
	case "790000129":
		return Reply{File: "search_siren.json"}
	case "79000012900029":
		return Reply{File: "search_siret.json"}
	case "Boulangerie Dupont":
		if q.Get("code_postal") == "69003" {
			return Reply{File: "search_name.json"}
		}
		return Reply{File: "search_name_elsewhere.json"}
	}
	return Reply{File: "search_empty.json"}
}
