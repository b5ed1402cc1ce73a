package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/netguard"
)

// hookResolver answers the test's names with fixed addresses, as DNS would.
type hookResolver map[string][]string

func (r hookResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range r[host] {
		// net.Resolver answers A records as IPv4-mapped IPv6 addresses.
		out = append(out, netip.AddrFrom16(netip.MustParseAddr(s).As16()))
	}
	return out, nil
}

// hookReceiver is a real TLS server on loopback recording what it gets.
type hookReceiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []hookHit
}

type hookHit struct {
	header http.Header
	body   []byte
}

func (r *hookReceiver) got() []hookHit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hookHit(nil), r.hits...)
}

// startWithReceiver runs the app with a guard that resolves names through
// hookResolver and refuses the service's own host. With allowReceiver it
// also allows the receiver's loopback address and trusts its certificate
// (the test-only options); without, it refuses what the default guard
// refuses.
func startWithReceiver(t *testing.T, allowReceiver bool) (*apptest.Env, *hookReceiver) {
	t.Helper()
	rc := &hookReceiver{}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.hits = append(rc.hits, hookHit{header: r.Header.Clone(), body: body})
		rc.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(rc.srv.Close)
	pool := rc.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	opts := []netguard.Option{
		netguard.WithResolver(hookResolver{
			"hooks.example.com":    {"93.184.215.14"},
			"intranet.example.com": {"10.20.30.40"},
			"mixed.example.com":    {"93.184.215.14", "192.168.1.1"},
			"imds.example.com":     {"169.254.169.254"},
			"lo.example.com":       {"127.0.0.1"},
			"ula.example.com":      {"fd12:3456::1"},
			"cgnat.example.com":    {"100.64.1.2"},
		}),
		netguard.WithOwnHosts("api.prospect.example"),
	}
	if allowReceiver {
		opts = append(opts, netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")), netguard.WithRootCAs(pool))
	}
	return apptest.Start(t, apptest.WithGuard(netguard.New(opts...))), rc
}

// TestWebhookURLsRefused: POST /api/webhooks answers 400 with a detail
// naming the cause for every spelling of an internal target, and writes
// nothing.
func TestWebhookURLsRefused(t *testing.T) {
	e, _ := startWithReceiver(t, false)
	c := e.NewClient()
	c.Signup("refused@example.org", fixturePassword)
	c.Key = c.CreateKey("hooks")
	refused := []struct{ url, want string }{
		{"http://hooks.example.com/", "only https://"},
		{"ftp://hooks.example.com/", "only https://"},
		{"hooks.example.com/hook", "no scheme"},
		{"https://user:pw@hooks.example.com/", "user name or password"},
		{"https://127.0.0.1/", "loopback"},
		{"https://127.0.0.2:8443/", "loopback"},
		{"https://127.1/", "127.0.0.1, a loopback"},
		{"https://2130706433/", "127.0.0.1, a loopback"},
		{"https://0x7f000001/", "127.0.0.1, a loopback"},
		{"https://0177.0.0.1/", "127.0.0.1, a loopback"},
		{"https://0x7f.0.0.1/", "127.0.0.1, a loopback"},
		{"https://017700000001/", "127.0.0.1, a loopback"},
		{"https://0.0.0.0/", "unspecified"},
		{"https://0/", "unspecified"},
		{"https://[::]/", "unspecified"},
		{"https://[::1]/", "loopback"},
		{"https://[::ffff:127.0.0.1]/", "IPv4-mapped"},
		{"https://[::ffff:7f00:1]/", "IPv4-mapped"},
		{"https://[::ffff:10.0.0.1]/", "IPv4-mapped"},
		{"https://[::127.0.0.1]/", "IPv4-compatible"},
		{"https://[64:ff9b::a9fe:a9fe]/", "NAT64"},
		{"https://[2002:7f00:1::]/", "6to4"},
		{"https://[fe80::1%25eth0]/", "zone"},
		{"https://[fe80::1]/", "link-local"},
		{"https://[fd00:ec2::254]/", "AWS IPv6 metadata"},
		{"https://[fc00::1]/", "unique local"},
		{"https://[ff02::1]/", "multicast"},
		{"https://10.0.0.1/", "private"},
		{"https://172.16.5.4/", "private"},
		{"https://192.168.0.10/", "private"},
		{"https://012.0.0.1/", "10.0.0.1, a private"},
		{"https://100.64.0.1/", "carrier-grade NAT"},
		{"https://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{"https://0xa9fea9fe/", "169.254.169.254, the cloud metadata"},
		{"https://169.254.170.2/", "AWS container metadata"},
		{"https://100.100.100.200/", "Alibaba"},
		{"https://168.63.129.16/", "Azure"},
		{"https://224.0.0.1/", "multicast"},
		{"https://255.255.255.255/", "broadcast"},
		{"https://240.0.0.1/", "reserved"},
		{"https://localhost/", "special-use name"},
		{"https://LOCALHOST./", "special-use name"},
		{"https://api.localhost/", "special-use name"},
		{"https://printer.local/", "special-use name"},
		{"https://metadata.google.internal/computeMetadata/v1/", "special-use name"},
		{"https://intranet/", "single-label"},
		{"https://intranet.example.com/", "resolves to 10.20.30.40, a private"},
		{"https://mixed.example.com/", "resolves to 192.168.1.1, a private address (one of its 2 addresses)"},
		{"https://imds.example.com/", "resolves to 169.254.169.254"},
		{"https://lo.example.com/", "resolves to 127.0.0.1"},
		{"https://ula.example.com/", "resolves to fd12:3456::1"},
		{"https://cgnat.example.com/", "resolves to 100.64.1.2"},
		{"https://nowhere.example.com/", "resolves to no address"},
		{"https://api.prospect.example/hook", "this service itself"},
		{"https://API.Prospect.Example.:443/hook", "this service itself"},
		{"https://xn--bcher-kva.example.com\u00e9/", "not ASCII"},
	}
	if len(refused) < 30 {
		t.Fatalf("only %d refused spellings", len(refused))
	}
	for _, tt := range refused {
		t.Run(tt.url, func(t *testing.T) {
			r := c.Do("POST", "/api/webhooks", map[string]any{"url": tt.url, "events": []string{"job.completed"}}).Must(t, 400)
			if d := detail(t, r); !strings.Contains(d, tt.want) {
				t.Errorf("detail %q, want it to name %q", d, tt.want)
			}
		})
	}
	if l := c.Do("GET", "/api/webhooks", nil).Must(t, 200).JSON()["webhooks"].([]any); len(l) != 0 {
		t.Fatalf("refusals wrote %d endpoints", len(l))
	}
}

// TestWebhookRoutes: creation rules and answers, the list without
// secrets, deliveries, hard delete, the 5-endpoint limit, key access and
// another account's 404.
func TestWebhookRoutes(t *testing.T) {
	e, rc := startWithReceiver(t, true)
	s := e.NewClient()
	s.Signup("hooks@example.org", fixturePassword)
	k := e.NewClient()
	k.Key = s.CreateKey("hooks")
	other := e.NewClient()
	other.Signup("other-hooks@example.org", fixturePassword)

	for _, tt := range []struct {
		name string
		body any
		code int
		want string
	}{
		{"no events", map[string]any{"url": rc.srv.URL}, 422, "events"},
		{"empty events", map[string]any{"url": rc.srv.URL, "events": []string{}}, 422, "events"},
		{"unknown event", map[string]any{"url": rc.srv.URL, "events": []string{"job.completed", "job.finished"}}, 422, "job.finished"},
		{"short secret", map[string]any{"url": rc.srv.URL, "events": []string{"job.failed"}, "secret": "0123456789abcde"}, 422, "secret"},
		{"long secret", map[string]any{"url": rc.srv.URL, "events": []string{"job.failed"}, "secret": strings.Repeat("x", 129)}, 422, "secret"},
		{"no url", map[string]any{"events": []string{"job.failed"}}, 422, "url"},
		{"url not a string", map[string]any{"url": 12, "events": []string{"job.failed"}}, 422, ""},
		{"not json", "{", 400, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := k.Do("POST", "/api/webhooks", tt.body).Must(t, tt.code)
			if !strings.Contains(string(r.Body), tt.want) {
				t.Errorf("body %s, want it to name %q", r.Body, tt.want)
			}
		})
	}

	// A key creates; the answer is the only one carrying the secret.
	r := k.Do("POST", "/api/webhooks", map[string]any{"url": rc.srv.URL + "/hook", "events": []string{"job.cancelled"}}).Must(t, 201)
	var created struct {
		ID         int64    `json:"id"`
		URL        string   `json:"url"`
		Events     []string `json:"events"`
		Secret     string   `json:"secret"`
		IsActive   bool     `json:"is_active"`
		Failures   *int     `json:"consecutive_failures"`
		CreatedAt  string   `json:"created_at"`
		DisabledAt *string  `json:"disabled_at"`
	}
	if err := json.Unmarshal(r.Body, &created); err != nil {
		t.Fatal(err)
	}
	if created.ID == 0 || created.URL != rc.srv.URL+"/hook" || strings.Join(created.Events, ",") != "job.cancelled" ||
		!strings.HasPrefix(created.Secret, "whsec_") || !created.IsActive || created.Failures == nil || *created.Failures != 0 ||
		!feedTime.MatchString(created.CreatedAt) || created.DisabledAt != nil || !strings.Contains(string(r.Body), `"disabled_at":null`) {
		t.Fatalf("created %s", r.Body)
	}
	id := fmt.Sprint(created.ID)
	given := s.Do("POST", "/api/webhooks", map[string]any{"url": "https://hooks.example.com/in", "events": []string{"job.completed", "job.failed"},
		"secret": "sixteen-chars-ok"}).Must(t, 201).JSON()
	if given["secret"] != "sixteen-chars-ok" {
		t.Errorf("given secret came back as %v", given["secret"])
	}

	for _, c := range []*apptest.Client{s, k} {
		list := c.Do("GET", "/api/webhooks", nil).Must(t, 200)
		if strings.Contains(string(list.Body), "secret") || strings.Contains(string(list.Body), created.Secret) {
			t.Errorf("the list shows secrets: %s", list.Body)
		}
		if n := len(list.JSON()["webhooks"].([]any)); n != 2 {
			t.Errorf("list has %d endpoints", n)
		}
		if d := c.Do("GET", "/api/webhooks/"+id+"/deliveries", nil).Must(t, 200).JSON()["deliveries"].([]any); len(d) != 0 {
			t.Errorf("deliveries before any event: %v", d)
		}
	}

	// Another account: nothing listed, 404 on each of ours.
	if n := len(other.Do("GET", "/api/webhooks", nil).Must(t, 200).JSON()["webhooks"].([]any)); n != 0 {
		t.Errorf("the other account lists %d endpoints", n)
	}
	other.Do("GET", "/api/webhooks/"+id+"/deliveries", nil).Must(t, 404)
	other.Do("DELETE", "/api/webhooks/"+id, nil).Must(t, 404)
	s.Do("GET", "/api/webhooks/not-an-id/deliveries", nil).Must(t, 404)
	s.Do("GET", "/api/webhooks/999999/deliveries", nil).Must(t, 404)
	e.NewClient().Do("GET", "/api/webhooks", nil).Must(t, 401)

	// At most 5 active endpoints.
	for range 3 {
		s.Do("POST", "/api/webhooks", map[string]any{"url": "https://hooks.example.com/more", "events": []string{"job.failed"}}).Must(t, 201)
	}
	full := s.Do("POST", "/api/webhooks", map[string]any{"url": "https://hooks.example.com/sixth", "events": []string{"job.failed"}}).Must(t, 400)
	if d := detail(t, full); !strings.Contains(d, "Maximum number of webhooks") && !strings.Contains(d, "webhooks") {
		t.Errorf("sixth endpoint: %q", d)
	}

	// Hard delete by the key frees a slot; the endpoint is gone.
	k.Do("DELETE", "/api/webhooks/"+id, nil).Must(t, 204)
	k.Do("DELETE", "/api/webhooks/"+id, nil).Must(t, 404)
	k.Do("GET", "/api/webhooks/"+id+"/deliveries", nil).Must(t, 404)
	s.Do("POST", "/api/webhooks", map[string]any{"url": "https://hooks.example.com/sixth", "events": []string{"job.failed"}}).Must(t, 201)
}

// TestWebhookDeliveredFromTheFeed: a job's cancellation reaches a
// subscribed endpoint through the local change feed, signed as the
// documentation says; an event of a type not subscribed does not; the
// deliveries listing shows the attempt.
func TestWebhookDeliveredFromTheFeed(t *testing.T) {
	e, rc := startWithReceiver(t, true)
	c := e.NewClient()
	c.Signup("delivered@example.org", fixturePassword)
	c.Verify("delivered@example.org")
	c.Key = c.CreateKey("hooks")
	hook := c.Do("POST", "/api/webhooks", map[string]any{"url": rc.srv.URL + "/in", "events": []string{"job.cancelled"}}).Must(t, 201).JSON()
	secret, id := hook["secret"].(string), fmt.Sprint(hook["id"])

	small := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}}))
	waitJob(t, c, small.ID, isDone) // job.completed: not subscribed
	big := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"restaurant"}, "zones": []string{"France"}}))
	c.Do("POST", "/api/jobs/"+big.ID+"/cancel", nil).Must(t, 200)

	var hits []hookHit
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if hits = rc.got(); len(hits) > 0 {
			break
		}
	}
	if len(hits) != 1 {
		t.Fatalf("the receiver got %d posts", len(hits))
	}
	h := hits[0]
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(h.body)
	if want := "sha256=" + hex.EncodeToString(m.Sum(nil)); !hmac.Equal([]byte(want), []byte(h.header.Get("X-Svc-Signature"))) {
		t.Errorf("signature %q does not verify", h.header.Get("X-Svc-Signature"))
	}
	if h.header.Get("User-Agent") != "svc-webhooks/1.0" || h.header.Get("X-Svc-Event") != "job.cancelled" ||
		h.header.Get("Content-Type") != "application/json" || h.header.Get("X-Svc-Delivery") == "" {
		t.Errorf("headers %v", h.header)
	}
	var ev struct {
		ID   int64          `json:"id"`
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(h.body, &ev); err != nil || ev.Type != "job.cancelled" || ev.Data["id"] != big.ID || ev.Data["status"] != "cancelled" {
		t.Fatalf("body %s (%v)", h.body, err)
	}
	// The body is the event as the feed shows it.
	feed := decodeFeed(t, c.Do("GET", "/api/events?types=job.cancelled", nil))
	if len(feed.Events) != 1 || feed.Events[0].ID != ev.ID {
		t.Errorf("feed %+v, delivered event %d", feed.Events, ev.ID)
	}

	var ds []map[string]any
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var body struct {
			Deliveries []map[string]any `json:"deliveries"`
		}
		if err := json.Unmarshal(c.Do("GET", "/api/webhooks/"+id+"/deliveries", nil).Must(t, 200).Body, &body); err != nil {
			t.Fatal(err)
		}
		if ds = body.Deliveries; len(ds) > 0 {
			break
		}
	}
	if len(ds) != 1 || ds[0]["status"] != "delivered" || ds[0]["attempts"] != 1.0 || ds[0]["http_code"] != 202.0 ||
		ds[0]["error"] != nil || ds[0]["delivery_id"] != h.header.Get("X-Svc-Delivery") || !feedTime.MatchString(fmt.Sprint(ds[0]["attempted_at"])) {
		t.Errorf("deliveries %v", ds)
	}
	time.Sleep(200 * time.Millisecond) // nothing else comes
	if n := len(rc.got()); n != 1 {
		t.Errorf("the receiver got %d posts in all", n)
	}
}
