package mentions

import (
	"strings"

	"golang.org/x/net/html"
)

// line is one line of the page's visible text: a heading, a paragraph's
// line (a <br> ends one), a list item, a "term : definition" pair of a
// definition list or a "label : value" pair of a two-cell table row.
type line struct {
	text    string
	heading bool
}

var blockTags = map[string]bool{
	"p": true, "div": true, "li": true, "ul": true, "ol": true, "td": true,
	"th": true, "tr": true, "table": true, "dt": true, "dd": true, "dl": true,
	"section": true, "article": true, "header": true, "footer": true,
	"nav": true, "aside": true, "main": true, "address": true, "form": true,
	"blockquote": true, "pre": true, "br": true, "hr": true, "body": true,
	"figure": true, "figcaption": true, "button": true, "tbody": true,
	"thead": true,
}

var skipTags = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"svg": true, "iframe": true, "head": true, "select": true, "textarea": true,
	"button": true,
}

var headingTags = map[string]bool{"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true}

// docLines returns the visible text of a document as lines, in order.
func docLines(root *html.Node) []line {
	w := &walker{}
	w.walk(root)
	w.flush()
	return w.out
}

type walker struct {
	out []line
	cur strings.Builder
}

func (w *walker) flush() {
	t := clean(w.cur.String())
	w.cur.Reset()
	if t != "" {
		w.out = append(w.out, line{text: t})
	}
}

func (w *walker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.cur.WriteString(n.Data)
		return
	case html.ElementNode:
		if skipTags[n.Data] || hidden(n) {
			return
		}
		switch {
		case headingTags[n.Data]:
			w.flush()
			if t := textOf(n); t != "" {
				w.out = append(w.out, line{text: t, heading: true})
			}
			return
		case n.Data == "dt":
			// A term and its definition read as "term : definition".
			w.flush()
			if dd := nextElement(n); dd != nil && dd.Data == "dd" {
				w.pair(textOf(n), dd)
				return
			}
		case n.Data == "dd" && prevElement(n) != nil && prevElement(n).Data == "dt":
			return // read with its term
		case n.Data == "tr":
			w.flush()
			if cells := elementChildren(n); len(cells) == 2 && isCell(cells[0]) && isCell(cells[1]) {
				w.pair(textOf(cells[0]), cells[1])
				return
			}
		}
		if blockTags[n.Data] {
			w.flush()
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if n.Type == html.ElementNode && blockTags[n.Data] {
		w.flush()
	}
}

// pair writes "label : value", the value's own lines kept apart so an
// address written on three lines stays three lines after its label.
func (w *walker) pair(label string, value *html.Node) {
	sub := &walker{}
	for c := value.FirstChild; c != nil; c = c.NextSibling {
		sub.walk(c)
	}
	sub.flush()
	label = strings.TrimRight(label, ": ")
	if len(sub.out) == 0 {
		w.out = append(w.out, line{text: label + " :"})
		return
	}
	w.out = append(w.out, line{text: label + " : " + sub.out[0].text})
	w.out = append(w.out, sub.out[1:]...)
}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "hidden" || a.Key == "aria-hidden" && a.Val == "true" {
			return true
		}
	}
	return false
}

func isCell(n *html.Node) bool { return n.Data == "td" || n.Data == "th" }

func elementChildren(n *html.Node) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			out = append(out, c)
		}
	}
	return out
}

func nextElement(n *html.Node) *html.Node {
	for c := n.NextSibling; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

func prevElement(n *html.Node) *html.Node {
	for c := n.PrevSibling; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// textOf is an element's visible text on one line.
func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && (skipTags[n.Data] || hidden(n)) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
			if c.Type == html.ElementNode && (c.Data == "br" || blockTags[c.Data]) {
				b.WriteByte(' ')
			}
		}
	}
	rec(n)
	return clean(b.String())
}

// clean folds no-break and thin spaces and collapses white space.
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
