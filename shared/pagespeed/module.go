package pagespeed

import (
	"context"
	"math"
	"strconv"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/registry"
)

// Columns are pagespeed's Produces list, in order.
var Columns = []string{"perf_score", "seo_score", "accessibility_score", "best_practices_score", "lcp", "cls", "inp"}

// DefaultSource names the real API as a job shows it.
const DefaultSource = "PageSpeed Insights"

// Module is the pagespeed module over c. source names the data source as
// the job shows it: DefaultSource when "", and "sim" (or "… (sim)") when c
// points at SimHandler, so that simulated scores are never passed off as
// real.
func Module(c *Client, source string) enrich.Module {
	if source == "" {
		source = DefaultSource
	}
	return &module{c: c, source: source}
}

type module struct {
	c      *Client
	source string
}

func (m *module) Slug() string      { return registry.PageSpeed }
func (m *module) Columns() []string { return Columns }
func (m *module) Reads() []string   { return []string{"site_web"} }
func (m *module) Source() string    { return m.source }

var _ enrich.Sourced = (*module)(nil)

// Run analyses the item's site: empty cells for an empty or unusable
// site_web; Unreachable (empty cells) when the site could not be analysed
// or the API gave no usable answer; the context's error when ctx ended.
func (m *module) Run(ctx context.Context, _ *enrich.Env, in enrich.Input) (enrich.Result, error) {
	vals := make([]string, len(Columns))
	u, ok := enrich.SiteURL(in["site_web"])
	if !ok {
		return enrich.Result{Values: vals}, nil
	}
	rep, err := m.c.Run(ctx, u.String())
	if err != nil {
		if ctx.Err() != nil {
			return enrich.Result{}, ctx.Err()
		}
		return enrich.Result{Values: vals, Unreachable: true}, nil
	}
	return enrich.Result{Values: rep.Values(), Found: true}, nil
}

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
