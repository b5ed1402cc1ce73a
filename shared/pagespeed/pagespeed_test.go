package pagespeed_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/pagespeed"
)

const testKey = "AIza-test-key-0123456789"

// reply is one scripted answer of the fake API.
type reply struct {
	status     int
	file       string // testdata file, "" for an empty body
	retryAfter string
	hang       bool // wait until the request is cancelled
}

// fakeAPI answers with its script, one reply per request, the last one
// repeated, and records the requests.
type fakeAPI struct {
	t      testing.TB
	mu     sync.Mutex
	script []reply
	reqs   []*http.Request
	srv    *httptest.Server
}

func newFake(t testing.TB, script ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, r.Clone(context.Background()))
	rep := f.script[min(n, len(f.script)-1)]
	f.mu.Unlock()
	if rep.hang {
		<-r.Context().Done()
		return
	}
	var body []byte
	if rep.file != "" {
		var err error
		if body, err = os.ReadFile(filepath.Join("testdata", rep.file)); err != nil {
			f.t.Error(err)
		}
	}
	if rep.retryAfter != "" {
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(rep.status)
	_, _ = w.Write(body)
}

func (f *fakeAPI) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// sleeps records the client's waits instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func newClient(t testing.TB, base string, s *sleeps) *pagespeed.Client {
	t.Helper()
	cfg := pagespeed.Config{BaseURL: base, APIKey: testKey}
	if s != nil {
		cfg.Sleep = s.sleep
	}
	c, err := pagespeed.NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func run(t testing.TB, m enrich.Module, site string) enrich.Result {
	t.Helper()
	r, err := m.Run(context.Background(), nil, enrich.Input{"site_web": site})
	if err != nil {
		t.Fatalf("Run(%q): %v", site, err)
	}
	if len(r.Values) != len(m.Columns()) {
		t.Fatalf("Run(%q): %d values for %d columns", site, len(r.Values), len(m.Columns()))
	}
	return r
}

func cells(m enrich.Module, r enrich.Result) map[string]string {
	out := map[string]string{}
	for i, c := range m.Columns() {
		out[c] = r.Values[i]
	}
	return out
}

func TestModuleResponses(t *testing.T) {
	empty := map[string]string{"perf_score": "", "seo_score": "", "accessibility_score": "", "best_practices_score": "", "lcp": "", "cls": "", "inp": ""}
	tests := []struct {
		name        string
		script      []reply
		want        map[string]string
		unreachable bool
		calls       int
		waits       int
	}{
		{"full response with field data", []reply{{status: 200, file: "full.json"}},
			map[string]string{"perf_score": "71", "seo_score": "92", "accessibility_score": "88", "best_practices_score": "96",
				"lcp": "3513", "cls": "0.052", "inp": "187"}, false, 1, 0},
		{"no field data: no INP, a null score", []reply{{status: 200, file: "no_field_data.json"}},
			map[string]string{"perf_score": "38", "seo_score": "", "accessibility_score": "74", "best_practices_score": "78",
				"lcp": "9812", "cls": "0.312", "inp": ""}, false, 1, 0},
		{"runtime error: the page painted nothing", []reply{{status: 200, file: "runtime_error.json"}}, empty, true, 1, 0},
		{"FAILED_DOCUMENT_REQUEST: not retried", []reply{{status: 400, file: "error_failed_document_request.json"}}, empty, true, 1, 0},
		{"FAILED_DOCUMENT_REQUEST as a 500: not retried", []reply{{status: 500, file: "error_failed_document_request.json"}}, empty, true, 1, 0},
		{"429 then success", []reply{{status: 429, file: "error_429.json"}, {status: 200, file: "full.json"}},
			map[string]string{"perf_score": "71", "seo_score": "92", "accessibility_score": "88", "best_practices_score": "96",
				"lcp": "3513", "cls": "0.052", "inp": "187"}, false, 2, 1},
		{"500s exhausted", []reply{{status: 500, file: "error_500.json"}}, empty, true, 3, 2},
		{"503 without a body, then success", []reply{{status: 503}, {status: 200, file: "no_field_data.json"}},
			map[string]string{"perf_score": "38", "seo_score": "", "accessibility_score": "74", "best_practices_score": "78",
				"lcp": "9812", "cls": "0.312", "inp": ""}, false, 2, 1},
		{"malformed JSON, retried then given up", []reply{{status: 200, file: "malformed.json"}}, empty, true, 3, 2},
		{"bad key: not retried", []reply{{status: 400, file: "error_bad_key.json"}}, empty, true, 1, 0},
		{"429 asking for longer than the backoff cap", []reply{{status: 429, file: "error_429.json", retryAfter: "3600"}}, empty, true, 1, 0},
		{"an empty 200", []reply{{status: 200, file: ""}}, empty, true, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.script...)
			var s sleeps
			m := enrich.PageSpeedModule(newClient(t, f.srv.URL, &s), "")
			r := run(t, m, "www.example.com")
			if r.Unreachable != tt.unreachable {
				t.Errorf("Unreachable = %v, want %v", r.Unreachable, tt.unreachable)
			}
			if r.Found == tt.unreachable {
				t.Errorf("Found = %v", r.Found)
			}
			got := cells(m, r)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if f.calls() != tt.calls {
				t.Errorf("%d calls, want %d", f.calls(), tt.calls)
			}
			if len(s.d) != tt.waits {
				t.Errorf("waits %v, want %d", s.d, tt.waits)
			}
		})
	}
}

func TestRequest(t *testing.T) {
	f := newFake(t, reply{status: 200, file: "full.json"})
	m := enrich.PageSpeedModule(newClient(t, f.srv.URL, nil), "")
	if m.Slug() != "pagespeed" || strings.Join(m.Reads(), ",") != "site_web" ||
		strings.Join(m.Columns(), ",") != "perf_score,seo_score,accessibility_score,best_practices_score,lcp,cls,inp" {
		t.Errorf("Slug %q Reads %v Columns %v", m.Slug(), m.Reads(), m.Columns())
	}
	if enrich.SourceOf(m) != "PageSpeed Insights" {
		t.Errorf("Source = %q", enrich.SourceOf(m))
	}
	run(t, m, " www.example.com/menu?lang=fr ")
	r := f.reqs[0]
	if r.Method != http.MethodGet || r.URL.Path != "/pagespeedonline/v5/runPagespeed" {
		t.Errorf("request %s %s", r.Method, r.URL.Path)
	}
	q := r.URL.Query()
	if q.Get("url") != "https://www.example.com/menu?lang=fr" || q.Get("strategy") != "mobile" {
		t.Errorf("url %q strategy %q", q.Get("url"), q.Get("strategy"))
	}
	if got := strings.Join(q["category"], ","); got != "performance,seo,accessibility,best-practices" {
		t.Errorf("categories %q", got)
	}
	if r.Header.Get("X-Goog-Api-Key") != testKey || q.Has("key") || strings.Contains(r.URL.RawQuery, testKey) {
		t.Errorf("the key travels in the header only: header %q, query %q", r.Header.Get("X-Goog-Api-Key"), r.URL.RawQuery)
	}
}

func TestUnusableSite(t *testing.T) {
	f := newFake(t, reply{status: 200, file: "full.json"})
	m := enrich.PageSpeedModule(newClient(t, f.srv.URL, nil), "")
	for _, site := range []string{"", "  ", "not a url", "ftp://example.com/", "mailto:a@b.c"} {
		r := run(t, m, site)
		if r.Unreachable || r.Found || strings.Join(r.Values, "") != "" {
			t.Errorf("%q: %+v", site, r)
		}
	}
	if f.calls() != 0 {
		t.Errorf("%d calls for unusable cells", f.calls())
	}
}

func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("site error", func(t *testing.T) {
		f := newFake(t, reply{status: 400, file: "error_failed_document_request.json"})
		_, err := newClient(t, f.srv.URL, nil).Run(ctx, "https://www.example.com/")
		var se *pagespeed.SiteError
		if !errors.As(err, &se) || se.Code != "FAILED_DOCUMENT_REQUEST" || !strings.Contains(se.Message, "ERR_NAME_NOT_RESOLVED") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("runtime error", func(t *testing.T) {
		f := newFake(t, reply{status: 200, file: "runtime_error.json"})
		_, err := newClient(t, f.srv.URL, nil).Run(ctx, "https://closed.example.net/")
		var se *pagespeed.SiteError
		if !errors.As(err, &se) || se.Code != "NO_FCP" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("bad key", func(t *testing.T) {
		f := newFake(t, reply{status: 400, file: "error_bad_key.json"})
		_, err := newClient(t, f.srv.URL, nil).Run(ctx, "https://www.example.com/")
		var ae *pagespeed.APIError
		if !errors.Is(err, pagespeed.ErrUnavailable) || !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Status != "INVALID_ARGUMENT" {
			t.Errorf("err = %v", err)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("the key leaked into %v", err)
		}
	})
	t.Run("retries exhausted", func(t *testing.T) {
		f := newFake(t, reply{status: 500, file: "error_500.json"})
		var s sleeps
		_, err := newClient(t, f.srv.URL, &s).Run(ctx, "https://www.example.com/")
		var ae *pagespeed.APIError
		if !errors.Is(err, pagespeed.ErrUnavailable) || !errors.As(err, &ae) || ae.StatusCode != 500 || ae.Status != "INTERNAL" {
			t.Errorf("err = %v", err)
		}
		// Backoff from 2 s, doubled, with jitter in [d/2, d].
		if len(s.d) != 2 || s.d[0] < time.Second || s.d[0] > 2*time.Second || s.d[1] < 2*time.Second || s.d[1] > 4*time.Second {
			t.Errorf("waits %v", s.d)
		}
	})
	t.Run("Retry-After honoured", func(t *testing.T) {
		f := newFake(t, reply{status: 429, file: "error_429.json", retryAfter: "7"}, reply{status: 200, file: "full.json"})
		var s sleeps
		if _, err := newClient(t, f.srv.URL, &s).Run(ctx, "https://www.example.com/"); err != nil {
			t.Fatal(err)
		}
		if len(s.d) != 1 || s.d[0] != 7*time.Second {
			t.Errorf("waits %v, want [7s]", s.d)
		}
	})
	t.Run("Retry-After as a date", func(t *testing.T) {
		now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		f := newFake(t, reply{status: 503, retryAfter: now.Add(12 * time.Second).Format(http.TimeFormat)}, reply{status: 200, file: "full.json"})
		var s sleeps
		c, err := pagespeed.NewClient(pagespeed.Config{BaseURL: f.srv.URL, Sleep: s.sleep, Now: func() time.Time { return now }}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Run(ctx, "https://www.example.com/"); err != nil {
			t.Fatal(err)
		}
		if len(s.d) != 1 || s.d[0] != 12*time.Second {
			t.Errorf("waits %v, want [12s]", s.d)
		}
		if f.reqs[0].Header.Get("X-Goog-Api-Key") != "" {
			t.Error("a client without a key sends none")
		}
	})
	t.Run("retry past the deadline", func(t *testing.T) {
		f := newFake(t, reply{status: 429, file: "error_429.json", retryAfter: "20"})
		var s sleeps
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := newClient(t, f.srv.URL, &s).Run(dctx, "https://www.example.com/")
		if !errors.Is(err, pagespeed.ErrUnavailable) || f.calls() != 1 || len(s.d) != 0 {
			t.Errorf("err %v, %d calls, waits %v", err, f.calls(), s.d)
		}
	})
	t.Run("attempt timeout", func(t *testing.T) {
		f := newFake(t, reply{hang: true})
		var s sleeps
		c, err := pagespeed.NewClient(pagespeed.Config{BaseURL: f.srv.URL, Sleep: s.sleep, AttemptTimeout: 50 * time.Millisecond, MaxAttempts: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := enrich.PageSpeedModule(c, "")
		r := run(t, m, "https://www.example.com/")
		if !r.Unreachable || f.calls() != 2 {
			t.Errorf("Unreachable %v after %d calls", r.Unreachable, f.calls())
		}
	})
	t.Run("context cancelled", func(t *testing.T) {
		f := newFake(t, reply{hang: true})
		m := enrich.PageSpeedModule(newClient(t, f.srv.URL, nil), "")
		cctx, cancel := context.WithCancel(ctx)
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		if _, err := m.Run(cctx, nil, enrich.Input{"site_web": "https://www.example.com/"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the context's", err)
		}
	})
}

func TestNewClient(t *testing.T) {
	bad := []pagespeed.Config{
		{BaseURL: "http://www.googleapis.com"}, // the key would travel in clear
		{BaseURL: "ftp://127.0.0.1"},
		{BaseURL: "https://www.googleapis.com?key=x"},
		{BaseURL: "://"},
		{Strategy: "tablet"},
	}
	for _, cfg := range bad {
		if _, err := pagespeed.NewClient(cfg, nil); err == nil {
			t.Errorf("NewClient(%+v) accepted", cfg)
		}
	}
	for _, cfg := range []pagespeed.Config{{}, {BaseURL: "http://127.0.0.1:8080/", Strategy: "desktop"}, {BaseURL: "https://psi.example.com"}} {
		if _, err := pagespeed.NewClient(cfg, nil); err != nil {
			t.Errorf("NewClient(%+v): %v", cfg, err)
		}
	}
	c, _ := pagespeed.NewClient(pagespeed.Config{}, nil)
	if c.Strategy() != "mobile" {
		t.Errorf("default strategy %q", c.Strategy())
	}
}
