package legalids

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// The corpus is shared with the socials package.
const corpusDir = "../socials/testdata/corpus"

type labelled struct {
	File  string `json:"file"`
	URL   string `json:"url"`
	SIRET string `json:"siret"`
	SIREN string `json:"siren"`
}

func loadCorpus(t testing.TB) ([]labelled, []*crawl.Page) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(corpusDir, "labels.json"))
	if err != nil {
		t.Fatalf("read labels: %v", err)
	}
	var labels []labelled
	if err := json.Unmarshal(raw, &labels); err != nil {
		t.Fatalf("parse labels: %v", err)
	}
	pages := make([]*crawl.Page, len(labels))
	for i, l := range labels {
		body, err := os.ReadFile(filepath.Join(corpusDir, l.File))
		if err != nil {
			t.Fatalf("read page: %v", err)
		}
		u, err := url.Parse(l.URL)
		if err != nil {
			t.Fatalf("page %s: %v", l.File, err)
		}
		pages[i] = crawl.NewPage(u, 200, nil, body)
	}
	return labels, pages
}

// TestCorpusQuality measures precision and recall over (page, SIRET) and
// (page, SIREN) values, each page read alone.
func TestCorpusQuality(t *testing.T) {
	labels, pages := loadCorpus(t)
	if len(labels) < 150 {
		t.Fatalf("corpus has %d pages, want at least 150", len(labels))
	}
	var tp, fp, fn int
	score := func(file, what, got, want string) {
		switch {
		case got != "" && got == want:
			tp++
		case got != "" && want != "":
			fp++
			fn++
			t.Logf("%s %s: got %s want %s", file, what, got, want)
		case got != "":
			fp++
			t.Logf("%s %s: got %s want none", file, what, got)
		case want != "":
			fn++
			t.Logf("%s %s: missed %s", file, what, want)
		}
	}
	for i, l := range labels {
		r := Find([]*crawl.Page{pages[i]})
		score(l.File, "siret", r.SIRET, l.SIRET)
		score(l.File, "siren", r.SIREN, l.SIREN)
		if r.SIREN != "" && r.SourceURL != l.URL {
			t.Errorf("%s: source %q, want %q", l.File, r.SourceURL, l.URL)
		}
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	t.Logf("legal ids: %d pages, tp=%d fp=%d fn=%d, precision %.3f, recall %.3f", len(labels), tp, fp, fn, precision, recall)
	if precision < 0.95 || recall < 0.90 {
		t.Errorf("precision %.3f (min 0.95), recall %.3f (min 0.90)", precision, recall)
	}
}

func BenchmarkFind(b *testing.B) {
	_, pages := loadCorpus(b)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, p := range pages {
			fresh := crawl.NewPage(p.URL, p.Status, p.Header, p.Body)
			Find([]*crawl.Page{fresh})
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
}
