package phoneinfo_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/phoneinfo"
)

const (
	testKey    = "k-test"
	testSecret = "s-test"
)

// TestHLRSignature: the signature is HMAC-SHA256 of path, timestamp,
// method and body, in hex (the vector computed apart, with Python's hmac).
func TestHLRSignature(t *testing.T) {
	got := phoneinfo.HLRSignature("s3cr3t", "/hlr-lookup", 1700000000, "post", []byte(`{"msisdn":"+33639980012"}`))
	if want := "ff75e12591020bade4dd4caeca32a60fb3c4ec8fa6ff07c15e1317c689778ac8"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
}

// hlrServer answers each request with the next of answers (the last one
// repeated), after checking that it is a signed lookup of want; it counts
// the requests.
type hlrAnswer struct {
	status int
	header http.Header
	body   string
}

func hlrServer(t *testing.T, want string, answers ...hlrAnswer) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		body, _ := io.ReadAll(r.Body)
		ts, err := strconv.ParseInt(r.Header.Get("X-Digest-Timestamp"), 10, 64)
		sig := phoneinfo.HLRSignature(testSecret, phoneinfo.HLRPath, ts, r.Method, body)
		var req struct{ MSISDN string }
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/api/v2/hlr-lookup":
			t.Errorf("%s %s", r.Method, r.URL.Path)
		case err != nil || r.Header.Get("X-Digest-Key") != testKey || r.Header.Get("X-Digest-Signature") != sig:
			t.Errorf("unsigned or badly signed: %v", r.Header)
		case json.Unmarshal(body, &req) != nil || req.MSISDN != want:
			t.Errorf("body %s, want the msisdn %s", body, want)
		}
		a := answers[min(i, len(answers)-1)]
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hlr", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sleeps records the client's waits instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func newHLR(t *testing.T, srv *httptest.Server, sl *sleeps, now func() time.Time) *phoneinfo.HLRClient {
	t.Helper()
	c, err := phoneinfo.NewHLRClient(phoneinfo.HLRConfig{BaseURL: srv.URL + "/api/v2", Key: testKey, Secret: testSecret,
		Sleep: sl.sleep, Now: now}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHLRClient(t *testing.T) {
	yes, no := true, false
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		number   string
		answers  []hlrAnswer
		want     phoneinfo.Status
		wantErr  error // nil: success
		requests int32
		waits    int
	}{
		{name: "connected", number: "+33639980012", answers: []hlrAnswer{{200, nil, fixture(t, "fr_connected.json")}},
			want: phoneinfo.Status{CarrierCurrent: "Orange", Ported: &no, Reachable: &yes}, requests: 1},
		{name: "ported: the current carrier is the ported network", number: "+33639980047",
			answers: []hlrAnswer{{200, nil, fixture(t, "fr_ported.json")}},
			want:    phoneinfo.Status{CarrierCurrent: "Free Mobile", Ported: &yes, Reachable: &yes}, requests: 1},
		{name: "absent", number: "+447700900123", answers: []hlrAnswer{{200, nil, fixture(t, "gb_absent.json")}},
			want: phoneinfo.Status{CarrierCurrent: "EE", Ported: &no, Reachable: &no}, requests: 1},
		{name: "invalid msisdn: unreachable, served by no one", number: "+33639980099",
			answers: []hlrAnswer{{200, nil, fixture(t, "fr_invalid.json")}},
			want:    phoneinfo.Status{Reachable: &no}, requests: 1},
		{name: "undetermined: nothing known", number: "+14155550123",
			answers: []hlrAnswer{{200, nil, fixture(t, "us_undetermined.json")}}, requests: 1},
		{name: "lookup failed upstream: an error, not retried", number: "+33639980071",
			answers: []hlrAnswer{{200, nil, fixture(t, "fr_failed.json")}}, wantErr: phoneinfo.ErrLookup, requests: 1},
		{name: "an answer for another number", number: "+33639980013",
			answers: []hlrAnswer{{200, nil, fixture(t, "fr_connected.json")}}, wantErr: phoneinfo.ErrLookup, requests: 1},
		{name: "503 then 429 with Retry-After, then the answer", number: "+33639980012",
			answers: []hlrAnswer{{503, nil, "down"}, {429, http.Header{"Retry-After": {"3"}}, `{"errors":["slow down"]}`},
				{200, nil, fixture(t, "fr_connected.json")}},
			want: phoneinfo.Status{CarrierCurrent: "Orange", Ported: &no, Reachable: &yes}, requests: 3, waits: 2},
		{name: "5xx every time: an error after 3 attempts", number: "+33639980012",
			answers: []hlrAnswer{{502, nil, "bad gateway"}}, wantErr: phoneinfo.ErrLookup, requests: 3, waits: 2},
		{name: "Retry-After past the backoff's bound: no wait of an hour", number: "+33639980012",
			answers: []hlrAnswer{{429, http.Header{"Retry-After": {"3600"}}, ""}}, wantErr: phoneinfo.ErrLookup, requests: 1},
		{name: "garbled body retried", number: "+33639980012",
			answers: []hlrAnswer{{200, nil, `{"id":"3b4d`}, {200, nil, fixture(t, "fr_connected.json")}},
			want:    phoneinfo.Status{CarrierCurrent: "Orange", Ported: &no, Reachable: &yes}, requests: 2, waits: 1},
		{name: "401: refused", number: "+33639980012", answers: []hlrAnswer{{401, nil, `{"errors":["unauthorized"]}`}},
			wantErr: phoneinfo.ErrRefused, requests: 1},
		{name: "402: no credit, refused", number: "+33639980012", answers: []hlrAnswer{{402, nil, "insufficient balance"}},
			wantErr: phoneinfo.ErrRefused, requests: 1},
		{name: "400: an error, not retried", number: "+33639980012", answers: []hlrAnswer{{400, nil, "bad request"}},
			wantErr: phoneinfo.ErrLookup, requests: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := hlrServer(t, tt.number, tt.answers...)
			sl := &sleeps{}
			c := newHLR(t, srv, sl, func() time.Time { return now })
			got, err := c.LookupLine(context.Background(), tt.number)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else {
				tt.want.CheckedAt = now
				if !sameStatus(got, tt.want) {
					t.Errorf("status %s, want %s", got, tt.want)
				}
			}
			if n.Load() != tt.requests || len(sl.d) != tt.waits {
				t.Errorf("%d requests and %d waits (%v), want %d and %d", n.Load(), len(sl.d), sl.d, tt.requests, tt.waits)
			}
			if tt.name == "503 then 429 with Retry-After, then the answer" && sl.d[1] != 3*time.Second {
				t.Errorf("waited %v after the 429, want its Retry-After", sl.d[1])
			}
		})
	}
}

// TestHLRRefusalPauses: after a refusal the client answers every number
// with it, without a call, for RefusedPause; then asks again.
func TestHLRRefusalPauses(t *testing.T) {
	srv, n := hlrServer(t, "+33639980012", hlrAnswer{401, nil, "no"}, hlrAnswer{200, nil, fixture(t, "fr_connected.json")})
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	clock := now
	c := newHLR(t, srv, &sleeps{}, func() time.Time { return clock })
	for range 3 {
		if _, err := c.LookupLine(context.Background(), "+33639980012"); !errors.Is(err, phoneinfo.ErrRefused) {
			t.Fatalf("err %v", err)
		}
	}
	if n.Load() != 1 {
		t.Fatalf("%d requests during the pause", n.Load())
	}
	clock = now.Add(phoneinfo.DefaultRefusedPause + time.Second)
	if _, err := c.LookupLine(context.Background(), "+33639980012"); err != nil || n.Load() != 2 {
		t.Fatalf("after the pause: %v, %d requests", err, n.Load())
	}
}

func TestNewHLRClient(t *testing.T) {
	for _, cfg := range []phoneinfo.HLRConfig{
		{Key: "k"}, {Secret: "s"}, {Key: " ", Secret: "s"},
		{Key: "k", Secret: "s", BaseURL: "http://hlr.example"}, // the key would travel in clear
		{Key: "k", Secret: "s", BaseURL: "https://hlr.example/?x=1"},
	} {
		if _, err := phoneinfo.NewHLRClient(cfg, nil); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	c, err := phoneinfo.NewHLRClient(phoneinfo.HLRConfig{Key: "k", Secret: "s"}, nil)
	if err != nil || c.Source() != "hlr-lookups.com" {
		t.Fatalf("%v %v", c, err)
	}
}

func sameStatus(a, b phoneinfo.Status) bool {
	eq := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.CarrierCurrent == b.CarrierCurrent && eq(a.Ported, b.Ported) && eq(a.Reachable, b.Reachable) && a.CheckedAt.Equal(b.CheckedAt)
}
