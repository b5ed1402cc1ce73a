package enrich

import (
	"context"
	"net/url"
	"strings"

	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich/prices"
	"github.com/prospectdata/svc/shared/modules"
)

// pricingModule is the pricing module: over the contact pages and the
// site's pricing pages.
func pricingModule() Module {
	return &siteModule{
		slug: modules.Pricing, columns: prices.Columns, gather: pricingPages,
		extract: func(_ *Env, _ Input, pages []*crawl.Page) ([]string, bool) {
			v := prices.Find(pages).Values()
			return v, anyValue(v)
		},
	}
}

// pricingPages gathers the contact pages and the site's pricing pages
// (links whose address or text says tarif, prix, pricing, price, offre).
func pricingPages(ctx context.Context, env *Env, site *url.URL, h *crawl.Page) []*crawl.Page {
	pages := contactPages(ctx, env, site, h)
	var links []*url.URL
	h.Doc().Find("a[href]").EachWithBreak(func(_ int, a *goquerySel) bool {
		href, _ := a.Attr("href")
		text := strings.ToLower(a.Text() + " " + href)
		for _, w := range []string{"tarif", "prix", "pricing", "price", "offre", "forfait"} {
			if strings.Contains(text, w) {
				if u := h.Resolve(href); u != nil {
					links = append(links, u)
				}
				break
			}
		}
		return len(links) < 3
	})
	return append(pages, fetchAll(ctx, env, h.URL, links)...)
}
