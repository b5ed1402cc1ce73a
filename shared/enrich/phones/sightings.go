package phones

import (
	"net/url"
	"strings"

	"github.com/prospectdata/svc/shared/crawl"
	"golang.org/x/net/html"
)

// sighting is one appearance of a valid number on a page.
type sighting struct {
	num number
	fax bool // labelled as a fax line only
}

// skipped are elements whose content is never shown as text. Scripts are
// read only for JSON-LD; a number inside any other script is not shown.
var skipped = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"svg": true, "iframe": true, "object": true, "title": true,
	"textarea": true, "select": true, "option": true,
}

// blocks are elements that start a new line of text: a label and a
// number in two blocks ("<dt>Fax</dt><dd>04 ...</dd>") are read as a label
// line followed by a number line.
var blocks = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "header": true,
	"footer": true, "nav": true, "aside": true, "main": true, "ul": true,
	"ol": true, "li": true, "dl": true, "dt": true, "dd": true, "table": true,
	"tr": true, "td": true, "th": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "address": true, "form": true,
	"fieldset": true, "blockquote": true, "figure": true, "figcaption": true,
	"br": true, "hr": true, "body": true, "button": true, "label": true,
}

// sightings walks one page in document order.
func sightings(p *crawl.Page, region string) []sighting {
	w := walker{region: region}
	for _, n := range p.Doc().Nodes {
		w.walk(n)
	}
	w.flush()
	return w.out
}

// walker collects sightings from structured markup as it meets them and
// from the visible text line by line.
type walker struct {
	region string
	line   strings.Builder
	prev   string // the previous non-empty line, for a label on its own line
	out    []sighting
}

func (w *walker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.line.WriteString(n.Data)
		return
	case html.ElementNode:
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c)
		}
		return
	}
	tag := n.Data
	if tag == "script" {
		if strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json") && n.FirstChild != nil {
			w.jsonLD(n.FirstChild.Data)
		}
		return
	}
	if skipped[tag] || hidden(n) {
		return
	}
	w.structured(n)
	if iconFax(n) {
		// A fax icon is the label of the number beside it.
		w.line.WriteString(" Fax ")
	}
	block := blocks[tag]
	if block {
		w.flush()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if block {
		w.flush()
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

// flush scans the current line of visible text.
func (w *walker) flush() {
	line := w.line.String()
	w.line.Reset()
	if strings.TrimSpace(line) == "" {
		return
	}
	w.scan(line)
	w.prev = line
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
		if n.Type == html.ElementNode && skipped[n.Data] {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// hidden reports an element the browser does not render.
func hidden(n *html.Node) bool {
	if _, ok := attrOK(n, "hidden"); ok {
		return true
	}
	if n.Data == "input" {
		return true
	}
	style := strings.ReplaceAll(strings.ToLower(attr(n, "style")), " ", "")
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
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
