package opendata

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The Overpass QL of one row. Two shapes, the same filters:
//
// With the row's coordinates:
//
//	[out:json][timeout:25];
//	nwr(around:300,45.7900000,4.8500000)[~"^(shop|amenity|craft|office|tourism|healthcare|leisure)$"~"."]["name"~"<word>",i];
//	out tags center 500;
//
// With only a postcode and/or a commune: the areas of the postcode (OSM
// derives an area from every relation tagged postal_code or addr:postcode)
// and of the commune's administrative boundary, and the elements whose
// own addr:postcode says the postcode (so that a postcode without a
// mapped boundary still finds what carries its address):
//
//	[out:json][timeout:25];
//	(area["postal_code"="69300"];area["addr:postcode"="69300"];
//	 area["boundary"="administrative"]["admin_level"="8"]["name"="Caluire-et-Cuire"];)->.a;
//	(nwr(area.a)[~"^(shop|...)$"~"."]["name"~"<word>",i];
//	 nwr["addr:postcode"="69300"][~"^(shop|...)$"~"."]["name"~"<word>",i];);
//	out tags center 500;
//
// "out tags center" prints each element's id, its tags, a node's lat/lon
// and a way's or relation's "center" (its bounding box's centre), and
// none of a way's node list: the smallest answer that locates a POI.
//
// The name filter (nameFilters) is one or two ["name"~<word>,i] filters,
// or one alternation of words: POSIX extended regular expressions
// (Overpass compiles them with regcomp in the C.UTF-8 locale) that find
// the names holding the row's significant words. The server filters
// coarsely; the match rule (match.go) decides.

// businessKeys are the keys a business's OSM element carries (shop=bakery,
// amenity=restaurant, craft=plumber, office=notary, tourism=hotel,
// healthcare=physiotherapist, leisure=fitness_centre); a street or a bus
// stop named like the business has none of them.
var businessKeys = []string{"shop", "amenity", "craft", "office", "tourism", "healthcare", "leisure"}

// businessKeyPattern is the key regular expression of the business
// filter.
var businessKeyPattern = "^(" + strings.Join(businessKeys, "|") + ")$"

// Search is what one row asks the open data: a name near a point, or in
// a postcode's or commune's area.
type Search struct {
	// Name is the business's name as the row gives it.
	Name string
	// Point is the row's position; nil when it has none.
	Point *LatLon
	// Radius is the around distance in metres, with a Point.
	Radius float64
	// Postcode and Commune place the row when it has no Point.
	Postcode, Commune string
}

// Bounds of a query.
const (
	// maxPatternWords is how many of the name's words the server-side
	// filter asks for (the longest ones).
	maxPatternWords = 3
	// minPatternWord is the least length of a word in the filter: a
	// shorter one ("sa", "du") would match inside most names.
	minPatternWord = 3
	// maxRadius bounds the around distance a caller may ask for.
	maxRadius = 5000
)

// ErrNoQuery: the row cannot be asked (no usable name, or no place).
var ErrNoQuery = errors.New("opendata: nothing to ask: the row has no usable name or location")

// QL is the Overpass QL of the search, with the server-side timeout (in
// seconds) and output limit (elements).
func (s Search) QL(timeout, limit int) (string, error) {
	nameFilter, ok := nameFilters(s.Name)
	if !ok {
		return "", ErrNoQuery
	}
	filters := `[~` + Quote(businessKeyPattern) + `~"."]` + nameFilter
	var b strings.Builder
	fmt.Fprintf(&b, "[out:json][timeout:%d];\n", timeout)
	switch {
	case s.Point != nil:
		if !s.Point.Valid() || !(s.Radius > 0) || s.Radius > maxRadius {
			return "", ErrNoQuery
		}
		fmt.Fprintf(&b, "nwr(around:%s,%s,%s)%s;\n", num(s.Radius, -1), num(s.Point.Lat, 7), num(s.Point.Lon, 7), filters)
	case validPostcode(s.Postcode) || strings.TrimSpace(s.Commune) != "":
		pc := strings.TrimSpace(s.Postcode)
		if !validPostcode(pc) {
			pc = ""
		}
		b.WriteString("(\n")
		if pc != "" {
			fmt.Fprintf(&b, "  area[%s=%s];\n", Quote("postal_code"), Quote(pc))
			fmt.Fprintf(&b, "  area[%s=%s];\n", Quote("addr:postcode"), Quote(pc))
		}
		if c := strings.TrimSpace(s.Commune); c != "" {
			fmt.Fprintf(&b, "  area[%s=%s][%s=%s][%s=%s];\n", Quote("boundary"), Quote("administrative"),
				Quote("admin_level"), Quote("8"), Quote("name"), Quote(c))
		}
		b.WriteString(")->.a;\n(\n")
		fmt.Fprintf(&b, "  nwr(area.a)%s;\n", filters)
		if pc != "" {
			fmt.Fprintf(&b, "  nwr[%s=%s]%s;\n", Quote("addr:postcode"), Quote(pc), filters)
		}
		b.WriteString(");\n")
	default:
		return "", ErrNoQuery
	}
	fmt.Fprintf(&b, "out tags center %d;\n", limit)
	return b.String(), nil
}

// num writes a coordinate with a fixed number of decimals, or a distance
// with as many as it needs (prec -1): never an exponent, which the QL
// parser would not read.
func num(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }

// validPostcode accepts the postal codes a row can carry: 3 to 10 ASCII
// letters, digits, spaces or hyphens, with a digit ("69300", "1000",
// "SW1A 1AA", "L-1450").
func validPostcode(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 3 || len(s) > 10 {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == ' ', c == '-':
		default:
			return false
		}
	}
	return digit
}

// Quote writes s as an Overpass QL string literal. The QL tokenizer
// (tokenizer_utils.cc, get_text_token) reads a backslash followed by n as
// a newline, by t as a tab, by u and four hex digits as that character,
// and by anything else as that character: so a backslash and a double
// quote are escaped, newline and tab spelled \n and \t, and the other
// control characters (which no name holds) dropped. Non-ASCII text goes
// as UTF-8.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// RegexpLiteral escapes s for a POSIX extended regular expression: every
// metacharacter (. [ ] ( ) { } * + ? ^ $ | \) is preceded by a backslash,
// so the expression matches s itself. (Quote then escapes the backslashes
// again for the QL string.)
func RegexpLiteral(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`.[](){}*+?^$|\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// nameFilters is the server-side filter of a name: the elements whose
// name holds its significant words, each letter matched in its accented
// forms and either case (wordPattern). A name of one or two significant
// words needs them all, one ["name"~...,i] filter each: a near name
// (NearThreshold 0.6) holds both words of a two-word name anyway. A
// longer name needs any of its three longest words, in one alternation:
// a near name may lack one. Words shorter than minPatternWord are not
// asked for (they would match inside most names); a name with no longer
// word asks for its whole normalised form. ok is false for a name with
// nothing to search.
func nameFilters(name string) (string, bool) {
	words := significantWords(name)
	if len(words) > 2 {
		p, ok := namePattern(name)
		if !ok {
			return "", false
		}
		return "[" + Quote("name") + "~" + Quote(p) + ",i]", true
	}
	var b strings.Builder
	for _, w := range words {
		if utf8.RuneCountInString(w) >= minPatternWord {
			b.WriteString("[" + Quote("name") + "~" + Quote(wordPattern(w)) + ",i]")
		}
	}
	if b.Len() == 0 {
		n := normName(name)
		if n == "" {
			return "", false
		}
		b.WriteString("[" + Quote("name") + "~" + Quote(wordPattern(n)) + ",i]")
	}
	return b.String(), true
}

// namePattern is the alternation of a name's significant words (at most
// maxPatternWords, the longest first, each of at least minPatternWord
// characters), each a wordPattern; a name with no such word uses its
// whole normalised form. ok is false for a name with nothing to search.
func namePattern(name string) (string, bool) {
	words := significantWords(name)
	var picked []string
	for _, w := range words {
		if utf8.RuneCountInString(w) >= minPatternWord {
			picked = append(picked, w)
		}
	}
	if len(picked) == 0 {
		n := normName(name)
		if n == "" {
			return "", false
		}
		picked = []string{n}
	}
	// The longest words are the most telling; ties in the name's order.
	slices.SortStableFunc(picked, func(a, b string) int {
		return utf8.RuneCountInString(b) - utf8.RuneCountInString(a)
	})
	picked = picked[:min(len(picked), maxPatternWords)]
	parts := make([]string, len(picked))
	for i, w := range picked {
		parts[i] = wordPattern(w)
	}
	if len(parts) == 1 {
		return parts[0], true
	}
	return "(" + strings.Join(parts, ")|(") + ")", true
}

// letterForms are the forms of a normalised letter a name may be written
// with in OSM, lower and upper case (the ,i flag folds ASCII case only,
// and glibc's folding of accented capitals depends on its version).
var letterForms = map[rune]string{
	'a': "aàâäáãåAÀÂÄÁÃÅ",
	'c': "cçCÇ",
	'e': "eéèêëEÉÈÊË",
	'i': "iîïíìIÎÏÍÌ",
	'n': "nñNÑ",
	'o': "oôöóòõøOÔÖÓÒÕØ",
	'u': "uùûüúUÙÛÜÚ",
	'y': "yÿýYŸÝ",
}

// ligatures are the letter pairs Normalize spells out of one character.
var ligatures = map[string]string{"oe": "œŒ", "ae": "æÆ"}

// wordPattern is the regular expression of a normalised word, or of a
// normalised name (spaces match any run of other characters: "de la"
// matches "de-la" and "d'la").
func wordPattern(w string) string {
	var b strings.Builder
	rs := []rune(w)
	for i := 0; i < len(rs); i++ {
		if i+1 < len(rs) {
			if lig, ok := ligatures[string(rs[i:i+2])]; ok {
				b.WriteString("(" + letterClass(rs[i]) + letterClass(rs[i+1]) + "|" + strings.Join(splitRunes(lig), "|") + ")")
				i++
				continue
			}
		}
		if rs[i] == ' ' {
			b.WriteString(".*")
			continue
		}
		b.WriteString(letterClass(rs[i]))
	}
	return b.String()
}

func letterClass(r rune) string {
	if forms, ok := letterForms[r]; ok {
		return "[" + forms + "]"
	}
	return RegexpLiteral(string(r))
}

func splitRunes(s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// LatLon is a WGS 84 position.
type LatLon struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

// Valid tells whether the position is a finite point on the map and not
// the (0, 0) of a missing value.
func (p LatLon) Valid() bool {
	return !math.IsNaN(p.Lat) && !math.IsNaN(p.Lon) && p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180 &&
		(p.Lat != 0 || p.Lon != 0)
}
