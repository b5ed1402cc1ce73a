// Package pagetext reads the text a browser shows on an HTML page, line by
// line. The enrichment modules that read a site's visible text (legal ids,
// legal mentions, prices, phone numbers) all walk it here, so they agree on
// what a line is: one table of the elements that end a line, one table of
// the elements whose content is never shown, white space collapsed as a
// browser does. A module that needs more than the text (label/value pairs,
// tel: links, struck-through prices) hooks into the walk instead of walking
// again.
package pagetext

import (
	"strings"

	"golang.org/x/net/html"
)

// blocks end a line: the text on either side reads as two lines, so the
// digits of two cells never join into one number and a label in one block
// stays apart from the value in the next.
var blocks = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "header": true,
	"footer": true, "nav": true, "aside": true, "main": true, "address": true,
	"form": true, "fieldset": true, "blockquote": true, "pre": true,
	"figure": true, "figcaption": true, "body": true,
	"ul": true, "ol": true, "li": true, "dl": true, "dt": true, "dd": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "td": true, "th": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"br": true, "hr": true, "button": true, "label": true,
}

// skipped are elements whose content is never shown as text: code, styles,
// embedded documents, the title, and form controls whose text is a list of
// choices or a user's input. The head itself is walked: the title is its
// only text, and its JSON-LD and microdata matter to the hooks.
var skipped = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"svg": true, "iframe": true, "object": true, "title": true,
	"textarea": true, "select": true, "option": true,
}

// Heading reports whether tag is a heading, h1 to h6.
func Heading(tag string) bool {
	return len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6'
}

// Unshown reports whether an element of this tag never shows its content
// as text (a script, a style, a select...).
func Unshown(tag string) bool { return skipped[tag] }

// Hidden reports an element the browser does not render: the hidden
// attribute, or an inline style with display:none or visibility:hidden.
// It is not part of every walk: a legal notice is often kept in a hidden
// dialog, and its identifiers are still the business's.
func Hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == "hidden" {
			return true
		}
	}
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == "style" {
			style := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
		}
	}
	return false
}

// Collapse makes each run of white space one space and trims the ends, as
// a browser lays text out; no-break and thin spaces count as white space.
func Collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
