package engine

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
	"golang.org/x/text/language"
)

// phoneRules classify the numbers of one job's country.
type phoneRules struct {
	region string       // ISO 3166-1 alpha-2, phonenumbers' region
	home   map[int]bool // calling codes that are not foreign
}

// overseas are the calling codes of a country's overseas parts that the
// gazetteer counts as the country (France's overseas departments and
// collectivities have their own codes: a Réunion number in a French scrape
// is not foreign).
var overseas = map[string][]int{
	"FR": {262, 269, 508, 590, 594, 596, 681, 687, 689},
}

// newPhoneRules returns the rules of a country (alpha-3). An unknown
// country has no region: every number is then unusable, so none is
// dropped.
func newPhoneRules(country string) phoneRules {
	r := phoneRules{home: map[int]bool{}}
	reg, err := language.ParseRegion(country)
	if err != nil {
		return r
	}
	cc := phonenumbers.GetCountryCodeForRegion(reg.String())
	if cc <= 0 {
		return r
	}
	r.region = reg.String()
	r.home[cc] = true
	for _, cc := range overseas[r.region] {
		r.home[cc] = true
	}
	return r
}

// phone is a number as the filters see it.
type phone struct {
	key     string // E.164, "" when the number is not usable
	foreign bool
}

// classify reads a listed number against the job's country: usable when
// it parses and is a possible number (then keyed by its E.164 form);
// foreign when it carries another country's calling code. A national
// number (no calling code) takes the country's, so it is never foreign.
func (r phoneRules) classify(raw string) phone {
	raw = strings.TrimSpace(raw)
	if raw == "" || r.region == "" {
		return phone{}
	}
	n, err := phonenumbers.Parse(raw, r.region)
	if err != nil || !phonenumbers.IsPossibleNumber(n) {
		return phone{}
	}
	return phone{
		key:     phonenumbers.Format(n, phonenumbers.E164),
		foreign: !r.home[int(n.GetCountryCode())],
	}
}
