package google

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// category is the row's category of a place: its primaryTypeDisplayName
// (Google's label, in the request's language) when it has one; else the
// label of its first specific type (typeLabel), so that a row never shows
// a raw type code such as "liquor_store".
func (p place) category(lang string) string {
	if p.PrimaryTypeDisplayName != nil {
		if s := strings.TrimSpace(p.PrimaryTypeDisplayName.Text); s != "" {
			return s
		}
	}
	return typeLabel(firstType(p.Types), lang)
}

// noTrade are the types every business has; weakTypes name a family, not
// a trade. The category comes from the first other type, else the first
// family, else the first type.
var (
	noTrade   = map[string]bool{"point_of_interest": true, "establishment": true}
	weakTypes = map[string]bool{"food": true, "store": true, "health": true, "finance": true}
)

// firstType is the place's most specific type.
func firstType(types []string) string {
	for _, t := range types {
		if !noTrade[t] && !weakTypes[t] {
			return t
		}
	}
	for _, t := range types {
		if !noTrade[t] {
			return t
		}
	}
	if len(types) > 0 {
		return types[0]
	}
	return ""
}

// typeLabel is a readable label of a place type code in the language
// (a BCP 47 tag: "fr", "fr-BE"; "" is English, the API's default): the
// French label of typesFR for French, the English overrides of typesEN,
// else the code humanized ("liquor_store" → "Liquor store").
func typeLabel(code, lang string) string {
	code = strings.TrimSpace(code)
	if code == "" {
		return ""
	}
	base := strings.ToLower(lang)
	if i := strings.IndexAny(base, "-_"); i >= 0 {
		base = base[:i]
	}
	if base == "fr" {
		if s, ok := typesFR[code]; ok {
			return s
		}
	}
	if s, ok := typesEN[code]; ok {
		return s
	}
	return humanize(code)
}

// humanize turns a type code into words, the first capitalised.
func humanize(code string) string {
	s := strings.Join(strings.FieldsFunc(code, func(r rune) bool { return r == '_' || r == '-' }), " ")
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return ""
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// typesEN are the English labels that humanize would get wrong.
var typesEN = map[string]string{
	"atm":                     "ATM",
	"bed_and_breakfast":       "Bed & breakfast",
	"bar_and_grill":           "Bar & grill",
	"rv_park":                 "RV park",
	"ev_charging_station":     "EV charging station",
	"cafe":                    "Café",
	"acai_shop":               "Açaí shop",
	"spa":                     "Spa",
	"gym":                     "Gym",
	"veterinary_care":         "Veterinarian",
	"hair_care":               "Hair care",
	"local_government_office": "Local government office",
}
