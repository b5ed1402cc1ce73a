// Package phonenum reads telephone numbers against a country, with
// github.com/nyaruka/phonenumbers (Google's libphonenumber): the one place
// that turns a country, as rows, jobs and sources name it, into the
// library's region, and that says which calling codes are a country's own
// (its overseas parts' included).
//
// Countries are ISO 3166-1 alpha-3 codes, as jobs and rows carry them
// ("FRA"). An alpha-2 code ("FR", as a place's address, a site's domain or
// an OSM tag gives it) reads the same: both go through Region, so no
// caller converts codes on its own.
//
// The package imports nothing of the service: the scrape row (placerow),
// the enrichment modules, the provider adapters and the pipelines' column
// report all read numbers with it.
package phonenum

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
	"golang.org/x/text/language"
)

// Home is the service's home market: the country of a number read where
// nothing names one (a source without a country, an item whose country
// cell is empty or unknown).
const Home = "FRA"

// overseas are the calling codes of a country's overseas parts that the
// gazetteer counts as the country, by region: France's overseas
// departments and collectivities have their own codes, and a Réunion
// number in a French scrape is not foreign. Mayotte shares +262 with
// Réunion since 2007; +269 is the Comoros', foreign.
var overseas = map[string][]int32{
	"FR": {262, 508, 590, 594, 596, 681, 687, 689},
}

// Region is libphonenumber's region (ISO 3166-1 alpha-2, upper case) of a
// country given as alpha-3 or alpha-2 code in any case, spaces around
// ignored; "" when country is not a code libphonenumber numbers (empty,
// a name, a grouping such as "EU").
func Region(country string) string {
	country = strings.TrimSpace(country)
	if country == "" {
		return ""
	}
	r, err := language.ParseRegion(country)
	if err != nil || !r.IsCountry() {
		return ""
	}
	if phonenumbers.GetCountryCodeForRegion(r.String()) <= 0 {
		return ""
	}
	return r.String()
}

// OrHome is country when Region knows it, else Home: for the sites that
// must read national numbers somehow and whose country may be missing.
func OrHome(country string) string {
	if Region(country) == "" {
		return Home
	}
	return country
}

// Parse reads raw as written in country: a number without its calling
// code takes the country's. When country is not one Region knows, only a
// number written with its calling code ("+32 …", "0032 …") parses. The
// caller judges the result (phonenumbers.IsPossibleNumber or
// IsValidNumber) and formats it.
func Parse(raw, country string) (*phonenumbers.PhoneNumber, error) {
	return phonenumbers.Parse(raw, Region(country))
}

// Domestic tells whether n carries country's calling code or one of its
// overseas parts' (overseas). Nothing is domestic to a country Region
// does not know.
func Domestic(n *phonenumbers.PhoneNumber, country string) bool {
	region := Region(country)
	if region == "" {
		return false
	}
	cc := n.GetCountryCode()
	if cc == int32(phonenumbers.GetCountryCodeForRegion(region)) {
		return true
	}
	for _, o := range overseas[region] {
		if cc == o {
			return true
		}
	}
	return false
}
