package emails

import (
	"strings"

	"github.com/prospectdata/svc/shared/crawl"
	"golang.org/x/net/html"
)

// Find returns every contact address the pages show, deduplicated (case
// aside), domain lower-cased, in order of discovery: pages in the order
// given, each read top to bottom.
func Find(pages []*crawl.Page) []Found {
	c := collector{seen: map[string]bool{}}
	for _, p := range pages {
		if p == nil {
			continue
		}
		c.source, c.host = "", ""
		if p.URL != nil {
			c.source, c.host = p.URL.String(), p.URL.Hostname()
		}
		for _, n := range p.Doc().Nodes {
			c.walk(n)
		}
		c.flush()
	}
	return c.found
}

// collector gathers one Find call's addresses; its text buffer holds the
// visible text of the current block until the block ends.
type collector struct {
	source string
	host   string // the page's host
	seen   map[string]bool
	found  []Found
	text   strings.Builder
}

// add keeps a candidate when it is a real, not yet seen address.
func (c *collector) add(raw, kind string) {
	addr, ok := normalizeOn(raw, c.host)
	if !ok {
		return
	}
	key := strings.ToLower(addr)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.found = append(c.found, Found{Address: addr, SourceURL: c.source, Kind: kind})
}

func (c *collector) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		c.text.WriteString(n.Data)
		return
	case html.ElementNode:
		switch n.Data {
		case "script":
			// Script source is code, not what the visitor sees; JSON-LD is
			// the exception: structured data the site publishes.
			if t, _ := attr(n, "type"); strings.EqualFold(strings.TrimSpace(t), "application/ld+json") {
				c.jsonLD(childText(n))
			}
			return
		case "style", "noscript", "template", "svg", "iframe", "object":
			return
		}
		c.element(n)
		if inline[n.Data] {
			break
		}
		c.flush()
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			c.walk(ch)
		}
		c.flush()
		return
	case html.DocumentNode:
	default:
		return
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.walk(ch)
	}
}

// inline elements do not break the text: "contact<span>@</span>x.fr" reads
// as one address on screen.
var inline = map[string]bool{
	"a": true, "span": true, "b": true, "i": true, "em": true, "strong": true,
	"small": true, "u": true, "abbr": true, "code": true, "font": true, "label": true,
	"sup": true, "sub": true, "mark": true, "bdi": true, "bdo": true, "cite": true,
	"q": true, "s": true, "time": true, "var": true, "data": true, "big": true,
	"tt": true, "ins": true, "del": true, "kbd": true, "samp": true, "wbr": true,
}

// element reads what an element's attributes carry.
func (c *collector) element(n *html.Node) {
	if ip, ok := attr(n, "itemprop"); ok && hasToken(ip, "email") {
		c.microdata(n)
	}
	if v, ok := attr(n, "data-cfemail"); ok {
		if a, err := decodeCloudflare(v); err == nil {
			c.add(a, KindCloudflare)
		}
	}
	if href, ok := attr(n, "href"); ok {
		c.href(href)
	}
	if n.Data == "img" || n.Data == "area" || (n.Data == "input" && isImageInput(n)) {
		// An address drawn in a picture is often only written in its alt.
		if alt, ok := attr(n, "alt"); ok {
			c.scanText(alt)
		}
	}
}

func isImageInput(n *html.Node) bool {
	t, _ := attr(n, "type")
	return strings.EqualFold(t, "image")
}

func (c *collector) microdata(n *html.Node) {
	if v, ok := attr(n, "content"); ok {
		c.add(stripMailto(v), KindMicrodata)
		return
	}
	if v, ok := attr(n, "href"); ok && hasMailto(v) {
		for _, a := range mailtoAddresses(v) {
			c.add(a, KindMicrodata)
		}
		return
	}
	c.add(strings.TrimSpace(childText(n)), KindMicrodata)
}

func (c *collector) href(href string) {
	h := strings.TrimSpace(href)
	if hasMailto(h) {
		for _, a := range mailtoAddresses(h) {
			c.add(a, KindMailto)
		}
		return
	}
	if i := strings.Index(h, "/cdn-cgi/l/email-protection#"); i >= 0 {
		if a, err := decodeCloudflare(h[i+len("/cdn-cgi/l/email-protection#"):]); err == nil {
			c.add(a, KindCloudflare)
		}
	}
}

// flush scans the text gathered since the last block boundary.
func (c *collector) flush() {
	if c.text.Len() == 0 {
		return
	}
	t := c.text.String()
	c.text.Reset()
	c.scanText(t)
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// childText is the text under n, scripts included (used for JSON-LD and
// microdata values).
func childText(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			rec(ch)
		}
	}
	rec(n)
	return b.String()
}
