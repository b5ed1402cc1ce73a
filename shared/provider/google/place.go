package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/prospectdata/svc/shared/provider"
)

// PlaceFieldMask is the X-Goog-FieldMask of Place Details for Place: the
// fields of SearchFieldMask without their "places." prefix (Place Details
// answers a Place, not a list), so that a looked-up place maps exactly as
// a search result does, businessStatus included, which tells a closed
// place from an open one. businessStatus is a Place Details Pro field: the
// lookup bills as Place Details Enterprise, the tier of the phone, website
// and rating fields, as the search bills as Text Search Enterprise
// (docs/google-places.md).
const PlaceFieldMask = "id,displayName,formattedAddress,nationalPhoneNumber,internationalPhoneNumber," +
	"websiteUri,rating,userRatingCount,primaryTypeDisplayName,types,location,googleMapsUri,addressComponents,businessStatus"

// Place returns the place's current listing: one Place Details request
// (GET /v1/places/{id}), mapped as a search result is. A place whose
// businessStatus is CLOSED_PERMANENTLY fails with provider.ErrClosed, an id
// the API does not know (404 NOT_FOUND) with provider.ErrNotFound.
//
// The listing's ID is the one the API answers with: Google may return a
// place under a newer id than the one asked for, as its searches then
// would.
func (c *Client) Place(ctx context.Context, placeID string) (provider.Place, error) {
	id, err := placeName(placeID)
	if err != nil {
		return provider.Place{}, fmt.Errorf("google places: place: %w", err)
	}
	var out place
	if err := c.call(ctx, http.MethodGet, c.detailsPath(id), PlaceFieldMask, nil, &out); err != nil {
		if notFound(err) {
			return provider.Place{}, fmt.Errorf("google places: place %q: %w (%w)", id, provider.ErrNotFound, err)
		}
		return provider.Place{}, err
	}
	if out.BusinessStatus == statusClosedPermanently {
		return provider.Place{}, fmt.Errorf("google places: place %q: %w", id, provider.ErrClosed)
	}
	if out.ID == "" {
		// The mask asks for the id; an answer without one is still the
		// place asked for.
		out.ID = id
	}
	return out.toPlace(c.language), nil
}

// detailsPath is the Place Details path of the place, with the lookups'
// languageCode and regionCode (Options.PlaceLanguage, PlaceCountry) when
// set.
func (c *Client) detailsPath(id string) string {
	q := url.Values{}
	if c.language != "" {
		q.Set("languageCode", c.language)
	}
	if c.region != "" {
		q.Set("regionCode", c.region)
	}
	path := "/v1/places/" + url.PathEscape(id)
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path
}

// placeName is the id of a place id or resource name ("places/{id}"), for
// the Place Details path.
func placeName(placeID string) (string, error) {
	id := strings.TrimPrefix(strings.TrimSpace(placeID), "places/")
	if id == "" {
		return "", fmt.Errorf("empty place id: %w", provider.ErrNotFound)
	}
	return id, nil
}

// notFound tells whether the API does not know the place: a 404, or a
// permanent answer whose status is NOT_FOUND (a proxy may change the HTTP
// code, not the body).
func notFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && !ae.Temporary() &&
		(ae.StatusCode == http.StatusNotFound || ae.Status == "NOT_FOUND")
}
