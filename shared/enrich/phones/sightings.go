package phones

import (
	"net/url"
	"strings"

	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich/pagetext"
	"golang.org/x/net/html"
)

// sighting is one appearance of a valid number on a page.
type sighting struct {
	num number
	fax bool // labelled as a fax line only
}

// sightings walks one page in document order. A label and a number in two
// blocks ("<dt>Fax</dt><dd>04 ...</dd>") are read as a label line followed
// by a number line.
func sightings(p *crawl.Page, region string) []sighting {
	w := &walker{region: region}
	t := &pagetext.Walker{
		KeepSpacing: true,
		Skip:        hidden,
		Skipped:     w.script,
		Line: func(l pagetext.Line) {
			w.scan(l.Text)
			w.prev = l.Text
		},
	}
	t.Enter = func(n *html.Node) bool {
		w.structured(n)
		if iconFax(n) {
			// A fax icon is the label of the number beside it.
			t.Write(" Fax ")
		}
		return true
	}
	for _, n := range p.Doc().Nodes {
		t.Walk(n)
	}
	t.Flush()
	return w.out
}

// walker collects sightings from structured markup as the walk meets it
// and from the visible text line by line.
type walker struct {
	region string
	prev   string // the previous line, for a label on its own line
	out    []sighting
}

// script reads the JSON-LD of a script the text walk leaves out; a number
// inside any other script is not shown.
func (w *walker) script(n *html.Node) {
	if n.Data == "script" && strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json") && n.FirstChild != nil {
		w.jsonLD(n.FirstChild.Data)
	}
}

// structured reads tel: links and microdata telephone / faxNumber.
func (w *walker) structured(n *html.Node) {
	if n.Data == "a" {
		href := strings.TrimSpace(attr(n, "href"))
		lower := strings.ToLower(href)
		for _, scheme := range []string{"tel:", "callto:"} {
			if strings.HasPrefix(lower, scheme) {
				raw := href[len(scheme):]
				if u, err := url.PathUnescape(raw); err == nil {
					raw = u
				}
				label := text(n) + " " + attr(n, "title") + " " + attr(n, "aria-label")
				w.add(raw, true, faxOnly(label))
			}
		}
	}
	props := strings.Fields(strings.ToLower(attr(n, "itemprop")))
	for _, prop := range props {
		if prop != "telephone" && prop != "faxnumber" {
			continue
		}
		raw, ok := attrOK(n, "content")
		if !ok {
			raw = text(n)
		}
		w.add(raw, true, prop == "faxnumber")
	}
}

// add records a candidate when it is a valid number. declared candidates
// (links, schema.org) are phones by markup and skip the trunk-prefix rule.
func (w *walker) add(raw string, declared, fax bool) {
	var n number
	var ok bool
	if declared {
		n, ok = parseLoose(raw, w.region)
	} else {
		n, ok = parse(raw, w.region)
	}
	if ok {
		w.out = append(w.out, sighting{num: n, fax: fax})
	}
}

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val, true
		}
	}
	return "", false
}

// text is the text under n, scripts excluded.
func text(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && pagetext.Unshown(n.Data) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// hidden reports an element the browser does not render; an input shows
// no text, and its value is not a number the business gives.
func hidden(n *html.Node) bool {
	return n.Data == "input" || pagetext.Hidden(n)
}

// iconFax reports an icon element (Font Awesome, theme icon fonts) that
// draws a fax machine.
func iconFax(n *html.Node) bool {
	if n.Data != "i" && n.Data != "span" {
		return false
	}
	for _, c := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		if c == "fa-fax" || c == "icon-fax" || c == "fax-icon" {
			return true
		}
	}
	return false
}
