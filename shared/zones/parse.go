package zones

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// query is one zone string, checked and split.
type query struct {
	country *gazetteer.Place
	fr      bool    // France: codes, postal codes, arrondissements
	input   string  // as written
	base    string  // cleaned, without the radius
	norm    string  // gazetteer.Normalize(base)
	radius  float64 // km, 0 when none
}

// prepare checks the input's bounds and splits off the radius.
func prepare(c *gazetteer.Place, zone string) (*query, error) {
	if n := utf8.RuneCountInString(zone); n > maxRunes {
		return nil, errTooLong(zone, c.Code, n)
	}
	if strings.TrimSpace(zone) == "" {
		return nil, errEmpty(c.Code)
	}
	// NFKC folds the compatibility forms users paste: "11ᵉ", "㎞",
	// full-width digits.
	text := trimZone(norm.NFKC.String(zone))
	if gazetteer.Normalize(text) == "" {
		return nil, errNoName(zone, c.Code)
	}
	q := &query{country: c, fr: c.Code == "FRA", input: zone, base: text}
	if base, km, ok := splitRadius(text); ok {
		if !(km >= MinRadiusKm && km <= MaxRadiusKm) {
			return nil, errRadius(zone, c.Code, km)
		}
		q.base, q.radius = base, km
	}
	q.norm = gazetteer.Normalize(q.base)
	return q, nil
}

// trimZone drops surrounding spaces, quotes and punctuation, but keeps
// the parentheses of a trailing qualifier ("Saint-Denis (974)").
func trimZone(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '(' && r != ')'
	})
}

// radiusRE reads "<name> <n>km": the number may have a decimal point or
// comma and be set off by spaces, a comma or a dash. The name is matched
// lazily, so in "Paris 11,5km" the radius is 11.5 km around Paris.
var radiusRE = regexp.MustCompile(`(?i)^(.*?)[\s,;:/-]*(\d{1,9}(?:[.,]\d{1,9})?)\s*(?:km|kms|kilom[eè]tres?|kilometers?)\.?$`)

// splitRadius splits "Lyon 2,5 km" into "Lyon" and 2.5.
func splitRadius(s string) (base string, km float64, ok bool) {
	m := radiusRE.FindStringSubmatch(s)
	if m == nil {
		return s, 0, false
	}
	km, err := strconv.ParseFloat(strings.Replace(m[2], ",", ".", 1), 64)
	if err != nil {
		return s, 0, false
	}
	return trimZone(m[1]), km, true
}

// reading is one way to understand the input: a name, a code, or a name
// with a qualifier that picks among the places of that name.
type reading struct {
	form Form
	name string // normalised name (FormName, FormQualified)
	// exact, on a FormName reading of an input ending in "(...)", keeps
	// the name from being read as an arrondissement: parentheses hold a
	// qualifier, so "Marseille (13)" is the city in department 13.
	exact bool
	code  string // upper-case code (FormCode, FormPostcode, FormINSEE)
	qual  string // the qualifier as written (FormQualified)
}

// readings lists the ways to read the input, in the order they are tried.
func (q *query) readings() []reading {
	if q.norm == "" {
		return nil
	}
	toks := strings.Split(q.norm, " ")
	if code, ok := inseePrefix(toks); ok {
		// An explicit INSEE code is read as nothing else.
		return []reading{{form: FormINSEE, code: code}}
	}
	var rs []reading
	if q.fr {
		rs = append(rs, frenchCodeReadings(toks)...)
	} else if isISOSubdivision(q.base) {
		rs = append(rs, reading{form: FormCode, code: strings.ToUpper(q.base)})
	}
	rs = append(rs, reading{form: FormName, name: q.norm, exact: qualifierRE.MatchString(q.base)})
	return append(rs, q.qualifiedReadings(toks)...)
}

// frenchCodeReadings reads a lone code: a postal code before an INSEE
// code (the codes overlap: 69001 is Lyon 1er's postal code and Affoux's
// INSEE code), then a department number, also after "dép", "dept"...
func frenchCodeReadings(toks []string) []reading {
	if len(toks) == 2 && deptWords[toks[0]] {
		if code, ok := deptCode(toks[1]); ok {
			return []reading{{form: FormCode, code: code}}
		}
	}
	if len(toks) != 1 {
		return nil
	}
	var rs []reading
	if code, ok := postcode(toks[0]); ok {
		rs = append(rs, reading{form: FormPostcode, code: code})
	}
	if code, ok := inseeCode(toks[0]); ok {
		rs = append(rs, reading{form: FormINSEE, code: code})
	}
	if code, ok := deptCode(toks[0]); ok {
		rs = append(rs, reading{form: FormCode, code: code})
	}
	return rs
}

var deptWords = map[string]bool{"dep": true, "dept": true, "dpt": true, "departement": true}

// qualifierRE is "<name> (<qualifier>)".
var qualifierRE = regexp.MustCompile(`^(.+?)\s*\(([^()]+)\)$`)

// qualifiedReadings are "<name> (<qualifier>)", "<name>, <qualifier>" and,
// in France, "<name> <code>" and "<code> <name>" with a department number
// or postal code.
func (q *query) qualifiedReadings(toks []string) []reading {
	var rs []reading
	add := func(name, qual string) {
		n, qn := gazetteer.Normalize(name), gazetteer.Normalize(qual)
		if n == "" || qn == "" {
			return
		}
		// "Saint-Denis (93)" reads the same by parentheses and by code.
		for _, r := range rs {
			if r.name == n && gazetteer.Normalize(r.qual) == qn {
				return
			}
		}
		rs = append(rs, reading{form: FormQualified, name: n, qual: strings.TrimSpace(qual)})
	}
	if m := qualifierRE.FindStringSubmatch(q.base); m != nil {
		add(m[1], m[2])
	}
	if name, qual, ok := strings.Cut(q.base, ","); ok {
		add(name, qual)
	}
	if q.fr && len(toks) >= 2 {
		if last := toks[len(toks)-1]; isCodeToken(last) {
			add(strings.Join(toks[:len(toks)-1], " "), last)
		}
		if isCodeToken(toks[0]) {
			add(strings.Join(toks[1:], " "), toks[0])
		}
	}
	return rs
}

func isCodeToken(t string) bool {
	_, dept := deptCode(t)
	_, post := postcode(t)
	return dept || post
}

// inseePrefix reads "insee 69001", "INSEE:69001", "code insee 69001".
func inseePrefix(toks []string) (string, bool) {
	if len(toks) == 3 && toks[0] == "code" {
		toks = toks[1:]
	}
	if len(toks) != 2 || toks[0] != "insee" {
		return "", false
	}
	return inseeCode(toks[1])
}

// deptCode reads a French department number: "69", "2A", "971", and a
// single digit as its two-digit code ("1" is "01").
func deptCode(t string) (string, bool) {
	switch {
	case len(t) == 1 && isDigits(t):
		return "0" + t, true
	case len(t) == 2 && isDigits(t):
		return t, true
	case len(t) == 2 && t[0] == '2' && (t[1] == 'a' || t[1] == 'b'):
		return strings.ToUpper(t), true
	case len(t) == 3 && isDigits(t) && t[:2] >= "97" && t[:2] <= "98":
		return t, true
	}
	return "", false
}

// postcode reads a French postal code, restoring the leading zero a
// spreadsheet drops ("1000" is "01000").
func postcode(t string) (string, bool) {
	switch {
	case len(t) == 5 && isDigits(t):
		return t, true
	case len(t) == 4 && isDigits(t):
		return "0" + t, true
	}
	return "", false
}

// inseeCode reads an INSEE commune code: five digits, or 2A/2B and three
// digits in Corsica; four digits get their leading zero back.
func inseeCode(t string) (string, bool) {
	if code, ok := postcode(t); ok {
		return code, true
	}
	if len(t) == 5 && t[0] == '2' && (t[1] == 'a' || t[1] == 'b') && isDigits(t[2:]) {
		return strings.ToUpper(t), true
	}
	return "", false
}

// isISOSubdivision tells an ISO 3166-2 code: "DE-BY", "US-NY", "ES-B".
func isISOSubdivision(s string) bool {
	country, sub, ok := strings.Cut(s, "-")
	if !ok || len(country) != 2 || len(sub) < 1 || len(sub) > 3 {
		return false
	}
	for _, r := range country {
		if !isASCIILetter(r) {
			return false
		}
	}
	for _, r := range sub {
		if !isASCIILetter(r) && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// arrWords are the ways to write "arrondissement".
var arrWords = map[string]bool{"arrondissement": true, "arrondissements": true, "arr": true, "arrt": true, "ardt": true, "arrdt": true, "arrond": true}

// ordinalSuffixes follow an arrondissement number: 1er, 2e, 2eme, 2ème, 2nd.
var ordinalSuffixes = map[string]bool{"e": true, "er": true, "ere": true, "eme": true, "em": true, "nd": true, "nde": true}

// parseDistrict reads an arrondissement: "paris 11e", "paris 11",
// "paris xie", "marseille 8e arrondissement", "lyon 1er",
// "11e arrondissement de paris" (a normalised input). It returns the
// city's name and the number.
func parseDistrict(norm string) (city string, n int, ok bool) {
	toks := strings.Split(norm, " ")
	if len(toks) < 2 {
		return "", 0, false
	}
	if city, n, ok := districtAfter(toks); ok {
		return city, n, true
	}
	return districtBefore(toks)
}

// districtAfter reads "<city> <n>[e] [arrondissement]".
func districtAfter(toks []string) (string, int, bool) {
	end := len(toks)
	if arrWords[toks[end-1]] {
		end--
	}
	if end >= 3 && ordinalSuffixes[toks[end-1]] && isDigits(toks[end-2]) {
		// "11 e", from "11ᵉ" written apart.
		toks = append(toks[:end-2:end-2], toks[end-2]+toks[end-1])
		end = len(toks)
	}
	if end < 2 {
		return "", 0, false
	}
	n, _, ok := ordinal(toks[end-1])
	if !ok {
		return "", 0, false
	}
	return strings.Join(toks[:end-1], " "), n, true
}

// districtBefore reads "<n>e [arrondissement] [de] <city>"; the number
// needs its suffix or the word, so that "75 Paris" stays a department
// qualifier.
func districtBefore(toks []string) (string, int, bool) {
	n, suffixed, ok := ordinal(toks[0])
	if !ok {
		return "", 0, false
	}
	rest := toks[1:]
	word := len(rest) > 0 && arrWords[rest[0]]
	if word {
		rest = rest[1:]
	}
	if !suffixed && !word {
		return "", 0, false
	}
	if len(rest) > 0 && (rest[0] == "de" || rest[0] == "d" || rest[0] == "du") {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return "", 0, false
	}
	return strings.Join(rest, " "), n, true
}

// ordinal reads "11", "11e", "1er", "11eme", or a Roman "xie", "ier"
// (Roman numerals need their suffix: "paris vi" is no district).
func ordinal(t string) (n int, suffixed, ok bool) {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 {
		if i > 2 || (i < len(t) && !ordinalSuffixes[t[i:]]) {
			return 0, false, false
		}
		n, _ = strconv.Atoi(t[:i])
		return n, i < len(t), n > 0
	}
	for i < len(t) && strings.IndexByte("ivxl", t[i]) >= 0 {
		i++
	}
	if i == 0 || i == len(t) || !ordinalSuffixes[t[i:]] {
		return 0, false, false
	}
	n = roman(t[:i])
	return n, true, n > 0
}

// roman reads a lower-case Roman numeral from 1 to 89, 0 when malformed.
func roman(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		v := romanDigit(s[i])
		if i+1 < len(s) && romanDigit(s[i+1]) > v {
			n -= v
		} else {
			n += v
		}
	}
	if n < 1 || n > 89 || toRoman(n) != s {
		return 0
	}
	return n
}

func romanDigit(c byte) int {
	switch c {
	case 'i':
		return 1
	case 'v':
		return 5
	case 'x':
		return 10
	case 'l':
		return 50
	}
	return 0
}

func toRoman(n int) string {
	var b strings.Builder
	for _, d := range []struct {
		v int
		s string
	}{{50, "l"}, {40, "xl"}, {10, "x"}, {9, "ix"}, {5, "v"}, {4, "iv"}, {1, "i"}} {
		for n >= d.v {
			b.WriteString(d.s)
			n -= d.v
		}
	}
	return b.String()
}

// ordinalText writes an arrondissement number the French way: 1er, 2e.
func ordinalText(n int) string {
	if n == 1 {
		return "1er"
	}
	return strconv.Itoa(n) + "e"
}
