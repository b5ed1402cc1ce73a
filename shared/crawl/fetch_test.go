package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/netguard"
)

// site is a loopback web server whose handler the test sets per path.
type site struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newSite(t *testing.T, routes map[string]http.HandlerFunc) *site {
	t.Helper()
	s := &site{hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// fetcher returns a fetcher whose transport is the guard's client: only
// 127.0.0.1 is allowed (the test servers), as the production guard allows
// only public addresses.
func fetcher(t *testing.T, sleep func(context.Context, time.Duration) error) *crawl.Fetcher {
	t.Helper()
	g := netguard.New(netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")))
	return crawl.New(crawl.Deps{Transport: g.Client(0).Transport, UserAgent: "svc-crawler/1.0 (+https://svc.example/bot)",
		Sleep: sleep, Agent: "svc-crawler"})
}

func noSleep(context.Context, time.Duration) error { return nil }

func page(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

// TestRedirectsToInternalAddressesNeverFetched: a public-looking site that
// redirects to a loopback or metadata address gets an error; the internal
// server is never reached.
func TestRedirectsToInternalAddressesNeverFetched(t *testing.T) {
	// An internal service on 127.0.0.2, which the guard does not allow.
	var internalHits atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skip("no 127.0.0.2 on this machine:", err)
	}
	internal := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		internalHits.Add(1)
		fmt.Fprint(w, "secret")
	}))
	internal.Listener = ln
	internal.Start()
	defer internal.Close()

	targets := []string{
		internal.URL + "/admin",
		"http://169.254.169.254/latest/meta-data/",
		"http://[::1]/",
		"http://localhost/",
		"http://0x7f000002/",
		"http://[::ffff:169.254.169.254]/",
		"http://10.0.0.1/",
	}
	routes := map[string]http.HandlerFunc{}
	for i, to := range targets {
		routes[fmt.Sprintf("/r%d", i)] = func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) }
	}
	s := newSite(t, routes)
	f := fetcher(t, noSleep)
	for i, to := range targets {
		t.Run(to, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), fmt.Sprintf("%s/r%d", s.srv.URL, i))
			if !errors.Is(err, netguard.ErrRefused) {
				t.Errorf("err = %v, want a refusal", err)
			}
		})
	}
	if n := internalHits.Load(); n != 0 {
		t.Errorf("the internal server was reached %d times", n)
	}
	// Asked directly, the same.
	if _, err := f.Fetch(context.Background(), internal.URL); !errors.Is(err, netguard.ErrRefused) || internalHits.Load() != 0 {
		t.Errorf("direct fetch of the internal server: %v", err)
	}
}

// TestRobotsTxtObeyed: our agent's group is applied (a disallowed path is
// never requested), other agents' rules are not ours, a missing robots.txt
// allows everything, a 5xx one disallows everything.
func TestRobotsTxtObeyed(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n\nUser-agent: svc-crawler\nDisallow: /no-bots\nAllow: /\n\nUser-agent: other\nDisallow: /\n")
		},
		"/":        page("<p>home</p>"),
		"/no-bots": page("<p>hidden</p>"),
		"/private": page("<p>for us, as our group allows it</p>"),
	})
	f := fetcher(t, noSleep)
	ctx := context.Background()
	if _, err := f.Fetch(ctx, s.srv.URL+"/no-bots"); !errors.Is(err, crawl.ErrRobots) {
		t.Errorf("/no-bots: %v, want ErrRobots", err)
	}
	if s.count("/no-bots") != 0 {
		t.Error("a disallowed path was requested")
	}
	for _, p := range []string{"/", "/private"} {
		if pg, err := f.Fetch(ctx, s.srv.URL+p); err != nil || pg.Status != 200 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if n := s.count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt read %d times, want once", n)
	}

	none := newSite(t, map[string]http.HandlerFunc{"/": page("ok")})
	if _, err := f.Fetch(ctx, none.srv.URL+"/"); err != nil {
		t.Errorf("no robots.txt: %v", err)
	}
	broken := newSite(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) },
		"/":           page("ok"),
	})
	if _, err := f.Fetch(ctx, broken.srv.URL+"/"); !errors.Is(err, crawl.ErrRobots) || broken.count("/") != 0 {
		t.Errorf("robots.txt answering 503: %v", err)
	}
}

// TestFetchLimits: redirect cap, body cap, scheme, charset decoding, the
// User-Agent, gzip.
func TestFetchLimits(t *testing.T) {
	var ua atomic.Value
	routes := map[string]http.HandlerFunc{
		"/latin1": func(w http.ResponseWriter, r *http.Request) {
			ua.Store(r.Header.Get("User-Agent"))
			w.Header().Set("Content-Type", "text/html; charset=windows-1252")
			w.Write([]byte("<p>P\xe2tisserie \x80 cr\xe8me</p>"))
		},
		"/meta": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><head><meta charset="iso-8859-1"></head><body>caf` + "\xe9" + `</body></html>`))
		},
		"/big": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(strings.Repeat("a", crawl.MaxBody+1000)))
		},
		"/gzip": func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.WriteHeader(406)
				return
			}
			page("<p>compressed</p>")(w, r) // net/http's transport asks for gzip and undoes it; the server here does not compress
		},
	}
	for i := range crawl.MaxRedirects + 1 {
		routes[fmt.Sprintf("/hop%d", i)] = func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, fmt.Sprintf("/hop%d", i+1), http.StatusMovedPermanently)
		}
	}
	routes[fmt.Sprintf("/hop%d", crawl.MaxRedirects+1)] = page("end")
	s := newSite(t, routes)
	f := fetcher(t, noSleep)
	ctx := context.Background()

	p, err := f.Fetch(ctx, s.srv.URL+"/latin1")
	if err != nil || string(p.Body) != "<p>Pâtisserie € crème</p>" {
		t.Errorf("windows-1252: %q %v", p.Body, err)
	}
	if ua.Load() != "svc-crawler/1.0 (+https://svc.example/bot)" {
		t.Errorf("User-Agent %v", ua.Load())
	}
	if p, err := f.Fetch(ctx, s.srv.URL+"/meta"); err != nil || !strings.Contains(string(p.Body), "café") {
		t.Errorf("meta charset: %q %v", p.Body, err)
	}
	if p, err := f.Fetch(ctx, s.srv.URL+"/big"); err != nil || len(p.Body) != crawl.MaxBody {
		t.Errorf("big body: %d bytes, %v", len(p.Body), err)
	}
	if p, err := f.Fetch(ctx, s.srv.URL+"/gzip"); err != nil || p.Status != 200 {
		t.Errorf("gzip: %v %v", p, err)
	}
	if _, err := f.Fetch(ctx, s.srv.URL+"/hop0"); !errors.Is(err, crawl.ErrRedirects) {
		t.Errorf("%d redirects: %v", crawl.MaxRedirects+1, err)
	}
	if p, err := f.Fetch(ctx, s.srv.URL+"/hop1"); err != nil || string(p.Body) != "end" || p.URL.Path != "/hop6" {
		t.Errorf("%d redirects: %v %v", crawl.MaxRedirects, p, err)
	}
	for _, raw := range []string{"ftp://example.com/", "javascript:alert(1)", "file:///etc/passwd"} {
		if _, err := f.Fetch(ctx, raw); !errors.Is(err, crawl.ErrScheme) {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

// TestPacingAndSession: requests to one host are spaced by Delay, or the
// robots.txt Crawl-delay (capped); a session fetches a URL once however
// many times it is asked, concurrently included.
func TestPacingAndSession(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 60\n")
		},
		"/a": page("a"), "/b": page("b"),
	})
	var mu sync.Mutex
	var waits []time.Duration
	f := fetcher(t, func(_ context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return nil
	})
	sess := f.Session(0)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if p, err := sess.Fetch(context.Background(), s.srv.URL+"/a#top"); err != nil || string(p.Body) != "a" {
				t.Errorf("a: %v", err)
			}
		})
	}
	wg.Wait()
	if n := s.count("/a"); n != 1 {
		t.Errorf("/a fetched %d times in one session", n)
	}
	if _, err := sess.Fetch(context.Background(), s.srv.URL+"/b"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// robots.txt first (no wait), then /a after Delay, then /b after the
	// capped Crawl-delay from /a's start (the clock is real: a little less).
	if len(waits) != 2 || waits[1] > crawl.MaxDelay+crawl.Delay || waits[1] < crawl.MaxDelay-time.Second {
		t.Errorf("waits %v, want the last near MaxDelay (%v)", waits, crawl.MaxDelay)
	}
}

// TestFetchFile: a file a user named is read whatever robots.txt says, as
// bytes, within its cap; the guard still refuses an internal address.
func TestFetchFile(t *testing.T) {
	csvBody := "nom;ville\nDurand;Lyon\n"
	s := newSite(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nDisallow: /\n") },
		"/list.csv": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/csv; charset=windows-1252")
			fmt.Fprint(w, csvBody)
		},
		"/big.csv": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, strings.Repeat("x;y\n", 1000)) },
		"/moved":   func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/list.csv", http.StatusFound) },
		"/inside": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://10.0.0.1/x", http.StatusFound)
		},
	})
	f := fetcher(t, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		name, path string
		max        int64
		want       string
		err        error
	}{
		{"robots.txt does not apply", "/list.csv", 0, csvBody, nil},
		{"a redirect is followed", "/moved", 0, csvBody, nil},
		{"over the cap", "/big.csv", 100, "", crawl.ErrTooLarge},
		{"within the cap", "/big.csv", 4000, strings.Repeat("x;y\n", 1000), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := f.FetchFile(ctx, s.srv.URL+tt.path, tt.max)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil || string(p.Body) != tt.want {
				t.Fatalf("%v %q", err, p.Body)
			}
		})
	}
	if _, err := f.FetchFile(ctx, s.srv.URL+"/inside", 0); err == nil {
		t.Error("a redirect to an internal address was followed")
	}
	if _, err := f.Fetch(ctx, s.srv.URL+"/list.csv"); !errors.Is(err, crawl.ErrRobots) {
		t.Errorf("a crawl's Fetch: %v, want robots.txt obeyed", err)
	}
}
