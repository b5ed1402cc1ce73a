package google_test

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"
	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/google"
)

// The recorded fixtures (testdata/README.md): one Belgian restaurant as
// Places API (New) answered under regionCode BE, and its five reviews.
const (
	recordedSearch  = "recorded_search_fernelmont.json"
	recordedReviews = "recorded_details_reviews_fernelmont.json"
	brazierID       = "ChIJt-AOOKmhwUcRyyG6Wo81sho"
)

// frenchJob is a search of a French job over the Belgian border near
// Namur: the job's country is France, the place's Belgium.
func frenchJob() provider.Request {
	return provider.Request{Query: "restaurant", Country: "FRA", Language: "fr",
		Bound: orb.Bound{Min: orb.Point{4.9, 50.4}, Max: orb.Point{5.1, 50.6}}}
}

// recordedPlace is the recorded place as a JSON object, for a variant
// that drops or changes fields of the real answer.
func recordedPlace(t *testing.T) map[string]any {
	t.Helper()
	var page struct{ Places []map[string]any }
	if err := json.Unmarshal(fixture(t, recordedSearch), &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Places) != 1 {
		t.Fatalf("%d places in %s", len(page.Places), recordedSearch)
	}
	return page.Places[0]
}

func pageOf(t *testing.T, places ...map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"places": places})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// searchOne searches once, the fake API answering body, and returns the
// page.
func searchOne(t *testing.T, body string, r provider.Request) provider.Page {
	t.Helper()
	f := newFakeAPI(t, reply{status: 200, body: body})
	c := newClient(t, f, google.Options{})
	page, err := c.Search(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// jobKey is the number as the engine keys it: parsed against the job's
// country (shared/engine/phones.go), E.164 and its calling code.
func jobKey(t *testing.T, raw, jobRegion string) (string, int32) {
	t.Helper()
	n, err := phonenumbers.Parse(raw, jobRegion)
	if err != nil {
		t.Fatalf("%q does not parse in %s: %v", raw, jobRegion, err)
	}
	return phonenumbers.Format(n, phonenumbers.E164), n.GetCountryCode()
}

// TestRecordedPlace: the recorded answer maps to the row a user expects.
func TestRecordedPlace(t *testing.T) {
	page := searchOne(t, string(fixture(t, recordedSearch)), frenchJob())
	want := provider.Place{
		ID: brazierID, Name: "Le Brazier", Address: "Grand-Route 68, 5380 Fernelmont",
		Phone: "+32 81 34 08 69", Website: "https://www.lebrazier.be/", Rating: 4.2, ReviewCount: 580,
		Category: "Restaurant", Lat: 50.524277899999994, Lon: 5.0000890999999994,
		MapsURL: "https://www.google.com/maps/search/?api=1&query=Le+Brazier&query_place_id=" + brazierID,
	}
	if len(page.Places) != 1 || page.Places[0] != want {
		t.Fatalf("places\n got %+v\nwant [%+v]", page.Places, want)
	}
}

// TestPhoneOfThePlacesCountry: a Belgian number in a French job gets a +32
// key and is foreign, whichever of Google's two numbers is there; a
// national number is read with the place's own country, never the job's.
func TestPhoneOfThePlacesCountry(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(p map[string]any)
		wantPhone string
		wantCC    int32 // the calling code the engine keys, 0: not usable as a Belgian key
	}{
		{"both numbers: the international one", func(map[string]any) {}, "+32 81 34 08 69", 32},
		{"national only: parsed with the address's country", func(p map[string]any) {
			delete(p, "internationalPhoneNumber")
		}, "+32 81 34 08 69", 32},
		{"international only", func(p map[string]any) {
			delete(p, "nationalPhoneNumber")
		}, "+32 81 34 08 69", 32},
		{"national only and no country in the address: as listed", func(p map[string]any) {
			delete(p, "internationalPhoneNumber")
			delete(p, "addressComponents")
		}, "081 34 08 69", 0},
		{"no number", func(p map[string]any) {
			delete(p, "internationalPhoneNumber")
			delete(p, "nationalPhoneNumber")
		}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := recordedPlace(t)
			tt.edit(p)
			page := searchOne(t, pageOf(t, p), frenchJob())
			if len(page.Places) != 1 {
				t.Fatalf("%d places", len(page.Places))
			}
			got := page.Places[0].Phone
			if got != tt.wantPhone {
				t.Fatalf("Phone = %q, want %q", got, tt.wantPhone)
			}
			if tt.wantCC == 0 {
				return
			}
			key, cc := jobKey(t, got, "FR")
			if key != "+3281340869" || cc != tt.wantCC {
				t.Errorf("the French job keys %q as %s (+%d), want +3281340869, foreign", got, key, cc)
			}
		})
	}
	// What the adapter used to return: the national number, which a French
	// job reads as French.
	if key, cc := jobKey(t, "081 34 08 69", "FR"); cc != 33 {
		t.Errorf("the national number keys as %s (+%d) in France; the test no longer shows the old fault", key, cc)
	}
}

// TestClosedPlaces: a permanently closed place is not listed, a
// temporarily closed one is; the page still continues on what the API
// listed.
func TestClosedPlaces(t *testing.T) {
	closed := func(status string) map[string]any {
		p := recordedPlace(t)
		p["businessStatus"] = status
		return p
	}
	t.Run("one page", func(t *testing.T) {
		for status, listed := range map[string]bool{
			"OPERATIONAL": true, "CLOSED_TEMPORARILY": true, "CLOSED_PERMANENTLY": false, "": true,
		} {
			page := searchOne(t, pageOf(t, closed(status)), frenchJob())
			if got := len(page.Places) == 1; got != listed {
				t.Errorf("businessStatus %q: listed %v, want %v", status, got, listed)
			}
		}
	})
	t.Run("a full page with closed places continues", func(t *testing.T) {
		var places []map[string]any
		for i := range google.PageSize {
			status := "OPERATIONAL"
			if i%7 == 3 {
				status = "CLOSED_PERMANENTLY"
			}
			p := closed(status)
			p["id"] = brazierID + string(rune('a'+i))
			places = append(places, p)
		}
		var body map[string]any
		json.Unmarshal([]byte(pageOf(t, places...)), &body)
		body["nextPageToken"] = "tok-2"
		b, _ := json.Marshal(body)
		page := searchOne(t, string(b), frenchJob())
		if len(page.Places) != google.PageSize-3 || page.NextPageToken != "tok-2" {
			t.Errorf("%d places, token %q; want %d and the token", len(page.Places), page.NextPageToken, google.PageSize-3)
		}
	})
}

// TestCategoryWithoutDisplayName: a place without primaryTypeDisplayName
// gets a label of its type in the job's language, never a raw code.
func TestCategoryWithoutDisplayName(t *testing.T) {
	tests := []struct {
		name  string
		types []any // nil: the recorded types
		lang  string
		want  string
	}{
		{"recorded types, French job", nil, "fr", "Bar à vin"},
		{"recorded types, no language", nil, "", "Wine bar"},
		{"liquor store, French job", []any{"liquor_store", "food", "store", "point_of_interest", "establishment"}, "fr", "Caviste"},
		{"liquor store, regional French", []any{"liquor_store", "store"}, "fr-BE", "Caviste"},
		{"liquor store, English", []any{"liquor_store", "store"}, "en", "Liquor store"},
		{"liquor store, German: no table, English", []any{"liquor_store"}, "de", "Liquor store"},
		{"generic types first", []any{"point_of_interest", "establishment", "store", "bakery"}, "fr", "Boulangerie"},
		{"only a family", []any{"point_of_interest", "establishment", "food"}, "fr", "Alimentation"},
		{"a type of no table: humanized", []any{"point_of_interest", "vintage_clothing_store"}, "fr", "Vintage clothing store"},
		{"an English exception", []any{"atm", "finance"}, "en", "ATM"},
		{"no type", []any{}, "fr", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := recordedPlace(t)
			delete(p, "primaryTypeDisplayName")
			if tt.types != nil {
				p["types"] = tt.types
			}
			r := frenchJob()
			r.Language = tt.lang
			page := searchOne(t, pageOf(t, p), r)
			got := page.Places[0].Category
			if got != tt.want {
				t.Errorf("Category = %q, want %q", got, tt.want)
			}
			if strings.Contains(got, "_") {
				t.Errorf("Category %q is a raw type code", got)
			}
		})
	}
}

// TestReviewsKeepTheOriginal: reviews are asked in the lookups' language;
// each keeps its author's words and their language over Google's
// translation; reviewer names are not in the fixtures.
func TestReviewsKeepTheOriginal(t *testing.T) {
	t.Run("recorded", func(t *testing.T) {
		f := newFakeAPI(t, reply{status: 200, fixture: recordedReviews})
		c := newClient(t, f, google.Options{PlaceLanguage: "fr", PlaceCountry: "FRA"})
		got, err := c.Reviews(context.Background(), brazierID, 5)
		if err != nil {
			t.Fatal(err)
		}
		wantTimes := []string{"2024-10-20T08:51:38Z", "2023-12-02T13:03:01Z", "2022-08-25T14:51:28Z", "2021-11-30T08:40:45Z", "2021-05-13T19:55:22Z"}
		if len(got) != len(wantTimes) {
			t.Fatalf("%d reviews", len(got))
		}
		for i, r := range got {
			if r.Time != wantTimes[i] || r.Language != "en" || r.Text == "" || r.Author != "" {
				t.Errorf("review %d = %+v", i, r)
			}
		}
		q, err := url.ParseQuery(f.requests()[0].query)
		if err != nil {
			t.Fatal(err)
		}
		if q.Get("languageCode") != "fr" || q.Get("regionCode") != "FR" {
			t.Errorf("query %q, want languageCode=fr and regionCode=FR", f.requests()[0].query)
		}
		if h := f.requests()[0].header.Get("X-Goog-FieldMask"); h != google.ReviewsFieldMask {
			t.Errorf("field mask %q", h)
		}
	})
	t.Run("translated", func(t *testing.T) {
		// The recorded shape, one review's text changed into what Google
		// answers a French request for a review written in English: text
		// translated, originalText as written.
		var body struct {
			Reviews []map[string]any `json:"reviews"`
		}
		if err := json.Unmarshal(fixture(t, recordedReviews), &body); err != nil {
			t.Fatal(err)
		}
		body.Reviews = body.Reviews[4:]
		orig := body.Reviews[0]["originalText"].(map[string]any)["text"].(string)
		body.Reviews[0]["text"] = map[string]any{"text": "Restaurant propre et confortable.", "languageCode": "fr"}
		b, _ := json.Marshal(body)
		f := newFakeAPI(t, reply{status: 200, body: string(b)})
		c := newClient(t, f, google.Options{PlaceLanguage: "fr"})
		got, err := c.Reviews(context.Background(), brazierID, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := []provider.Review{{Rating: 5, Text: orig, Language: "en", Time: "2021-11-30T08:40:45Z"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("reviews\n got %+v\nwant %+v", got, want)
		}
	})
}
