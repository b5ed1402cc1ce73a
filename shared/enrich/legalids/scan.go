package legalids

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/prospectdata/svc/shared/crawl"
)

// candidate is one identifier seen on a page.
type candidate struct {
	number string // 9 or 14 digits
	score  int
	source string
}

// Scores (choose in score.go).
const (
	scoreGrouped  = 1 // written the way identifiers are, no label
	scoreLabelled = 4 // after SIRET, SIREN, RCS, TVA...
	scoreJSONLD   = 5 // declared by the site in structured data
	scoreRegistry = 3 // in a link to a company register page
)

var (
	// runRe is a run of digit groups joined by single separators (space,
	// dot, dash; no-break spaces are folded to spaces beforehand).
	runRe = regexp.MustCompile(`\d+(?:[ .\-]\d+)*`)

	// vatRe is a French VAT number: FR, a two-character key, the SIREN.
	vatRe = regexp.MustCompile(`\bFR ?([0-9A-HJ-NP-Z]{2}) ?[.\-]?(\d{3} ?[.\-]?\d{3} ?[.\-]?\d{3})\b`)

	// labelRe is an identifier label, looked for just before a number.
	labelRe = regexp.MustCompile(`(?i)(siret|siren|\br\.? ?c\.? ?s\b\.?|\btva\b|\bvat\b|immatricul|identification|registre|\brm\b|\binsee\b|company (?:no|number)|n° d'entreprise)`)

	// trapRe is a label that makes the number that follows something else:
	// an order, an invoice, a bank account, a phone, a capital, a price.
	trapRe = regexp.MustCompile(`(?i)(commande|order|facture|invoice|devis|\bréf|\bref\b|référence|client|ticket|colis|suivi|tracking|iban|\bbic\b|\brib\b|capital|\btél|\btel\b|téléphone|phone|\bfax\b|mobile|portable|prix|price|tarif|montant|total|agrément|licence|adeli|rpps|finess|orias|n° de lot|qualibat|badge|\bcode\b)`)

	// currencyRe follows an amount.
	currencyRe = regexp.MustCompile(`(?i)^\s?(€|eur\b|euros?\b|\$|%|ht\b|ttc\b|k€)`)

	// hostRe names the sections and clauses about the site's host or maker,
	// whose identifiers are theirs, not the business's.
	hostRe = regexp.MustCompile(`(?i)(héberg|heberg|hosting|hosted|\bhost\b|réalis|conception|crédits|credits|webmaster|création du site|développ|agence web|web ?design|made by)`)

	// publisherRe brings a clause back to the business itself.
	publisherRe = regexp.MustCompile(`(?i)(éditeur|édité|edite|édition du site|editor|publisher|propriétaire|raison sociale|dénomination|directeur de (la )?publication|responsable de (la )?publication)`)

	registryHostRe = regexp.MustCompile(`(?i)(^|\.)(societe\.com|pappers\.fr|infogreffe\.fr|annuaire-entreprises\.data\.gouv\.fr|verif\.com|manageo\.fr|sirene\.fr|entreprise\.data\.gouv\.fr)$`)
	registryNumRe  = regexp.MustCompile(`(?:^|\D)(\d{14}|\d{9})(?:\D|$)`)
)

const (
	labelWindow = 40 // characters before a number searched for a label
	trapWindow  = 30 // characters before a number searched for a trap
)

func pageCandidates(p *crawl.Page) []candidate {
	src := ""
	if p.URL != nil {
		src = p.URL.String()
	}
	doc := p.Doc()
	var out []candidate
	for _, n := range doc.Nodes {
		for _, b := range blocks(n) {
			if hostRe.MatchString(b.heading) && !publisherRe.MatchString(b.heading) {
				continue
			}
			for _, c := range scanText(b.text) {
				c.source = src
				out = append(out, c)
			}
		}
	}
	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		for _, num := range jsonLDNumbers(s.Text()) {
			out = append(out, candidate{number: num, score: scoreJSONLD, source: src})
		}
	})
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		u := p.Resolve(a.AttrOr("href", ""))
		if u == nil || !registryHostRe.MatchString(u.Hostname()) {
			return
		}
		for _, m := range registryNumRe.FindAllStringSubmatch(u.Path, -1) {
			if valid(m[1]) {
				out = append(out, candidate{number: m[1], score: scoreRegistry, source: src})
			}
		}
	})
	return out
}

// scanText returns the identifiers written in one block of text.
func scanText(t string) []candidate {
	var out []candidate
	vatSpans := vatRe.FindAllStringSubmatchIndex(t, -1)
	for _, m := range vatSpans {
		siren := digitsOnly(t[m[4]:m[5]])
		if ValidSIREN(siren) && keyMatches(t[m[2]:m[3]], siren) && !inHostClause(t[:m[0]]) {
			out = append(out, candidate{number: siren, score: scoreLabelled})
		}
	}
	for _, m := range runRe.FindAllStringIndex(t, -1) {
		start, end := m[0], m[1]
		// A run glued to letters or to another number by a character
		// outside the separators (123/456, A123456789) is something else.
		if start > 0 && isWordByte(t[start-1]) || end < len(t) && isWordByte(t[end]) {
			continue
		}
		if insideAny(start, vatSpans) {
			continue
		}
		run := t[start:end]
		num := digitsOnly(run)
		if len(num) != 9 && len(num) != 14 {
			continue
		}
		if !valid(num) {
			continue
		}
		before := t[max(0, start-labelWindow):start]
		labelled := labelRe.MatchString(before)
		trapBefore := t[max(0, start-trapWindow):start]
		if currencyRe.MatchString(t[end:]) {
			continue
		}
		if trapRe.MatchString(trapBefore) && !labelAfterTrap(trapBefore) {
			continue
		}
		if inHostClause(t[:start]) {
			continue
		}
		switch {
		case labelled:
			out = append(out, candidate{number: num, score: scoreLabelled})
		case groupedLikeID(run):
			out = append(out, candidate{number: num, score: scoreGrouped})
		}
	}
	return out
}

// labelAfterTrap reports whether an identifier label comes after the last
// trap word ("Capital 5000 €, RCS Lyon 812..." is an RCS number).
func labelAfterTrap(before string) bool {
	traps := trapRe.FindAllStringIndex(before, -1)
	labels := labelRe.FindAllStringIndex(before, -1)
	if len(labels) == 0 {
		return false
	}
	return labels[len(labels)-1][0] > traps[len(traps)-1][0]
}

// inHostClause reports whether the text before a number last spoke of the
// site's host or maker rather than of the business.
func inHostClause(before string) bool {
	h := hostRe.FindAllStringIndex(before, -1)
	if len(h) == 0 {
		return false
	}
	p := publisherRe.FindAllStringIndex(before, -1)
	return len(p) == 0 || p[len(p)-1][0] < h[len(h)-1][0]
}

// groupedLikeID reports whether a number is written as identifiers are:
// all together, or in the register's groups (3 3 3 and 5, or 3 3 3 3 2).
func groupedLikeID(run string) bool {
	var sizes []int
	n := 0
	for i := 0; i < len(run); i++ {
		if run[i] >= '0' && run[i] <= '9' {
			n++
			continue
		}
		sizes = append(sizes, n)
		n = 0
	}
	sizes = append(sizes, n)
	switch fmt.Sprint(sizes) {
	case "[9]", "[14]", "[3 3 3]", "[3 3 3 5]", "[9 5]", "[3 3 3 3 2]":
		return true
	}
	return false
}

func valid(num string) bool {
	if len(num) == 14 {
		return ValidSIRET(num)
	}
	return ValidSIREN(num)
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == ',' || c == '_'
}

func insideAny(i int, spans [][]int) bool {
	for _, s := range spans {
		if i >= s[0] && i < s[1] {
			return true
		}
	}
	return false
}

func digitsOnly(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// jsonLDNumbers returns the identifiers declared in a JSON-LD block: taxID,
// vatID, identifier (a string or a PropertyValue), siret, siren.
func jsonLDNumbers(raw string) []string {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &v); err != nil {
		return nil
	}
	var out []string
	addString := func(s string) {
		t := clean(s)
		if m := vatRe.FindStringSubmatch(strings.ToUpper(t)); m != nil {
			if n := digitsOnly(m[2]); ValidSIREN(n) {
				out = append(out, n)
			}
			return
		}
		if n := digitsOnly(t); (len(n) == 9 || len(n) == 14) && valid(n) {
			out = append(out, n)
		}
	}
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch t := v.(type) {
		case string:
			switch strings.ToLower(key) {
			case "taxid", "vatid", "identifier", "siret", "siren", "value":
				addString(t)
			}
		case float64:
			switch strings.ToLower(key) {
			case "taxid", "siret", "siren", "identifier", "value":
				addString(strconv.FormatFloat(t, 'f', 0, 64))
			}
		case []any:
			for _, e := range t {
				walk(e, key)
			}
		case map[string]any:
			// A PropertyValue's value counts only under an identifier key.
			idLike := key == "identifier" || key == "taxID" || key == "vatID"
			for k, e := range t {
				if k == "value" && !idLike {
					continue
				}
				walk(e, k)
			}
		}
	}
	walk(v, "")
	return out
}

// keyMatches reports whether a VAT number's key fits its SIREN; keys with
// letters (the old scheme for some companies) are taken as they are.
func keyMatches(key, siren string) bool {
	k, err := strconv.Atoi(key)
	if err != nil {
		return true
	}
	return k == vatKey(siren)
}
