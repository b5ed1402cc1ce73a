package pagespeed

import (
	"math"
	"strconv"
)

// Columns are the pagespeed module's Produces list, in order: the cells
// of a Report (enrich.PageSpeedModule binds the module).
var Columns = []string{"perf_score", "seo_score", "accessibility_score", "best_practices_score", "lcp", "cls", "inp"}

// DefaultSource names the real API as a job shows it.
const DefaultSource = "PageSpeed Insights"

// Values are the report's cells in Columns' order: scores as integers
// 0..100, lcp in whole milliseconds, cls with three decimals at most, inp
// in milliseconds; a value the run did not give is "".
func (r *Report) Values() []string {
	vals := make([]string, len(Columns))
	for i, cat := range Categories {
		if s, ok := r.Scores[cat]; ok {
			vals[i] = strconv.Itoa(s)
		}
	}
	if r.LCP != nil {
		vals[4] = strconv.FormatInt(int64(math.Round(*r.LCP)), 10)
	}
	if r.CLS != nil {
		vals[5] = strconv.FormatFloat(math.Round(*r.CLS*1000)/1000, 'f', -1, 64)
	}
	if r.INP != nil {
		vals[6] = strconv.Itoa(*r.INP)
	}
	return vals
}
