package pagetext

import (
	"strings"

	"golang.org/x/net/html"
)

// Line is one line of a page's visible text.
type Line struct {
	// Text is the line with its white space collapsed (as written when
	// the walker keeps spacing, headings aside); it always holds some
	// visible text.
	Text string
	// Heading marks the whole text of a heading (h1 to h6), when the
	// walker reads headings.
	Heading bool
}

// Walker reads the visible text under a node in document order and hands
// it over line by line. The hooks are optional; each is called in document
// order, so what a module reads from the markup (a tel: link, a JSON-LD
// script) keeps its place among the lines.
type Walker struct {
	// Headings reads each heading (h1 to h6) whole, as TextOf does: one
	// Line with Heading set, even when a <br> or a block splits it, since
	// it names the section after it as a whole (see Section). Only Skip
	// applies inside it. Otherwise a heading is a block like any other.
	Headings bool
	// KeepSpacing hands lines over with their white space as written
	// instead of collapsed: a line break in the source keeps apart two
	// numbers that a browser shows side by side.
	KeepSpacing bool

	// Skip leaves out more elements, with their content, than the shared
	// table does: hidden ones, struck-through prices.
	Skip func(n *html.Node) bool
	// Skipped is called with each element left out, by the shared table or
	// by Skip: structured data lives in scripts nobody sees.
	Skipped func(n *html.Node)
	// Enter is called with each element the walk reaches, before its
	// content and before the line break of a block. Returning false takes
	// the element over: the walker neither breaks the line nor reads the
	// content, which Enter has read (a label/value pair) or dropped.
	Enter func(n *html.Node) bool
	// Leave is called after an element's content and its line break.
	Leave func(n *html.Node)
	// Text is called with each text node as it joins the current line.
	Text func(n *html.Node)
	// Line receives each line that has visible text.
	Line func(Line)

	cur     strings.Builder
	oneLine bool   // a block break is a space (TextOf)
	section string // the text of the last heading read, with Headings
}

// Lines returns the visible text under n, headings read whole, with no
// other hook.
func Lines(n *html.Node) []Line {
	var out []Line
	w := &Walker{Headings: true, Line: func(l Line) { out = append(out, l) }}
	w.Walk(n)
	w.Flush()
	return out
}

// Walk reads n and what is under it. The last line stays open until
// Flush, so that several nodes can be read as one text.
func (w *Walker) Walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.cur.WriteString(n.Data)
		if w.Text != nil {
			w.Text(n)
		}
		return
	case html.ElementNode:
		w.element(n)
		return
	}
	w.children(n)
}

func (w *Walker) element(n *html.Node) {
	if skipped[n.Data] || w.Skip != nil && w.Skip(n) {
		if w.Skipped != nil {
			w.Skipped(n)
		}
		return
	}
	if w.Enter != nil && !w.Enter(n) {
		return
	}
	switch {
	case w.Headings && Heading(n.Data):
		w.emit()
		w.section = w.TextOf(n)
		if w.section != "" && w.Line != nil {
			w.Line(Line{Text: w.section, Heading: true})
		}
	case blocks[n.Data]:
		w.lineBreak()
		w.children(n)
		w.lineBreak()
	default:
		w.children(n)
	}
	if w.Leave != nil {
		w.Leave(n)
	}
}

func (w *Walker) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.Walk(c)
	}
}

// lineBreak ends the current line, or, when reading one line, keeps the
// two sides apart by a space.
func (w *Walker) lineBreak() {
	if w.oneLine {
		w.cur.WriteByte(' ')
		return
	}
	w.emit()
}

// Section returns the text of the last heading read, when the walker reads
// headings: the heading of the section the walk is in. It is "" before
// the first heading and after a heading without text (a logo), which still
// ends the section before it.
func (w *Walker) Section() string {
	return w.section
}

// Write adds s to the current line: a label the markup draws rather than
// writes, such as a fax icon.
func (w *Walker) Write(s string) {
	w.cur.WriteString(s)
}

// Flush ends the current line.
func (w *Walker) Flush() {
	w.emit()
}

func (w *Walker) emit() {
	t := w.cur.String()
	w.cur.Reset()
	if w.KeepSpacing {
		if strings.TrimSpace(t) == "" {
			return
		}
	} else if t = Collapse(t); t == "" {
		return
	}
	if w.Line != nil {
		w.Line(Line{Text: t})
	}
}

// TextOf returns the visible text of n on one line, collapsed, the way a
// heading is read: what a block or a <br> separates is kept apart by a
// space. Skip applies; the other hooks do not.
func (w *Walker) TextOf(n *html.Node) string {
	var text string
	sub := &Walker{Skip: w.Skip, oneLine: true}
	sub.Line = func(l Line) { text = l.Text }
	sub.Walk(n)
	sub.Flush()
	return text
}
