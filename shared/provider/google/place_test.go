package google_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/google"
)

// wantPlaceMask is Place's field mask, spelled out: changing it changes
// the bill.
const wantPlaceMask = "id,displayName,formattedAddress,nationalPhoneNumber,internationalPhoneNumber," +
	"websiteUri,rating,userRatingCount,primaryTypeDisplayName,types,location,googleMapsUri,addressComponents,businessStatus"

// palais is the first place of testdata/search_page1.json, as
// testdata/details_place.json shows it later: more reviews, a new rating.
var palais = provider.Place{
	ID: "ChIJMuHbEL31IeL2HPcHyGcFRl1", Name: "Boulangerie du Palais",
	Address: "19 Rue de la République, 69002 Lyon", Phone: "+33 4 77 16 19 78",
	Website: "https://www.boulangerie-du-palais.fr/", Rating: 4.4, ReviewCount: 1187,
	Category: "Boulangerie", Lat: 45.754715, Lon: 4.8295255,
	MapsURL: "https://www.google.com/maps/search/?api=1&query=Boulangerie+du+Palais&query_place_id=ChIJMuHbEL31IeL2HPcHyGcFRl1",
}

// TestPlaceFieldMask: the lookup asks for the fields a search result maps,
// businessStatus included, nothing more.
func TestPlaceFieldMask(t *testing.T) {
	var want []string
	for f := range strings.SplitSeq(google.SearchFieldMask, ",") {
		if f != "nextPageToken" {
			want = append(want, strings.TrimPrefix(f, "places."))
		}
	}
	if got := strings.Join(want, ","); google.PlaceFieldMask != got {
		t.Errorf("PlaceFieldMask = %q, want the search's fields, %q", google.PlaceFieldMask, got)
	}
	if google.PlaceFieldMask != wantPlaceMask {
		t.Errorf("PlaceFieldMask = %q", google.PlaceFieldMask)
	}
}

// TestPlaceRequest: one GET of the place's resource with the key, the field
// mask, no body, and the language and region of Options when set.
func TestPlaceRequest(t *testing.T) {
	tests := []struct {
		name      string
		opt       google.Options
		placeID   string
		wantPath  string
		wantQuery string
	}{
		{"bare id, no language nor region", google.Options{}, palais.ID, "/v1/places/" + palais.ID, ""},
		{"resource name", google.Options{}, "places/" + palais.ID, "/v1/places/" + palais.ID, ""},
		{"language and region of lookups", google.Options{PlaceLanguage: "fr", PlaceCountry: "FRA"}, palais.ID,
			"/v1/places/" + palais.ID, "languageCode=fr&regionCode=FR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, reply{status: 200, fixture: "details_place.json"})
			c := newClient(t, f, tt.opt)
			if _, err := c.Place(context.Background(), tt.placeID); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != http.MethodGet || r.path != tt.wantPath || r.query != tt.wantQuery || len(r.body) != 0 {
				t.Errorf("sent %s %s?%s with %d bytes; want GET %s?%s", r.method, r.path, r.query, len(r.body), tt.wantPath, tt.wantQuery)
			}
			for h, want := range map[string]string{"X-Goog-Api-Key": testKey, "X-Goog-FieldMask": wantPlaceMask} {
				if got := r.header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
		})
	}
}

// TestPlaceMapsLikeSearch: a place looked up comes back with the fields a
// search lists it with, by the same mapping: every place of a search page,
// served as Place Details answers, maps to the page's Place.
func TestPlaceMapsLikeSearch(t *testing.T) {
	f := newFakeAPI(t, reply{status: 200, fixture: "search_page1.json"})
	c := newClient(t, f, google.Options{PlaceLanguage: "fr"})
	page, err := c.Search(context.Background(), lyonRequest())
	if err != nil {
		t.Fatal(err)
	}
	var recorded struct{ Places []map[string]any }
	if err := json.Unmarshal(fixture(t, "search_page1.json"), &recorded); err != nil {
		t.Fatal(err)
	}
	details := map[string][]byte{}
	for _, p := range recorded.Places {
		p["businessStatus"] = "OPERATIONAL"
		b, _ := json.Marshal(p)
		details["/v1/places/"+p["id"].(string)] = b
	}
	f.route = func(r *http.Request, _ []byte) reply {
		if b, ok := details[r.URL.Path]; ok {
			return reply{status: 200, body: string(b)}
		}
		return reply{status: 404, fixture: "error_404.json"}
	}
	for _, want := range page.Places {
		got, err := c.Place(context.Background(), want.ID)
		if err != nil {
			t.Fatalf("Place(%s) = %v", want.ID, err)
		}
		if got != want {
			t.Errorf("Place(%s)\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
}

// TestPlace: the recorded answers of a lookup and what Place makes of them.
func TestPlace(t *testing.T) {
	jacobins := provider.Place{
		ID: "ChIJPxZ9W3qLy7zKUVQDT7S8sTQ", Name: "La Mie des Jacobins",
		Address: "3 Rue Paul Chenavard, 69002 Lyon", Category: "Bakery",
		Lat: 45.7593842, Lon: 4.8445893,
		MapsURL: "https://www.google.com/maps/search/?api=1&query=La+Mie+des+Jacobins&query_place_id=ChIJPxZ9W3qLy7zKUVQDT7S8sTQ",
	}
	tests := []struct {
		name      string
		placeID   string
		replies   []reply
		want      provider.Place
		wantErr   error
		notErr    []error // errors the answer must not wrap
		wantReqs  int
		wantDelay int
	}{
		{"open, with fresh fields", palais.ID, []reply{{status: 200, fixture: "details_place.json"}},
			palais, nil, nil, 1, 0},
		{"temporarily closed is still listed", jacobins.ID, []reply{{status: 200, fixture: "details_place_closed_temporarily.json"}},
			jacobins, nil, nil, 1, 0},
		{"no business status is listed", palais.ID, []reply{{status: 200, body: `{"id":"` + palais.ID + `","displayName":{"text":"Boulangerie du Palais"}}`}},
			provider.Place{ID: palais.ID, Name: "Boulangerie du Palais",
				MapsURL: "https://www.google.com/maps/search/?api=1&query=Boulangerie+du+Palais&query_place_id=" + palais.ID}, nil, nil, 1, 0},
		{"answer without id keeps the id asked", palais.ID, []reply{{status: 200, body: `{"displayName":{"text":"X"}}`}},
			provider.Place{ID: palais.ID, Name: "X", MapsURL: "https://www.google.com/maps/search/?api=1&query=X&query_place_id=" + palais.ID}, nil, nil, 1, 0},
		{"permanently closed", "ChIJNKhiFXiQ2hzT-pLjHX2JiCL", []reply{{status: 200, fixture: "details_place_closed.json"}},
			provider.Place{}, provider.ErrClosed, []error{provider.ErrNotFound, provider.ErrTransient}, 1, 0},
		{"unknown place (404 NOT_FOUND)", palais.ID, []reply{{status: 404, fixture: "error_404.json"}},
			provider.Place{}, provider.ErrNotFound, []error{provider.ErrClosed, provider.ErrTransient}, 1, 0},
		{"NOT_FOUND under another status", palais.ID, []reply{{status: 400, fixture: "error_404.json"}},
			provider.Place{}, provider.ErrNotFound, []error{provider.ErrTransient}, 1, 0},
		{"empty id sends nothing", " ", nil,
			provider.Place{}, provider.ErrNotFound, []error{provider.ErrTransient}, 0, 0},
		{"429 every time ends in ErrTransient", palais.ID, []reply{{status: 429, fixture: "error_429_details.json"}},
			provider.Place{}, provider.ErrTransient, []error{provider.ErrNotFound, provider.ErrClosed}, 3, 2},
		{"429 then the place", palais.ID, []reply{{status: 429, fixture: "error_429_details.json"}, {status: 200, fixture: "details_place.json"}},
			palais, nil, nil, 2, 1},
		{"503 then the place", palais.ID, []reply{{status: 503, fixture: "error_503.json"}, {status: 200, fixture: "details_place.json"}},
			palais, nil, nil, 2, 1},
		{"invalid key is permanent", palais.ID, []reply{{status: 400, fixture: "error_400.json"}},
			provider.Place{}, nil, []error{provider.ErrNotFound, provider.ErrClosed, provider.ErrTransient}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, tt.replies...)
			s := &sleeper{}
			c := newClient(t, f, google.Options{MaxAttempts: 3, Sleep: s.sleep})
			got, err := c.Place(context.Background(), tt.placeID)
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("Place = %v, want %v", err, tt.wantErr)
			case tt.wantErr == nil && tt.notErr == nil && err != nil:
				t.Fatalf("Place = %v", err)
			case tt.wantErr == nil && tt.notErr != nil && err == nil:
				t.Fatal("Place succeeded, want an error")
			}
			for _, e := range tt.notErr {
				if errors.Is(err, e) {
					t.Errorf("Place = %v, which wraps %v", err, e)
				}
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("error shows the key: %v", err)
			}
			if got != tt.want {
				t.Errorf("place\n got %+v\nwant %+v", got, tt.want)
			}
			if n, d := len(f.requests()), len(s.got()); n != tt.wantReqs || d != tt.wantDelay {
				t.Errorf("%d requests, %d delays; want %d, %d", n, d, tt.wantReqs, tt.wantDelay)
			}
		})
	}
}

func TestNewRefusesUnknownPlaceCountry(t *testing.T) {
	if _, err := google.New(testKey, google.Options{PlaceCountry: "ZZZ"}); err == nil {
		t.Error("New accepted PlaceCountry ZZZ")
	}
}
