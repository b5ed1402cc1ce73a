package registers

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// sequence answers the search API with the replies in turn (the last one
// again once they run out), and BODACC with nothing.
func sequence(replies ...reply) func(*http.Request) reply {
	var n atomic.Int32
	return func(r *http.Request) reply {
		if isBodacc(r) {
			return reply{file: "bodacc_empty.json"}
		}
		i := int(n.Add(1)) - 1
		return replies[min(i, len(replies)-1)]
	}
}

func TestTransportFailures(t *testing.T) {
	ok := reply{file: "search_siren.json"}
	for _, tc := range []struct {
		name    string
		replies []reply
		cfg     Config
		calls   int
		slept   time.Duration // at least
		wantErr error         // nil: the lookup succeeds
		apiErr  int
	}{
		{"429 then 200 honours Retry-After",
			[]reply{{status: 429, file: "error_429.html", header: map[string]string{"Retry-After": "2"}}, ok},
			Config{}, 2, 2 * time.Second, nil, 0},
		{"Retry-After as an HTTP date",
			[]reply{{status: 503, file: "error_500.html", header: map[string]string{"Retry-After": testNow.Add(3 * time.Second).Format(http.TimeFormat)}}, ok},
			Config{}, 2, 3 * time.Second, nil, 0},
		{"500 twice then 200", []reply{{status: 500, file: "error_500.html"}, {status: 502, body: "bad gateway"}, ok},
			Config{}, 3, 0, nil, 0},
		{"500 until the retries run out", []reply{{status: 500, file: "error_500.html"}},
			Config{MaxAttempts: 4}, 4, 0, ErrUnavailable, 0},
		{"a Retry-After beyond BackoffMax gives up at once",
			[]reply{{status: 429, file: "error_429.html", header: map[string]string{"Retry-After": "120"}}},
			Config{}, 1, 0, ErrUnavailable, 0},
		{"malformed JSON is retried, then unavailable", []reply{{file: "search_malformed.json"}},
			Config{MaxAttempts: 3}, 3, 0, ErrUnavailable, 0},
		{"malformed once, then good", []reply{{file: "search_malformed.json"}, ok},
			Config{}, 2, 0, nil, 0},
		{"400 is not retried", []reply{{status: 400, file: "search_error_400.json"}},
			Config{}, 1, 0, nil, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t, sequence(tc.replies...))
			c, clk := u.client(t, tc.cfg)
			_, err := c.Lookup(context.Background(), Query{SIREN: "790000129"})
			var ae *APIError
			switch {
			case tc.apiErr != 0:
				if !errors.As(err, &ae) || ae.StatusCode != tc.apiErr || ae.Message != "Veuillez indiquer au moins un paramètre de recherche." {
					t.Errorf("err = %v, want the API's %d", err, tc.apiErr)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("err = %v, want %v", err, tc.wantErr)
				}
			case err != nil:
				t.Errorf("err = %v", err)
			}
			if got := c.Calls().Search; got != int64(tc.calls) {
				t.Errorf("%d search calls, want %d", got, tc.calls)
			}
			if clk.Slept() < tc.slept {
				t.Errorf("slept %v, want at least %v", clk.Slept(), tc.slept)
			}
		})
	}
}

func TestRetryAfterHoldsEveryCaller(t *testing.T) {
	u := newUpstream(t, sequence(reply{status: 429, header: map[string]string{"Retry-After": "5"}}, reply{file: "search_siren.json"}))
	c, clk := u.client(t, Config{})
	if _, err := c.Lookup(context.Background(), Query{SIREN: "790000129"}); err != nil {
		t.Fatal(err)
	}
	// The next request of any caller waits for the pacer, which the 429
	// pushed 5 s ahead of the clock when it came.
	if !c.search.pace.next.After(testNow.Add(5 * time.Second)) {
		t.Errorf("pacer's next slot %v", c.search.pace.next)
	}
	if clk.Slept() < 5*time.Second {
		t.Errorf("slept %v", clk.Slept())
	}
}

func TestPacing(t *testing.T) {
	u := newUpstream(t, sequence(reply{file: "search_empty.json"}))
	c, clk := u.client(t, Config{RatePerSecond: 5})
	for range 10 {
		if _, err := c.searchPage(context.Background(), searchParams{q: "x", perPage: 1}); err != nil {
			t.Fatal(err)
		}
	}
	// Ten requests at 5 a second: the first at once, then one every 200 ms.
	if got := clk.Slept(); got != 9*200*time.Millisecond {
		t.Errorf("slept %v, want 1.8s", got)
	}
}

func TestDeadlineEndsRetries(t *testing.T) {
	u := newUpstream(t, sequence(reply{status: 503, header: map[string]string{"Retry-After": "20"}}))
	c, clk := u.client(t, Config{})
	clk.Set(time.Now()) // the context's deadline is on the real clock
	ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(10*time.Second))
	defer cancel()
	_, err := c.Lookup(ctx, Query{SIREN: "790000129"})
	if !errors.Is(err, ErrUnavailable) || c.Calls().Search != 1 {
		t.Errorf("err = %v after %d calls", err, c.Calls().Search)
	}
}

func TestCancelledContext(t *testing.T) {
	u := newUpstream(t, fixtures)
	c, _ := u.client(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Lookup(ctx, Query{SIREN: "790000129"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestHeadersAndKey(t *testing.T) {
	var search, bodacc http.Header
	u := newUpstream(t, func(r *http.Request) reply {
		if isBodacc(r) {
			bodacc = r.Header.Clone()
		} else {
			search = r.Header.Clone()
		}
		return fixtures(r)
	})
	c, _ := u.client(t, Config{APIKey: "s3cret"})
	if _, err := c.Lookup(context.Background(), Query{SIREN: "790000129"}); err != nil {
		t.Fatal(err)
	}
	if search.Get("Authorization") != "" || bodacc.Get("Authorization") != "Apikey s3cret" {
		t.Errorf("the key goes to BODACC only: search %q, bodacc %q", search.Get("Authorization"), bodacc.Get("Authorization"))
	}
	if search.Get("User-Agent") != DefaultUserAgent {
		t.Errorf("User-Agent %q", search.Get("User-Agent"))
	}
	if _, err := New(Deps{Config: Config{BodaccURL: "http://bodacc.example", APIKey: "k"}}); err == nil {
		t.Error("a key over plain http to a remote host should be refused")
	}
	if _, err := New(Deps{Config: Config{SearchURL: "ftp://x"}}); err == nil {
		t.Error("a non-http base URL should be refused")
	}
}

func TestBodaccFailureKeepsTheCompany(t *testing.T) {
	u := newUpstream(t, func(r *http.Request) reply {
		if isBodacc(r) {
			return reply{status: 500, file: "error_500.html"}
		}
		return fixtures(r)
	})
	c, _ := u.client(t, Config{MaxAttempts: 2})
	co, err := c.Lookup(context.Background(), Query{SIREN: "790000129"})
	if err != nil {
		t.Fatal(err)
	}
	if co.Bodacc != nil || len(co.Incomplete) != 1 || co.Incomplete[0] != "bodacc" || co.FormeJuridique != "SAS" || co.LeadStatus != StatusActif {
		t.Errorf("company %+v", co)
	}
	if c.Calls().Bodacc != 2 {
		t.Errorf("%d BODACC calls, want 2", c.Calls().Bodacc)
	}
}

func TestBodaccQueryRefused(t *testing.T) {
	u := newUpstream(t, func(r *http.Request) reply { return reply{status: 400, file: "bodacc_error_400.json"} })
	c, _ := u.client(t, Config{})
	_, err := c.Bodacc(context.Background(), "790000129")
	var ae *APIError
	if !errors.As(err, &ae) || ae.Source != "bodacc" || ae.Message != "ODSQLError ODSQL query is malformed: invalid token" {
		t.Errorf("err = %v", err)
	}
	if _, err := c.Bodacc(context.Background(), "790000128"); !errors.Is(err, ErrBadQuery) {
		t.Errorf("an invalid SIREN: %v", err)
	}
}

func TestConcurrentLookups(t *testing.T) {
	u := newUpstream(t, fixtures)
	c, _ := u.client(t, Config{})
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			q := Query{SIREN: "790000129"}
			if i%2 == 1 {
				q = Query{Name: "Boulangerie Dupont", Postcode: "69003"}
			}
			_, err := c.Lookup(context.Background(), q)
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if calls := c.Calls(); calls.Search != 16 || calls.Bodacc != 16 {
		t.Errorf("calls %+v", calls)
	}
}
