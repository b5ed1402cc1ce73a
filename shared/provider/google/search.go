package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/paulmach/orb"
	"golang.org/x/text/language"

	"github.com/prospectdata/svc/shared/provider"
)

// searchRequest is the JSON body of places:searchText. On a page token,
// every field but pageToken must repeat the first page's (the API answers
// INVALID_ARGUMENT otherwise): the caller sends the same Request with the
// token.
type searchRequest struct {
	TextQuery           string              `json:"textQuery"`
	LanguageCode        string              `json:"languageCode,omitempty"`
	RegionCode          string              `json:"regionCode,omitempty"`
	PageSize            int                 `json:"pageSize"`
	PageToken           string              `json:"pageToken,omitempty"`
	LocationRestriction locationRestriction `json:"locationRestriction"`
}

type locationRestriction struct {
	Rectangle viewport `json:"rectangle"`
}

// viewport is google.geo.type.Viewport: low is the south-west corner, high
// the north-east one.
type viewport struct {
	Low  latLng `json:"low"`
	High latLng `json:"high"`
}

type latLng struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

type localizedText struct {
	Text         string `json:"text"`
	LanguageCode string `json:"languageCode"`
}

// place is the part of a Places API Place that SearchFieldMask asks for.
type place struct {
	ID                       string         `json:"id"`
	DisplayName              *localizedText `json:"displayName"`
	FormattedAddress         string         `json:"formattedAddress"`
	NationalPhoneNumber      string         `json:"nationalPhoneNumber"`
	InternationalPhoneNumber string         `json:"internationalPhoneNumber"`
	WebsiteURI               string         `json:"websiteUri"`
	Rating                   float64        `json:"rating"`
	UserRatingCount          int            `json:"userRatingCount"`
	PrimaryTypeDisplayName   *localizedText `json:"primaryTypeDisplayName"`
	Types                    []string       `json:"types"`
	Location                 *latLng        `json:"location"`
	GoogleMapsURI            string         `json:"googleMapsUri"`
	// AddressComponents name the place's country (phone); BusinessStatus
	// tells a permanently closed place (dropped).
	AddressComponents []addressComponent `json:"addressComponents"`
	BusinessStatus    string             `json:"businessStatus"`
}

type searchResponse struct {
	Places        []place `json:"places"`
	NextPageToken string  `json:"nextPageToken"`
}

// Search returns one page of the search: one Text Search request. The page
// continues (NextPageToken set) whenever the API gave a token, however
// many places it holds: Text Search (New) can answer a page shorter than
// pageSize that still has more behind it, and a page read as the last
// would lose them. The caller stops at Limits().Cap.
func (c *Client) Search(ctx context.Context, r provider.Request) (provider.Page, error) {
	body, err := searchBody(r)
	if err != nil {
		return provider.Page{}, fmt.Errorf("google places: search: %w", err)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return provider.Page{}, fmt.Errorf("google places: search: %w", err)
	}
	var out searchResponse
	if err := c.call(ctx, http.MethodPost, "/v1/places:searchText", SearchFieldMask, raw, &out); err != nil {
		return provider.Page{}, err
	}
	page := provider.Page{Places: make([]provider.Place, 0, len(out.Places)), Listed: len(out.Places)}
	for _, p := range out.Places {
		if p.ID != "" && p.BusinessStatus != statusClosedPermanently {
			page.Places = append(page.Places, p.toPlace(body.LanguageCode))
		}
	}
	// Only the API knows whether more follows: its token, never the
	// page's length, continues the search. A page whose closed places were
	// dropped, or that the API answered short, keeps its token.
	page.NextPageToken = out.NextPageToken
	return page, nil
}

func searchBody(r provider.Request) (searchRequest, error) {
	q := strings.TrimSpace(r.Query)
	if q == "" {
		return searchRequest{}, errors.New("empty query")
	}
	rect, err := rectangle(r.Bound)
	if err != nil {
		return searchRequest{}, err
	}
	region, err := regionCode(r.Country)
	if err != nil {
		return searchRequest{}, err
	}
	return searchRequest{
		TextQuery:           q,
		LanguageCode:        strings.TrimSpace(r.Language),
		RegionCode:          region,
		PageSize:            PageSize,
		PageToken:           r.PageToken,
		LocationRestriction: locationRestriction{Rectangle: rect},
	}, nil
}

// rectangle turns the bound (orb points are lon, lat) into the API's
// viewport. The API reads a low longitude greater than the high one as a
// rectangle across the antimeridian; an orb.Bound cannot mean that, so such
// a bound is refused, as is an empty one and one wider than 180°.
func rectangle(b orb.Bound) (viewport, error) {
	lo, hi := b.Min, b.Max
	switch {
	case lo[1] < -90 || hi[1] > 90 || lo[0] < -180 || hi[0] > 180:
		return viewport{}, fmt.Errorf("bound %v is off the globe", b)
	case lo[1] >= hi[1] || lo[0] >= hi[0]:
		return viewport{}, fmt.Errorf("bound %v is empty or inverted", b)
	case hi[0]-lo[0] > 180:
		return viewport{}, fmt.Errorf("bound %v is wider than 180°", b)
	}
	return viewport{
		Low:  latLng{Latitude: lo[1], Longitude: lo[0]},
		High: latLng{Latitude: hi[1], Longitude: hi[0]},
	}, nil
}

// regionCode is the CLDR region (alpha-2) of an ISO 3166-1 country code;
// "" for no country.
func regionCode(country string) (string, error) {
	country = strings.TrimSpace(country)
	if country == "" {
		return "", nil
	}
	r, err := language.ParseRegion(country)
	if err != nil || !r.IsCountry() {
		return "", fmt.Errorf("unknown country %q", country)
	}
	return r.String(), nil
}

// statusClosedPermanently is the businessStatus of a place that closed for
// good: a search drops it, a lookup fails with provider.ErrClosed.
// CLOSED_TEMPORARILY and OPERATIONAL places are kept.
const statusClosedPermanently = "CLOSED_PERMANENTLY"

// toPlace maps a place of the API; lang is the request's languageCode,
// the language of a category read from a type code.
func (p place) toPlace(lang string) provider.Place {
	out := provider.Place{
		ID:          p.ID,
		Address:     p.FormattedAddress,
		Phone:       p.phone(),
		Website:     p.WebsiteURI,
		Rating:      p.Rating,
		ReviewCount: p.UserRatingCount,
		Category:    p.category(lang),
		MapsURL:     p.GoogleMapsURI,
	}
	if p.DisplayName != nil {
		out.Name = p.DisplayName.Text
	}
	if p.ID != "" {
		out.MapsURL = MapsLink(out.Name, p.ID)
	}
	if p.Location != nil {
		out.Lat, out.Lon = p.Location.Latitude, p.Location.Longitude
	}
	return out
}
