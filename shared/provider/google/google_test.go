package google_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/google"
)

// testKey looks like a key; no test reaches Google.
const testKey = "AIzaSyD-test-0123456789abcdefghijklmnop"

// The tokens of testdata/search_page1.json and search_short_with_token.json.
const (
	page1Token = "AeeoHcKx3Ql2Xq8Vb0mT7yJzR5nD4uWcFgHsLpE9aQvN1oYtKiUrBdZeXwMjS6fCh2lGn8OyPvI0TbA"
	shortToken = "AeeoHcLq7Ws0Fd2Hj4Kl6Zx8Cv1Bn3Mq5We7Rt9Yu"
)

// lyon is a rectangle over Lyon's Presqu'île (orb points are lon, lat).
var lyon = orb.Bound{Min: orb.Point{4.8186, 45.7436}, Max: orb.Point{4.8633, 45.7758}}

// reply is one recorded answer the fake API replays.
type reply struct {
	status  int
	fixture string // a file of testdata/
	body    string // when no fixture
	header  map[string]string
	hang    bool // answer only when the client gives up
}

// request is what the fake API received.
type request struct {
	method, path string
	query        string // the raw query string
	header       http.Header
	body         []byte
}

// fakeAPI replays its replies in order, the last one for every further
// request, and records the requests.
type fakeAPI struct {
	t       *testing.T
	srv     *httptest.Server
	replies []reply
	// route, when set, chooses the reply from the request instead.
	route func(r *http.Request, body []byte) reply
	hit   chan struct{}

	mu   sync.Mutex
	reqs []request
}

func newFakeAPI(t *testing.T, replies ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, replies: replies, hit: make(chan struct{}, 100)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, request{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: body})
	f.mu.Unlock()
	f.hit <- struct{}{}
	var rep reply
	switch {
	case f.route != nil:
		rep = f.route(r, body)
	case len(f.replies) == 0:
		rep = reply{status: 200, fixture: "search_empty.json"}
	default:
		rep = f.replies[min(n, len(f.replies)-1)]
	}
	if rep.hang {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		return
	}
	data := []byte(rep.body)
	if rep.fixture != "" {
		data = fixture(f.t, rep.fixture)
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(rep.status)
	w.Write(data)
}

func (f *fakeAPI) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sleeper records the backoff delays instead of waiting.
type sleeper struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.delays...)
}

func newClient(t *testing.T, f *fakeAPI, opt google.Options) *google.Client {
	t.Helper()
	opt.BaseURL = f.srv.URL
	c, err := google.New(testKey, opt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func lyonRequest() provider.Request {
	return provider.Request{Query: "boulangerie", Bound: lyon, Country: "FRA", Language: "fr"}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name, key, base string
		wantErr         bool
	}{
		{"defaults", testKey, "", false},
		{"empty key", "", "", true},
		{"blank key", "  \t", "", true},
		{"loopback http for tests", testKey, "http://127.0.0.1:8089", false},
		{"https proxy with a path", testKey, "https://places.example.com/google/", false},
		{"http elsewhere would send the key in clear", testKey, "http://places.example.com", true},
		{"not a URL", testKey, "places.googleapis.com", true},
		{"query in base URL", testKey, "https://places.googleapis.com/?key=x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := google.New(tt.key, google.Options{BaseURL: tt.base})
			if (err != nil) != tt.wantErr {
				t.Fatalf("New = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if tt.key != "" && strings.Contains(err.Error(), tt.key) {
					t.Errorf("error shows the key: %v", err)
				}
				return
			}
			if c.Name() != "google" {
				t.Errorf("Name = %q", c.Name())
			}
			if got := c.Limits(); got != (provider.Limits{PageSize: 20, Cap: 60}) {
				t.Errorf("Limits = %+v", got)
			}
		})
	}
}

// wantMask is the field mask, spelled out: changing it changes the bill.
const wantMask = "places.id,places.displayName,places.formattedAddress,places.nationalPhoneNumber," +
	"places.internationalPhoneNumber,places.websiteUri,places.rating,places.userRatingCount," +
	"places.primaryTypeDisplayName,places.types,places.location,places.googleMapsUri,places.addressComponents," +
	"places.businessStatus,nextPageToken"

func TestSearchRequest(t *testing.T) {
	tests := []struct {
		name     string
		req      provider.Request
		wantBody string
	}{
		{
			name: "first page",
			req:  lyonRequest(),
			wantBody: `{"textQuery":"boulangerie","languageCode":"fr","regionCode":"FR","pageSize":20,
				"locationRestriction":{"rectangle":{"low":{"latitude":45.7436,"longitude":4.8186},
				"high":{"latitude":45.7758,"longitude":4.8633}}}}`,
		},
		{
			name: "next page carries the token and repeats the rest",
			req: provider.Request{Query: "Bäckerei", Country: "DEU", Language: "de", PageToken: "tok-2",
				Bound: orb.Bound{Min: orb.Point{11.5, 48.1}, Max: orb.Point{11.6, 48.2}}},
			wantBody: `{"textQuery":"Bäckerei","languageCode":"de","regionCode":"DE","pageSize":20,"pageToken":"tok-2",
				"locationRestriction":{"rectangle":{"low":{"latitude":48.1,"longitude":11.5},
				"high":{"latitude":48.2,"longitude":11.6}}}}`,
		},
		{
			name: "south-west hemisphere corners",
			req: provider.Request{Query: "panadería", Country: "ARG",
				Bound: orb.Bound{Min: orb.Point{-58.53, -34.70}, Max: orb.Point{-58.33, -34.53}}},
			wantBody: `{"textQuery":"panadería","regionCode":"AR","pageSize":20,
				"locationRestriction":{"rectangle":{"low":{"latitude":-34.70,"longitude":-58.53},
				"high":{"latitude":-34.53,"longitude":-58.33}}}}`,
		},
		{
			name: "no country nor language",
			req:  provider.Request{Query: "plombier", Bound: lyon},
			wantBody: `{"textQuery":"plombier","pageSize":20,
				"locationRestriction":{"rectangle":{"low":{"latitude":45.7436,"longitude":4.8186},
				"high":{"latitude":45.7758,"longitude":4.8633}}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, reply{status: 200, fixture: "search_page1.json"})
			c := newClient(t, f, google.Options{})
			if _, err := c.Search(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != http.MethodPost || r.path != "/v1/places:searchText" {
				t.Errorf("sent %s %s", r.method, r.path)
			}
			for h, want := range map[string]string{
				"X-Goog-Api-Key":   testKey,
				"X-Goog-FieldMask": wantMask,
				"Content-Type":     "application/json",
			} {
				if got := r.header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			if strings.Contains(r.path, testKey) {
				t.Error("the key is in the URL")
			}
			var got, want any
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.wantBody), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("body\n got %s\nwant %s", r.body, tt.wantBody)
			}
		})
	}
}

func TestFieldMaskIsMinimal(t *testing.T) {
	for f := range strings.SplitSeq(google.SearchFieldMask, ",") {
		if f != "nextPageToken" && !strings.HasPrefix(f, "places.") {
			t.Errorf("field %q is not a places. field", f)
		}
		if f == "*" || f == "places" || strings.Contains(f, "reviews") || strings.Contains(f, "photos") {
			t.Errorf("field %q costs more than the columns need", f)
		}
	}
	if google.SearchFieldMask != wantMask {
		t.Errorf("SearchFieldMask = %q", google.SearchFieldMask)
	}
}

func TestSearchRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name string
		req  func(r *provider.Request)
	}{
		{"empty query", func(r *provider.Request) { r.Query = "  " }},
		{"unknown country", func(r *provider.Request) { r.Country = "XKX" }},
		{"not a country", func(r *provider.Request) { r.Country = "ZZZ" }},
		{"zero bound", func(r *provider.Request) { r.Bound = orb.Bound{} }},
		{"inverted latitudes", func(r *provider.Request) {
			r.Bound = orb.Bound{Min: orb.Point{4.8, 45.8}, Max: orb.Point{4.9, 45.7}}
		}},
		{"wider than 180°", func(r *provider.Request) {
			r.Bound = orb.Bound{Min: orb.Point{-100, 10}, Max: orb.Point{100, 20}}
		}},
		{"off the globe", func(r *provider.Request) {
			r.Bound = orb.Bound{Min: orb.Point{4.8, 45.7}, Max: orb.Point{4.9, 95}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			c := newClient(t, f, google.Options{})
			r := lyonRequest()
			tt.req(&r)
			_, err := c.Search(context.Background(), r)
			if err == nil || errors.Is(err, provider.ErrTransient) {
				t.Fatalf("Search = %v, want a permanent error", err)
			}
			if n := len(f.requests()); n != 0 {
				t.Errorf("%d requests sent for a bad request", n)
			}
		})
	}
}

func TestSearchMapsPlaces(t *testing.T) {
	f := newFakeAPI(t, reply{status: 200, fixture: "search_page1.json"})
	c := newClient(t, f, google.Options{})
	page, err := c.Search(context.Background(), lyonRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Places) != 20 || page.NextPageToken != page1Token {
		t.Fatalf("%d places, token %q", len(page.Places), page.NextPageToken)
	}
	tests := []struct {
		name string
		i    int
		want provider.Place
	}{
		{"every field", 0, provider.Place{
			ID: "ChIJMuHbEL31IeL2HPcHyGcFRl1", Name: "Boulangerie du Palais",
			Address: "19 Rue de la République, 69002 Lyon", Phone: "+33 4 77 16 19 78",
			Website: "https://www.boulangerie-du-palais.fr/", Rating: 4.3, ReviewCount: 1159,
			Category: "Boulangerie", Lat: 45.754715, Lon: 4.8295255,
			MapsURL: "https://www.google.com/maps/search/?api=1&query=Boulangerie+du+Palais&query_place_id=ChIJMuHbEL31IeL2HPcHyGcFRl1",
		}},
		{"international phone when no national one", 3, provider.Place{
			ID: "ChIJzjR3j1twdTKWTddB_XhkAS1", Name: "Le Fournil de Bellecour",
			Address: "69 Quai Saint-Antoine, 69002 Lyon", Phone: "+33 4 75 20 31 67",
			Website: "https://www.le-fournil-de-bellecour.fr/", Rating: 4.1, ReviewCount: 269,
			Category: "Boulangerie", Lat: 45.7569369, Lon: 4.8525045,
			MapsURL: "https://www.google.com/maps/search/?api=1&query=Le+Fournil+de+Bellecour&query_place_id=ChIJzjR3j1twdTKWTddB_XhkAS1",
		}},
		{"no phone, website nor rating", 7, provider.Place{
			ID: "ChIJPxZ9W3qLy7zKUVQDT7S8sTQ", Name: "La Mie des Jacobins",
			Address: "3 Rue Paul Chenavard, 69002 Lyon", Category: "Boulangerie",
			Lat: 45.7593842, Lon: 4.8445893, MapsURL: "https://www.google.com/maps/search/?api=1&query=La+Mie+des+Jacobins&query_place_id=ChIJPxZ9W3qLy7zKUVQDT7S8sTQ",
		}},
		{"category from the first type", 11, provider.Place{
			ID: "ChIJNKhiFXiQ2hzT-pLjHX2JiCL", Name: "Aux Délices de Sala",
			Address: "34 Cours de la Liberté, 69002 Lyon", Phone: "+33 4 76 18 24 39",
			Website: "https://www.aux-delices-de-sala.fr/", Rating: 3.7, ReviewCount: 148,
			Category: "Boulangerie", Lat: 45.7549449, Lon: 4.8437178,
			MapsURL: "https://www.google.com/maps/search/?api=1&query=Aux+D%C3%A9lices+de+Sala&query_place_id=ChIJNKhiFXiQ2hzT-pLjHX2JiCL",
		}},
		{"category skips generic types", 15, provider.Place{
			ID: "ChIJ-TkSF2RCdKDFRuNw5GCf_hA", Name: "Boulangerie Garibaldi",
			Address: "59 Rue Duguesclin, 69003 Lyon", Phone: "+33 4 77 86 59 51",
			Website: "https://www.boulangerie-garibaldi.fr/", Rating: 4.6, ReviewCount: 1362,
			Category: "Boulangerie", Lat: 45.7705974, Lon: 4.8296576,
			MapsURL: "https://www.google.com/maps/search/?api=1&query=Boulangerie+Garibaldi&query_place_id=ChIJ-TkSF2RCdKDFRuNw5GCf_hA",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := page.Places[tt.i]; got != tt.want {
				t.Errorf("place %d\n got %+v\nwant %+v", tt.i, got, tt.want)
			}
		})
	}
	seen := map[string]bool{}
	for _, p := range page.Places {
		if p.ID == "" || p.Name == "" || p.MapsURL == "" || seen[p.ID] || !lyon.Contains(orb.Point{p.Lon, p.Lat}) {
			t.Errorf("bad place %+v", p)
		}
		seen[p.ID] = true
	}
}

func TestSearchPages(t *testing.T) {
	tests := []struct {
		name       string
		fixture    string
		wantPlaces int
		wantToken  string
	}{
		{"full page with a token continues", "search_page1.json", 20, page1Token},
		{"last page", "search_last.json", 7, ""},
		{"short page with a token continues", "search_short_with_token.json", 6, shortToken},
		{"full page without a token is the last", "search_full_no_token.json", 20, ""},
		{"no result", "search_empty.json", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, reply{status: 200, fixture: tt.fixture})
			c := newClient(t, f, google.Options{})
			page, err := c.Search(context.Background(), lyonRequest())
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Places) != tt.wantPlaces || page.NextPageToken != tt.wantToken {
				t.Errorf("%d places, token %q; want %d, %q", len(page.Places), page.NextPageToken, tt.wantPlaces, tt.wantToken)
			}
		})
	}
}

// TestSearchWalk pages through a search as the scraper does: one request a
// page, and none after the last.
func TestSearchWalk(t *testing.T) {
	f := newFakeAPI(t)
	f.route = func(_ *http.Request, body []byte) reply {
		var b struct{ PageToken string }
		json.Unmarshal(body, &b)
		switch b.PageToken {
		case "":
			return reply{status: 200, fixture: "search_page1.json"}
		case page1Token:
			return reply{status: 200, fixture: "search_last.json"}
		}
		return reply{status: 400, fixture: "error_400.json"}
	}
	c := newClient(t, f, google.Options{})
	r := lyonRequest()
	var places []provider.Place
	for {
		page, err := c.Search(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		places = append(places, page.Places...)
		if page.NextPageToken == "" {
			break
		}
		r.PageToken = page.NextPageToken
	}
	reqs := f.requests()
	if len(reqs) != 2 || len(places) != 27 {
		t.Fatalf("%d requests, %d places; want 2, 27", len(reqs), len(places))
	}
	var first, second map[string]any
	json.Unmarshal(reqs[0].body, &first)
	json.Unmarshal(reqs[1].body, &second)
	if second["pageToken"] != page1Token {
		t.Errorf("second request's token = %v", second["pageToken"])
	}
	delete(second, "pageToken")
	if !reflect.DeepEqual(first, second) {
		t.Errorf("the next page changed the request:\n%s\n%s", reqs[0].body, reqs[1].body)
	}
}

func TestRetries(t *testing.T) {
	now := time.Date(2026, 10, 5, 9, 30, 0, 0, time.UTC)
	type span struct{ lo, hi time.Duration }
	ms := time.Millisecond
	tests := []struct {
		name        string
		replies     []reply
		maxAttempts int
		backoffMax  time.Duration
		wantErr     bool
		transient   bool
		wantStatus  int    // of the *APIError
		wantMsg     string // in the error
		wantReqs    int
		wantDelays  []span
	}{
		{
			name: "429 then 200 honours Retry-After",
			replies: []reply{
				{status: 429, fixture: "error_429.json", header: map[string]string{"Retry-After": "2"}},
				{status: 200, fixture: "search_page1.json"},
			},
			wantReqs: 2, wantDelays: []span{{2 * time.Second, 2 * time.Second}},
		},
		{
			name: "Retry-After as an HTTP date",
			replies: []reply{
				{status: 503, fixture: "error_503.json", header: map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}},
				{status: 200, fixture: "search_page1.json"},
			},
			wantReqs: 2, wantDelays: []span{{3 * time.Second, 3 * time.Second}},
		},
		{
			name: "500 then 200 backs off with jitter",
			replies: []reply{
				{status: 500, fixture: "error_500.json"},
				{status: 200, fixture: "search_page1.json"},
			},
			wantReqs: 2, wantDelays: []span{{50 * ms, 100 * ms}},
		},
		{
			name: "a proxy's 502 page is retried",
			replies: []reply{
				{status: 502, body: "<html><body>502 Bad Gateway</body></html>"},
				{status: 200, fixture: "search_page1.json"},
			},
			wantReqs: 2, wantDelays: []span{{50 * ms, 100 * ms}},
		},
		{
			name:    "503 every time ends in ErrTransient",
			replies: []reply{{status: 503, fixture: "error_503.json"}},
			wantErr: true, transient: true, wantStatus: 503, wantMsg: "UNAVAILABLE",
			wantReqs:   4,
			wantDelays: []span{{50 * ms, 100 * ms}, {100 * ms, 200 * ms}, {200 * ms, 400 * ms}},
		},
		{
			name:    "429 every time, delays capped at BackoffMax",
			replies: []reply{{status: 429, fixture: "error_429.json"}},
			// 100ms, 200ms, 400ms, 800ms, then 1s (BackoffMax) twice.
			maxAttempts: 7, backoffMax: time.Second,
			wantErr: true, transient: true, wantStatus: 429, wantMsg: "Quota exceeded",
			wantReqs: 7,
			wantDelays: []span{{50 * ms, 100 * ms}, {100 * ms, 200 * ms}, {200 * ms, 400 * ms},
				{400 * ms, 800 * ms}, {500 * ms, time.Second}, {500 * ms, time.Second}},
		},
		{
			name:        "no retries when MaxAttempts is 1",
			replies:     []reply{{status: 503, fixture: "error_503.json"}},
			maxAttempts: 1,
			wantErr:     true, transient: true, wantStatus: 503,
			wantReqs: 1,
		},
		{
			name:       "Retry-After beyond BackoffMax gives up at once",
			replies:    []reply{{status: 429, fixture: "error_429.json", header: map[string]string{"Retry-After": "120"}}},
			backoffMax: time.Minute,
			wantErr:    true, transient: true, wantStatus: 429,
			wantReqs: 1,
		},
		{
			name:    "400 is not retried",
			replies: []reply{{status: 400, fixture: "error_400.json"}},
			wantErr: true, wantStatus: 400, wantMsg: "INVALID_ARGUMENT: API key not valid. Please pass a valid API key.",
			wantReqs: 1,
		},
		{
			name:    "403 is not retried",
			replies: []reply{{status: 403, fixture: "error_403.json"}},
			wantErr: true, wantStatus: 403, wantMsg: "PERMISSION_DENIED: Places API (New) has not been used",
			wantReqs: 1,
		},
		{
			name:     "a 200 that is not JSON is not retried",
			replies:  []reply{{status: 200, body: "<html>captive portal</html>"}},
			wantErr:  true,
			wantReqs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, tt.replies...)
			s := &sleeper{}
			maxAttempts := tt.maxAttempts
			if maxAttempts == 0 {
				maxAttempts = 4
			}
			backoffMax := tt.backoffMax
			if backoffMax == 0 {
				backoffMax = 5 * time.Second
			}
			c := newClient(t, f, google.Options{
				MaxAttempts: maxAttempts, BackoffBase: 100 * ms, BackoffMax: backoffMax,
				Sleep: s.sleep, Now: func() time.Time { return now },
			})
			page, err := c.Search(context.Background(), lyonRequest())
			if (err != nil) != tt.wantErr {
				t.Fatalf("Search = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && len(page.Places) != 20 {
				t.Errorf("%d places after the retry", len(page.Places))
			}
			if err != nil {
				if errors.Is(err, provider.ErrTransient) != tt.transient {
					t.Errorf("transient = %v, want %v: %v", !tt.transient, tt.transient, err)
				}
				var ae *google.APIError
				if tt.wantStatus != 0 && (!errors.As(err, &ae) || ae.StatusCode != tt.wantStatus) {
					t.Errorf("error %v is not an APIError with status %d", err, tt.wantStatus)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("error %q does not say %q", err, tt.wantMsg)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("error shows the key: %v", err)
				}
			}
			if n := len(f.requests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			got := s.got()
			if len(got) != len(tt.wantDelays) {
				t.Fatalf("delays %v, want %d", got, len(tt.wantDelays))
			}
			for i, d := range got {
				if d < tt.wantDelays[i].lo || d > tt.wantDelays[i].hi {
					t.Errorf("delay %d = %v, want in [%v, %v]", i, d, tt.wantDelays[i].lo, tt.wantDelays[i].hi)
				}
			}
		})
	}
}

func TestErrorNeverShowsTheKey(t *testing.T) {
	f := newFakeAPI(t)
	f.route = func(r *http.Request, _ []byte) reply {
		// The worst case: an API echoing the key it was sent.
		msg := "API key " + r.Header.Get("X-Goog-Api-Key") + " not valid."
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}})
		return reply{status: 400, body: string(b)}
	}
	c := newClient(t, f, google.Options{})
	_, err := c.Search(context.Background(), lyonRequest())
	if err == nil || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "API key [key] not valid") {
		t.Errorf("Search = %v", err)
	}
}

func TestContextCanceledDuringBackoff(t *testing.T) {
	f := newFakeAPI(t, reply{status: 503, fixture: "error_503.json"})
	// The real sleep, an hour long: only the cancellation ends it.
	c := newClient(t, f, google.Options{BackoffBase: time.Hour, BackoffMax: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-f.hit
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	_, err := c.Search(ctx, lyonRequest())
	if !errors.Is(err, context.Canceled) || errors.Is(err, provider.ErrTransient) {
		t.Errorf("Search = %v, want context.Canceled, not transient", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %v", d)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestDeadlineShorterThanBackoff(t *testing.T) {
	f := newFakeAPI(t, reply{status: 503, fixture: "error_503.json"})
	s := &sleeper{}
	c := newClient(t, f, google.Options{BackoffBase: time.Minute, BackoffMax: time.Minute, Sleep: s.sleep})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.Search(ctx, lyonRequest())
	if !errors.Is(err, provider.ErrTransient) {
		t.Errorf("Search = %v, want ErrTransient", err)
	}
	if n, d := len(f.requests()), s.got(); n != 1 || len(d) != 0 {
		t.Errorf("%d requests, delays %v; want 1 and none", n, d)
	}
}

func TestNetworkTimeoutIsRetried(t *testing.T) {
	f := newFakeAPI(t, reply{hang: true}, reply{status: 200, fixture: "search_page1.json"})
	s := &sleeper{}
	c := newClient(t, f, google.Options{
		HTTPClient:  &http.Client{Timeout: 100 * time.Millisecond},
		MaxAttempts: 3, Sleep: s.sleep,
	})
	page, err := c.Search(context.Background(), lyonRequest())
	if err != nil || len(page.Places) != 20 {
		t.Fatalf("Search = %d places, %v", len(page.Places), err)
	}
	if n, d := len(f.requests()), s.got(); n != 2 || len(d) != 1 {
		t.Errorf("%d requests, delays %v; want 2 and one", n, d)
	}
}

func TestNetworkTimeoutEveryTime(t *testing.T) {
	f := newFakeAPI(t, reply{hang: true})
	s := &sleeper{}
	c := newClient(t, f, google.Options{
		HTTPClient:  &http.Client{Timeout: 50 * time.Millisecond},
		MaxAttempts: 2, Sleep: s.sleep,
	})
	_, err := c.Search(context.Background(), lyonRequest())
	if !errors.Is(err, provider.ErrTransient) {
		t.Errorf("Search = %v, want ErrTransient", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestResponseSizeIsCapped(t *testing.T) {
	huge := `{"places":[],"nextPageToken":"` + strings.Repeat("x", 11<<20) + `"}`
	f := newFakeAPI(t, reply{status: 200, body: huge})
	c := newClient(t, f, google.Options{})
	_, err := c.Search(context.Background(), lyonRequest())
	if err == nil || errors.Is(err, provider.ErrTransient) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Search = %v, want a permanent size error", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	elsewhere := newFakeAPI(t, reply{status: 200, fixture: "search_page1.json"})
	f := newFakeAPI(t, reply{status: 307, header: map[string]string{"Location": elsewhere.srv.URL + "/v1/places:searchText"}})
	c := newClient(t, f, google.Options{})
	if _, err := c.Search(context.Background(), lyonRequest()); err == nil {
		t.Error("a redirect was taken for an answer")
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Errorf("the key followed a redirect (%d requests)", n)
	}
}

func TestReviews(t *testing.T) {
	const id = "ChIJMuHbEL31IeL2HPcHyGcFRl1"
	all := []provider.Review{
		{Author: "Julien Marchetti", Rating: 4, Text: "Très bonnes viennoiseries, un peu d'attente le dimanche matin.", Language: "fr", Time: "2026-09-08T16:05:44Z"},
		{Author: "Inès Benali", Rating: 5, Text: "Tarte aux pralines parfaite.", Language: "fr", Time: "2026-09-01T09:12:30Z"},
		{Author: "Camille Rousset", Rating: 5, Text: "Le meilleur pain de la Presqu'île, croûte croustillante et mie alvéolée. Accueil souriant même à 7 h.", Language: "fr", Time: "2026-06-02T07:41:19Z"},
		{Author: "Marc D.", Rating: 3, Time: "2026-04-17T18:47:55Z"},
		{Author: "Oliver Hart", Rating: 2, Text: "Bread was stale by noon and the staff seemed rushed.", Language: "en", Time: "2025-08-21T11:32:07Z"},
	}
	tests := []struct {
		name      string
		placeID   string
		max       int
		replies   []reply
		want      []provider.Review
		wantErr   error
		wantReqs  int
		wantDelay int
	}{
		{"newest first", id, 10, []reply{{status: 200, fixture: "details_reviews.json"}}, all, nil, 1, 0},
		{"at most max", id, 3, []reply{{status: 200, fixture: "details_reviews.json"}}, all[:3], nil, 1, 0},
		{"resource name accepted", "places/" + id, 5, []reply{{status: 200, fixture: "details_reviews.json"}}, all, nil, 1, 0},
		{"no review", id, 5, []reply{{status: 200, fixture: "details_empty.json"}}, []provider.Review{}, nil, 1, 0},
		{"max 0 sends nothing", id, 0, nil, nil, nil, 0, 0},
		{"unknown place", id, 5, []reply{{status: 404, fixture: "error_404.json"}}, nil, provider.ErrNotFound, 1, 0},
		{"empty id", "", 5, nil, nil, provider.ErrNotFound, 0, 0},
		{"retried then given up", id, 5, []reply{{status: 503, fixture: "error_503.json"}}, nil, provider.ErrTransient, 3, 2},
		{"retried then answered", id, 5, []reply{{status: 500, fixture: "error_500.json"}, {status: 200, fixture: "details_reviews.json"}}, all, nil, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, tt.replies...)
			s := &sleeper{}
			c := newClient(t, f, google.Options{MaxAttempts: 3, Sleep: s.sleep})
			got, err := c.Reviews(context.Background(), tt.placeID, tt.max)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Reviews = %v, want %v", err, tt.wantErr)
				}
				if tt.wantErr == provider.ErrNotFound && errors.Is(err, provider.ErrTransient) {
					t.Errorf("not found is transient: %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("reviews\n got %+v\nwant %+v", got, tt.want)
			}
			reqs := f.requests()
			if len(reqs) != tt.wantReqs || len(s.got()) != tt.wantDelay {
				t.Fatalf("%d requests, %d delays; want %d, %d", len(reqs), len(s.got()), tt.wantReqs, tt.wantDelay)
			}
			for _, r := range reqs {
				if r.method != http.MethodGet || r.path != "/v1/places/"+id || len(r.body) != 0 {
					t.Errorf("sent %s %s with %d bytes", r.method, r.path, len(r.body))
				}
				if r.header.Get("X-Goog-FieldMask") != "reviews" || r.header.Get("X-Goog-Api-Key") != testKey {
					t.Errorf("headers %v", r.header)
				}
			}
		})
	}
}

func TestConcurrentSearches(t *testing.T) {
	f := newFakeAPI(t, reply{status: 200, fixture: "search_page1.json"})
	c := newClient(t, f, google.Options{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			page, err := c.Search(context.Background(), lyonRequest())
			if err != nil || len(page.Places) != 20 {
				t.Errorf("Search = %d places, %v", len(page.Places), err)
			}
		})
	}
	wg.Wait()
	if n := len(f.requests()); n != 8 {
		t.Errorf("%d requests, want 8", n)
	}
}
