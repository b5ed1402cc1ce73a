package phones

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// candidate is a run of digit groups joined by single separators, with an
// optional leading "+": "04 78 12 34 56", "06-12-34-56-78",
// "+33 (0)4 78 12 34 56", "0033 4 78 12 34 56", "(212) 555-0143". Two
// numbers separated by " - " or " / " are two runs, a SIRET or an IBAN is
// one long run that fails validation as a whole.
var candidate = regexp.MustCompile(`\+?\d+(?:(?:[ .\-/\x{00A0}\x{202F}\x{2009}]|\) ?| ?\()\d+)*`)

// faxWord and phoneWord are the labels that say what a number is.
var (
	faxWord = regexp.MustCompile(`(?i)fax|t[ée]l[ée]copie(?:ur)?`)
	// phoneWord must start a word: "atelier" holds "tel".
	phoneWord = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:t[ée]l|phone|portable|mobile|gsm|standard|appel|call|contact|whatsapp)`)
	faxAfter  = regexp.MustCompile(`(?i)^\s*[(\[\-–]?\s*(?:fax|t[ée]l[ée]copie(?:ur)?)`)
)

// faxAfterNumber reports a fax mark right after a number ("04 78 12 34
// 99 (fax)"), but not the label of the next number ("… – Fax : 04 78 …"),
// which a colon or a number follows.
func faxAfterNumber(after string) bool {
	m := faxAfter.FindStringIndex(after)
	if m == nil {
		return false
	}
	rest := strings.TrimLeft(after[m[1]:], " \u00a0\t")
	return !strings.HasPrefix(rest, ":") && (rest == "" || !unicode.IsDigit(rune(rest[0])) && rest[0] != '+')
}

// faxOnly reports a label naming a fax line and no voice line
// ("Fax :", "Télécopie" but not "Tél/Fax").
func faxOnly(label string) bool {
	if !faxWord.MatchString(label) {
		return false
	}
	return !phoneWord.MatchString(faxWord.ReplaceAllString(label, " "))
}

// scan reads the numbers of one line of visible text.
func (w *walker) scan(line string) {
	last := 0
	for _, m := range candidate.FindAllStringIndex(line, -1) {
		start, end := m[0], m[1]
		before, after := line[:start], line[end:]
		ctx := line[last:start]
		last = end
		if !bounded(before, after) {
			continue
		}
		if !hasLetter(ctx) && utf8.RuneCountInString(w.prev) <= 40 && !hasDigit(w.prev) {
			ctx = w.prev
		}
		fax := faxOnly(ctx) || faxAfterNumber(after)
		raw := line[start:end]
		if _, ok := parse(raw, w.region); ok {
			w.add(raw, false, fax)
			continue
		}
		// "04 78 12 34 56/06 12 34 56 78": two numbers glued by a slash.
		if strings.Contains(raw, "/") {
			for _, part := range strings.Split(raw, "/") {
				w.add(part, false, fax)
			}
		}
	}
}

// bounded rejects runs glued to a word ("FR76 3000 ...", "REF0478..."), and
// amounts or rates ("1 290,00", "49 €", "20 %").
func bounded(before, after string) bool {
	if r, _ := utf8.DecodeLastRuneInString(before); r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return false
	}
	a := strings.TrimLeft(after, " \u00a0\u202f")
	if r, size := utf8.DecodeRuneInString(after); r == ',' || r == '.' {
		if n, _ := utf8.DecodeRuneInString(after[size:]); unicode.IsDigit(n) {
			return false
		}
	}
	if r, _ := utf8.DecodeRuneInString(a); strings.ContainsRune("€$£%", r) {
		return false
	}
	return !strings.HasPrefix(strings.ToLower(a), "eur")
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}
