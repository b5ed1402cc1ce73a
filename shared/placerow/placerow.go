// Package placerow is the row of a scrape's output: the place as the
// workers keep it (Row), the output's columns and the cells of a row in
// them, the aggregator flag's rule, the review cells and the
// classification of the row's number against the job's country
// (ClassifyPhone). The engine writes rows with it; a veille rebuilds the
// row of a place it looked up again with the same rules, without the
// engine.
package placerow

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/prospectdata/svc/shared/provider"
)

// Row is one line of a part (JSON Lines) and, after the finalizer's
// merge, one row of the output.
type Row struct {
	PlaceID    string  `json:"place_id"`
	Name       string  `json:"name"`
	Website    string  `json:"website,omitempty"`
	Phone      string  `json:"phone,omitempty"`
	Address    string  `json:"address,omitempty"`
	Rating     float64 `json:"rating,omitempty"`
	Reviews    int     `json:"reviews_count,omitempty"`
	Category   string  `json:"category,omitempty"`
	MapsURL    string  `json:"maps_url,omitempty"`
	Query      string  `json:"query"`
	Zone       string  `json:"zone"`
	Lat        float64 `json:"lat"`
	Lon        float64 `json:"lon"`
	Department string  `json:"departement,omitempty"`
	Region     string  `json:"region,omitempty"`
	// PhoneE164 is Phone normalised against the job's country ("" when
	// it is not a usable number), PhoneForeign whether it carries
	// another country's calling code: the worker classifies numbers, so
	// that the finalizer parses none.
	PhoneE164    string `json:"phone_e164,omitempty"`
	PhoneForeign bool   `json:"phone_foreign,omitempty"`
	// LatestReviews are the place's latest reviews, newest first (at most
	// MaxReviews), when the job asked for reviews and the place has some.
	LatestReviews []provider.Review `json:"latest_reviews,omitempty"`
}

// MaxReviews is how many of a place's latest reviews a job with
// include_reviews fetches, and how many review columns its output has.
const MaxReviews = 5

// ReviewCellChars is the most characters (runes) of a review column's cell.
const ReviewCellChars = 500

// ReviewColumns are the output's review columns, newest first: avis_1
// (the latest review) to avis_<MaxReviews>.
var ReviewColumns = func() []string {
	cols := make([]string, MaxReviews)
	for i := range cols {
		cols[i] = "avis_" + strconv.Itoa(i+1)
	}
	return cols
}()

// Output columns: the fixed ones, then the identifiers, then the extra
// columns the job asked for, then the review columns (ReviewColumns) when
// it asked for reviews.
var (
	baseColumns  = []string{"nom", "site_web", "telephone", "adresse", "rating", "reviews_count", "category", "lien_maps", "aggregator_flag"}
	identColumns = []string{"place_id", "query", "zone"}
)

// Columns are the output's header for the job's extra columns and
// include_reviews.
func Columns(extra []string, reviews bool) []string {
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
		cols = append(cols, ReviewColumns...)
	}
	return cols
}

// Cells is a row in the order of Columns(extra, reviews).
func Cells(r *Row, aggregator bool, extra []string, reviews bool) []string {
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
		out = append(out, ReviewCells(r)...)
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

// AggregatorSite tells whether a website is an aggregator's page.
func AggregatorSite(website string) bool {
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
	cols := Columns(nil, false)
	vals := Cells(&r, false, nil, false)
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

// SetReviews keeps a place's latest reviews, newest first as the
// provider lists them, on its row: at most MaxReviews, the columns the
// output has for them.
func (r *Row) SetReviews(rs []provider.Review) {
	if len(rs) > MaxReviews {
		rs = rs[:MaxReviews]
	}
	r.LatestReviews = rs
}

// ReviewCells are a row's review columns: one cell per review, newest
// first, then empty cells.
func ReviewCells(r *Row) []string {
	out := make([]string, MaxReviews)
	for i, rv := range r.LatestReviews {
		if i == MaxReviews {
			break
		}
		out[i] = ReviewCell(rv)
	}
	return out
}

// ReviewCell is one review in a cell: "<rating>/5 — <author> — <text>"
// (a part left out when empty: "5/5 — Marie D." for a rating without
// comment), on one line (line breaks and tabs become spaces), cut to
// ReviewCellChars characters with a final "…".
func ReviewCell(rv provider.Review) string {
	var parts []string
	if rv.Rating > 0 {
		parts = append(parts, strconv.FormatFloat(rv.Rating, 'f', -1, 64)+"/5")
	}
	for _, s := range []string{rv.Author, rv.Text} {
		if s = OneLine(s); s != "" {
			parts = append(parts, s)
		}
	}
	cell := strings.Join(parts, " — ")
	if rs := []rune(cell); len(rs) > ReviewCellChars {
		cell = strings.TrimRightFunc(string(rs[:ReviewCellChars-1]), unicode.IsSpace) + "…"
	}
	return cell
}

// OneLine folds runs of white space (line breaks included) to one space
// and trims the ends.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
