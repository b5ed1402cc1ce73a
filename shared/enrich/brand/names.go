package brand

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/prospectdata/svc/shared/accent"
	"github.com/prospectdata/svc/shared/crawl"
)

// siteNames are the names the site gives itself, folded (lower case, no
// accents, single spaces): og:site_name, the JSON-LD organisation's name,
// the first part of the <title>, and the host's first label with its
// hyphens as spaces.
func siteNames(p *crawl.Page, doc *goquery.Document) []string {
	var names []string
	addName := func(s string) {
		s = fold(s)
		if len([]rune(s)) < 3 {
			return
		}
		for _, n := range names {
			if n == s {
				return
			}
		}
		names = append(names, s)
	}
	if v, ok := doc.Find(`meta[property="og:site_name"]`).Attr("content"); ok {
		addName(v)
	}
	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		var v any
		if json.Unmarshal([]byte(strings.TrimSpace(s.Text())), &v) != nil {
			return
		}
		for _, n := range flattenLD(v, nil) {
			if name, ok := n["name"].(string); ok && isOrganisation(n["@type"]) {
				addName(name)
			}
		}
	})
	title := doc.Find("head title").First().Text()
	if i := strings.IndexAny(title, "|–—·:"); i > 0 {
		title = title[:i]
	}
	if i := strings.Index(title, " - "); i > 0 {
		title = title[:i]
	}
	addName(title)
	if p.URL != nil {
		host := strings.TrimPrefix(strings.ToLower(p.URL.Hostname()), "www.")
		if i := strings.IndexByte(host, '.'); i > 0 {
			addName(strings.ReplaceAll(host[:i], "-", " "))
		}
	}
	return names
}

// altNamesSite tells whether an alt text says logo or names the site.
// With partial, an alt that is a part of a name counts too ("Lefèvre" for
// "Boulangerie Lefèvre"): only in the header, where a portrait captioned
// with the owner's name is not expected.
func altNamesSite(alt string, names []string, partial bool) bool {
	a := fold(alt)
	if a == "" {
		return false
	}
	if strings.Contains(a, "logo") {
		return true
	}
	for _, n := range names {
		if strings.Contains(a, n) || (partial && len(a) >= 5 && strings.Contains(n, a)) {
			return true
		}
	}
	return false
}

// fold lowers, strips accents and collapses spaces and punctuation, so
// "Boulangerie  Lefèvre" and "boulangerie lefevre" compare equal.
func fold(s string) string {
	out := strings.ToLower(accent.Fold(s))
	return strings.Join(strings.FieldsFunc(out, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&'
	}), " ")
}
