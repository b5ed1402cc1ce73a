package apiref_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/prospectdata/svc/shared/apiref"
	"github.com/prospectdata/svc/shared/apperr"
)

// vendored is what `make apiref` leaves in assets/, with stand-in bodies.
func vendored() fstest.MapFS {
	return fstest.MapFS{
		"README.md":                        {Data: []byte("placeholder")},
		apiref.Bundle:                      {Data: []byte("var SwaggerUIBundle = function () {};" + strings.Repeat("/* padding */", 200))},
		apiref.Stylesheet:                  {Data: []byte(".swagger-ui{}")},
		"swagger-ui-LICENSE.txt":           {Data: []byte("Apache License")},
		"swagger-ui-NOTICE.txt":            {Data: []byte("swagger-ui")},
		"swagger-ui-bundle.js.LICENSE.txt": {Data: []byte("licences")},
	}
}

// clean is a clean clone's assets/: the placeholder only.
func clean() fstest.MapFS { return fstest.MapFS{"README.md": {Data: []byte("placeholder")}} }

func get(h func(http.ResponseWriter, *http.Request), method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h(w, r)
	return w
}

func TestPage(t *testing.T) {
	tests := []struct {
		name     string
		assets   fstest.MapFS
		method   string
		status   int
		ctype    string
		contains []string
		ready    bool
	}{
		{"vendored", vendored(), "GET", 200, "text/html; charset=utf-8", []string{
			`data-url="openapi.json"`, `href="reference/swagger-ui.css?v=`, `src="reference/swagger-ui-bundle.js?v=`,
			`src="reference/reference.js?v=`, `href="reference/swagger-ui-LICENSE.txt"`}, true},
		{"vendored head", vendored(), "HEAD", 200, "text/html; charset=utf-8", nil, true},
		{"clean clone", clean(), "GET", 503, "text/plain; charset=utf-8", []string{"make apiref", "/api/openapi.json"}, false},
		{"stylesheet only", fstest.MapFS{apiref.Stylesheet: {Data: []byte("x")}}, "GET", 503, "text/plain; charset=utf-8", []string{"make apiref"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := apiref.New(tt.assets)
			if got := ref.Ready(); got != tt.ready {
				t.Errorf("Ready %v, want %v", got, tt.ready)
			}
			w := get(ref.ServePage, tt.method, "/api/reference", nil)
			if w.Code != tt.status || w.Header().Get("Content-Type") != tt.ctype {
				t.Fatalf("%d %q, want %d %q: %s", w.Code, w.Header().Get("Content-Type"), tt.status, tt.ctype, w.Body)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no nosniff")
			}
			if tt.status == 200 && w.Header().Get("Content-Security-Policy") != apiref.CSP {
				t.Errorf("CSP %q", w.Header().Get("Content-Security-Policy"))
			}
			if tt.method == "HEAD" && w.Body.Len() != 0 {
				t.Errorf("HEAD sent a body of %d bytes", w.Body.Len())
			}
			for _, want := range tt.contains {
				if !strings.Contains(w.Body.String(), want) {
					t.Errorf("body lacks %q:\n%s", want, w.Body)
				}
			}
			if tt.status == 200 && tt.method == "GET" && (strings.Contains(w.Body.String(), "<script>") || strings.Contains(w.Body.String(), "style=")) {
				t.Error("an inline script or style: the CSP would block it")
			}
		})
	}
}

func TestServeFile(t *testing.T) {
	ref := apiref.New(vendored())
	page := get(ref.ServePage, "GET", "/api/reference", nil).Body.String()
	version := regexp.MustCompile(`swagger-ui-bundle\.js\?v=([0-9a-f]+)`).FindStringSubmatch(page)
	if version == nil {
		t.Fatalf("no bundle version in %s", page)
	}
	etag := `"` + version[1] + `"`
	tests := []struct {
		name, file string
		hdr        map[string]string
		status     int
		ctype      string
		encoding   string
		body       []byte // decoded
	}{
		{"bundle", apiref.Bundle, nil, 200, "text/javascript; charset=utf-8", "", vendored()[apiref.Bundle].Data},
		{"bundle gzip", apiref.Bundle, map[string]string{"Accept-Encoding": "br, gzip"}, 200, "text/javascript; charset=utf-8", "gzip", vendored()[apiref.Bundle].Data},
		{"bundle gzip refused", apiref.Bundle, map[string]string{"Accept-Encoding": "gzip;q=0, br"}, 200, "text/javascript; charset=utf-8", "", vendored()[apiref.Bundle].Data},
		{"bundle revalidated", apiref.Bundle, map[string]string{"If-None-Match": etag}, 304, "", "", nil},
		{"small file not compressed", apiref.Stylesheet, map[string]string{"Accept-Encoding": "gzip"}, 200, "text/css; charset=utf-8", "", []byte(".swagger-ui{}")},
		{"start script", apiref.Start, nil, 200, "text/javascript; charset=utf-8", "", nil},
		{"notice", "swagger-ui-NOTICE.txt", nil, 200, "text/plain; charset=utf-8", "", []byte("swagger-ui")},
		{"the placeholder is not served", "README.md", nil, 404, "", "", nil},
		{"unknown", "index.html", nil, 404, "", "", nil},
		{"source map", "swagger-ui-bundle.js.map", nil, 404, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/reference/"+tt.file, nil)
			for k, v := range tt.hdr {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			err := ref.ServeFile(w, r, tt.file)
			if tt.status == 404 {
				if !apperr.Is(err, apperr.NotFound) {
					t.Fatalf("err %v, want not found", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d", w.Code, tt.status)
			}
			if tt.status != 200 {
				return
			}
			h := w.Header()
			if h.Get("Content-Type") != tt.ctype || h.Get("Content-Encoding") != tt.encoding {
				t.Errorf("type %q encoding %q", h.Get("Content-Type"), h.Get("Content-Encoding"))
			}
			if !strings.Contains(h.Get("Cache-Control"), "immutable") || h.Get("ETag") == "" || h.Get("Vary") != "Accept-Encoding" {
				t.Errorf("headers %v", h)
			}
			body := w.Body.Bytes()
			if tt.encoding == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if tt.body != nil && !bytes.Equal(body, tt.body) {
				t.Errorf("body %q", body)
			}
			if len(body) == 0 {
				t.Error("empty body")
			}
		})
	}

	// A clean clone serves the start script, but not the files it lacks.
	bare := apiref.New(clean())
	for _, name := range []string{apiref.Bundle, apiref.Stylesheet} {
		if err := bare.ServeFile(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), name); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("%s without vendoring: %v", name, err)
		}
	}
}

// TestEmbedded checks the build's own assets: vendored after `make apiref`
// (which make test runs first, so there it is required), the placeholder
// alone in a clean clone.
func TestEmbedded(t *testing.T) {
	ref := apiref.New(apiref.Embedded())
	if !ref.Ready() {
		if os.Getenv("SVC_TEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("Swagger UI is not vendored: make test runs make apiref first")
		}
		t.Skip("Swagger UI not vendored (make apiref)")
	}
	w := httptest.NewRecorder()
	if err := ref.ServeFile(w, httptest.NewRequest("GET", "/", nil), apiref.Bundle); err != nil || !strings.Contains(w.Body.String(), "SwaggerUIBundle") {
		t.Errorf("embedded bundle: %v, %d bytes", err, w.Body.Len())
	}
}
