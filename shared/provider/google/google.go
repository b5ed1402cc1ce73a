// Package google is the Places API (New) adapter of the map provider port
// (provider.Provider).
//
// Search is one Text Search request (POST /v1/places:searchText) per page:
// the query, a rectangle location restriction built from the request's
// bound, pageSize 20, the page token, the language and the region (alpha-2
// of the request's alpha-3 country). The X-Goog-FieldMask header asks for
// the fields provider.Place fills and nothing more (SearchFieldMask); the
// mask decides the request's SKU (docs/google-places.md).
//
// Place is one Place Details request (GET /v1/places/{id}) with
// PlaceFieldMask: the search result's fields and businessStatus, mapped by
// the same code as search results; a permanently closed place fails with
// provider.ErrClosed.
//
// Reviews is one Place Details request (GET /v1/places/{id}) with the field
// mask "reviews" and Options.PlaceLanguage: the API returns at most 5
// reviews of a place; each keeps its originalText and language.
//
// Cost: one request per search page and nothing else, and one per Place
// or Reviews call. A page continues exactly when the API gave a
// nextPageToken, whatever its length (a short page can carry one); a page
// without a token is the search's last. Text Search lists at most 60
// places over 3 pages (Limits().Cap).
//
// Rows: the phone is the international number (or the national one parsed
// with the place's own country), a permanently closed place is dropped
// from its page, a category without Google's label is read from the type
// code in the request's language (docs/google-places.md).
//
// Failures: 429 (a per-minute quota), 408 and 5xx answers and network
// timeouts are retried with exponential backoff and jitter (Retry-After
// honoured; the policy is upstream.Retry), up to MaxAttempts requests in
// all, within the context; then the error wraps provider.ErrTransient,
// and provider.ErrRateLimited for a 429.
// Answers no retry mends fail at once and wrap provider.ErrRefused: 401,
// 403 (PERMISSION_DENIED: the API disabled, the key restricted, billing
// off), 400 API_KEY_INVALID, a 429 of a daily quota. Other answers (400
// invalid argument, 404) fail at once. Each error is an *APIError with the
// API's status, message and reason. The key travels only in the
// X-Goog-Api-Key header and is never part of an error.
//
// Load: with Options.Gate (the fleet limiter, provider/fleet), each request,
// retries included, waits for its admission and reports its outcome, so
// that every worker of the fleet shares one budget and a 429 slows them
// all (docs/provider-load.md).
package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/upstream"
)

// DefaultBaseURL is the Places API (New) endpoint.
const DefaultBaseURL = "https://places.googleapis.com"

const (
	// PageSize is the most places a Text Search page holds (pageSize is at
	// most 20).
	PageSize = 20
	// Cap is the most places a Text Search lists over all its pages.
	Cap = 60
	// MaxReviews is the most reviews Place Details returns for a place.
	MaxReviews = 5
)

// SearchFieldMask is the X-Goog-FieldMask of Text Search: the fields
// provider.Place needs, and nextPageToken (without it the response carries
// no token). nationalPhoneNumber and addressComponents (the place's own
// country) read a number that has no international form; types is the
// fallback of primaryTypeDisplayName; businessStatus drops permanently
// closed places. All are in the same or a lower SKU than the phone.
const SearchFieldMask = "places.id,places.displayName,places.formattedAddress," +
	"places.nationalPhoneNumber,places.internationalPhoneNumber,places.websiteUri," +
	"places.rating,places.userRatingCount,places.primaryTypeDisplayName,places.types," +
	"places.location,places.googleMapsUri,places.addressComponents,places.businessStatus,nextPageToken"

// ReviewsFieldMask is the X-Goog-FieldMask of Place Details for Reviews.
const ReviewsFieldMask = "reviews"

// Defaults of Options.
const (
	DefaultMaxAttempts = 5
	DefaultBackoffBase = 500 * time.Millisecond
	DefaultBackoffMax  = 30 * time.Second
	DefaultTimeout     = 30 * time.Second
)

// maxBody caps the bytes read from one response (a full page is about
// 20 KB).
const maxBody = 10 << 20

// Options tune a Client; the zero value is the production setting.
type Options struct {
	// BaseURL is the API's root, DefaultBaseURL when empty. It must be
	// https, except on a loopback host (tests).
	BaseURL string
	// HTTPClient sends the requests; when nil, a client with a
	// DefaultTimeout per request. The Client uses a copy that refuses
	// redirects, so that the key header never follows one.
	HTTPClient *http.Client
	// MaxAttempts bounds the requests of one call, the first included:
	// DefaultMaxAttempts when 0 or less, 1 for no retry.
	MaxAttempts int
	// BackoffBase is the first retry's delay, doubled at each retry up to
	// BackoffMax, with jitter (each delay is drawn in [d/2, d]). A
	// Retry-After longer than BackoffMax ends the retries at once.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// Sleep waits d or until ctx is done (then returning its error);
	// time.NewTimer when nil. Tests pass a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of Retry-After dates and context deadlines;
	// time.Now when nil.
	Now func() time.Time
	// PlaceLanguage and PlaceCountry are the languageCode and the region
	// (an ISO 3166-1 alpha-3 code, as provider.Request.Country) that Place
	// sends. A lookup has no Request to carry them, yet they decide the
	// language of the name and category and the address's format, which
	// should match the searches' whose places it checks. Empty sends none,
	// as a search without language or country does.
	PlaceLanguage string
	PlaceCountry  string
	// Gate, when set, admits each request (provider/fleet's limiter).
	Gate Gate
}

// Gate admits requests to the API. Admit waits for a request's turn within
// ctx and returns the context to send it under and done, to be called once
// with the request's outcome (nil, or its error: an *APIError wrapping
// provider.ErrRateLimited slows every request of the gate). An error of
// Admit ends the call without a request.
type Gate interface {
	Admit(ctx context.Context) (context.Context, func(error), error)
}

// Client is the Places API (New) provider. It is safe for concurrent use.
type Client struct {
	key     string
	baseURL string
	hc      *http.Client
	retry   upstream.Retry
	now     func() time.Time
	// language and region are Place's languageCode and regionCode.
	language, region string
	gate             Gate
}

var _ provider.Provider = (*Client)(nil)

// New returns a client calling the API with key.
func New(key string, opt Options) (*Client, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, errors.New("google places: the API key is empty (SVC_GOOGLE_PLACES_KEY)")
	}
	base, err := upstream.BaseURL("google places", opt.BaseURL, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	region, err := regionCode(opt.PlaceCountry)
	if err != nil {
		return nil, fmt.Errorf("google places: PlaceCountry: %w", err)
	}
	c := &Client{
		key:      key,
		baseURL:  base,
		now:      opt.Now,
		language: strings.TrimSpace(opt.PlaceLanguage),
		region:   region,
		gate:     opt.Gate,
	}
	if opt.HTTPClient != nil {
		hc := *opt.HTTPClient
		c.hc = &hc
	} else {
		c.hc = &http.Client{Timeout: DefaultTimeout}
	}
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if c.now == nil {
		c.now = time.Now
	}
	c.retry = upstream.Retry{
		MaxAttempts: opt.MaxAttempts,
		BackoffBase: opt.BackoffBase,
		BackoffMax:  opt.BackoffMax,
		Jitter:      upstream.EqualJitter(),
		Sleep:       opt.Sleep,
		Now:         c.now,
	}.Or(upstream.Retry{MaxAttempts: DefaultMaxAttempts, BackoffBase: DefaultBackoffBase, BackoffMax: DefaultBackoffMax})
	return c, nil
}

// Name is "google".
func (c *Client) Name() string { return "google" }

// Limits are Text Search's: 20 places a page, 60 a search.
func (c *Client) Limits() provider.Limits { return provider.Limits{PageSize: PageSize, Cap: Cap} }

// MapsLink is a place's link as rows show it (lien_maps): Google's
// documented Maps URLs form, which opens the place's page and, unlike
// googleMapsUri (a cid link), names the place id, so that the reviews
// module reads the place back from a row (PlaceID).
func MapsLink(name, placeID string) string {
	return "https://www.google.com/maps/search/?api=1&query=" + url.QueryEscape(name) +
		"&query_place_id=" + url.QueryEscape(placeID)
}

// PlaceID reads the place id back from a row's lien_maps (MapsLink's
// form); ok is false for any other link, cid links included.
func (c *Client) PlaceID(mapsURL string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(mapsURL))
	if err != nil || !strings.HasSuffix(u.Hostname(), "google.com") {
		return "", false
	}
	id := u.Query().Get("query_place_id")
	return id, id != ""
}
