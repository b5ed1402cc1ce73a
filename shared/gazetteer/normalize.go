package gazetteer

import (
	"strings"
	"unicode"

	"github.com/prospectdata/svc/shared/accent"
)

// Normalize folds a place name to the form names are matched in: lower
// case, accents and other marks removed, the letters that do not decompose
// spelled out (ß ss, œ oe, æ ae, ø o, ł l, đ d), every run of other
// characters (hyphens, apostrophes, dots, spaces) one space, and the
// abbreviations "st" and "ste" spelled "saint" and "sainte". So "Saint-
// Étienne", "ST ETIENNE" and "st.-étienne" are one name.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range accent.Fold(s) {
		r = unicode.ToLower(r)
		if rep, ok := spelled[r]; ok {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteString(rep)
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	out := b.String()
	if !strings.Contains(out, "st") {
		return out
	}
	words := strings.Split(out, " ")
	for i, w := range words {
		switch w {
		case "st":
			words[i] = "saint"
		case "ste":
			words[i] = "sainte"
		}
	}
	return strings.Join(words, " ")
}

// spelled are the letters NFD does not split into a base letter and a mark.
var spelled = map[rune]string{
	'ß': "ss", 'œ': "oe", 'æ': "ae", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i",
}
