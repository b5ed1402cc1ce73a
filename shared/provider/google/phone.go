package google

import (
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/prospectdata/svc/shared/phonenum"
)

// addressComponent is one part of a place's address (Place.AddressComponent):
// the country's has the type "country" and its ISO 3166-1 alpha-2 code as
// shortText.
type addressComponent struct {
	LongText  string   `json:"longText"`
	ShortText string   `json:"shortText"`
	Types     []string `json:"types"`
}

// country is the place's own country (alpha-2, upper case) from its
// address components; "" when they do not name one.
func (p place) country() string {
	for _, c := range p.AddressComponents {
		for _, t := range c.Types {
			if t == "country" && len(c.ShortText) == 2 {
				return strings.ToUpper(c.ShortText)
			}
		}
	}
	return ""
}

// phone is the place's number in international format, which carries its
// calling code: the engine keys and flags numbers against the job's
// country, and a national number would take the job's country whatever
// the place's (a Belgian "081 34 08 69" in a French scrape would read as a
// French number and never be flagged foreign).
//
// internationalPhoneNumber is taken as Google formats it. Without it, the
// national number is parsed with the place's own country (its address's),
// never the job's; when the address names no country or the number does
// not parse there, the national number is returned as listed (the old
// reading, the best left).
func (p place) phone() string {
	if s := strings.TrimSpace(p.InternationalPhoneNumber); s != "" {
		return s
	}
	national := strings.TrimSpace(p.NationalPhoneNumber)
	if national == "" {
		return ""
	}
	country := p.country()
	if phonenum.Region(country) == "" {
		return national
	}
	n, err := phonenum.Parse(national, country)
	if err != nil || !phonenumbers.IsPossibleNumber(n) {
		return national
	}
	return phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
}
