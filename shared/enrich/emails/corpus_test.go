package emails

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// label is what a corpus page truly shows, written by hand.
type label struct {
	URL           string   `json:"url"`
	Trap          string   `json:"trap"`
	Addresses     []string `json:"addresses"`
	Email         string   `json:"email"`
	EmailPersonal string   `json:"email_personal"`
}

type corpusPage struct {
	name  string
	page  *crawl.Page
	label label
}

func loadCorpus(tb testing.TB) []corpusPage {
	tb.Helper()
	dir := filepath.Join("testdata", "corpus")
	raw, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		tb.Fatalf("read labels: %v", err)
	}
	var labels map[string]label
	if err := json.Unmarshal(raw, &labels); err != nil {
		tb.Fatalf("parse labels: %v", err)
	}
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]corpusPage, 0, len(names))
	for _, n := range names {
		body, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			tb.Fatalf("read page: %v", err)
		}
		u, err := url.Parse(labels[n].URL)
		if err != nil {
			tb.Fatalf("%s: url: %v", n, err)
		}
		out = append(out, corpusPage{n, crawl.NewPage(u, 200, nil, body), labels[n]})
	}
	return out
}

// TestCorpusQuality measures Find's precision and recall over (page,
// address) pairs and Pick's accuracy on the labelled corpus.
func TestCorpusQuality(t *testing.T) {
	corpus := loadCorpus(t)
	if len(corpus) < 150 {
		t.Fatalf("corpus has %d pages, want at least 150", len(corpus))
	}
	var tp, fp, fn, emailOK, personalOK, empty int
	for _, c := range corpus {
		if len(c.label.Addresses) == 0 {
			empty++
		}
		found := Find([]*crawl.Page{c.page})
		got := map[string]bool{}
		for _, f := range found {
			got[strings.ToLower(f.Address)] = true
		}
		want := map[string]bool{}
		for _, a := range c.label.Addresses {
			want[strings.ToLower(a)] = true
		}
		for a := range got {
			if want[a] {
				tp++
			} else {
				fp++
				t.Logf("%s (%s): extra %s", c.name, c.label.Trap, a)
			}
		}
		for a := range want {
			if !got[a] {
				fn++
				t.Logf("%s (%s): missed %s", c.name, c.label.Trap, a)
			}
		}
		email, personal := Pick(c.page.URL, found)
		if strings.EqualFold(email, c.label.Email) {
			emailOK++
		} else {
			t.Logf("%s (%s): email %q, want %q", c.name, c.label.Trap, email, c.label.Email)
		}
		if strings.EqualFold(personal, c.label.EmailPersonal) {
			personalOK++
		} else {
			t.Logf("%s (%s): email_personal %q, want %q", c.name, c.label.Trap, personal, c.label.EmailPersonal)
		}
	}
	precision := ratio(tp, tp+fp)
	recall := ratio(tp, tp+fn)
	t.Logf("corpus: %d pages (%d without address), %d true addresses", len(corpus), empty, tp+fn)
	t.Logf("Find: precision %.3f (%d/%d), recall %.3f (%d/%d)", precision, tp, tp+fp, recall, tp, tp+fn)
	t.Logf("Pick: email accuracy %.3f (%d/%d), email_personal accuracy %.3f (%d/%d)",
		ratio(emailOK, len(corpus)), emailOK, len(corpus), ratio(personalOK, len(corpus)), personalOK, len(corpus))
	if precision < 0.95 {
		t.Errorf("precision %.3f < 0.95", precision)
	}
	if recall < 0.90 {
		t.Errorf("recall %.3f < 0.90", recall)
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// TestCorpusLabels keeps the labels honest: every page labelled, every
// expected column among the page's addresses.
func TestCorpusLabels(t *testing.T) {
	corpus := loadCorpus(t)
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(corpus) {
		t.Errorf("%d html files, %d labels", len(files), len(corpus))
	}
	for _, c := range corpus {
		for _, col := range []string{c.label.Email, c.label.EmailPersonal} {
			if col != "" && !slices.Contains(c.label.Addresses, col) {
				t.Errorf("%s: %q is not among its addresses", c.name, col)
			}
		}
	}
}

func BenchmarkFind(b *testing.B) {
	corpus := loadCorpus(b)
	bodies := make([][]byte, len(corpus))
	var size int64
	for i, c := range corpus {
		bodies[i] = c.page.Body
		size += int64(len(c.page.Body))
	}
	b.SetBytes(size / int64(len(corpus)))
	b.ResetTimer()
	n := 0
	for b.Loop() {
		c := corpus[n%len(corpus)]
		// A fresh page each time: parsing is part of the work.
		p := crawl.NewPage(c.page.URL, 200, nil, bodies[n%len(corpus)])
		Pick(p.URL, Find([]*crawl.Page{p}))
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
}
