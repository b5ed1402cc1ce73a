package screenshot_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/prospectdata/svc/shared/enrich/screenshot"
)

// onlyHost is a transport that answers for one host and refuses the rest,
// as the guard refuses internal addresses.
type onlyHost struct {
	host string
	next http.RoundTripper
}

func (o onlyHost) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != o.host {
		return nil, errors.New("refused: not a public address")
	}
	return o.next.RoundTrip(r)
}

func chromium(t *testing.T) string {
	t.Helper()
	p := screenshot.Find()
	if p == "" {
		if os.Getenv("SVC_TEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("no Chromium: make test installs Debian's chromium")
		}
		t.Skip("no Chromium installed")
	}
	return p
}

// TestScreenshot renders a page whose body is blue and which loads an
// image from an address the transport refuses: the PNG is the viewport,
// mostly blue, and the refused server never sees a request, since the
// browser reaches nothing but through the transport.
func TestScreenshot(t *testing.T) {
	exe := chromium(t)
	var trapHits, siteHits atomic.Int64
	trap := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { trapHits.Add(1) }))
	defer trap.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		siteHits.Add(1)
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html><head><link rel="stylesheet" href="/style.css"></head>
<body><h1>Boulangerie Roux</h1><img src="%s/pixel.png"><iframe src="%s/frame"></iframe>
<script>fetch("%s/beacon")</script></body></html>`, trap.URL, trap.URL, trap.URL)
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "html,body{margin:0;height:100%;background:#1f5fa8;color:#fff}")
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	su, _ := url.Parse(site.URL)
	b := screenshot.New(exe, onlyHost{host: su.Host, next: http.DefaultTransport}, "ProspectDataBot/1.0")
	defer b.Close()

	shot, err := b.Screenshot(context.Background(), su)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if sz := img.Bounds().Size(); sz != (image.Point{screenshot.Width, screenshot.Height}) {
		t.Errorf("size %v", sz)
	}
	r, g, bl, _ := img.At(screenshot.Width-10, screenshot.Height-10).RGBA()
	if r>>8 > 0x40 || g>>8 < 0x40 || g>>8 > 0x80 || bl>>8 < 0x90 {
		t.Errorf("corner colour %02x%02x%02x, want the page's blue", r>>8, g>>8, bl>>8)
	}
	if siteHits.Load() < 2 {
		t.Errorf("site served %d requests: the stylesheet was not fetched through the transport", siteHits.Load())
	}
	if n := trapHits.Load(); n != 0 {
		t.Errorf("the refused server got %d requests", n)
	}

	// A second screenshot reuses the browser; a cancelled context stops one.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Screenshot(ctx, su); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := b.Screenshot(context.Background(), su); err != nil {
		t.Errorf("second: %v", err)
	}
}

// TestPack unpacks the serverless Chromium pack the AWS stack ships as a
// layer (the npm package @sparticuz/chromium that make test installs) and
// takes a screenshot with it: the code path of the enrichment worker on
// Lambda, run on this machine.
func TestPack(t *testing.T) {
	dir := os.Getenv("SVC_CHROMIUM_PACK")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", ".tools", "node", "node_modules", "@sparticuz", "chromium", "bin")
	}
	if _, err := os.Stat(filepath.Join(dir, "chromium.br")); err != nil {
		if os.Getenv("SVC_TEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatalf("no Chromium pack in %s (make test installs it): %v", dir, err)
		}
		t.Skip("no Chromium pack:", err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><body style="margin:0;background:#27ae60"><h1>Fleurs</h1></body></html>`)
	}))
	defer site.Close()
	su, _ := url.Parse(site.URL)
	t.Setenv("TMPDIR", t.TempDir())
	b := screenshot.New("", onlyHost{host: su.Host, next: http.DefaultTransport}, "ProspectDataBot/1.0", screenshot.Pack(dir))
	defer b.Close()
	shot, err := b.Screenshot(context.Background(), su)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	r, g, bl, _ := img.At(screenshot.Width-10, screenshot.Height-10).RGBA()
	if r>>8 > 0x50 || g>>8 < 0x90 || bl>>8 > 0x80 {
		t.Errorf("corner colour %02x%02x%02x, want the page's green", r>>8, g>>8, bl>>8)
	}
}
