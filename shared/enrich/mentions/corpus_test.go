package mentions

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/prospectdata/svc/shared/crawl"
)

// The corpus is shared with the socials package; its legal-notice pages
// carry a "mentions" label.
const corpusDir = "../socials/testdata/corpus"

type labelled struct {
	File     string            `json:"file"`
	URL      string            `json:"url"`
	Kind     string            `json:"kind"`
	Mentions map[string]string `json:"mentions"`
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

// loose compares addresses and names without case, punctuation or
// spacing differences ("12 rue X, 69003 Lyon" and "12 rue X 69003 Lyon").
func loose(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPunct(r) {
			return ' '
		}
		return unicode.ToLower(r)
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// TestCorpusQuality logs per-field accuracy over the labelled legal-notice
// pages (an empty answer where the label is empty counts as right).
func TestCorpusQuality(t *testing.T) {
	labels, pages := loadCorpus(t)
	right := make([]int, len(Columns))
	n := 0
	for i, l := range labels {
		if l.Mentions == nil {
			continue
		}
		n++
		got := Parse(pages[i]).Values()
		for c, col := range Columns {
			want := l.Mentions[col]
			if loose(got[c]) == loose(want) {
				right[c]++
			} else {
				t.Logf("%s %s: got %q want %q", l.File, col, got[c], want)
			}
		}
	}
	if n < 40 {
		t.Fatalf("corpus has %d labelled legal notices, want at least 40", n)
	}
	total := 0
	for c, col := range Columns {
		total += right[c]
		t.Logf("%-16s accuracy %.3f (%d/%d)", col, float64(right[c])/float64(n), right[c], n)
	}
	overall := float64(total) / float64(n*len(Columns))
	t.Logf("mentions: %d legal pages, overall accuracy %.3f", n, overall)
	if overall < 0.85 {
		t.Errorf("overall accuracy %.3f, want at least 0.85", overall)
	}
}

// TestCorpusIsLegalPage checks the legal-notice detection over the corpus:
// every labelled notice is one, no home or contact page is.
func TestCorpusIsLegalPage(t *testing.T) {
	labels, pages := loadCorpus(t)
	for i, l := range labels {
		want := l.Kind == "legal"
		if got := IsLegalPage(pages[i]); got != want {
			t.Errorf("%s: IsLegalPage = %v, want %v", l.File, got, want)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	labels, pages := loadCorpus(b)
	var legal []*crawl.Page
	for i, l := range labels {
		if l.Mentions != nil {
			legal = append(legal, pages[i])
		}
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, p := range legal {
			fresh := crawl.NewPage(p.URL, p.Status, p.Header, p.Body)
			Parse(fresh)
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
}
