package emails

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/prospectdata/svc/shared/crawl"
)

// maxLinks bounds the pages normal mode fetches beyond the home page.
const maxLinks = 5

// linkKinds rank the pages that show an address, best first: contact
// pages, then legal notices (French law makes them name a contact), then
// about pages. Each keyword is matched in the link's path and text.
var linkKinds = [][]string{
	{"contact", "contactez", "nous-contacter", "nous contacter", "joindre", "get-in-touch", "get in touch", "reach-us"},
	{"mentions-legales", "mentions legales", "mentions légales", "mentions_legales", "mentionslegales", "legal", "légal", "impressum", "cgv", "conditions-generales", "conditions générales", "informations-legales"},
	{"a-propos", "apropos", "à propos", "a propos", "about", "qui-sommes-nous", "qui sommes-nous", "qui sommes nous", "notre-equipe", "equipe", "équipe", "team"},
}

// skippedExts are documents, not pages.
var skippedExts = map[string]bool{
	".pdf": true, ".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".webp": true,
	".zip": true, ".doc": true, ".docx": true, ".xls": true, ".xlsx": true, ".svg": true,
}

// Links returns the pages worth fetching after the home page in normal
// mode: contact, legal notice and about pages on the same host (with or
// without "www."), best kind first, at most five.
func Links(home *crawl.Page) []*url.URL {
	if home == nil || home.URL == nil {
		return nil
	}
	host := bareHost(home.URL.Hostname())
	buckets := make([][]*url.URL, len(linkKinds))
	seen := map[string]bool{canonical(home.URL): true}
	home.Doc().Find("a[href], area[href]").Each(func(_ int, a *goquery.Selection) {
		href, _ := a.Attr("href")
		u := home.Resolve(strings.TrimSpace(href))
		if u == nil || (u.Scheme != "http" && u.Scheme != "https") || bareHost(u.Hostname()) != host {
			return
		}
		if skippedExts[strings.ToLower(path.Ext(u.Path))] {
			return
		}
		u.Fragment = ""
		key := canonical(u)
		if seen[key] {
			return
		}
		text := strings.ToLower(strings.Join(strings.Fields(a.Text()+" "+a.AttrOr("title", "")), " "))
		p := strings.ToLower(u.Path)
		if dec, err := url.PathUnescape(p); err == nil {
			p = dec
		}
		for i, words := range linkKinds {
			if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(p, w) || strings.Contains(text, w) }) {
				seen[key] = true
				buckets[i] = append(buckets[i], u)
				return
			}
		}
	})
	var out []*url.URL
	for _, b := range buckets {
		out = append(out, b...)
	}
	if len(out) > maxLinks {
		out = out[:maxLinks]
	}
	return out
}

func bareHost(h string) string {
	return strings.TrimPrefix(strings.ToLower(h), "www.")
}

// canonical is a URL's identity for deduplication: host without "www.",
// path without trailing slash, query kept.
func canonical(u *url.URL) string {
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	return bareHost(u.Hostname()) + p + "?" + u.RawQuery
}
