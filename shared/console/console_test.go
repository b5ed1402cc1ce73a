package console

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func bundle() fstest.MapFS {
	return fstest.MapFS{
		"assets/README.md":  {Data: []byte("not served")},
		"assets/index.html": {Data: []byte(`<!doctype html><meta name="svc-tiles" content="{{.Tiles}}"><script type="module" src="/app.js"></script>`)},
		"assets/app.js":     {Data: []byte(strings.Repeat("console.log('the console');\n", 100))},
		"assets/app.css":    {Data: []byte("body{margin:0}")},
		"assets/m-AB12.png": {Data: []byte("\x89PNG\r\n\x1a\n")},
	}
}

func get(t *testing.T, h http.Handler, method, path string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestServe: every page path answers the one document under the policy;
// the bundle's files answer with their types, gzipped when asked, 304 when
// unchanged; other files are 404, other methods 405.
func TestServe(t *testing.T) {
	h, err := newHandler(bundle(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, method, path string
		status             int
		typ                string
		body               string
	}{
		{"root", "GET", "/", 200, "text/html; charset=utf-8", `src="/app.js"`},
		{"a page", "GET", "/jobs/0c1d2e", 200, "text/html; charset=utf-8", `src="/app.js"`},
		{"a mail's link", "GET", "/verify-email?token=abc", 200, "text/html; charset=utf-8", `content=""`},
		{"the script", "GET", "/app.js", 200, "text/javascript; charset=utf-8", "the console"},
		{"the style", "GET", "/app.css", 200, "text/css; charset=utf-8", "margin"},
		{"an image", "GET", "/m-AB12.png", 200, "image/png", "PNG"},
		{"the readme", "GET", "/README.md", 404, "", ""},
		{"a missing file", "GET", "/nope.js", 404, "", ""},
		{"a climb out", "GET", "/../assets/app.js", 404, "", ""},
		{"a post", "POST", "/jobs", 405, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := get(t, h, tt.method, tt.path)
			if w.Code != tt.status || tt.typ != "" && w.Header().Get("Content-Type") != tt.typ || !strings.Contains(w.Body.String(), tt.body) {
				t.Fatalf("%d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("headers %v", w.Header())
			}
			if strings.HasPrefix(tt.typ, "text/html") {
				csp := w.Header().Get("Content-Security-Policy")
				for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
					if !strings.Contains(csp, want) {
						t.Errorf("policy %q lacks %q", csp, want)
					}
				}
				if strings.Contains(csp, "unsafe") {
					t.Errorf("policy %q allows unsafe sources", csp)
				}
			}
		})
	}
	w := get(t, h, "GET", "/app.js", "Accept-Encoding", "br, gzip;q=0.8")
	if w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip: %v", w.Header())
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(zr); !strings.Contains(string(b), "the console") {
		t.Error("the gzipped script differs")
	}
	if w := get(t, h, "GET", "/app.js", "Accept-Encoding", "gzip", "If-None-Match", w.Header().Get("ETag")); w.Code != 304 {
		t.Errorf("unchanged script: %d", w.Code)
	}
}

// TestTiles: a basemap's server joins the images the policy allows and
// its template reaches the page; a template that is not a tile URL is
// refused at start.
func TestTiles(t *testing.T) {
	h, err := newHandler(bundle(), Options{Tiles: "https://tiles.example.org/{z}/{x}/{y}.png"})
	if err != nil {
		t.Fatal(err)
	}
	w := get(t, h, "GET", "/")
	if !strings.Contains(w.Header().Get("Content-Security-Policy"), "img-src 'self' data: https://tiles.example.org;") ||
		!strings.Contains(w.Body.String(), `content="https://tiles.example.org/{z}/{x}/{y}.png"`) {
		t.Errorf("%v %s", w.Header(), w.Body)
	}
	for _, bad := range []string{"ftp://x/{z}/{x}/{y}", "https://tiles.example.org/map.png", "https://{s}.tile.example.org/{z}/{x}/{y}.png", "javascript:alert(1)//{z}{x}{y}"} {
		if _, err := newHandler(bundle(), Options{Tiles: bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestMissing: without the bundle every page names the make target.
func TestMissing(t *testing.T) {
	h, err := newHandler(fstest.MapFS{"assets/README.md": {Data: []byte("x")}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := get(t, h, "GET", "/jobs"); w.Code != 503 || !strings.Contains(w.Body.String(), "make console") {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}

// TestWithAPI: /api and below go to the API, the rest to the console.
func TestWithAPI(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "api") })
	con := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "console") })
	h := WithAPI(api, con)
	for path, want := range map[string]string{"/api/jobs": "api", "/api": "api", "/healthz": "api", "/apis": "console", "/": "console",
		"/jobs": "console", "/verify-email": "console"} {
		if got := get(t, h, "GET", path).Body.String(); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}

// TestBundleWeight: the console stays light: its script, as a browser
// downloads it (gzipped), under 300 KB (issue 24).
func TestBundleWeight(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !h.Built() {
		t.Skip("the console is not built (make console)")
	}
	const limit = 300 << 10
	total := 0
	for name, f := range h.files {
		if strings.HasSuffix(name, ".js") {
			total += f.Size()
		}
	}
	t.Logf("script: %d bytes gzipped", total)
	if total > limit {
		t.Errorf("script %d bytes gzipped, over %d", total, limit)
	}
}

// TestCaptchaPolicy: a captcha's provider joins the scripts and frames the
// policy allows and its key reaches the page; without a key, neither.
func TestCaptchaPolicy(t *testing.T) {
	h, err := newHandler(bundleWithCaptcha(), Options{CaptchaSiteKey: "k1", CaptchaScript: "https://challenges.example.com/api.js?render=explicit"})
	if err != nil {
		t.Fatal(err)
	}
	w := get(t, h, "GET", "/signup")
	csp := w.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self' https://challenges.example.com;") || !strings.Contains(csp, "frame-src https://challenges.example.com;") ||
		!strings.Contains(w.Body.String(), `content="k1"`) {
		t.Errorf("%s\n%s", csp, w.Body)
	}
	h, _ = newHandler(bundleWithCaptcha(), Options{CaptchaScript: "https://challenges.example.com/api.js"})
	if w := get(t, h, "GET", "/signup"); strings.Contains(w.Header().Get("Content-Security-Policy"), "challenges") || !strings.Contains(w.Body.String(), `content=""`) {
		t.Errorf("no key: %v %s", w.Header(), w.Body)
	}
	if _, err := newHandler(bundleWithCaptcha(), Options{CaptchaSiteKey: "k1", CaptchaScript: "javascript:alert(1)"}); err == nil {
		t.Error("a script that is no http(s) URL accepted")
	}
}

func bundleWithCaptcha() fstest.MapFS {
	b := bundle()
	b["assets/index.html"] = &fstest.MapFile{Data: []byte(`<meta name="svc-captcha" content="{{.CaptchaSiteKey}}" data-script="{{.CaptchaScript}}"><script type="module" src="/app.js"></script>`)}
	return b
}
