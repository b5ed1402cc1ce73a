package mentions

import (
	"regexp"
	"strings"
)

var (
	capitalRe = regexp.MustCompile(`(?i)capital(?:\s+social)?(?:\s+(?:de|d'un montant de|fixé à|:))*\s*:?\s*(\d{1,3}(?:[ .]\d{3})+|\d+)(?:,(\d{1,2}))?\s*(€|euros?\b|EUR\b)`)

	rcsWord = `(?:RCS|R\.C\.S\.?|R\.C\.S|[Rr]egistre du [Cc]ommerce(?: et des [Ss]oci[ée]t[ée]s)?)`
	city    = `(\p{Lu}[\p{L}'’\-]*(?:[ \-](?:\p{Lu}[\p{L}'’\-]*|sur|en|le|la|de)){0,3})`
	sirenRe = `(\d{3}[ .]?\d{3}[ .]?\d{3})`
	// "RCS Lyon B 812 345 678", "immatriculée au RCS de Lyon sous le
	// numéro 812 345 678".
	rcsCityNumRe = regexp.MustCompile(rcsWord + `\s*(?:de |d'|du |: ?)?` + city + `\s*,?\s*(?:[AB]\s+)?(?:sous le (?:n°|num[ée]ro)\s*:?\s*|n°\s*:?\s*|:\s*|-\s*)?` + sirenRe + `\b`)
	// "812 345 678 R.C.S. Lyon".
	rcsNumCityRe = regexp.MustCompile(sirenRe + `\s*,?\s*` + rcsWord + `\s*(?:de |d')?` + city)
	// "N° RCS : 812 345 678", a city nowhere near.
	rcsNumRe = regexp.MustCompile(rcsWord + `\s*(?:n°|num[ée]ro)?\s*:?\s*` + sirenRe + `\b`)
	// "RCS Lyon" and the number given as a SIRET elsewhere.
	rcsCityRe  = regexp.MustCompile(rcsWord + `\s*(?:de |d'|du |: ?)?` + city)
	siretRe    = regexp.MustCompile(`(?i)siret\s*(?:n°)?\s*:?\s*(\d{3} ?\d{3} ?\d{3}) ?\d{5}`)
	tvaRe      = regexp.MustCompile(`\bFR ?[0-9A-HJ-NP-Z]{2} ?\d{3} ?\d{3} ?\d{3}\b`)
	spaceRe    = regexp.MustCompile(`\s+`)
	rcsCityEnd = regexp.MustCompile(`\s+(?:[AB]|sous|sous le|de|en|le|la)$`)
)

// capital returns "5000 EUR" for "capital de 5 000,00 €".
func capital(s string) string {
	m := capitalRe.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	amount := strings.NewReplacer(" ", "", ".", "").Replace(m[1])
	amount = strings.TrimLeft(amount, "0")
	if amount == "" {
		return ""
	}
	if cents := m[2]; cents != "" && strings.Trim(cents, "0") != "" {
		if len(cents) == 1 {
			cents += "0"
		}
		amount += "." + cents
	}
	return amount + " EUR"
}

// rcs returns "RCS <city> <SIREN>" as well as the notice lets it be said.
func rcs(s string) string {
	if m := rcsCityNumRe.FindStringSubmatch(s); m != nil {
		return "RCS " + rcsCity(m[1]) + " " + digits(m[2])
	}
	if m := rcsNumCityRe.FindStringSubmatch(s); m != nil {
		return "RCS " + rcsCity(m[2]) + " " + digits(m[1])
	}
	if m := rcsNumRe.FindStringSubmatch(s); m != nil {
		return "RCS " + digits(m[1])
	}
	if m := rcsCityRe.FindStringSubmatch(s); m != nil {
		c := rcsCity(m[1])
		if c == "" {
			return ""
		}
		if sm := siretRe.FindStringSubmatch(s); sm != nil {
			return "RCS " + c + " " + digits(sm[1])
		}
		return "RCS " + c
	}
	return ""
}

func rcsCity(c string) string {
	for {
		t := rcsCityEnd.ReplaceAllString(c, "")
		if t == c {
			break
		}
		c = t
	}
	return strings.TrimSpace(c)
}

// tva returns the VAT number without spaces.
func tva(s string) string {
	m := tvaRe.FindString(s)
	return strings.ReplaceAll(m, " ", "")
}

func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
