package google_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/google"
)

// The short search of testdata/README.md: a first page of 14 places that
// carries a token, then a last page of 9 without one.
const (
	shortFirst      = "search_short_first.json"
	shortLast       = "search_short_last.json"
	shortFirstToken = "AeeoHcIs7Pq2Nw4Rt8Vy1Xb5Zc3Dm6Fg9Hj0Kl2Qe4Wr6Ty8Ui1Op3As5Df7Gh9Jk"
)

// walk pages through a search as the engine's searchUnit does
// (shared/engine/task.go): it follows every token and stops at the
// provider's cap (counted on what the API listed) or after the pages the
// cap allows plus one. It returns the places and the requests made.
func walk(t *testing.T, c *google.Client, r provider.Request) ([]provider.Place, int) {
	t.Helper()
	lim := c.Limits()
	maxPages := (lim.Cap+lim.PageSize-1)/lim.PageSize + 1
	var places []provider.Place
	listed, requests := 0, 0
	for range maxPages {
		page, err := c.Search(context.Background(), r)
		requests++
		if err != nil {
			t.Fatal(err)
		}
		places = append(places, page.Places...)
		listed += page.Count()
		if listed >= lim.Cap || page.NextPageToken == "" {
			break
		}
		r.PageToken = page.NextPageToken
	}
	return places, requests
}

// fixtureIDs are the ids of a fixture's places, in order.
func fixtureIDs(t *testing.T, name string) []string {
	t.Helper()
	var page struct{ Places []struct{ ID string } }
	if err := json.Unmarshal(fixture(t, name), &page); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range page.Places {
		ids = append(ids, p.ID)
	}
	return ids
}

// TestShortPageWithTokenContinues: a first page shorter than pageSize that
// carries a nextPageToken is followed; every place of both pages comes
// back, for two requests, and the second request is the first with the
// short page's token.
func TestShortPageWithTokenContinues(t *testing.T) {
	f := newFakeAPI(t)
	f.route = func(_ *http.Request, body []byte) reply {
		var b struct{ PageToken string }
		if err := json.Unmarshal(body, &b); err != nil {
			t.Errorf("request body: %v", err)
		}
		switch b.PageToken {
		case "":
			return reply{status: 200, fixture: shortFirst}
		case shortFirstToken:
			return reply{status: 200, fixture: shortLast}
		}
		return reply{status: 400, fixture: "error_400_argument.json"}
	}
	c := newClient(t, f, google.Options{})
	places, requests := walk(t, c, lyonRequest())

	want := append(fixtureIDs(t, shortFirst), fixtureIDs(t, shortLast)...)
	if len(want) != 23 || len(fixtureIDs(t, shortFirst)) >= google.PageSize {
		t.Fatalf("fixtures changed: %d places, the first page not short", len(want))
	}
	var got []string
	for _, p := range places {
		got = append(got, p.ID)
	}
	if requests != 2 || !slices.Equal(got, want) {
		t.Fatalf("%d requests, places %v; want 2 requests and %v", requests, got, want)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests reached the API", len(reqs))
	}
	var first, second map[string]any
	json.Unmarshal(reqs[0].body, &first)
	json.Unmarshal(reqs[1].body, &second)
	if _, ok := first["pageToken"]; ok {
		t.Errorf("first request has a token: %s", reqs[0].body)
	}
	if second["pageToken"] != shortFirstToken {
		t.Errorf("second request's token = %v, want the short page's", second["pageToken"])
	}
	delete(second, "pageToken")
	if !reflect.DeepEqual(first, second) {
		t.Errorf("the next page changed the request:\n%s\n%s", reqs[0].body, reqs[1].body)
	}
}

// TestTokenWhateverTheLength: the page's token is passed on as the API
// gave it, for any number of places, closed ones dropped included; no
// token, no next page.
func TestTokenWhateverTheLength(t *testing.T) {
	page := func(n int, closed int, token string) string {
		var places []map[string]any
		for i := range n {
			p := recordedPlace(t)
			p["id"] = brazierID + string(rune('a'+i))
			if i < closed {
				p["businessStatus"] = "CLOSED_PERMANENTLY"
			}
			places = append(places, p)
		}
		b, err := json.Marshal(map[string]any{"places": places, "nextPageToken": token})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name          string
		n, closed     int
		token         string
		wantPlaces    int
		wantListed    int
		wantNextToken string
	}{
		{"one place and a token", 1, 0, "tok-1", 1, 1, "tok-1"},
		{"19 places and a token", 19, 0, "tok-19", 19, 19, "tok-19"},
		{"full page and a token", 20, 0, "tok-20", 20, 20, "tok-20"},
		{"short page, closed places dropped, and a token", 12, 4, "tok-c", 8, 12, "tok-c"},
		{"short page without a token", 7, 0, "", 7, 7, ""},
		{"full page without a token", 20, 0, "", 20, 20, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := searchOne(t, page(tt.n, tt.closed, tt.token), frenchJob())
			if len(got.Places) != tt.wantPlaces || got.Listed != tt.wantListed || got.NextPageToken != tt.wantNextToken {
				t.Errorf("%d places, %d listed, token %q; want %d, %d, %q",
					len(got.Places), got.Listed, got.NextPageToken, tt.wantPlaces, tt.wantListed, tt.wantNextToken)
			}
		})
	}
}

// TestShortFixturesFollowTheRecordedShape: the built pages of the short
// search hold each place with the recorded place's fields, no more, no
// fewer (testdata/README.md), the country as an addressComponents entry
// and no country in the address, as the recorded answer has them.
func TestShortFixturesFollowTheRecordedShape(t *testing.T) {
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	want := keys(recordedPlace(t))
	for _, name := range []string{shortFirst, shortLast} {
		var page struct {
			Places        []map[string]any
			NextPageToken *string
		}
		if err := json.Unmarshal(fixture(t, name), &page); err != nil {
			t.Fatal(err)
		}
		if (page.NextPageToken != nil) != (name == shortFirst) {
			t.Errorf("%s: token %v", name, page.NextPageToken)
		}
		for i, p := range page.Places {
			if got := keys(p); !slices.Equal(got, want) {
				t.Errorf("%s place %d: fields %v, recorded %v", name, i, got, want)
			}
			if addr, _ := p["formattedAddress"].(string); strings.HasSuffix(addr, "France") {
				t.Errorf("%s place %d: address %q names the country", name, i, addr)
			}
			country := ""
			comps, _ := p["addressComponents"].([]any)
			for _, c := range comps {
				c, _ := c.(map[string]any)
				if types, _ := c["types"].([]any); slices.Contains(types, any("country")) {
					country, _ = c["shortText"].(string)
				}
			}
			if country != "FR" {
				t.Errorf("%s place %d: country %q", name, i, country)
			}
			if p["name"] != "places/"+p["id"].(string) {
				t.Errorf("%s place %d: name %v, id %v", name, i, p["name"], p["id"])
			}
		}
	}
	// And they map to full rows, as the recorded place does.
	f := newFakeAPI(t, reply{status: 200, fixture: shortFirst})
	c := newClient(t, f, google.Options{})
	page, err := c.Search(context.Background(), lyonRequest())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range page.Places {
		if p.Name == "" || !strings.HasPrefix(p.Phone, "+33 4 78") || p.Website == "" || p.Category != "Boulangerie" ||
			p.Rating == 0 || p.ReviewCount == 0 || !lyon.Contains([2]float64{p.Lon, p.Lat}) {
			t.Errorf("row %+v", p)
		}
	}
}
