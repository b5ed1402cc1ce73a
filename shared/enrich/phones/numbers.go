package phones

import (
	"regexp"
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/prospectdata/svc/shared/phonenum"
)

// kind is the column a valid number goes to besides phones_extra.
type kind int

const (
	kindOther kind = iota
	kindMobile
	kindFixed
)

// number is a valid phone number.
type number struct {
	e164 string
	kind kind
}

// kindOf maps phonenumbers' line types onto the two columns (package doc).
func kindOf(t phonenumbers.PhoneNumberType) kind {
	switch t {
	case phonenumbers.MOBILE:
		return kindMobile
	case phonenumbers.FIXED_LINE, phonenumbers.FIXED_LINE_OR_MOBILE,
		phonenumbers.VOIP, phonenumbers.TOLL_FREE, phonenumbers.SHARED_COST,
		phonenumbers.PREMIUM_RATE, phonenumbers.UAN:
		return kindFixed
	}
	return kindOther
}

// trunkZero is the "(0)" written between a calling code and the national
// number ("+33 (0)4 78 ..."), which must not be dialled.
var trunkZero = regexp.MustCompile(`\(\s*0\s*\)`)

// parse reads a candidate as written on a page. A number without an
// international prefix (+ or 00) must start with the region's trunk
// prefix when the region has one: phonenumbers accepts "123 456 789" as a
// French number, and that is how SIREN numbers look. North American
// numbers are written without their "1", so the rule skips NANPA regions.
func parse(raw, region string) (number, bool) {
	raw = trunkZero.ReplaceAllString(raw, " ")
	digits := phonenumbers.NormalizeDigitsOnly(raw)
	if len(digits) < 6 || len(digits) > 15 {
		return number{}, false
	}
	international := strings.HasPrefix(strings.TrimSpace(raw), "+") || strings.HasPrefix(digits, "00")
	if !international && !phonenumbers.IsNANPACountry(region) {
		if p := phonenumbers.GetNddPrefixForRegion(region, true); p != "" && !strings.HasPrefix(digits, p) {
			return number{}, false
		}
	}
	return parseLoose(raw, region)
}

// parseLoose parses and validates a number without the trunk-prefix rule
// (used for the row's known telephone, which is a phone by definition).
// region is the site's country (alpha-2, as its domain names it), read
// by phonenum like every country.
func parseLoose(raw, region string) (number, bool) {
	raw = trunkZero.ReplaceAllString(raw, " ")
	n, err := phonenum.Parse(raw, region)
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return number{}, false
	}
	return number{
		e164: phonenumbers.Format(n, phonenumbers.E164),
		kind: kindOf(phonenumbers.GetNumberType(n)),
	}, true
}
