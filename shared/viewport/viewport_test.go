package viewport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/viewport"
)

// lyon is a viewport of about 0.1 degree over Lyon.
var lyon = viewport.Bounds{South: 45.70, West: 4.78, North: 45.80, East: 4.90}

// TestValidate: the request's rules, each refusal a 422 naming its field,
// and the defaults filled.
func TestValidate(t *testing.T) {
	tests := []struct {
		name        string
		req         viewport.Request
		field       string // "" when valid
		wantQuery   string
		wantCountry string
	}{
		{"valid, country defaulted", viewport.Request{Query: "boulangerie", Bounds: lyon}, "", "boulangerie", "FRA"},
		{"query trimmed, country upper-cased", viewport.Request{Query: "  plombier ", Country: " bel ", Bounds: lyon}, "", "plombier", "BEL"},
		{"200-character query", viewport.Request{Query: strings.Repeat("é", 200), Bounds: lyon}, "", strings.Repeat("é", 200), "FRA"},
		{"a side of exactly 1 degree", viewport.Request{Query: "q", Bounds: viewport.Bounds{South: 45, West: 4, North: 46, East: 5}}, "", "q", "FRA"},
		{"empty query", viewport.Request{Query: "", Bounds: lyon}, "query", "", ""},
		{"blank query", viewport.Request{Query: "   ", Bounds: lyon}, "query", "", ""},
		{"201-character query", viewport.Request{Query: strings.Repeat("é", 201), Bounds: lyon}, "query", "", ""},
		{"two-letter country", viewport.Request{Query: "q", Country: "FR", Bounds: lyon}, "country", "", ""},
		{"four-letter country", viewport.Request{Query: "q", Country: "FRAN", Bounds: lyon}, "country", "", ""},
		{"latitude above 90", viewport.Request{Query: "q", Bounds: viewport.Bounds{South: 89.5, West: 0, North: 90.5, East: 0.5}}, "bounds", "", ""},
		{"longitude below -180", viewport.Request{Query: "q", Bounds: viewport.Bounds{South: 0, West: -180.5, North: 0.5, East: -179.8}}, "bounds", "", ""},
		{"south above north", viewport.Request{Query: "q", Bounds: viewport.Bounds{South: 45.8, West: 4.78, North: 45.7, East: 4.9}}, "bounds", "", ""},
		{"west equal to east", viewport.Request{Query: "q", Bounds: viewport.Bounds{South: 45.7, West: 4.8, North: 45.8, East: 4.8}}, "bounds", "", ""},
		{"the zero viewport", viewport.Request{Query: "q"}, "bounds", "", ""},
		{"taller than 1 degree", viewport.Request{Query: "q", Bounds: viewport.Bounds{South: 45, West: 4, North: 46.01, East: 4.5}}, "bounds", "", ""},
		{"wider than 1 degree", viewport.Request{Query: "q", Bounds: viewport.Bounds{South: 45, West: 4, North: 45.5, East: 5.01}}, "bounds", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.req
			err := r.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if r.Query != tt.wantQuery || r.Country != tt.wantCountry {
					t.Fatalf("query %q, country %q; want %q, %q", r.Query, r.Country, tt.wantQuery, tt.wantCountry)
				}
				return
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.Unprocessable || len(ae.Fields) != 1 || ae.Fields[0].Field != tt.field {
				t.Fatalf("err %v, want a 422 naming %s", err, tt.field)
			}
		})
	}
}

// fake is a map provider serving fixed pages: page i is pages[i], the
// token of page i+1 is "p<i+1>". failures[i] errors the next requests of
// page i before it answers.
type fake struct {
	limits   provider.Limits
	pages    [][]provider.Place
	endless  bool // every page has a next one
	mu       sync.Mutex
	failures map[int][]error
	seen     []provider.Request
}

func (f *fake) Name() string            { return "fake" }
func (f *fake) Limits() provider.Limits { return f.limits }

func (f *fake) Search(_ context.Context, r provider.Request) (provider.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, r)
	i := 0
	if r.PageToken != "" {
		fmt.Sscanf(r.PageToken, "p%d", &i)
	}
	if errs := f.failures[i]; len(errs) > 0 {
		f.failures[i] = errs[1:]
		return provider.Page{}, errs[0]
	}
	var p provider.Page
	if i < len(f.pages) {
		p.Places = f.pages[i]
	}
	if i+1 < len(f.pages) || f.endless {
		p.NextPageToken = fmt.Sprintf("p%d", i+1)
	}
	return p, nil
}

func (f *fake) Place(context.Context, string) (provider.Place, error) {
	return provider.Place{}, provider.ErrNotFound
}

func (f *fake) Reviews(context.Context, string, int) ([]provider.Review, error) { return nil, nil }

// places makes n places inside lyon, ids from first.
func places(first, n int, category string) []provider.Place {
	out := make([]provider.Place, n)
	for i := range out {
		out[i] = provider.Place{ID: fmt.Sprintf("place%d", first+i), Name: fmt.Sprintf("P%d", first+i), Category: category,
			Lat: 45.75, Lon: 4.85}
	}
	return out
}

func request() viewport.Request {
	r := viewport.Request{Query: "boulangerie", Bounds: lyon}
	if err := r.Validate(); err != nil {
		panic(err)
	}
	return r
}

// TestReport: every page read, a place listed twice counted once, inside
// or outside the viewport, categories, and saturation against the
// provider's cap.
func TestReport(t *testing.T) {
	outside := provider.Place{ID: "far", Name: "Far", Category: "bakery", Lat: 48.85, Lon: 2.35}
	tests := []struct {
		name                  string
		pages                 [][]provider.Place
		cap                   int
		results, inside, read int
		saturated             bool
		pct                   float64
		categories            map[string]int
	}{
		{"one page under the cap", [][]provider.Place{places(0, 12, "bakery")}, 60, 12, 12, 1, false, 20, map[string]int{"bakery": 12}},
		{"three pages at the cap", [][]provider.Place{places(0, 20, "bakery"), places(20, 20, "bakery"), places(40, 20, "cafe")}, 60,
			60, 60, 3, true, 100, map[string]int{"bakery": 40, "cafe": 20}},
		{"a place listed on two pages counts once", [][]provider.Place{places(0, 20, "bakery"), places(15, 20, "bakery")}, 60,
			35, 35, 2, false, 58.3, map[string]int{"bakery": 35}},
		{"a place outside the viewport", [][]provider.Place{append(places(0, 2, "bakery"), outside)}, 60, 3, 2, 1, false, 5,
			map[string]int{"bakery": 3}},
		{"no result", [][]provider.Place{{}}, 60, 0, 0, 1, false, 0, map[string]int{}},
		{"a provider without a cap is never saturated", [][]provider.Place{places(0, 20, "bakery")}, 0, 20, 20, 1, false, 0,
			map[string]int{"bakery": 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{limits: provider.Limits{PageSize: 20, Cap: tt.cap}, pages: tt.pages}
			r := &viewport.Runner{Provider: f, Backoff: time.Millisecond}
			rep, err := r.Test(context.Background(), request())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Results != tt.results || rep.Inside != tt.inside || rep.Pages != tt.read || len(rep.Places) != tt.results {
				t.Fatalf("results %d, inside %d, pages %d, places %d; want %d, %d, %d", rep.Results, rep.Inside, rep.Pages,
					len(rep.Places), tt.results, tt.inside, tt.read)
			}
			if rep.Saturated != tt.saturated || rep.SaturationPct != tt.pct {
				t.Fatalf("saturated %v at %v%%, want %v at %v%%", rep.Saturated, rep.SaturationPct, tt.saturated, tt.pct)
			}
			if len(rep.Categories) != len(tt.categories) {
				t.Fatalf("categories %v, want %v", rep.Categories, tt.categories)
			}
			for c, n := range tt.categories {
				if rep.Categories[c] != n {
					t.Fatalf("categories %v, want %v", rep.Categories, tt.categories)
				}
			}
			if rep.Provider != "fake" || rep.Cap != tt.cap || rep.PageSize != 20 || rep.Query != "boulangerie" ||
				rep.Country != "FRA" || rep.Bounds != lyon || rep.Requests != tt.read {
				t.Fatalf("report header %+v", rep)
			}
			for _, p := range rep.Places {
				if p.Inside != (p.ID != "far") {
					t.Fatalf("place %s inside %v", p.ID, p.Inside)
				}
			}
		})
	}
}

// TestSearchRequests: each page asks the viewport's rectangle in the
// request's country, in French, with the previous page's token.
func TestSearchRequests(t *testing.T) {
	f := &fake{limits: provider.Limits{PageSize: 20, Cap: 60}, pages: [][]provider.Place{places(0, 20, "a"), places(20, 5, "a")}}
	r := &viewport.Runner{Provider: f}
	req := request()
	req.Country = "BEL"
	if _, err := r.Test(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if len(f.seen) != 2 {
		t.Fatalf("%d requests, want 2", len(f.seen))
	}
	for i, s := range f.seen {
		b := s.Bound
		if s.Query != "boulangerie" || s.Country != "BEL" || s.Language != "fr" ||
			b.Min[0] != lyon.West || b.Min[1] != lyon.South || b.Max[0] != lyon.East || b.Max[1] != lyon.North {
			t.Fatalf("request %d: %+v", i, s)
		}
	}
	if f.seen[0].PageToken != "" || f.seen[1].PageToken != "p1" {
		t.Fatalf("tokens %q, %q; want \"\", p1", f.seen[0].PageToken, f.seen[1].PageToken)
	}
}

// TestMaxPages: the pages read are bounded whatever the provider says.
func TestMaxPages(t *testing.T) {
	var pages [][]provider.Place
	for i := range 15 {
		pages = append(pages, places(i*20, 20, "a"))
	}
	f := &fake{limits: provider.Limits{PageSize: 20, Cap: 1000}, pages: pages, endless: true}
	rep, err := (&viewport.Runner{Provider: f}).Test(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != viewport.MaxPages || len(f.seen) != viewport.MaxPages || rep.Results != viewport.MaxPages*20 {
		t.Fatalf("pages %d, requests %d, results %d; want %d pages", rep.Pages, len(f.seen), rep.Results, viewport.MaxPages)
	}
}

// TestRetries: a transient failure is retried (Retries times, default 2)
// and counted in requests; a permanent one is not retried.
func TestRetries(t *testing.T) {
	transient := fmt.Errorf("%w: 503", provider.ErrTransient)
	tests := []struct {
		name     string
		retries  int
		failures map[int][]error
		requests int
		fails    bool
	}{
		{"no failure", 0, nil, 2, false},
		{"one transient failure on page 2", 0, map[int][]error{1: {transient}}, 3, false},
		{"two transient failures: the default retries suffice", 0, map[int][]error{0: {transient, transient}}, 4, false},
		{"three transient failures: past the default retries", 0, map[int][]error{0: {transient, transient, transient}}, 3, true},
		{"three transient failures with 3 retries", 3, map[int][]error{0: {transient, transient, transient}}, 5, false},
		{"rate limited is transient", 0, map[int][]error{0: {provider.ErrRateLimited}}, 3, false},
		{"a refusal is not retried", 0, map[int][]error{0: {provider.ErrRefused}}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{limits: provider.Limits{PageSize: 20, Cap: 60}, pages: [][]provider.Place{places(0, 20, "a"), places(20, 3, "a")},
				failures: tt.failures}
			r := &viewport.Runner{Provider: f, Retries: tt.retries, Backoff: time.Millisecond}
			rep, err := r.Test(context.Background(), request())
			if len(f.seen) != tt.requests {
				t.Fatalf("%d requests, want %d", len(f.seen), tt.requests)
			}
			if tt.fails {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Requests != tt.requests || rep.Results != 23 {
				t.Fatalf("report requests %d, results %d; want %d, 23", rep.Requests, rep.Results, tt.requests)
			}
		})
	}
}

// TestCancelledDuringBackoff: a cancelled context stops the wait.
func TestCancelledDuringBackoff(t *testing.T) {
	f := &fake{limits: provider.Limits{PageSize: 20, Cap: 60}, pages: [][]provider.Place{places(0, 1, "a")},
		failures: map[int][]error{0: {provider.ErrTransient, provider.ErrTransient}}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (&viewport.Runner{Provider: f, Backoff: time.Hour}).Test(ctx, request())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// TestDuration: the report's duration is measured on the runner's clock.
func TestDuration(t *testing.T) {
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	calls := 0
	now := func() time.Time { calls++; return start.Add(time.Duration(calls-1) * 1500 * time.Millisecond) }
	f := &fake{limits: provider.Limits{PageSize: 20, Cap: 60}, pages: [][]provider.Place{places(0, 1, "a")}}
	rep, err := (&viewport.Runner{Provider: f, Now: now}).Test(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if rep.DurationMS != 1500 {
		t.Fatalf("duration %d ms, want 1500", rep.DurationMS)
	}
}

// TestRun: the engine's call reads the job's parameters, validates them
// again (a 422 for a bad one), and counts the listings as the job's rows.
func TestRun(t *testing.T) {
	f := &fake{limits: provider.Limits{PageSize: 20, Cap: 60}, pages: [][]provider.Place{places(0, 7, "a")}}
	r := &viewport.Runner{Provider: f}
	for _, tt := range []struct {
		name   string
		params string
		rows   int
		code   apperr.Code // "" for success
		fails  bool
	}{
		{"valid", `{"query":" boulangerie ","bounds":{"south":45.7,"west":4.78,"north":45.8,"east":4.9}}`, 7, "", false},
		{"invalid bounds", `{"query":"boulangerie","bounds":{"south":45.8,"west":4.78,"north":45.7,"east":4.9}}`, 0, apperr.Unprocessable, true},
		{"not JSON", `nope`, 0, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, rows, err := r.Run(context.Background(), &jobs.Job{JobType: jobs.TypeViewportTest, Params: json.RawMessage(tt.params)})
			if tt.fails {
				if err == nil || (tt.code != "" && !apperr.Is(err, tt.code)) {
					t.Fatalf("err %v, want a failure (%s)", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rep, ok := res.(*viewport.Report)
			if !ok || rows != tt.rows || rep.Results != tt.rows || rep.Query != "boulangerie" || rep.Country != "FRA" {
				t.Fatalf("result %#v, rows %d", res, rows)
			}
		})
	}
}
