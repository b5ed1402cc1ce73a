package enrich

import (
	"context"
	"net/url"
	"path"
	"strings"

	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich/emails"
	"github.com/prospectdata/svc/shared/modules"
)

// DeepPages bounds the deep mode's crawl of one site: the home page and
// up to DeepPages-1 more, breadth first, same site, HTML only.
const DeepPages = 25

// emailsModule is the emails module: in normal mode the home page and
// its contact, legal and about pages; in deep mode a bounded crawl of the
// site (those pages first).
func emailsModule() Module {
	return &siteModule{
		slug: modules.Emails, columns: emails.Columns,
		gather: func(ctx context.Context, env *Env, site *url.URL, h *crawl.Page) []*crawl.Page {
			pages := contactPages(ctx, env, site, h)
			if env.Job.Options.String("mode") == "deep" {
				pages = deepCrawl(ctx, env, pages, DeepPages)
			}
			return pages
		},
		extract: func(_ *Env, _ Input, pages []*crawl.Page) ([]string, bool) {
			email, personal := emails.Pick(pages[0].URL, emails.Find(pages))
			return []string{email, personal}, email != "" || personal != ""
		},
	}
}

// deepCrawl extends pages breadth first with the same-site links they
// hold, up to limit pages in all. Links to files (images, PDFs, archives)
// and to feeds or admin paths are not followed.
func deepCrawl(ctx context.Context, env *Env, pages []*crawl.Page, limit int) []*crawl.Page {
	base := pages[0].URL
	seen := map[string]bool{}
	for _, p := range pages {
		seen[linkKey(p.URL)] = true
	}
	for i := 0; i < len(pages) && len(pages) < limit && ctx.Err() == nil; i++ {
		var next []*url.URL
		pages[i].Doc().Find("a[href]").Each(func(_ int, a *goquerySel) {
			href, _ := a.Attr("href")
			u := pages[i].Resolve(href)
			if u == nil || !sameSite(base, u) || !crawlable(u) {
				return
			}
			if k := linkKey(u); !seen[k] {
				seen[k] = true
				next = append(next, u)
			}
		})
		for _, u := range next {
			if len(pages) >= limit || ctx.Err() != nil {
				break
			}
			p, err := env.Session.Fetch(ctx, u.String())
			if err != nil || p.Status >= 400 || !isHTML(p) {
				continue
			}
			pages = append(pages, p)
		}
	}
	return pages
}

// linkKey identifies a page for the crawl: no fragment, no query order
// games, www. folded.
func linkKey(u *url.URL) string {
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	return host + u.EscapedPath() + "?" + u.RawQuery
}

// skipExt are extensions of files a page crawl does not open.
var skipExt = map[string]bool{
	".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".webp": true, ".svg": true, ".ico": true,
	".pdf": true, ".zip": true, ".rar": true, ".doc": true, ".docx": true, ".xls": true, ".xlsx": true,
	".mp4": true, ".mp3": true, ".css": true, ".js": true, ".xml": true, ".json": true, ".woff": true, ".woff2": true,
}

func crawlable(u *url.URL) bool {
	p := strings.ToLower(u.Path)
	if skipExt[path.Ext(p)] {
		return false
	}
	for _, bad := range []string{"/wp-admin", "/wp-login", "/feed", "/cart", "/panier", "/checkout", "/login", "/account"} {
		if strings.HasPrefix(p, bad) {
			return false
		}
	}
	return true
}

func isHTML(p *crawl.Page) bool {
	ct := strings.ToLower(p.Header.Get("Content-Type"))
	return ct == "" || strings.Contains(ct, "html")
}
