package deadsite

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/prospectdata/svc/shared/accent"
	"github.com/prospectdata/svc/shared/crawl"
	"golang.org/x/net/html"
)

// signals is what the classifier reads of a page, folded (lower case, no
// accents, straight apostrophes, single spaces) so French and English
// phrases compare plainly.
type signals struct {
	title    string
	headings string // the h1s (the first h2 without one), " | "-joined
	text     string // visible text of the body
	words    int
	// resources are the addresses the page loads or links to: script,
	// iframe, frame, img, link, form action, a href; lower case.
	resources []string
	// media: an image, video, canvas, svg, object or frame that shows
	// something without text.
	media bool
	// scripted: a script with a src or a body the size of an app, which
	// may draw the whole page in the browser (Wix, React, Vue sites).
	scripted bool
	// refresh: a meta refresh, a redirect the fetcher does not follow.
	refresh bool
}

// skipText are elements whose text no visitor reads.
var skipText = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true, "head": true, "title": true}

// mediaTags show something without text.
var mediaTags = map[string]bool{"img": true, "picture": true, "video": true, "canvas": true, "svg": true, "object": true, "embed": true, "iframe": true, "frame": true}

// appScriptLen: an inline script at least this long may render the page.
const appScriptLen = 2000

func read(p *crawl.Page) signals {
	doc := p.Doc()
	s := signals{title: fold(doc.Find("title").First().Text())}
	// Only the main heading: a section titled "coming soon" for one
	// product is not the page saying so.
	var heads []string
	main := doc.Find("h1")
	if main.Length() == 0 {
		main = doc.Find("h2").First()
	}
	main.EachWithBreak(func(i int, h *goquery.Selection) bool {
		heads = append(heads, fold(h.Text()))
		return i < 3
	})
	s.headings = strings.Join(heads, " | ")
	doc.Find("meta[http-equiv]").Each(func(_ int, m *goquery.Selection) {
		if v, _ := m.Attr("http-equiv"); strings.EqualFold(strings.TrimSpace(v), "refresh") {
			s.refresh = true
		}
	})

	var text strings.Builder
	// walk reads every element's addresses, but the text only outside
	// the elements no visitor reads (head, scripts, styles...).
	var walk func(n *html.Node, hidden bool)
	walk = func(n *html.Node, hidden bool) {
		switch n.Type {
		case html.ElementNode:
			tag := n.Data
			if mediaTags[tag] {
				s.media = true
			}
			for _, a := range n.Attr {
				switch a.Key {
				case "src", "href", "action", "data-src":
					if v := strings.TrimSpace(a.Val); v != "" && v[0] != '#' {
						s.resources = append(s.resources, strings.ToLower(v))
					}
				}
				if tag == "script" && a.Key == "src" {
					s.scripted = true
				}
			}
			if tag == "script" && n.FirstChild != nil && len(n.FirstChild.Data) >= appScriptLen {
				s.scripted = true
			}
			hidden = hidden || skipText[tag]
		case html.TextNode:
			if !hidden {
				text.WriteString(n.Data)
				text.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, hidden)
		}
	}
	for _, n := range doc.Nodes {
		walk(n, false)
	}
	s.text = fold(text.String())
	s.words = len(strings.Fields(s.text))
	return s
}

// apostrophes and spaces that pages write in many ways.
var normaliser = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u00a0", " ", "\u202f", " ", "\u2026", "...")

// fold is a text's comparison form: lower case, accents folded, quotes
// and spaces made plain, white space collapsed.
func fold(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(normaliser.Replace(accent.Fold(s)))), " ")
}

// empty: nothing a visitor would see and nothing that could draw it.
func (s signals) empty() bool {
	return s.words < 3 && !s.media && !s.scripted && !s.refresh
}

// challenge tells a bot check answered instead of the page: a browser
// would pass it, so the site is up.
func (s signals) challenge(p *crawl.Page, status int) bool {
	if status != 401 && status != 403 && status != 429 && status != 503 {
		return false
	}
	if p.Header.Get("Cf-Mitigated") == "challenge" {
		return true
	}
	for _, t := range []string{"just a moment...", "attention required! | cloudflare", "sucuri website firewall", "ddos-guard", "un instant..."} {
		if strings.Contains(s.title, t) {
			return true
		}
	}
	return s.loads("/cdn-cgi/challenge-platform/", "captcha-delivery.com", "ddos-guard.net")
}

// maintenance tells a site paused for maintenance (usually a 503): alive,
// see the package doc.
func (s signals) maintenance() bool {
	for _, t := range []string{"maintenance", "we'll be back soon", "de retour tres bientot"} {
		if strings.Contains(s.title, t) || strings.Contains(s.headings, t) {
			return s.words <= medium
		}
	}
	return false
}

// loads tells whether any resource address contains one of the marks.
func (s signals) loads(marks ...string) bool {
	for _, r := range s.resources {
		for _, m := range marks {
			if strings.Contains(r, m) {
				return true
			}
		}
	}
	return false
}
