package engine

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/provider"
)

// Output columns: the fixed ones, then the identifiers, then the extra
// columns the job asked for, then the review columns (reviewColumns) when
// it asked for reviews.
var (
	baseColumns  = []string{"nom", "site_web", "telephone", "adresse", "rating", "reviews_count", "category", "lien_maps", "aggregator_flag"}
	identColumns = []string{"place_id", "query", "zone"}
)

// columns are the output's header for the job's extra columns and
// include_reviews.
func columns(extra []string, reviews bool) []string {
	cols := append(append([]string{}, baseColumns...), identColumns...)
	for _, x := range []string{"gps", "departement", "region"} {
		if !slices.Contains(extra, x) {
			continue
		}
		if x == "gps" {
			cols = append(cols, "latitude", "longitude")
		} else {
			cols = append(cols, x)
		}
	}
	if reviews {
		cols = append(cols, reviewColumns...)
	}
	return cols
}

// cells is a row in the order of columns(extra, reviews).
func cells(r *Row, aggregator bool, extra []string, reviews bool) []string {
	rating := ""
	if r.Rating > 0 {
		rating = strconv.FormatFloat(r.Rating, 'f', -1, 64)
	}
	out := []string{
		r.Name, r.Website, r.Phone, r.Address, rating, strconv.Itoa(r.Reviews), r.Category, r.MapsURL,
		strconv.FormatBool(aggregator), r.PlaceID, r.Query, r.Zone,
	}
	if slices.Contains(extra, "gps") {
		out = append(out, strconv.FormatFloat(r.Lat, 'f', -1, 64), strconv.FormatFloat(r.Lon, 'f', -1, 64))
	}
	if slices.Contains(extra, "departement") {
		out = append(out, r.Department)
	}
	if slices.Contains(extra, "region") {
		out = append(out, r.Region)
	}
	if reviews {
		out = append(out, reviewCells(r)...)
	}
	return out
}

// aggregatorBrands are directories, marketplaces, booking and delivery
// platforms and social networks: a listing whose website is one of them
// has no site of its own (the link is the business's page there). Matched
// on the registrable name, whatever the country's domain
// (tripadvisor.fr, booking.com, fr-fr.facebook.com).
var aggregatorBrands = map[string]bool{
	"pagesjaunes": true, "pagesblanches": true, "tripadvisor": true, "booking": true, "ubereats": true,
	"deliveroo": true, "justeat": true, "just-eat": true, "doctolib": true, "facebook": true,
	"instagram": true, "linkedin": true, "tiktok": true, "twitter": true, "youtube": true, "yelp": true,
	"thefork": true, "lafourchette": true, "planity": true, "treatwell": true, "airbnb": true,
	"expedia": true, "hotels": true, "trivago": true, "leboncoin": true, "mappy": true, "linktr": true,
	"kompass": true, "societe": true, "annuaire-inverse": true, "118712": true, "118000": true,
}

// secondLevel are the labels under which a country registers names
// (example.co.uk, example.com.br).
var secondLevel = map[string]bool{"co": true, "com": true, "net": true, "org": true, "gouv": true, "ac": true}

// aggregatorSite tells whether a website is an aggregator's page.
func aggregatorSite(website string) bool {
	w := strings.TrimSpace(website)
	if w == "" {
		return false
	}
	if !strings.Contains(w, "://") {
		w = "https://" + w
	}
	u, err := url.Parse(w)
	if err != nil {
		return false
	}
	labels := strings.Split(strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), ".")
	if len(labels) < 2 {
		return false
	}
	name := labels[len(labels)-2]
	if secondLevel[name] && len(labels) >= 3 {
		name = labels[len(labels)-3]
	}
	if name == "x" && labels[len(labels)-1] == "com" {
		return true
	}
	return aggregatorBrands[name]
}

// PlaceCells are a place's cells in the provider's columns of a scrape's
// output (nom, site_web, telephone, adresse, rating, reviews_count,
// category, lien_maps, place_id), formatted as a scrape writes them: a
// veille's churn check rebuilds the row of a place it looked up again.
func PlaceCells(p provider.Place) map[string]string {
	r := Row{PlaceID: p.ID, Name: p.Name, Website: p.Website, Phone: p.Phone, Address: p.Address,
		Rating: p.Rating, Reviews: p.ReviewCount, Category: p.Category, MapsURL: p.MapsURL}
	cols := columns(nil, false)
	vals := cells(&r, false, nil, false)
	out := make(map[string]string, len(cols))
	for i, c := range cols {
		switch c {
		case "aggregator_flag", "query", "zone":
			continue // the run's, not the place's
		}
		out[c] = vals[i]
	}
	return out
}
