package legalids

import (
	"strings"

	"golang.org/x/net/html"
)

// block is the text of one block-level element (a paragraph, a list item,
// a table cell...) with the heading of the section it sits in.
type block struct {
	text    string
	heading string
}

// blockTags end a run of text: what is on either side reads as a separate
// line, so digits in two cells never join into one number.
var blockTags = map[string]bool{
	"p": true, "div": true, "li": true, "ul": true, "ol": true, "td": true,
	"th": true, "tr": true, "table": true, "dt": true, "dd": true, "dl": true,
	"section": true, "article": true, "header": true, "footer": true,
	"nav": true, "aside": true, "main": true, "address": true, "form": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"blockquote": true, "pre": true, "br": true, "hr": true, "body": true,
	"figure": true, "figcaption": true, "label": true, "option": true,
	"button": true,
}

var skipTags = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"svg": true, "iframe": true, "head": true, "select": true, "textarea": true,
}

var headingTags = map[string]bool{"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true}

// blocks returns the visible text of a document as blocks, in order.
func blocks(root *html.Node) []block {
	var out []block
	var cur strings.Builder
	heading := ""
	flush := func() {
		t := clean(cur.String())
		cur.Reset()
		if t != "" {
			out = append(out, block{text: t, heading: heading})
		}
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			cur.WriteString(n.Data)
			return
		case html.ElementNode:
			if skipTags[n.Data] {
				return
			}
			if headingTags[n.Data] {
				flush()
				var b strings.Builder
				collectText(n, &b)
				heading = clean(b.String())
				out = append(out, block{text: heading, heading: heading})
				return
			}
			if blockTags[n.Data] {
				flush()
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && blockTags[n.Data] {
			flush()
		}
	}
	walk(root)
	flush()
	return out
}

func collectText(n *html.Node, b *strings.Builder) {
	if n.Type == html.TextNode {
		b.WriteString(n.Data)
		return
	}
	if n.Type == html.ElementNode && skipTags[n.Data] {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		collectText(c, b)
		if c.Type == html.ElementNode && c.Data == "br" {
			b.WriteByte(' ')
		}
	}
}

// clean folds no-break and thin spaces to plain spaces and collapses runs of
// white space.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\u00a0', '\u202f', '\u2007', '\u2009', '\t', '\n', '\r':
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
