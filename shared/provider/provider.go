// Package provider is the map provider port: searching a query inside a
// rectangle of the map, page by page, looking one place up by its id, and
// reading a place's latest reviews.
// Adapters: provider/sim (a simulated world, the labelled default for
// offline runs) and provider/google (Places API (New) Text Search).
package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/paulmach/orb"
)

// Place is one business as the map lists it.
type Place struct {
	// ID is the provider's stable id of the place: the same business has
	// the same id in every search, tile and day.
	ID      string `json:"id"`
	Name    string `json:"name"`
	Address string `json:"address"`
	// Phone is the number as the provider gives it (national or
	// international format); "" when the listing has none.
	Phone   string `json:"phone"`
	Website string `json:"website"`
	// Rating is the mean rating (1 to 5); 0 when the place has none.
	Rating      float64 `json:"rating"`
	ReviewCount int     `json:"reviews_count"`
	Category    string  `json:"category"`
	Lat         float64 `json:"lat"`
	Lon         float64 `json:"lon"`
	// MapsURL is the place's page on the map.
	MapsURL string `json:"maps_url"`
}

// Request is one page of a search: a query inside a rectangle.
type Request struct {
	Query string
	// Bound is the rectangle the results must lie in (the provider's
	// location restriction); providers may return a few places just
	// outside it.
	Bound orb.Bound
	// Country is the ISO 3166-1 alpha-3 code of the scrape's country (the
	// provider's region bias); Language the results' language ("fr").
	Country  string
	Language string
	// PageToken continues a search; "" asks for its first page.
	PageToken string
}

// Page is one page of results.
type Page struct {
	Places []Place
	// Listed is how many places the provider listed on the page, those
	// the adapter dropped (a permanently closed business) included: what
	// saturation counts, since the provider's cap counts them too. 0 means
	// len(Places).
	Listed int
	// NextPageToken continues the search; "" when it has no more results.
	NextPageToken string
}

// Count is the number of places the provider listed on the page.
func (p Page) Count() int { return max(p.Listed, len(p.Places)) }

// Limits are the provider's result limits. A search that lists Cap places
// is saturated: the rectangle holds more than the provider shows, and only
// smaller rectangles find the rest.
type Limits struct {
	PageSize int // places per page, at most
	Cap      int // places per search, over all its pages
}

// Review is one review of a place.
type Review struct {
	Author string  `json:"author"`
	Rating float64 `json:"rating"`
	Text   string  `json:"text"`
	// Language is the BCP 47 code of Text ("fr"), "" when the provider
	// does not tell: the review as its author wrote it, not a translation.
	Language string `json:"language,omitempty"`
	Time     string `json:"time"` // RFC 3339
	// OwnerReplied says whether the owner answered the review; nil when
	// the provider does not tell (Places API returns no owner answers).
	OwnerReplied *bool `json:"owner_replied,omitempty"`
	// OwnerReply is the answer's text, when there is one.
	OwnerReply string `json:"owner_reply,omitempty"`
}

// PlaceLinker is a provider whose place links (Place.MapsURL, a row's
// lien_maps) name their place: modules reading places of earlier rows
// (reviews) get the place id back from the link.
type PlaceLinker interface {
	PlaceID(mapsURL string) (id string, ok bool)
}

// Provider searches the map. Implementations are safe for concurrent use.
type Provider interface {
	// Name is the adapter's name ("sim", "google"), recorded on jobs so
	// that simulated data is never passed off as real.
	Name() string
	Limits() Limits
	// Search returns one page of the search. Errors wrapping ErrTransient
	// may succeed when retried; others will not.
	Search(ctx context.Context, r Request) (Page, error)
	// Place returns the place's current listing, with the same fields as
	// a search lists it (MapsURL included): a scheduled replay (veille)
	// checks a place its search no longer lists before reporting it
	// removed, since searches churn while the place stays open.
	//
	// Each call is one billable provider request (a Place Details call
	// for Google), whatever its outcome: callers look up only the places
	// they must.
	//
	// Errors: ErrNotFound for an id the provider does not know, ErrClosed
	// for a place that exists but is permanently closed, an error wrapping
	// ErrTransient for a failure worth retrying; others will not pass.
	Place(ctx context.Context, placeID string) (Place, error)
	// Reviews returns up to max of the place's latest reviews, newest
	// first.
	Reviews(ctx context.Context, placeID string, max int) ([]Review, error)
}

// ErrTransient marks a failure worth retrying later (rate limit, server
// error, timeout).
var ErrTransient = errors.New("provider: transient failure")

// ErrRateLimited marks a transient failure that is the provider telling
// the caller to slow down (HTTP 429, a per-minute quota): errors wrapping
// it also wrap ErrTransient, and the fleet-wide limiter slows every
// worker, not only the request that met it.
var ErrRateLimited = fmt.Errorf("%w: rate limited", ErrTransient)

// ErrRefused marks a failure no retry can mend for any request of the
// job: the key refused or invalid, the API disabled, a quota exhausted for
// the day, the provider refusing the account (HTTP 403, 400 invalid key).
// A scrape meeting it fails at once with the provider's reason.
var ErrRefused = errors.New("provider: refused")

// ErrNotFound reports a place id the provider does not know.
var ErrNotFound = errors.New("provider: no such place")

// ErrClosed reports a place the provider knows but lists as permanently
// closed: unlike ErrNotFound, the place existed, and a veille may report
// it as closed rather than unknown.
var ErrClosed = errors.New("provider: place closed")
