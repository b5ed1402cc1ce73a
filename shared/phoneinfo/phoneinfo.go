// Package phoneinfo is the phone_info enrichment: what a phone number is
// (E.164 and national formats, country, line type, validity: Google's
// libphonenumber through github.com/nyaruka/phonenumbers), who its block
// was assigned to (a numbering plan: ARCEP's open data for France, the
// Plan port), and what a live check last said of it (current operator,
// ported, reachable: the Cache port, read only in cache_only mode).
//
// Nothing is guessed: a column a source does not give stays empty. See
// docs/phone-info.md for the columns, the sources and the cache's key
// design.
package phoneinfo

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
	"golang.org/x/text/language"

	"github.com/prospectdata/svc/shared/phonenum"
)

// Columns are phone_info's Produces list, in order.
var Columns = []string{
	"phone_e164", "phone_national", "phone_country", "phone_line_type",
	"phone_carrier_original", "phone_carrier_current", "phone_is_ported", "phone_is_reachable", "phone_is_valid",
	"phone_operator_siret", "phone_operator_address", "phone_operator_registered_since",
}

// MaxInput caps the telephone cell read: longer is not one number.
const MaxInput = 64

// Line types, as phone_line_type says them (libphonenumber's types).
const (
	LineMobile        = "mobile"
	LineFixed         = "fixed_line"
	LineFixedOrMobile = "fixed_line_or_mobile" // a plan that does not tell them apart (US, CA)
	LineVoIP          = "voip"
	LineTollFree      = "toll_free"
	LinePremium       = "premium"
	LineSharedCost    = "shared_cost"
	LinePersonal      = "personal"
	LinePager         = "pager"
	LineUAN           = "uan"
	LineVoicemail     = "voicemail"
	LineUnknown       = "unknown"
)

// Number is a parsed phone number and what libphonenumber says of it.
type Number struct {
	// E164 is "+33612345678".
	E164 string
	// National is the number as dialled in its country ("06 12 34 56 78").
	National string
	// Country is the ISO 3166-1 alpha-3 code of the number's region
	// ("FRA", "MTQ" for Martinique), "" when Region is.
	Country string
	// Region is libphonenumber's alpha-2 region ("FR", "MQ"), "" for a
	// non-geographic number (+800) or an invalid one whose calling code
	// several regions share.
	Region string
	// LineType is one of the Line* constants.
	LineType string
	// Valid says the number is one its country's plan allows.
	Valid bool
	// PlanKey is the number as dialled in France, "0" then its national
	// significant number, when it belongs to the French numbering plan
	// (France and its overseas departments and territories that ARCEP
	// numbers: +33, +262, +508, +590, +594, +596); "" otherwise.
	PlanKey string

	pn *phonenumbers.PhoneNumber
}

// frenchPlanRegions are the regions numbered by ARCEP's plan, the
// mainland first: a national number that is not valid in the item's region
// is tried in the others (a Martinique mobile "0696 …" read with the
// default FR).
var frenchPlanRegions = []string{"FR", "GP", "MQ", "GF", "RE", "YT", "BL", "MF", "PM"}

// frenchPlanCodes are the country calling codes of those regions.
var frenchPlanCodes = map[int32]bool{33: true, 262: true, 508: true, 590: true, 594: true, 596: true}

// Region reads an item's country cell (ISO 3166-1 alpha-3 "FRA" or alpha-2
// "FR", any case) as the libphonenumber region of its national numbers
// (phonenum.Region); the home market's (phonenum.Home, France) when the
// cell is empty or not a country libphonenumber numbers: a national number
// is read somehow, and the service's items are French first.
func Region(country string) string {
	return phonenum.Region(phonenum.OrHome(country))
}

// Parse reads a telephone cell. A number written without its country
// code is read in region (an alpha-2 code, see Region); when it is not
// valid there and region is one of the French plan's, the French plan's
// other regions are tried (the overseas departments dial "0590…",
// "0696…" like the mainland). ok is false when the cell holds no number
// libphonenumber can read: empty, too long, no digits, too short.
func Parse(cell, region string) (n Number, ok bool) {
	cell = strings.TrimSpace(cell)
	if i := indexFold(cell, "poste"); i > 0 {
		// "04 78 12 34 56 poste 12": libphonenumber knows "ext." but not
		// the French word, and would read its letters as a keypad's.
		cell = strings.TrimSpace(cell[:i])
	}
	if cell == "" || len(cell) > MaxInput {
		return Number{}, false
	}
	// Not phonenum.Parse: the retry below needs to know whether the cell
	// wrote a calling code, which only the raw input's parse keeps.
	pn, err := phonenumbers.ParseAndKeepRawInput(cell, region)
	if err != nil {
		return Number{}, false
	}
	if !phonenumbers.IsValidNumber(pn) && pn.GetCountryCodeSource() == phonenumbers.PhoneNumber_FROM_DEFAULT_COUNTRY && inFrenchPlan(region) {
		for _, other := range frenchPlanRegions {
			if other == region {
				continue
			}
			alt, err := phonenum.Parse(cell, other)
			if err == nil && phonenumbers.IsValidNumber(alt) {
				pn = alt
				break
			}
		}
	}
	n = describe(pn)
	if len(n.E164) < 3 || n.E164[0] != '+' || !digits(n.E164[1:]) {
		// libphonenumber reads some letters as a keypad's, and keeps a
		// few in its output ("+800A00000000"): not a number.
		return Number{}, false
	}
	return n, true
}

// indexFold is the byte offset in s of the ASCII word w, in any case; -1
// when absent. (strings.ToLower can change a string's length: its
// offsets are not s's.)
func indexFold(s, w string) int {
	for i := 0; i+len(w) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(w)], w) {
			return i
		}
	}
	return -1
}

func inFrenchPlan(region string) bool {
	for _, r := range frenchPlanRegions {
		if r == region {
			return true
		}
	}
	return false
}

func describe(pn *phonenumbers.PhoneNumber) Number {
	n := Number{
		E164:     phonenumbers.Format(pn, phonenumbers.E164),
		National: phonenumbers.Format(pn, phonenumbers.NATIONAL),
		Valid:    phonenumbers.IsValidNumber(pn),
		LineType: LineUnknown,
		pn:       pn,
	}
	if r := phonenumbers.GetRegionCodeForNumber(pn); r != "" && r != phonenumbers.UNKNOWN_REGION && r != "001" {
		n.Region = r
	}
	if n.Region != "" {
		if r, err := language.ParseRegion(n.Region); err == nil {
			n.Country = r.ISO3()
		}
	}
	if n.Valid {
		n.LineType = lineType(phonenumbers.GetNumberType(pn))
	}
	if frenchPlanCodes[pn.GetCountryCode()] {
		n.PlanKey = "0" + phonenumbers.GetNationalSignificantNumber(pn)
	}
	return n
}

func lineType(t phonenumbers.PhoneNumberType) string {
	switch t {
	case phonenumbers.MOBILE:
		return LineMobile
	case phonenumbers.FIXED_LINE:
		return LineFixed
	case phonenumbers.FIXED_LINE_OR_MOBILE:
		return LineFixedOrMobile
	case phonenumbers.VOIP:
		return LineVoIP
	case phonenumbers.TOLL_FREE:
		return LineTollFree
	case phonenumbers.PREMIUM_RATE:
		return LinePremium
	case phonenumbers.SHARED_COST:
		return LineSharedCost
	case phonenumbers.PERSONAL_NUMBER:
		return LinePersonal
	case phonenumbers.PAGER:
		return LinePager
	case phonenumbers.UAN:
		return LineUAN
	case phonenumbers.VOICEMAIL:
		return LineVoicemail
	}
	return LineUnknown
}

// LibCarrier is the operator libphonenumber's carrier data names for the
// number's prefix (the original allocation: it knows nothing of porting),
// "" when it has none (fixed lines, most countries).
func (n Number) LibCarrier() string {
	if n.pn == nil || !n.Valid {
		return ""
	}
	c, err := phonenumbers.GetCarrierForNumber(n.pn, "fr")
	if err != nil {
		return ""
	}
	return c
}
