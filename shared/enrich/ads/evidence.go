package ads

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/prospectdata/svc/shared/crawl"
)

// evidence is everything the rules look at, gathered over a site's pages.
type evidence struct {
	// urls are lower-cased addresses of scripts, iframes, images, links
	// and form actions.
	urls []string
	// inline are inline script texts, comments removed.
	inline []string
	// cookies are lower-cased names of cookies set by the pages.
	cookies []string
	docs    []*goquery.Document
}

// jsBlockComment and jsLineComment find JavaScript comments in inline
// scripts; a line comment is only taken when it starts the line, so that
// the "//" of an address inside a string is left alone.
var (
	jsBlockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	jsLineComment  = regexp.MustCompile(`(?m)^[ \t]*//.*$`)
)

func gather(pages []*crawl.Page) evidence {
	var ev evidence
	for _, p := range pages {
		if p == nil {
			continue
		}
		doc := p.Doc()
		ev.docs = append(ev.docs, doc)
		ev.addDoc(doc)
		// With scripting on, the HTML parser keeps <noscript> content
		// as text; parse it again to reach the pixels inside.
		doc.Find("noscript").Each(func(_ int, s *goquery.Selection) {
			inner, err := goquery.NewDocumentFromReader(strings.NewReader(s.Text()))
			if err == nil {
				ev.addDoc(inner)
			}
		})
		for _, line := range p.Header.Values("Set-Cookie") {
			if c, err := http.ParseSetCookie(line); err == nil {
				ev.cookies = append(ev.cookies, strings.ToLower(c.Name))
			}
		}
	}
	return ev
}

// addDoc takes the addresses and inline scripts of one document. Scripts a
// consent manager holds back (type="text/plain", address in data-src) are
// taken like the others: see the package documentation.
func (ev *evidence) addDoc(doc *goquery.Document) {
	doc.Find("script").Each(func(_ int, s *goquery.Selection) {
		typ := strings.ToLower(strings.TrimSpace(s.AttrOr("type", "")))
		if strings.Contains(typ, "json") {
			return
		}
		ev.addURL(s, "src", "data-src")
		txt := s.Text()
		if strings.TrimSpace(txt) == "" {
			return
		}
		txt = jsLineComment.ReplaceAllString(jsBlockComment.ReplaceAllString(txt, ""), "")
		ev.inline = append(ev.inline, txt)
	})
	doc.Find("iframe, img").Each(func(_ int, s *goquery.Selection) {
		ev.addURL(s, "src", "data-src")
	})
	doc.Find("link[href]").Each(func(_ int, s *goquery.Selection) {
		ev.addURL(s, "href")
	})
	doc.Find("form[action]").Each(func(_ int, s *goquery.Selection) {
		ev.addURL(s, "action")
	})
}

func (ev *evidence) addURL(s *goquery.Selection, attrs ...string) {
	for _, a := range attrs {
		if v := strings.TrimSpace(s.AttrOr(a, "")); v != "" {
			ev.urls = append(ev.urls, strings.ToLower(v))
		}
	}
}
