// Package phones finds the telephone numbers a business's website shows
// besides the one the row already has (node type phones_extra,
// docs/spec "Node types": phones_extra, phones_mobile, phones_fixed).
//
// Sources, read in document order on each page in turn: tel: and callto:
// links, schema.org telephone (JSON-LD and microdata) and the visible text.
// Every candidate must parse with github.com/nyaruka/phonenumbers and be a
// valid number (IsValidNumber); a number written nationally must carry the
// region's trunk prefix ("0" in France) so that SIREN numbers, postal codes
// and other bare digit runs cannot pass for phones.
//
// Fax numbers: a number whose label is fax only ("Fax", "Télécopie", a
// fax icon, schema.org faxNumber) is left out of all three columns, since
// nobody answers it; "Tél/Fax" labels keep the number.
//
// Mobile/fixed split (phonenumbers.GetNumberType): MOBILE goes to
// phones_mobile; FIXED_LINE, FIXED_LINE_OR_MOBILE (regions such as the US
// where the plan cannot tell), VOIP (French 09), TOLL_FREE (08 00),
// SHARED_COST (08 1x), PREMIUM_RATE (08 9x, kept: it is how the business
// asks to be called) and UAN go to phones_fixed, which thus means "not
// known to be a mobile". PAGER, PERSONAL_NUMBER, VOICEMAIL and UNKNOWN
// stay in phones_extra only.
package phones

import (
	"strings"

	"github.com/prospectdata/svc/shared/crawl"
)

// Columns are the columns the module produces, in order.
var Columns = []string{"phones_extra", "phones_mobile", "phones_fixed"}

// Result holds the numbers found, as E.164, in order of discovery.
type Result struct {
	// Extra is every number found other than the known ones.
	Extra []string
	// Mobile is the part of Extra that is a mobile line.
	Mobile []string
	// Fixed is the part of Extra that is not a mobile (see package doc).
	Fixed []string
}

// Values returns the cells in Columns order, each list "; "-joined.
func (r Result) Values() []string {
	return []string{
		strings.Join(r.Extra, "; "),
		strings.Join(r.Mobile, "; "),
		strings.Join(r.Fixed, "; "),
	}
}

// Find returns the numbers the pages show, other than known (the row's
// own telephone, in any format), as E.164, deduplicated in order of
// discovery. region is the default region for national numbers; "" means
// "FR".
func Find(pages []*crawl.Page, region string, known ...string) Result {
	region = strings.ToUpper(strings.TrimSpace(region))
	if region == "" {
		region = "FR"
	}
	skip := map[string]bool{}
	for _, k := range known {
		if n, ok := parseLoose(k, region); ok {
			skip[n.e164] = true
		}
	}

	var order []number
	seen := map[string]bool{}
	fax := map[string]bool{}
	for _, p := range pages {
		if p == nil {
			continue
		}
		for _, s := range sightings(p, region) {
			if s.fax {
				fax[s.num.e164] = true
				continue
			}
			if seen[s.num.e164] {
				continue
			}
			seen[s.num.e164] = true
			order = append(order, s.num)
		}
	}

	var r Result
	for _, n := range order {
		if skip[n.e164] || fax[n.e164] {
			continue
		}
		r.Extra = append(r.Extra, n.e164)
		switch n.kind {
		case kindMobile:
			r.Mobile = append(r.Mobile, n.e164)
		case kindFixed:
			r.Fixed = append(r.Fixed, n.e164)
		}
	}
	return r
}
