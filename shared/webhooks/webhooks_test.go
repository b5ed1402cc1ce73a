package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/webhooks"
)

func ptr(s string) *string { return &s }

// describe is an error's message with its fields' messages.
func describe(err error) string {
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		return fmt.Sprint(err)
	}
	out := ae.Error()
	for _, f := range ae.Fields {
		out += " | " + f.Field + ": " + f.EN
	}
	return out
}

// TestCreateRules: the creation rules of the spec, each refusal a clear
// 4xx that writes nothing.
func TestCreateRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name   string
		url    string
		types  []string
		secret *string
		code   apperr.Code
		want   string
	}{
		{"no events", e.recv.srv.URL, nil, nil, apperr.Unprocessable, "events"},
		{"unknown event", e.recv.srv.URL, []string{"job.completed", "job.nope"}, nil, apperr.Unprocessable, "job.nope"},
		{"short secret", e.recv.srv.URL, []string{"job.completed"}, ptr("too-short"), apperr.Unprocessable, "secret"},
		{"long secret", e.recv.srv.URL, []string{"job.completed"}, ptr(strings.Repeat("s", 129)), apperr.Unprocessable, "secret"},
		{"secret with a control character", e.recv.srv.URL, []string{"job.completed"}, ptr("0123456789abcdef\n"), apperr.Unprocessable, "secret"},
		{"empty url", "", []string{"job.completed"}, nil, apperr.Unprocessable, "url"},
		{"plain http", strings.Replace(e.recv.srv.URL, "https", "http", 1), []string{"job.completed"}, nil, apperr.Invalid, "https"},
		{"private host", "https://10.1.2.3/hook", []string{"job.completed"}, nil, apperr.Invalid, "10.1.2.3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.Create(ctx, 1, tt.url, tt.types, tt.secret)
			if !apperr.Is(err, tt.code) || !strings.Contains(describe(err), tt.want) {
				t.Fatalf("err = %v, want a %v naming %q", err, tt.code, tt.want)
			}
		})
	}
	if es, _ := e.svc.List(ctx, 1); len(es) != 0 {
		t.Fatalf("refusals wrote %d endpoints", len(es))
	}

	gen := e.create(1, []string{"job.failed", "job.completed", "job.failed"}, "")
	if !strings.HasPrefix(gen.Secret, "whsec_") || len(gen.Secret) != len("whsec_")+48 ||
		strings.Join(gen.Events, ",") != "job.completed,job.failed" || !gen.IsActive || gen.DisabledAt != nil {
		t.Fatalf("created %+v", gen)
	}
	given := e.create(1, []string{"job.completed"}, "my-own-secret-of-24-chars")
	if given.Secret != "my-own-secret-of-24-chars" {
		t.Errorf("given secret came back as %q", given.Secret)
	}
	for range webhooks.MaxActive - 2 {
		e.create(1, []string{"job.completed"}, "")
	}
	if _, err := e.svc.Create(ctx, 1, e.recv.srv.URL, []string{"job.completed"}, nil); !apperr.Is(err, apperr.Invalid) ||
		!strings.Contains(err.Error(), "Maximum number of webhooks") {
		t.Fatalf("sixth active endpoint: %v", err)
	}
	list, err := e.svc.List(ctx, 1)
	if err != nil || len(list) != webhooks.MaxActive {
		t.Fatalf("list: %d, %v", len(list), err)
	}
	b, _ := json.Marshal(list)
	if strings.Contains(string(b), "secret") || strings.Contains(string(b), gen.Secret) {
		t.Errorf("the list shows secrets: %s", b)
	}
	// Another account sees none of them and cannot touch them.
	if es, _ := e.svc.List(ctx, 2); len(es) != 0 {
		t.Errorf("account 2 lists %d endpoints", len(es))
	}
	id := fmt.Sprint(gen.ID)
	if err := e.svc.Delete(ctx, 2, id); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("delete by another account: %v", err)
	}
	if _, err := e.svc.Deliveries(ctx, 2, id); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("deliveries by another account: %v", err)
	}
	if err := e.svc.Delete(ctx, 1, id); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Delete(ctx, 1, id); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("second delete: %v", err)
	}
	// The slot came back.
	e.create(1, []string{"job.completed"}, "")
}

// TestSignatureAsDocumented: a delivery carries the spec's headers and a
// signature that the documentation's Go snippet verifies over the exact
// body received, which is the event as the feed shows it.
func TestSignatureAsDocumented(t *testing.T) {
	e := newEnv(t)
	secret := "a-receiver-secret-0123"
	ep := e.create(7, []string{"job.completed"}, secret)
	other := e.create(7, []string{"job.failed"}, "")
	ev := e.emit(7, events.JobCompleted)
	if n := e.drain(); n != 1 {
		t.Fatalf("%d deliveries handled, want 1 (the job.failed endpoint is not subscribed)", n)
	}
	hits := e.recv.got()
	if len(hits) != 1 {
		t.Fatalf("%d requests", len(hits))
	}
	h := hits[0]
	want := map[string]string{
		"Content-Type": "application/json", "User-Agent": "svc-webhooks/1.0", "X-Svc-Event": "job.completed",
		"X-Svc-Delivery": fmt.Sprintf("dlv_%d_%d", ep.ID, ev.ID),
	}
	for k, v := range want {
		if got := h.header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if !verified(secret, h.body, h.header.Get("X-Svc-Signature")) {
		t.Errorf("signature %q does not verify", h.header.Get("X-Svc-Signature"))
	}
	if verified(secret+"x", h.body, h.header.Get("X-Svc-Signature")) || verified(secret, append(h.body, ' '), h.header.Get("X-Svc-Signature")) {
		t.Error("the signature verifies with another secret or body")
	}
	var got events.Event
	if err := json.Unmarshal(h.body, &got); err != nil || got.ID != ev.ID || got.Type != ev.Type || got.CreatedAt != ev.CreatedAt {
		t.Errorf("body %s (%v)", h.body, err)
	}
	ds, err := e.svc.Deliveries(context.Background(), 7, fmt.Sprint(ep.ID))
	if err != nil || len(ds) != 1 || ds[0].Status != webhooks.StateDelivered || ds[0].Attempts != 1 ||
		ds[0].HTTPCode == nil || *ds[0].HTTPCode != 204 || ds[0].Error != nil {
		t.Fatalf("deliveries %+v, %v", ds, err)
	}
	if ds, _ := e.svc.Deliveries(context.Background(), 7, fmt.Sprint(other.ID)); len(ds) != 0 {
		t.Errorf("the unsubscribed endpoint has deliveries %+v", ds)
	}
	// The same event fanned out again (a change feed read twice) is not
	// delivered again.
	if err := e.svc.FanOut(context.Background(), 7, ev); err != nil {
		t.Fatal(err)
	}
	if n := e.drain(); n != 0 || len(e.recv.got()) != 1 {
		t.Errorf("a second fan-out delivered again: %d handled, %d requests", n, len(e.recv.got()))
	}
}

// TestRetrySchedule: a failing receiver is retried 1 min, 5 min, 30 min,
// 2 h and 6 h after each failure, on the test clock, through the queue's
// delays (capped at 15 minutes: the long waits hop), then the delivery
// gives up; the attempts are listed newest first.
func TestRetrySchedule(t *testing.T) {
	e := newEnv(t)
	e.recv.status.Store(http.StatusServiceUnavailable)
	ep := e.create(3, []string{"job.failed"}, "")
	start := e.clock.Now()
	ev := e.emit(3, events.JobFailed)
	e.drain()
	// Step the clock a minute at a time for 9 hours, handling what is due.
	for range 9 * 60 {
		e.clock.Advance(time.Minute)
		e.drain()
	}
	hits := e.recv.got()
	var offsets []time.Duration
	for _, h := range hits {
		offsets = append(offsets, h.at.Sub(start))
		if h.header.Get("X-Svc-Delivery") != fmt.Sprintf("dlv_%d_%d", ep.ID, ev.ID) {
			t.Errorf("retry with another delivery id: %q", h.header.Get("X-Svc-Delivery"))
		}
	}
	want := []time.Duration{0}
	for _, d := range webhooks.Schedule {
		want = append(want, want[len(want)-1]+d)
	}
	if fmt.Sprint(offsets) != fmt.Sprint(want) {
		t.Fatalf("attempts at %v, want %v", offsets, want)
	}
	ds, err := e.svc.Deliveries(context.Background(), 3, fmt.Sprint(ep.ID))
	if err != nil || len(ds) != webhooks.MaxAttempts {
		t.Fatalf("%d attempts listed, %v", len(ds), err)
	}
	if ds[0].Status != webhooks.StateGaveUp || ds[0].Attempts != 6 || ds[0].NextAttemptAt != nil ||
		ds[1].Status != webhooks.StateRetrying || ds[1].Attempts != 5 || ds[1].NextAttemptAt == nil ||
		*ds[0].HTTPCode != 503 || *ds[0].Error != "status 503" {
		t.Errorf("attempts %+v", ds[:2])
	}
	if v, _, _, _ := e.q.Depth(context.Background(), webhooks.QueueName); v != 0 {
		t.Errorf("%d messages left after giving up", v)
	}
}

// TestAutoDisable: 20 consecutive failed attempts disable the endpoint
// (is_active false, disabled_at, its slot back) and nothing more is posted
// to it; a success in between resets the count.
func TestAutoDisable(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.recv.status.Store(http.StatusInternalServerError)
	ep := e.create(5, []string{"job.completed"}, "")
	failures := func() *webhooks.Endpoint {
		es, err := e.svc.List(ctx, 5)
		if err != nil || len(es) != 1 {
			t.Fatalf("list %v %v", es, err)
		}
		return es[0]
	}
	for range webhooks.DisableAfter - 1 {
		e.emit(5, events.JobCompleted)
		e.drain()
	}
	if got := failures(); got.ConsecutiveFailures != webhooks.DisableAfter-1 || !got.IsActive {
		t.Fatalf("after %d failures: %+v", webhooks.DisableAfter-1, got)
	}
	e.recv.status.Store(http.StatusOK)
	e.emit(5, events.JobCompleted)
	e.drain()
	if got := failures(); got.ConsecutiveFailures != 0 || !got.IsActive {
		t.Fatalf("a success did not reset the count: %+v", got)
	}
	e.recv.status.Store(http.StatusInternalServerError)
	for range webhooks.DisableAfter {
		e.emit(5, events.JobCompleted)
		e.drain()
	}
	got := failures()
	if got.IsActive || got.DisabledAt == nil || got.ConsecutiveFailures != webhooks.DisableAfter {
		t.Fatalf("after %d consecutive failures: %+v", webhooks.DisableAfter, got)
	}
	before := len(e.recv.got())
	e.emit(5, events.JobCompleted) // not fanned out to a disabled endpoint
	e.clock.Advance(time.Minute)   // the retries of the failed ones come due
	e.drain()
	if n := len(e.recv.got()); n != before {
		t.Errorf("%d requests to a disabled endpoint", n-before)
	}
	ds, _ := e.svc.Deliveries(ctx, 5, fmt.Sprint(ep.ID))
	if ds[0].Status != webhooks.StateGaveUp || ds[0].Error == nil || !strings.Contains(*ds[0].Error, "disabled") {
		t.Errorf("a retry of a disabled endpoint: %+v", ds[0])
	}
	// Its slot is free: five new endpoints fit.
	for range webhooks.MaxActive {
		e.create(5, []string{"job.completed"}, "")
	}
}

// TestDeliveredOnceWhenHandledTwice: a message handled twice (a visibility
// timeout passing during a slow post) records one attempt.
func TestDeliveredOnceWhenHandledTwice(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ep := e.create(9, []string{"job.completed"}, "")
	e.emit(9, events.JobCompleted)
	ds, err := e.q.Receive(ctx, webhooks.QueueName, 1, 0, 0)
	if err != nil || len(ds) != 1 {
		t.Fatal(ds, err)
	}
	for range 2 {
		if err := e.svc.Handle(ctx, ds[0].Body); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(e.recv.got()); n != 1 {
		t.Errorf("%d posts", n)
	}
	if got, _ := e.svc.Deliveries(ctx, 9, fmt.Sprint(ep.ID)); len(got) != 1 {
		t.Errorf("%d attempts recorded", len(got))
	}
}

// fakeResolver answers names from a map that the test changes.
type fakeResolver struct{ addrs map[string][]netip.Addr }

func (f *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f.addrs[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

// TestRebindingNeverConnects: a name public when the endpoint is created
// and internal when it is delivered to is refused at connection time; the
// receiver (on the internal address) gets nothing.
func TestRebindingNeverConnects(t *testing.T) {
	res := &fakeResolver{addrs: map[string][]netip.Addr{"hooks.example.com": {netip.MustParseAddr("93.184.215.14")}}}
	e := newEnv(t, netguard.WithResolver(res))
	// This environment's guard allows 127.0.0.1 (its receiver): rebind to
	// another loopback address, which it does not allow.
	ep, err := e.svc.Create(context.Background(), 4, "https://hooks.example.com:"+e.recv.srv.URL[strings.LastIndex(e.recv.srv.URL, ":")+1:]+"/hook",
		[]string{"job.completed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.addrs["hooks.example.com"] = []netip.Addr{netip.MustParseAddr("127.0.0.2")}
	e.emit(4, events.JobCompleted)
	e.drain()
	if n := len(e.recv.got()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
	ds, _ := e.svc.Deliveries(context.Background(), 4, fmt.Sprint(ep.ID))
	if len(ds) != 1 || ds[0].Status != webhooks.StateRetrying || ds[0].Error == nil || !strings.Contains(*ds[0].Error, "address refused") {
		t.Fatalf("attempt %+v", ds)
	}
}
