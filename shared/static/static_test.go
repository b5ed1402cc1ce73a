package static

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAcceptsGzip(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"br, gzip;q=0.8", true},
		{"GZIP", true},
		{"gzip;q=0", false},
		{"gzip; q=0.0", false},
		{"deflate, br", false},
		{"gzip;q=x", false},
	} {
		if got := AcceptsGzip(tt.header); got != tt.want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// TestServe: gzipped when asked, one ETag per encoding, 304 when it
// matches, small files sent as they are.
func TestServe(t *testing.T) {
	big := NewFile("text/javascript", []byte(strings.Repeat("let a = 1;\n", 500)))
	for _, tt := range []struct {
		name, accept, match string
		status              int
		encoding            string
	}{
		{"plain", "", "", 200, ""},
		{"gzip", "gzip", "", 200, "gzip"},
		{"unchanged, gzip", "gzip", `"` + big.Version + `-gz"`, 304, ""},
		{"unchanged, plain", "", `"` + big.Version + `"`, 304, ""},
		{"the other encoding's tag", "", `"` + big.Version + `-gz"`, 200, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/app.js", nil)
			r.Header.Set("Accept-Encoding", tt.accept)
			r.Header.Set("If-None-Match", tt.match)
			w := httptest.NewRecorder()
			big.Serve(w, r, "app.js", "no-cache")
			if w.Code != tt.status || w.Header().Get("Content-Encoding") != tt.encoding && tt.status == 200 ||
				w.Header().Get("Cache-Control") != "no-cache" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%d %v", w.Code, w.Header())
			}
		})
	}
	if small := NewFile("text/plain", []byte("hi")); small.Size() != 2 {
		t.Errorf("a small file is sent as it is: %d bytes", small.Size())
	}
}
