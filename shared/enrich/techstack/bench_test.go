package techstack

import (
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// BenchmarkNew measures loading and compiling the fingerprint database,
// the cost paid once per process.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDetect runs the detector over the whole corpus; run with
// -cpu 1 for a per-core pages/s figure. Pages are rebuilt each round so
// that their HTML parse, cached by crawl.Page, is measured too.
func BenchmarkDetect(b *testing.B) {
	d := newDetector(b)
	sites, pages := loadCorpus(b)
	n := 0
	for b.Loop() {
		for _, s := range sites {
			fresh := make([]*crawl.Page, len(pages[s.Site]))
			for i, p := range pages[s.Site] {
				fresh[i] = crawl.NewPage(p.URL, p.Status, p.Header, p.Body)
			}
			d.Detect(fresh)
			n += len(fresh)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
}
