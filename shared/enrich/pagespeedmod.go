package enrich

import (
	"context"

	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/pagespeed"
	"github.com/prospectdata/svc/shared/placerow"
)

// PageSpeedModule is the pagespeed module over c. source names the data
// source as the job shows it: pagespeed.DefaultSource when "", and "sim"
// (or "… (sim)") when c points at pagespeedsim.Handler, so that simulated
// scores are never passed off as real.
func PageSpeedModule(c *pagespeed.Client, source string) Module {
	if source == "" {
		source = pagespeed.DefaultSource
	}
	return &pageSpeedModule{c: c, source: source}
}

type pageSpeedModule struct {
	c      *pagespeed.Client
	source string
}

func (m *pageSpeedModule) Slug() string      { return modules.PageSpeed }
func (m *pageSpeedModule) Columns() []string { return pagespeed.Columns }
func (m *pageSpeedModule) Reads() []string   { return []string{"site_web"} }
func (m *pageSpeedModule) Source() string    { return m.source }

var _ Sourced = (*pageSpeedModule)(nil)

// Run analyses the item's site: empty cells for an empty or unusable
// site_web; Unreachable (empty cells) when the site could not be analysed
// or the API gave no usable answer; the context's error when ctx ended.
func (m *pageSpeedModule) Run(ctx context.Context, _ *Env, in Input) (Result, error) {
	vals := make([]string, len(pagespeed.Columns))
	u, ok := placerow.SiteURL(in["site_web"])
	if !ok {
		return Result{Values: vals}, nil
	}
	rep, err := m.c.Run(ctx, u.String())
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{Values: vals, Unreachable: true}, nil
	}
	return Result{Values: rep.Values(), Found: true}, nil
}
