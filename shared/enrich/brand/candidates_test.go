package brand

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// label is one home page of testdata/pages and its expected best logo and
// favicon.
type label struct {
	File    string `json:"file"`
	URL     string `json:"url"`
	Logo    string `json:"logo"`
	Favicon string `json:"favicon"`
	Note    string `json:"note"`
}

func loadPages(tb testing.TB) ([]label, []*crawl.Page) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "labels.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var labels []label
	if err := json.Unmarshal(raw, &labels); err != nil {
		tb.Fatal(err)
	}
	pages := make([]*crawl.Page, len(labels))
	for i, l := range labels {
		body, err := os.ReadFile(filepath.Join("testdata", "pages", l.File))
		if err != nil {
			tb.Fatal(err)
		}
		u, err := url.Parse(l.URL)
		if err != nil {
			tb.Fatal(err)
		}
		pages[i] = crawl.NewPage(u, 200, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, body)
	}
	return labels, pages
}

// TestLabelledHomePages checks the best logo candidate and the best
// favicon of every labelled home page, and reports the hit rates.
func TestLabelledHomePages(t *testing.T) {
	labels, pages := loadPages(t)
	if len(labels) < 20 {
		t.Fatalf("corpus has %d pages, want at least 20", len(labels))
	}
	logoHits, favHits := 0, 0
	for i, l := range labels {
		t.Run(l.File, func(t *testing.T) {
			cands := Candidates(pages[i])
			if len(cands) == 0 {
				t.Fatalf("no logo candidate; want %s (%s)", l.Logo, l.Note)
			}
			if got := cands[0].URL.String(); got != l.Logo {
				t.Errorf("best logo = %s (%s, %d), want %s (%s)", got, cands[0].Source, cands[0].Score, l.Logo, l.Note)
				for _, c := range cands {
					t.Logf("  candidate %3d %-16s %s", c.Score, c.Source, c.URL)
				}
			} else {
				logoHits++
			}
			favs := Favicons(pages[i])
			if len(favs) == 0 {
				t.Fatalf("no favicon; want %s", l.Favicon)
			}
			if got := favs[0].String(); got != l.Favicon {
				t.Errorf("best favicon = %s, want %s (%s)", got, l.Favicon, l.Note)
			} else {
				favHits++
			}
		})
	}
	t.Logf("logo top-1: %d/%d, favicon top-1: %d/%d", logoHits, len(labels), favHits, len(labels))
}

func mustPage(t *testing.T, rawURL, body string) *crawl.Page {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return crawl.NewPage(u, 200, nil, []byte(body))
}

// TestCandidatesRules pins the rules of the spec one by one on minimal
// pages.
func TestCandidatesRules(t *testing.T) {
	bigData := "data:image/png;base64," + string(make([]byte, maxDataURI))
	tests := []struct {
		name    string
		body    string
		want    []string // candidate URLs in order
		wantSrc string   // source of the first, when set
	}{
		{
			name:    "JSON-LD logo as a string",
			body:    `<script type="application/ld+json">{"@context":"https://schema.org","@type":"LocalBusiness","logo":"/l.png"}</script><header><img src="/h.png" class="logo"></header>`,
			want:    []string{"https://ex.fr/l.png", "https://ex.fr/h.png"},
			wantSrc: SourceJSONLD,
		},
		{
			name: "JSON-LD logo as ImageObject in @graph, type array",
			body: `<script type="application/ld+json">{"@graph":[{"@type":["Organization","Plumber"],"logo":{"@type":"ImageObject","contentUrl":"https://cdn.ex.fr/logo.svg"}}]}</script>`,
			want: []string{"https://cdn.ex.fr/logo.svg"},
		},
		{
			name: "logo of a WebSite node is not taken",
			body: `<script type="application/ld+json">{"@type":"WebSite","logo":"/w.png"}</script>`,
			want: nil,
		},
		{
			name: "tracking pixel and sprite are dropped",
			body: `<header><img src="/px.gif" width="1" height="1"><img src="/img/sprite.png"><img src="/marque.png"></header>`,
			want: []string{"https://ex.fr/marque.png"},
		},
		{
			name: "data: URI over 64 KiB is dropped",
			body: `<header><div class="logo"><img src="` + bigData + `"></div></header>`,
			want: nil,
		},
		{
			name:    "alt containing logo",
			body:    `<main><img src="/a.jpg" alt="photo"><img src="/b.png" alt="Logo de la maison"></main>`,
			want:    []string{"https://ex.fr/b.png"},
			wantSrc: SourceAltImg,
		},
		{
			name: "duplicates keep the best score once",
			body: `<link rel="apple-touch-icon" href="/logo.png"><header><a class="logo"><img src="/logo.png"></a></header>`,
			want: []string{"https://ex.fr/logo.png"},
		},
		{
			name: "og:image below apple-touch-icon",
			body: `<meta property="og:image" content="/photo.jpg"><link rel="apple-touch-icon" href="/touch.png">`,
			want: []string{"https://ex.fr/touch.png", "https://ex.fr/photo.jpg"},
		},
		{
			name:    "stand-alone SVG img",
			body:    `<main><img src="/assets/durand-wordmark.svg"><img src="/assets/icon-phone.svg"></main>`,
			want:    []string{"https://ex.fr/assets/durand-wordmark.svg"},
			wantSrc: SourceSVGImg,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Candidates(mustPage(t, "https://ex.fr/", "<html><head></head><body>"+tt.body+"</body></html>"))
			var urls []string
			for _, c := range got {
				urls = append(urls, c.URL.String())
			}
			if len(urls) != len(tt.want) {
				t.Fatalf("candidates = %v, want %v", urls, tt.want)
			}
			for i := range urls {
				if urls[i] != tt.want[i] {
					t.Fatalf("candidates = %v, want %v", urls, tt.want)
				}
			}
			if tt.wantSrc != "" && got[0].Source != tt.wantSrc {
				t.Errorf("source = %s, want %s", got[0].Source, tt.wantSrc)
			}
		})
	}
}

func TestFaviconsFallback(t *testing.T) {
	got := Favicons(mustPage(t, "https://www.ex.fr/a/b.html", "<html><head><title>x</title></head><body></body></html>"))
	if len(got) != 1 || got[0].String() != "https://www.ex.fr/favicon.ico" {
		t.Fatalf("Favicons = %v, want the root /favicon.ico", got)
	}
	got = Favicons(mustPage(t, "https://www.ex.fr/", `<html><head>
<link rel="apple-touch-icon" href="/t.png"><link rel="icon" href="/s.png" sizes="16x16"><link rel="icon" href="/l.png" sizes="64x64"></head></html>`))
	want := []string{"https://www.ex.fr/l.png", "https://www.ex.fr/s.png", "https://www.ex.fr/t.png", "https://www.ex.fr/favicon.ico"}
	if len(got) != len(want) {
		t.Fatalf("Favicons = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Fatalf("Favicons = %v, want %v", got, want)
		}
	}
}

func BenchmarkCandidates(b *testing.B) {
	_, pages := loadPages(b)
	n := 0
	for b.Loop() {
		for _, p := range pages {
			// A fresh page each time: Doc() parses once per page, and the
			// parse is part of what a real run pays.
			fresh := crawl.NewPage(p.URL, p.Status, p.Header, p.Body)
			Candidates(fresh)
			Favicons(fresh)
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
}
