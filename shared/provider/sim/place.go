package sim

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider"
)

// websiteShare is the share of places with a website.
const websiteShare = 0.6

// place shows the batch's i-th place as the map lists it on day d, under
// category c (whose display name may come from the query). Its name,
// address and phone follow from where it is (whereOf).
func (w *World) place(b *batch, i int, c *category, d int) provider.Place {
	p := &b.places[i]
	k := b.placeKey(i)
	tok := w.token(b, i)
	l := langOf(b.s.country)
	wh := w.whereOf(b, i)
	name := w.nameAt(k, wh, c, l)
	n := p.reviews(d)
	out := provider.Place{
		ID:          idPrefix + tok,
		Name:        name,
		Address:     w.address(k, wh),
		Phone:       w.phone(b, i, wh),
		Rating:      p.rating(k, n),
		ReviewCount: n,
		Category:    c.displayIn(l),
		Lat:         round7(p.pt[1]),
		Lon:         round7(p.pt[0]),
		MapsURL:     "https://maps.sim.test/place/" + tok,
	}
	if k.str("website").float() < websiteShare {
		out.Website = "https://" + siteHost(name, tok) + "/"
	}
	return out
}

// whereOf locates the batch's i-th place.
func (w *World) whereOf(b *batch, i int) where { return w.whereIs(b.s, b.places[i].pt) }

// displayIn is the category's name in the language: the French word, the
// trade's word in German, Spanish or Italian, the English one elsewhere.
func (c *category) displayIn(l lang) string {
	if l == langFR {
		return c.display
	}
	if t, ok := c.trades[l]; ok {
		return t.display
	}
	return c.en
}

func round7(x float64) float64 { return math.Round(x*1e7) / 1e7 }

// nameOf draws the name of the batch's i-th place.
func (w *World) nameOf(b *batch, i int, c *category) string {
	return w.nameAt(b.placeKey(i), w.whereOf(b, i), c, langOf(b.s.country))
}

// nameAt draws a place's name: in French a template of its category
// (seven times in ten) or a generic one, elsewhere one of its trade's
// templates in the language, filled with surnames, first names,
// landmarks and its town.
func (w *World) nameAt(k key, wh where, c *category, l lang) string {
	r := k.str("name").rng()
	var templates []string
	switch {
	case c.unknown && l != langFR:
		templates = []string{"{S} & {S2}", "{F} {S}", "{S} Services"}
	case c.unknown:
		templates = unknownNames
	case l != langFR:
		templates = c.trades[l].names
		if len(templates) == 0 { // a language without trades
			templates = c.trades[langEN].names
		}
	case r.chance(0.3):
		templates = genericNames
	default:
		templates = c.names
	}
	tpl := pick(&r, templates)
	sur := pick(&r, surnames[l])
	sur2 := pick(&r, surnames[l])
	for sur2 == sur {
		sur2 = pick(&r, surnames[l])
	}
	town := wh.town
	vals := placeholders{
		"D": c.displayIn(l), "S": sur, "S2": sur2, "F": pick(&r, firstNames[l]),
		"L": pick(&r, lieux[l]), "A": pick(&r, adjectives[l]), "T": ofTown(town, l), "t": town,
	}
	name := strings.Join(strings.Fields(vals.fill(tpl)), " ")
	if l == langFR {
		name = elide(name)
	}
	return name
}

// placeholders are the values of a name template's {X} fields.
type placeholders map[string]string

// fill replaces the template's fields ("{S}") with their values.
func (ph placeholders) fill(tpl string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		j := strings.IndexByte(tpl[i+1:], '}')
		if i < 0 || j < 0 {
			b.WriteString(tpl)
			return b.String()
		}
		b.WriteString(tpl[:i])
		b.WriteString(ph[tpl[i+1:i+1+j]])
		tpl = tpl[i+2+j:]
	}
}

// ofTown is "of <town>" in the language: "de Lyon", "d'Annecy", "du
// Havre".
func ofTown(town string, l lang) string {
	if l != langFR {
		return town
	}
	switch {
	case strings.HasPrefix(town, "Le "):
		return "du " + town[3:]
	case strings.HasPrefix(town, "Les "):
		return "des " + town[4:]
	}
	return "de " + town
}

// elide writes "de" before a vowel as "d'" (Le Fournil d'Antoine).
func elide(s string) string {
	if !strings.Contains(s, "de ") {
		return s
	}
	words := strings.Split(s, " ")
	out := words[:0:0]
	for i := 0; i < len(words); i++ {
		if words[i] == "de" && i+1 < len(words) && startsWithVowel(words[i+1]) {
			out = append(out, "d'"+words[i+1])
			i++
			continue
		}
		out = append(out, words[i])
	}
	return strings.Join(out, " ")
}

func startsWithVowel(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	base := gazetteer.Normalize(string(r))
	return base != "" && strings.ContainsRune("aeiouyh", rune(base[0]))
}

// address draws a street address where the place is, in its country's
// format, with a postal code of its commune: "12 rue de la République,
// 69003 Lyon", "Gartenstraße 56, 63755 Alzenau", "Calle Mayor 12, 28013
// Madrid", "Via Roma 5, 20121 Milano", "12 High Street, Leeds LS1 4AB",
// "245 Main St, Springfield, IL 62701"; elsewhere "<line>, <town>,
// <country>".
func (w *World) address(k key, wh where) string {
	r := k.str("address").rng()
	c := wh.conv
	l := langOf(c.country)
	maxNo := 40
	if w.g.Place(wh.commune).Population > 5000 {
		maxNo = 150
	}
	no := strconv.Itoa(r.between(1, maxNo))
	if l == langFR && r.chance(0.06) {
		no += " bis"
	}
	ss := streets[l]
	if c.country == "USA" {
		ss = usStreets
	}
	street := pick(&r, ss)
	town := wh.town
	pc := ""
	if len(c.postcodes) > 0 {
		pc = pick(&r, c.postcodes)
	}
	switch c.country {
	case "FRA":
		if pc == "" {
			return no + " " + street + ", " + town
		}
		return no + " " + street + ", " + pc + " " + town
	case "DEU", "ESP", "ITA":
		return street + " " + no + ", " + pc + " " + town
	case "GBR":
		inward := strconv.Itoa(r.intn(10)) + string(gbInward[r.intn(len(gbInward))]) + string(gbInward[r.intn(len(gbInward))])
		return no + " " + street + ", " + town + " " + pc + " " + inward
	case "USA":
		return no + " " + street + ", " + town + ", " + c.state + " " + pc
	}
	line := street + " " + no
	if l == langFR || l == langEN {
		line = no + " " + street
	}
	if id, ok := w.g.Country(c.country); ok {
		return line + ", " + town + ", " + w.g.Place(id).Name
	}
	return line + ", " + town
}

// gbInward are the letters of a British postcode's inward code (never C,
// I, K, M, O or V).
const gbInward = "ABDEFGHJLNPQRSTUWXYZ"

// phone draws the listing's phone: missing, foreign (French places of a
// border department only), the shared line of its block, or a national
// number of its own, of the area where the place is.
func (w *World) phone(b *batch, i int, wh where) string {
	r := b.placeKey(i).str("phone").rng()
	u := r.float()
	switch {
	case u < phoneMissing:
		return ""
	case u < phoneMissing+phoneForeign && b.s.country == "FRA":
		if ps := frBorder[department(w.g.Place(wh.commune).Code)]; len(ps) > 0 {
			return fill(&r, pick(&r, ps))
		}
	}
	if bk := b.key.str("shared line").int(int64(i / sharedBlock)); bk.float() < phoneShared {
		br := bk.str("phone").rng()
		return nationalPhone(&br, wh.conv, false)
	}
	return nationalPhone(&r, wh.conv, r.chance(phoneMobile))
}

// siteHost is the host of a place's website: a slug of its name, then its
// token, under the reserved sim.test domain (RFC 2606), which nothing real
// answers.
func siteHost(name, tok string) string { return slug(name, 40) + "." + tok + ".sim.test" }

// slug is s in lower-case ASCII letters, digits and hyphens, at most n
// bytes, "site" when nothing is left.
func slug(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, r := range gazetteer.Normalize(s) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= n {
			break
		}
	}
	out := strings.Trim(b.String()[:min(b.Len(), n)], "-")
	if out == "" {
		return "site"
	}
	return out
}
