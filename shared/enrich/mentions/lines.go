package mentions

import (
	"strings"

	"github.com/prospectdata/svc/shared/enrich/pagetext"
	"golang.org/x/net/html"
)

// line is one line of the page's visible text: a heading, a paragraph's
// line (a <br> ends one), a list item, a "term : definition" pair of a
// definition list or a "label : value" pair of a two-cell table row.
type line struct {
	text    string
	heading bool
}

// docLines returns the visible text of a document as lines, in order.
func docLines(root *html.Node) []line {
	return readLines(root)
}

// readLines reads nodes as one text; the walker's hooks pair labels with
// their values.
func readLines(nodes ...*html.Node) []line {
	var out []line
	w := &pagetext.Walker{Headings: true, Skip: skip}
	w.Line = func(l pagetext.Line) {
		out = append(out, line{text: l.Text, heading: l.Heading})
	}
	w.Enter = func(n *html.Node) bool {
		switch {
		case n.Data == "dt":
			// A term and its definition read as "term : definition".
			w.Flush()
			if dd := nextElement(n); dd != nil && dd.Data == "dd" {
				out = append(out, pair(w.TextOf(n), dd)...)
				return false
			}
		case n.Data == "dd" && prevElement(n) != nil && prevElement(n).Data == "dt":
			return false // read with its term
		case n.Data == "tr":
			w.Flush()
			if cells := elementChildren(n); len(cells) == 2 && isCell(cells[0]) && isCell(cells[1]) {
				out = append(out, pair(w.TextOf(cells[0]), cells[1])...)
				return false
			}
		}
		return true
	}
	for _, n := range nodes {
		w.Walk(n)
	}
	w.Flush()
	return out
}

// pair returns "label : value", the value's own lines kept apart so an
// address written on three lines stays three lines after its label.
func pair(label string, value *html.Node) []line {
	var children []*html.Node
	for c := value.FirstChild; c != nil; c = c.NextSibling {
		children = append(children, c)
	}
	sub := readLines(children...)
	label = strings.TrimRight(label, ": ")
	if len(sub) == 0 {
		return []line{{text: label + " :"}}
	}
	sub[0] = line{text: label + " : " + sub[0].text}
	return sub
}

// skip leaves out, besides what no browser shows, hidden elements and
// buttons, whose labels ("Accepter", "Envoyer") are no part of a notice.
func skip(n *html.Node) bool {
	if n.Data == "button" {
		return true
	}
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
