package legalids

import (
	"github.com/prospectdata/svc/shared/enrich/pagetext"
	"golang.org/x/net/html"
)

// block is the text of one block-level element (a paragraph, a list item,
// a table cell...) with the heading of the section it sits in.
type block struct {
	text    string
	heading string
}

// blocks returns the visible text of a document as blocks, in order. A
// heading is a block of its own and names the blocks after it; hidden
// elements are read, since legal notices often sit in a closed dialog.
func blocks(root *html.Node) []block {
	var out []block
	w := &pagetext.Walker{Headings: true}
	w.Line = func(l pagetext.Line) {
		out = append(out, block{text: l.Text, heading: w.Section()})
	}
	w.Walk(root)
	w.Flush()
	return out
}

// clean folds no-break and thin spaces to plain spaces and collapses runs of
// white space.
func clean(s string) string {
	return pagetext.Collapse(s)
}
