package ads

import (
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// BenchmarkAnalyze runs over the whole corpus; run with -cpu 1 for a
// per-core pages/s figure. Pages are rebuilt each round so that their HTML
// parse, cached by crawl.Page, is measured too.
func BenchmarkAnalyze(b *testing.B) {
	sites, pages := loadCorpus(b)
	n := 0
	for b.Loop() {
		for _, s := range sites {
			fresh := make([]*crawl.Page, len(pages[s.Site]))
			for i, p := range pages[s.Site] {
				fresh[i] = crawl.NewPage(p.URL, p.Status, p.Header, p.Body)
			}
			Analyze(fresh)
			n += len(fresh)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
}
