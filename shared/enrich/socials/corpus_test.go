package socials

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// corpusDir holds the labelled pages (home, contact and legal notice of
// varied small-business sites); legalids and mentions read it too.
const corpusDir = "testdata/corpus"

type labelled struct {
	File    string            `json:"file"`
	URL     string            `json:"url"`
	Kind    string            `json:"kind"`
	Socials map[string]string `json:"socials"`
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

var networkKeys = []string{"facebook", "instagram", "linkedin", "twitter", "tiktok", "youtube"}

// TestCorpusQuality measures precision and recall over (page, network, URL)
// triples, each page read alone.
func TestCorpusQuality(t *testing.T) {
	labels, pages := loadCorpus(t)
	if len(labels) < 150 {
		t.Fatalf("corpus has %d pages, want at least 150", len(labels))
	}
	var tp, fp, fn int
	var misses []string
	for i, l := range labels {
		got := Find([]*crawl.Page{pages[i]}).Values()
		for n, key := range networkKeys {
			want := l.Socials[key]
			switch {
			case got[n] != "" && got[n] == want:
				tp++
			case got[n] != "" && want != "":
				fp++
				fn++
				misses = append(misses, l.File+" "+key+": got "+got[n]+" want "+want)
			case got[n] != "":
				fp++
				misses = append(misses, l.File+" "+key+": got "+got[n]+" want none")
			case want != "":
				fn++
				misses = append(misses, l.File+" "+key+": missed "+want)
			}
		}
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	sort.Strings(misses)
	for _, m := range misses {
		t.Log(m)
	}
	t.Logf("socials: %d pages, tp=%d fp=%d fn=%d, precision %.3f, recall %.3f", len(labels), tp, fp, fn, precision, recall)
	if precision < 0.95 || recall < 0.90 {
		t.Errorf("precision %.3f (min 0.95), recall %.3f (min 0.90)", precision, recall)
	}
}

// TestCorpusSite reads each site's pages together, as the module does.
func TestCorpusSite(t *testing.T) {
	labels, pages := loadCorpus(t)
	bySite := map[string][]int{}
	for i, l := range labels {
		site := filepath.Dir(l.File)
		bySite[site] = append(bySite[site], i)
	}
	wrong := 0
	for site, idx := range bySite {
		var ps []*crawl.Page
		want := map[string]string{}
		for _, i := range idx {
			ps = append(ps, pages[i])
			for k, v := range labels[i].Socials {
				want[k] = v
			}
		}
		got := Find(ps).Values()
		for n, key := range networkKeys {
			if got[n] != want[key] {
				wrong++
				t.Logf("%s %s: got %q want %q", site, key, got[n], want[key])
			}
		}
	}
	total := len(bySite) * len(networkKeys)
	t.Logf("sites: %d columns of %d wrong", wrong, total)
	if float64(wrong) > 0.05*float64(total) {
		t.Errorf("%d of %d site columns wrong", wrong, total)
	}
}

func BenchmarkFind(b *testing.B) {
	_, pages := loadCorpus(b)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, p := range pages {
			// A fresh page each time so the HTML parse is measured too.
			fresh := crawl.NewPage(p.URL, p.Status, p.Header, p.Body)
			Find([]*crawl.Page{fresh})
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
}
