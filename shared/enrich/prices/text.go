package prices

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich/pagetext"
	"golang.org/x/net/html"
)

// pricingBlock is a class or id naming a block of prices.
// It must start a class word: "explanation" holds "plan".
var pricingBlock = regexp.MustCompile(`(?i)(?:^|[\s_-])(?:pric|tarif|plans?(?:$|[\s_-])|forfait|formule|offres?(?:$|[\s_-])|packs?(?:$|[\s_-]))`)

var (
	// keywordNear is a word that introduces a price.
	keywordNear = regexp.MustCompile(`(?i)tarif|prix|price|pricing|cost|co[uû]t|forfait|honoraires|[àa] partir de|starting at|\bfrom\b|\bdès\b|abonnement|formule|menu|consultation|séance|taux horaire|\brate\b|\bplan\b|\bpack\b`)
	// notOffer before an amount: the amount is not what the business sells.
	notOffer = regexp.MustCompile(`(?i)capital|livraison|\bport\b|frais d['’]envoi|exp[ée]dition|shipping|delivery|remise|r[ée]duction|[ée]conomi|\bsave\b|discount|\boff\b|caution|d[ée]p[ôo]t de garantie|acompte|provision|recouvrement|indemnit|p[ée]nalit|amende|chiffre d['’]affaires|garantie financi|cagnotte|gagne|bon d['’]achat|carte cadeau|gift card|cr[ée]dit d['’]imp[ôo]t|minimum|threshold|over\s*$|plus de\s*$|jusqu['’][àa]\s*-?\s*$`)
	// notOfferAfter after an amount: "50 € d'achat", "10 € de réduction".
	notOfferAfter = regexp.MustCompile(`(?i)^\s*(?:HT|TTC)?\s*(?:d['’]achats?|de commande|d['’][ée]conomie|de r[ée]duction|de remise|offerts?\b|off\b|de frais|of purchase|or more|apr[èe]s (?:cr[ée]dit|d[ée]duction|r[ée]duction))`)
	// phoneTail is a text ending like a phone number in pairs ("… 34 "):
	// the amount that follows would be its last pair.
	phoneTail = regexp.MustCompile(`\d{2}[ .]$`)
)

// line is one line of visible text and what surrounds it.
type line struct {
	text    string
	tabular bool   // inside a table or a pricing block
	heading string // the last heading before the line
}

// lines renders a page's visible text, one line per block.
func lines(p *crawl.Page) []line {
	var out []line
	heading := ""
	var open []bool      // for each element around the walk, whether it is a pricing block
	tabular := 0         // how many of them are
	lineTabular := false // some text of the current line sat in one
	w := &pagetext.Walker{
		Skip: skip,
		Enter: func(n *html.Node) bool {
			tab := isTabular(n)
			open = append(open, tab)
			if tab {
				tabular++
			}
			return true
		},
		Leave: func(n *html.Node) {
			if open[len(open)-1] {
				tabular--
			}
			open = open[:len(open)-1]
			// A heading names the lines after it, not itself.
			if pagetext.Heading(n.Data) && len(out) > 0 {
				heading = out[len(out)-1].text
			}
		},
		Text: func(n *html.Node) {
			if tabular > 0 && strings.TrimSpace(n.Data) != "" {
				lineTabular = true
			}
		},
		Line: func(l pagetext.Line) {
			out = append(out, line{text: l.Text, tabular: lineTabular, heading: heading})
			lineTabular = false
		},
	}
	for _, n := range p.Doc().Nodes {
		w.Walk(n)
	}
	w.Flush()
	return out
}

// skip leaves out, besides what no browser shows, hidden text and prices
// that are not the price asked: struck through, an old price, a
// screen-reader reading of the price drawn beside it.
func skip(n *html.Node) bool {
	switch n.Data {
	case "del", "s", "strike":
		return true
	}
	class := attr(n, "class")
	return pagetext.Hidden(n) || oldPriceClass(class) || screenReader(class)
}

// isTabular reports a table or a block whose class or id names prices.
func isTabular(n *html.Node) bool {
	return n.Data == "table" || pricingBlock.MatchString(attr(n, "class")+" "+attr(n, "id"))
}

// textPrices reads the prices of a page's visible text.
func textPrices(p *crawl.Page) []candidate {
	ls := lines(p)
	var out []candidate
	for i, l := range ls {
		prev, next := "", ""
		if i > 0 {
			prev = ls[i-1].text
		}
		if i+1 < len(ls) {
			next = ls[i+1].text
		}
		out = append(out, linePrices(l, prev, next)...)
	}
	return out
}

// linePrices reads one line; prev and next are the lines around it, for a
// label or a period in a block of its own.
func linePrices(l line, prev, next string) []candidate {
	var out []candidate
	taken := [][]int{}
	read := func(start, end int, mark, amount string) {
		before, after := l.text[:start], l.text[end:]
		if !bounded(before, after) {
			return
		}
		ctx := tail(before, 60)
		if notOffer.MatchString(ctx) || notOfferAfter.MatchString(after) {
			return
		}
		c, ok := cents(amount)
		cur := currencyCode(mark)
		if !ok || c <= 0 || cur == "" {
			return
		}
		period := ""
		rest := after
		if strings.TrimSpace(rest) == "" {
			rest = next
		}
		if m := periodAfter.FindStringSubmatch(rest); m != nil {
			period = periodOf(m[1])
		} else if m := periodBefore.FindString(tail(before, 40)); m != "" {
			period = periodOf(m)
		}
		ev := plain
		switch {
		case l.tabular:
			ev = tabular
		case keywordNear.MatchString(before + " " + prev + " " + l.heading):
			ev = keyword
		}
		out = append(out, offer(c, cur, period, ev))
	}
	for _, m := range priceRange.FindAllStringSubmatchIndex(l.text, -1) {
		// Groups: 1 currency before the low bound, 2 low bound, 3 currency
		// before the high bound, 4 high bound, 5 currency after it.
		mark := ""
		for _, g := range []int{1, 3, 5} {
			if m[2*g] >= 0 {
				mark = l.text[m[2*g]:m[2*g+1]]
				break
			}
		}
		if mark == "" {
			continue
		}
		lo, _ := cents(l.text[m[4]:m[5]])
		hi, _ := cents(l.text[m[8]:m[9]])
		if lo <= 0 || hi <= lo {
			continue // "2024 - 49 €" is not a range
		}
		read(m[0], m[1], mark, l.text[m[4]:m[5]])
		taken = append(taken, []int{m[0], m[1]})
	}
	for _, m := range price.FindAllStringSubmatchIndex(l.text, -1) {
		if overlaps(taken, m[0], m[1]) {
			continue
		}
		mark, amount := group(l.text, m, 1), group(l.text, m, 2)
		if amount == "" {
			amount, mark = group(l.text, m, 3), group(l.text, m, 4)
		}
		read(m[0], m[1], mark, amount)
	}
	return out
}

func group(s string, m []int, g int) string {
	if m[2*g] < 0 {
		return ""
	}
	return s[m[2*g]:m[2*g+1]]
}

func overlaps(spans [][]int, start, end int) bool {
	for _, s := range spans {
		if start < s[1] && s[0] < end {
			return true
		}
	}
	return false
}

// bounded rejects amounts glued to a word or a number ("FR76 3000 €",
// "04 78 12 34 56 €") and percentages.
func bounded(before, after string) bool {
	if r, _ := utf8.DecodeLastRuneInString(before); r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return false
	}
	if phoneTail.MatchString(before) {
		return false
	}
	return !strings.HasPrefix(strings.TrimSpace(after), "%")
}

// tail is the last n bytes of s, cut on a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// screenReader reports the classes themes use for text read aloud but
// not drawn ("Prix habituel" before a sale price).
func screenReader(class string) bool {
	for _, c := range strings.Fields(class) {
		switch c {
		case "visually-hidden", "sr-only", "screen-reader-text", "screen-reader-only":
			return true
		}
	}
	return false
}
