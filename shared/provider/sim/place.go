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
// category c (whose display name may come from the query).
func (w *World) place(b *batch, i int, c *category, d int) provider.Place {
	p := &b.places[i]
	k := b.placeKey(i)
	tok := w.token(b, i)
	l := langOf(b.s.country)
	name := w.nameOf(k, b.s, c, l)
	n := p.reviews(d)
	out := provider.Place{
		ID:          idPrefix + tok,
		Name:        name,
		Address:     w.address(k, b.s, l),
		Phone:       w.phone(b, i),
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

func (c *category) displayIn(l lang) string {
	if l == langFR {
		return c.display
	}
	return c.en
}

func round7(x float64) float64 { return math.Round(x*1e7) / 1e7 }

// town is the name a settlement's addresses give: a district's city.
func (w *World) town(s *settlement) string {
	p := w.g.Place(s.id)
	if p.Kind == gazetteer.District {
		return w.g.Place(p.Parent).Name
	}
	return p.Name
}

// nameOf draws the place's name: a template of its category (seven times
// in ten) or a generic one, filled with surnames, first names, landmarks
// and its town.
func (w *World) nameOf(k key, s *settlement, c *category, l lang) string {
	r := k.str("name").rng()
	var templates []string
	switch {
	case c.unknown && l != langFR:
		templates = []string{"{S} & {S2}", "{F} {S}", "{S} Services"}
	case c.unknown:
		templates = unknownNames
	case l != langFR || r.chance(0.3):
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
	town := w.town(s)
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

// address draws a street address in the settlement: French style with a
// postal code of the commune or arrondissement in France, the country's
// style and name elsewhere.
func (w *World) address(k key, s *settlement, l lang) string {
	r := k.str("address").rng()
	maxNo := 40
	if s.pop > 5000 {
		maxNo = 150
	}
	no := strconv.Itoa(r.between(1, maxNo))
	if l == langFR && r.chance(0.06) {
		no += " bis"
	}
	street := pick(&r, streets[l])
	town := w.town(s)
	var line string
	switch l {
	case langFR, langEN:
		line = no + " " + street
	default:
		line = street + " " + no
	}
	if s.country == "FRA" {
		if pcs := w.g.Place(s.id).Postcodes; len(pcs) > 0 {
			return line + ", " + pick(&r, pcs) + " " + town
		}
		return line + ", " + town
	}
	if id, ok := w.g.Country(s.country); ok {
		return line + ", " + town + ", " + w.g.Place(id).Name
	}
	return line + ", " + town
}

// phone draws the listing's phone: missing, foreign (French places only),
// the shared line of its block, or a national number of its own.
func (w *World) phone(b *batch, i int) string {
	r := b.placeKey(i).str("phone").rng()
	u := r.float()
	switch {
	case u < phoneMissing:
		return ""
	case u < phoneMissing+phoneForeign && b.s.country == "FRA":
		return fill(&r, pick(&r, foreignPhones))
	}
	if bk := b.key.str("shared line").int(int64(i / sharedBlock)); bk.float() < phoneShared {
		br := bk.str("phone").rng()
		return nationalPhone(&br, b.s, false)
	}
	return nationalPhone(&r, b.s, r.chance(phoneMobile))
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
