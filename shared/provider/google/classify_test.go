package google_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/fleet"
	"github.com/prospectdata/svc/shared/provider/google"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
	"github.com/prospectdata/svc/shared/upstream"
)

// TestErrorClasses: each answer's class for the engine and the fleet
// limiter. A refusal (key invalid or blocked, API disabled, billing off,
// daily quota spent) is provider.ErrRefused, sent once, with the API's
// reason in the message; a per-minute 429 is ErrRateLimited (transient,
// retried); a 5xx transient only; another 400 is this request's own error.
func TestErrorClasses(t *testing.T) {
	tests := []struct {
		name                            string
		rep                             reply
		refused, rateLimited, transient bool
		wantReqs                        int
		wantMsg                         string
	}{
		{"400 API_KEY_INVALID", reply{status: 400, fixture: "error_400.json"}, true, false, false, 1,
			"HTTP 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key. (API_KEY_INVALID)"},
		{"400 of the request", reply{status: 400, fixture: "error_400_argument.json"}, false, false, false, 1,
			"Invalid page token"},
		{"403 API disabled", reply{status: 403, fixture: "error_403.json"}, true, false, false, 1,
			"has not been used in project 123456789012 before or it is disabled"},
		{"403 key restricted", reply{status: 403, fixture: "error_403_key_blocked.json"}, true, false, false, 1,
			"are blocked. (API_KEY_SERVICE_BLOCKED)"},
		{"403 billing off", reply{status: 403, fixture: "error_403_billing.json"}, true, false, false, 1,
			"requires billing to be enabled"},
		{"401 without a body", reply{status: 401, body: ""}, true, false, false, 1, "HTTP 401: Unauthorized"},
		{"429 per minute", reply{status: 429, fixture: "error_429.json"}, false, true, true, 3,
			"limit 'SearchTextRequest per minute'"},
		{"429 per minute, Place Details", reply{status: 429, fixture: "error_429_details.json"}, false, true, true, 3,
			"GetPlaceRequest per minute"},
		{"429 per day", reply{status: 429, fixture: "error_429_daily.json"}, true, false, false, 1,
			"limit 'SearchTextRequest per day'"},
		{"429 per day: the message says what ran out", reply{status: 429, fixture: "error_429_daily.json"}, true, false, false, 1,
			"the daily quota SearchTextRequestPerDayPerProject of the project is exhausted"},
		{"429 per day by its quota_unit", reply{status: 429, body: quotaBody("SearchTextRequestPerProject", "1/d/{project}")}, true, false, false, 1,
			"daily quota SearchTextRequestPerProject"},
		{"429 per minute by its quota_unit", reply{status: 429, body: quotaBody("SearchTextRequestPerProject", "1/min/{project}")}, false, true, true, 3,
			"HTTP 429 RESOURCE_EXHAUSTED"},
		{"429 per day, message only", reply{status: 429, body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded for quota metric 'SearchTextRequest' and limit 'SearchTextRequest per day'."}}`},
			true, false, false, 1, "per day"},
		{"500", reply{status: 500, fixture: "error_500.json"}, false, false, true, 3, "INTERNAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, tt.rep)
			c := newClient(t, f, google.Options{MaxAttempts: 3, Sleep: (&sleeper{}).sleep})
			_, err := c.Search(context.Background(), lyonRequest())
			if err == nil {
				t.Fatal("no error")
			}
			for _, class := range []struct {
				name string
				err  error
				want bool
			}{{"refused", provider.ErrRefused, tt.refused}, {"rate limited", provider.ErrRateLimited, tt.rateLimited}, {"transient", provider.ErrTransient, tt.transient}} {
				if errors.Is(err, class.err) != class.want {
					t.Errorf("%s = %v, want %v: %v", class.name, !class.want, class.want, err)
				}
			}
			var ae *google.APIError
			if !errors.As(err, &ae) || ae.StatusCode != tt.rep.status {
				t.Errorf("%v is not the API's answer", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not say %q", err, tt.wantMsg)
			}
			if n := len(f.requests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
		})
	}
}

// gateRecorder admits every request and records the outcomes reported.
type gateRecorder struct {
	refuse error
	mu     sync.Mutex
	admits int
	dones  []error
}

func (g *gateRecorder) Admit(ctx context.Context) (context.Context, func(error), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refuse != nil {
		return nil, nil, g.refuse
	}
	g.admits++
	return ctx, func(err error) {
		g.mu.Lock()
		g.dones = append(g.dones, err)
		g.mu.Unlock()
	}, nil
}

// TestGateAdmitsEveryAttempt: each attempt, retries included, is admitted
// by the gate and reports its outcome; a 429's report carries its
// Retry-After; a request the gate refuses is not sent.
func TestGateAdmitsEveryAttempt(t *testing.T) {
	f := newFakeAPI(t,
		reply{status: 503, fixture: "error_503.json"},
		reply{status: 429, fixture: "error_429.json", header: map[string]string{"Retry-After": "2"}},
		reply{status: 200, fixture: "search_page1.json"})
	g := &gateRecorder{}
	c := newClient(t, f, google.Options{Gate: g, Sleep: (&sleeper{}).sleep})
	if _, err := c.Search(context.Background(), lyonRequest()); err != nil {
		t.Fatal(err)
	}
	if g.admits != 3 || len(g.dones) != 3 {
		t.Fatalf("%d admissions, %d outcomes, want 3", g.admits, len(g.dones))
	}
	if errors.Is(g.dones[0], provider.ErrRateLimited) || !errors.Is(g.dones[1], provider.ErrRateLimited) || g.dones[2] != nil {
		t.Errorf("outcomes %v", g.dones)
	}
	if ra := upstream.RetryAfterOf(g.dones[1]); ra != 2*time.Second {
		t.Errorf("the 429's outcome does not carry its Retry-After: %v", g.dones[1])
	}

	refusal := errors.New("no room")
	f2 := newFakeAPI(t)
	c2 := newClient(t, f2, google.Options{Gate: &gateRecorder{refuse: refusal}})
	if _, err := c2.Search(context.Background(), lyonRequest()); !errors.Is(err, refusal) {
		t.Errorf("Search through a refusing gate = %v", err)
	}
	if n := len(f2.requests()); n != 0 {
		t.Errorf("%d requests sent without admission", n)
	}
}

// TestFleetLimiterAsGate: two clients (two processes) gated by limiters
// over one store: together never more than MaxInFlight requests at the
// API, and a 429 met by one pauses the other for its Retry-After.
func TestFleetLimiterAsGate(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "fleet.db"), []store.Schema{ratelimit.Schema()}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var under, most int
	var times []time.Time
	throttle := true
	f := newFakeAPI(t)
	f.route = func(*http.Request, []byte) reply {
		mu.Lock()
		under++
		most = max(most, under)
		times = append(times, time.Now())
		first := throttle
		throttle = false
		mu.Unlock()
		time.Sleep(30 * time.Millisecond)
		mu.Lock()
		under--
		mu.Unlock()
		if first {
			return reply{status: 429, fixture: "error_429.json", header: map[string]string{"Retry-After": "1"}}
		}
		return reply{status: 200, fixture: "search_empty.json"}
	}
	clients := make([]*google.Client, 2)
	for i := range clients {
		l, err := fleet.New(db, fleet.Config{Scope: "google", MaxInFlight: 2, MaxPerSecond: 100, Pause: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = newClient(t, f, google.Options{Gate: l})
	}
	// The first request meets the 429 alone.
	start := time.Now()
	if _, err := clients[0].Search(context.Background(), lyonRequest()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := clients[i%2].Search(context.Background(), lyonRequest()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if most > 2 {
		t.Errorf("%d requests at the API at once, limit 2", most)
	}
	if len(times) != 10 {
		t.Fatalf("%d requests, want 10 (a 429, its retry, 8)", len(times))
	}
	for i, at := range times[1:] {
		if d := at.Sub(start); d < 950*time.Millisecond {
			t.Errorf("request %d sent %v after the 429, within its Retry-After", i+1, d)
		}
	}
}

// quotaBody is a 429's google.rpc.Status with an ErrorInfo whose quota
// limit's name does not tell the period, and the quota_unit that does.
func quotaBody(limit, unit string) string {
	return `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded for quota metric 'SearchTextRequest'.",
		"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com",
		"metadata":{"quota_metric":"places.googleapis.com/search_text_requests","quota_limit":"` + limit + `","quota_unit":"` + unit + `",
		"service":"places.googleapis.com"}}]}}`
}
