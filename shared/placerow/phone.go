package placerow

import (
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/prospectdata/svc/shared/phonenum"
)

// ClassifyPhone reads a listed number against the job's country (alpha-3),
// as Row.PhoneE164 and Row.PhoneForeign keep it: usable when it parses and
// is a possible number, then e164 is its E.164 form ("" otherwise);
// foreign when it carries another country's calling code (a country's
// overseas codes are its own: phonenum.Domestic). A national number (no
// calling code) takes the country's, so it is never foreign. An unknown
// country has no region: every number is then unusable, so none is
// dropped as foreign.
func ClassifyPhone(raw, country string) (e164 string, foreign bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || phonenum.Region(country) == "" {
		return "", false
	}
	n, err := phonenum.Parse(raw, country)
	if err != nil || !phonenumbers.IsPossibleNumber(n) {
		return "", false
	}
	return phonenumbers.Format(n, phonenumbers.E164), !phonenum.Domestic(n, country)
}
