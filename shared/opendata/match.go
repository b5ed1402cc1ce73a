package opendata

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"github.com/prospectdata/svc/shared/bizname"
	"github.com/prospectdata/svc/shared/gazetteer"
)

// The match rule: which OSM element, if any, is the row's business.
//
//  1. Names are compared normalised: gazetteer.Normalize (lower case,
//     accents and marks removed, œ spelled oe, punctuation and hyphens a
//     space, "st"/"ste" spelled saint/sainte), then legal-form words
//     dropped (SARL, SAS, EURL, SELARL, SCP, EI, GmbH, Ltd...).
//  2. name_exact: the two normalised names are equal ("BOULANGERIE DU
//     MARCHÉ SARL" is "Boulangerie du Marché").
//  3. name_near: the names' significant words (the normalised words
//     without articles and prepositions: le, la, les, l, de, du, des, d,
//     et, au, aux, chez, ...) overlap by a Jaccard index of at least
//     NearThreshold (0.6), two words counting as one when equal or, from
//     five letters on, one edit apart ("boulengerie", "fleurs"/"fleur").
//     "Boulangerie Pâtisserie Martin" and "Boulangerie Martin" (2/3) are
//     near; "Boulangerie Martin" and "Boulangerie" (1/2) are not.
//  4. Place: with the row's coordinates, an element farther than the
//     radius (300 m by default) is no candidate; without them the area
//     search has confined the elements to the postcode's or the
//     commune's area (a whole city: Lyon's holds its nine
//     arrondissements).
//  5. Identity: what the row says of itself and the element says of
//     itself must not disagree. An element is contradicted, and dropped,
//     when it gives another phone number (compared on the last nine
//     digits) or another website (compared on the host, "www." aside)
//     than the row's, another addr:postcode or addr:city, or another
//     house number or street when both give them (abbreviations expanded:
//     "av." is "avenue"). An element that is not contradicted confirms
//     the row by the same phone or website (3), the same house number
//     and street (2), the same postcode (1), or nothing (0).
//  6. The best kind wins (an exact name far away beats a near name next
//     door); among its candidates only the most confirmed compete. Unless
//     they confirm the row by a contact or the street address (2 or
//     more), the match is refused when a candidate of that kind was
//     dropped as contradicted (a homonym proven to be another business:
//     a chain, a common name) or when the answer reached its element limit
//     (candidates may be missing).
//  7. The nearest of them is the business; with the row's coordinates,
//     another one within TieMargin (25 m) of the nearest one's distance is
//     a tie, and without coordinates all of them are: a tie is refused
//     unless the tied elements agree (no two different websites, phones
//     or emails), being one business mapped twice (a shop's node and its
//     building's way); then the one with most contacts, else the nearest,
//     stands for it.

// Kinds of opendata_match.
const (
	MatchExact = "name_exact"
	MatchNear  = "name_near"
	MatchNone  = "none"
)

// Defaults of the match rule.
const (
	// DefaultRadius is how far from the row's coordinates an element may
	// lie, in metres: a listing's pin and an OSM node of the same shop
	// are within a few tens of metres; 300 m covers a long building or a
	// pin set at the street's centre.
	DefaultRadius = 300.0
	// NearThreshold is the least Jaccard index of the significant words
	// of a name_near match.
	NearThreshold = 0.6
	// TieMargin is the distance within which two candidates of the same
	// kind are a tie, in metres.
	TieMargin = 25.0
)

// normWords is the name normalised and cut into words, legal forms
// dropped. A name made only of legal-form words keeps them.
func normWords(name string) []string {
	all := strings.Fields(gazetteer.Normalize(name))
	out := make([]string, 0, len(all))
	for _, w := range all {
		if !bizname.Legal(w) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// normName is the name normalised, legal forms dropped: what name_exact
// compares.
func normName(name string) string { return strings.Join(normWords(name), " ") }

// significantWords are the name's normalised words without articles and
// prepositions, each once, in order. A name of stop words only keeps them.
func significantWords(name string) []string {
	all := normWords(name)
	var out []string
	for _, w := range all {
		if !bizname.Stop(w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		for _, w := range all {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// NameKind classifies two names: MatchExact, MatchNear or MatchNone.
func NameKind(row, osm string) string {
	a, b := normName(row), normName(osm)
	if a == "" || b == "" {
		return MatchNone
	}
	if a == b {
		return MatchExact
	}
	if jaccard(significantWords(row), significantWords(osm)) >= NearThreshold {
		return MatchNear
	}
	return MatchNone
}

// jaccard is |a ∩ b| / |a ∪ b| with similar words counted as one, each
// word of b pairing with at most one of a.
func jaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	used := make([]bool, len(b))
	shared := 0
	for _, x := range a {
		for j, y := range b {
			if !used[j] && similarWord(x, y) {
				used[j] = true
				shared++
				break
			}
		}
	}
	return float64(shared) / float64(len(a)+len(b)-shared)
}

// similarWord: equal, or one edit apart when both have five letters or
// more.
func similarWord(x, y string) bool {
	if x == y {
		return true
	}
	rx, ry := []rune(x), []rune(y)
	if len(rx) < 5 || len(ry) < 5 {
		return false
	}
	return withinOneEdit(rx, ry)
}

// withinOneEdit tells whether one insertion, deletion or substitution
// turns x into y.
func withinOneEdit(x, y []rune) bool {
	if len(x) > len(y) {
		x, y = y, x
	}
	if len(y)-len(x) > 1 {
		return false
	}
	i := 0
	for i < len(x) && x[i] == y[i] {
		i++
	}
	if len(x) == len(y) {
		return slices.Equal(x[i+1:], y[i+1:])
	}
	return slices.Equal(x[i:], y[i+1:])
}

// Row is what the match rule knows of a row.
type Row struct {
	Name string
	// Point is the row's position, nil when unknown.
	Point *LatLon
	// Postcode, Commune, HouseNumber and Street come from its columns or
	// its address ("16 rue Émile Zola, 69300 Caluire-et-Cuire").
	Postcode, Commune   string
	HouseNumber, Street string
	// Phone and Website are the row's own (telephone, site_web), when it
	// has them: evidence of which business it is.
	Phone, Website string
}

// postcodeRe finds a French postcode in an address.
var postcodeRe = regexp.MustCompile(`\b\d{5}\b`)

// houseRe splits an address's first part into its number ("16", "16 bis",
// "16B") and street.
var houseRe = regexp.MustCompile(`^\s*(\d+(?:\s*(?:bis|ter|quater|[a-zA-Z]))?)\b[\s,]*(.+?)\s*$`)

// ParseAddress reads a French-style address: "16 rue Émile Zola, 69300
// Caluire-et-Cuire[, France]" gives house number "16", street "rue Émile
// Zola", postcode "69300" and commune "Caluire-et-Cuire". The postcode is
// the last five-digit number; the commune the words after it up to a
// comma. Parts it cannot find are empty.
func ParseAddress(addr string) (house, street, postcode, commune string) {
	if locs := postcodeRe.FindAllStringIndex(addr, -1); len(locs) > 0 {
		loc := locs[len(locs)-1]
		postcode = addr[loc[0]:loc[1]]
		commune = strings.TrimSpace(strings.Split(addr[loc[1]:], ",")[0])
	}
	parts := strings.Split(addr, ",")
	first := strings.TrimSpace(parts[0])
	if postcode != "" && strings.Contains(first, postcode) {
		return "", "", postcode, commune // no street part
	}
	// "3B, place Bellecour": the number alone, then the street.
	if houseOnlyRe.MatchString(first) && len(parts) > 1 {
		if next := strings.TrimSpace(parts[1]); next != "" && (postcode == "" || !strings.Contains(next, postcode)) {
			return first, next, postcode, commune
		}
	}
	if m := houseRe.FindStringSubmatch(first); m != nil {
		return strings.TrimSpace(m[1]), m[2], postcode, commune
	}
	return "", first, postcode, commune
}

var houseOnlyRe = regexp.MustCompile(`^\d+(?:\s*(?:bis|ter|quater|[a-zA-Z]))?$`)

// candidate is an element the rule considers: its kind, its distance
// (-1 when the row has no coordinates) and how it confirms the row.
type candidate struct {
	e         *Element
	kind      string
	dist      float64
	confirmed int
}

// Levels of confirmation (rule 5).
const (
	confirmNone = iota
	confirmPostcode
	confirmStreet
	confirmContact
)

// MatchOptions tune the rule.
type MatchOptions struct {
	// Radius is the distance limit with coordinates (DefaultRadius when
	// 0).
	Radius float64
	// Truncated says the answer reached its element limit: some
	// candidates may be missing from it.
	Truncated bool
}

// Match applies the rule to the elements of an answer: the element that
// is the row's business and the kind of match, or nil and MatchNone.
func Match(r Row, elems []Element, o MatchOptions) (*Element, string) {
	if o.Radius <= 0 {
		o.Radius = DefaultRadius
	}
	var cands []candidate
	contradicted := map[string]bool{} // kinds of the candidates dropped
	for i := range elems {
		e := &elems[i]
		if !e.isBusiness() {
			continue
		}
		kind := NameKind(r.Name, e.Tags["name"])
		if kind == MatchNone {
			continue
		}
		c := candidate{e: e, kind: kind, dist: -1}
		if r.Point != nil {
			p, ok := e.Position()
			if !ok {
				continue
			}
			if c.dist = distance(*r.Point, p); c.dist > o.Radius {
				continue
			}
		}
		if contradicts(r, e) {
			contradicted[kind] = true
			continue
		}
		c.confirmed = confirms(r, e)
		cands = append(cands, c)
	}
	best := MatchExact
	if !slices.ContainsFunc(cands, func(c candidate) bool { return c.kind == MatchExact }) {
		best = MatchNear
	}
	cands = slices.DeleteFunc(cands, func(c candidate) bool { return c.kind != best })
	if len(cands) == 0 {
		return nil, MatchNone
	}
	top := slices.MaxFunc(cands, func(x, y candidate) int { return cmp.Compare(x.confirmed, y.confirmed) }).confirmed
	cands = slices.DeleteFunc(cands, func(c candidate) bool { return c.confirmed < top })
	if top < confirmStreet && (contradicted[MatchExact] || contradicted[best] || o.Truncated) {
		return nil, MatchNone
	}
	// Nearest first, then the one with most contacts; the element's type
	// and id break ties, so an answer's order never changes the outcome.
	slices.SortFunc(cands, func(x, y candidate) int {
		if c := cmp.Compare(x.dist, y.dist); c != 0 {
			return c
		}
		if c := cmp.Compare(y.e.contactCount(), x.e.contactCount()); c != 0 {
			return c
		}
		if c := cmp.Compare(x.e.Type, y.e.Type); c != 0 {
			return c
		}
		return cmp.Compare(x.e.ID, y.e.ID)
	})
	for _, t := range cands[1:] {
		if r.Point != nil && t.dist-cands[0].dist > TieMargin {
			break
		}
		if !agree(cands[0].e, t.e) {
			return nil, MatchNone
		}
	}
	return cands[0].e, best
}

// distance is the great-circle distance in metres.
func distance(a, b LatLon) float64 {
	return geo.DistanceHaversine(orb.Point{a.Lon, a.Lat}, orb.Point{b.Lon, b.Lat})
}

// contradicts tells whether the element says another business or
// another place than the row: another phone or website, another
// postcode or town, another house number or street when both give them.
func contradicts(r Row, e *Element) bool {
	if a, b := phoneKey(r.Phone), phoneKey(e.Phone()); a != "" && b != "" && a != b {
		return true
	}
	if a, b := hostOf(r.Website), hostOf(e.Website()); a != "" && b != "" && a != b {
		return true
	}
	if pc := strings.TrimSpace(e.Tags["addr:postcode"]); pc != "" && r.Postcode != "" && postcodeKey(pc) != postcodeKey(r.Postcode) {
		return true
	}
	if city := gazetteer.Normalize(e.Tags["addr:city"]); city != "" && r.Commune != "" {
		town := gazetteer.Normalize(r.Commune)
		// "Lyon" and "Lyon 3e Arrondissement" are one town.
		if !strings.Contains(city, town) && !strings.Contains(town, city) {
			return true
		}
	}
	hn, st := e.Tags["addr:housenumber"], e.Tags["addr:street"]
	if r.HouseNumber != "" && r.Street != "" && hn != "" && st != "" {
		return numberKey(hn) != numberKey(r.HouseNumber) || streetKey(st) != streetKey(r.Street)
	}
	return false
}

// confirms is how the element, not contradicting the row, confirms it
// (rule 5).
func confirms(r Row, e *Element) int {
	if a := phoneKey(r.Phone); a != "" && a == phoneKey(e.Phone()) {
		return confirmContact
	}
	if a := hostOf(r.Website); a != "" && a == hostOf(e.Website()) {
		return confirmContact
	}
	hn, st := e.Tags["addr:housenumber"], e.Tags["addr:street"]
	if r.HouseNumber != "" && r.Street != "" && hn != "" && st != "" {
		return confirmStreet // not contradicted: the same
	}
	if pc := strings.TrimSpace(e.Tags["addr:postcode"]); pc != "" && r.Postcode != "" {
		return confirmPostcode
	}
	return confirmNone
}

func postcodeKey(pc string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(pc), " ", ""))
}

// numberKey is a house number's digits ("12 bis", "12B" and "12" are one
// building's).
func numberKey(n string) string {
	n = strings.TrimSpace(n)
	i := 0
	for i < len(n) && n[i] >= '0' && n[i] <= '9' {
		i++
	}
	if i == 0 {
		return gazetteer.Normalize(n)
	}
	return n[:i]
}

// streetAbbrev are the usual abbreviations of street types.
var streetAbbrev = map[string]string{
	"r": "rue", "av": "avenue", "ave": "avenue", "bd": "boulevard", "bld": "boulevard", "boul": "boulevard",
	"pl": "place", "ch": "chemin", "che": "chemin", "rte": "route", "imp": "impasse", "all": "allee",
	"crs": "cours", "fbg": "faubourg", "qu": "quai", "sq": "square", "pass": "passage", "prom": "promenade",
}

// streetKey is a street's name normalised, its type's abbreviation
// expanded.
func streetKey(s string) string {
	words := strings.Fields(gazetteer.Normalize(s))
	for i, w := range words {
		if full, ok := streetAbbrev[w]; ok {
			words[i] = full
		}
	}
	return strings.Join(words, " ")
}

// agree tells whether two elements can be one business: no contact they
// both give differs.
func agree(a, b *Element) bool {
	for _, f := range []func(*Element) string{
		func(e *Element) string { return hostOf(e.Website()) },
		func(e *Element) string { return phoneKey(e.Phone()) },
		func(e *Element) string { return strings.ToLower(e.Email()) },
	} {
		x, y := f(a), f(b)
		if x != "" && y != "" && x != y {
			return false
		}
	}
	return true
}

// hostOf is a website's host without "www.", lower case; "" for a page
// on a platform (a social network, a directory, a site builder's shared
// host), whose host says nothing of which business it is.
func hostOf(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	u = strings.SplitN(u, "/", 2)[0]
	u = strings.SplitN(u, ":", 2)[0]
	u = strings.TrimPrefix(u, "www.")
	labels := strings.Split(u, ".")
	if len(labels) >= 2 && platforms[labels[len(labels)-2]] {
		return ""
	}
	return u
}

// platforms are the registrable names of hosts that serve many
// businesses' pages.
var platforms = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("facebook instagram linkedin twitter x tiktok youtube pagesjaunes tripadvisor yelp thefork " +
		"lafourchette doctolib planity treatwell booking ubereats deliveroo just-eat justeat linktr google goo wixsite " +
		"business site jimdo jimdofree webnode e-monsite") {
		m[w] = true
	}
	return m
}()

// phoneKey is the last nine digits of a number: "+33 4 78 12 34 56" and
// "04 78 12 34 56" agree. A number of fewer than six digits (a short
// code, a fragment) has no key.
func phoneKey(p string) string {
	var d []byte
	for i := 0; i < len(p); i++ {
		if p[i] >= '0' && p[i] <= '9' {
			d = append(d, p[i])
		}
	}
	if len(d) < 6 {
		return ""
	}
	if len(d) > 9 {
		d = d[len(d)-9:]
	}
	return string(d)
}
