package registers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/upstream"
)

// The public endpoints (docs/registers.md).
const (
	DefaultSearchURL = "https://recherche-entreprises.api.gouv.fr"
	DefaultBodaccURL = "https://bodacc-datadila.opendatasoft.com"
)

// Defaults of Config.
const (
	// DefaultRatePerSecond is the search API's documented limit: 7
	// requests a second per address (429 beyond).
	DefaultRatePerSecond = 7
	// DefaultBodaccRatePerSecond paces the Opendatasoft API, whose quota
	// is counted per day: a steady pace keeps a large job from spending
	// it in bursts.
	DefaultBodaccRatePerSecond = 5
	DefaultTimeout             = 15 * time.Second
	DefaultMaxAttempts         = 5
	DefaultBackoffBase         = 500 * time.Millisecond
	DefaultBackoffMax          = 30 * time.Second
	DefaultUserAgent           = "prospectdata-svc/1.0 (registers adapter)"
)

// maxBody caps the bytes read from one answer (a page of 25 companies with
// 100 matching establishments each stays below 3 MB).
const maxBody = 8 << 20

// Config is the adapter's settings. The zero value is the production
// setting: the public endpoints, no key.
type Config struct {
	// SearchURL is the root of the API Recherche d'entreprises
	// (DefaultSearchURL when empty); BodaccURL the root of the BODACC
	// Opendatasoft portal (DefaultBodaccURL when empty).
	SearchURL, BodaccURL string
	// APIKey is an optional Opendatasoft API key, sent to BODACC as
	// "Authorization: Apikey <key>" (it raises the portal's quotas). The
	// search API takes no key.
	APIKey string
	// RatePerSecond paces the search API requests of this client
	// (DefaultRatePerSecond when 0); BodaccRatePerSecond BODACC's
	// (DefaultBodaccRatePerSecond when 0).
	RatePerSecond, BodaccRatePerSecond float64
	// UserAgent is sent with every request, as the search API asks
	// (DefaultUserAgent when empty).
	UserAgent string
	// MaxAttempts bounds the requests of one call, the first included;
	// those after it retry a 429, 408, 5xx, a network error or an
	// unreadable body: DefaultMaxAttempts when 0 or less, 1 for no retry.
	MaxAttempts int
	// BackoffBase is the first retry's delay, doubled at each retry up to
	// BackoffMax, with jitter; a Retry-After header replaces it. A
	// Retry-After longer than BackoffMax gives up at once.
	BackoffBase, BackoffMax time.Duration
}

// Clock is the time the client paces and backs off with.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx is done (returning its error).
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	return upstream.Sleep(ctx, d)
}

// Deps are a Client's dependencies.
type Deps struct {
	Config Config
	// HTTP sends the requests; nil is a client with DefaultTimeout per
	// request. The sim twin is reached by giving a client whose transport
	// routes the twin's hosts to registerssim.Handler.
	HTTP *http.Client
	// Clock is SystemClock when nil.
	Clock Clock
	// Gazetteer, optional, places a commune given by name and splits a
	// region or department whose answer passes the API's 10,000 results
	// (Establishments).
	Gazetteer func() (*gazetteer.Gazetteer, error)
}

// Errors of the client.
var (
	// ErrNotFound: no company matches the query (Lookup).
	ErrNotFound = errors.New("registers: no matching company")
	// ErrUnavailable: a source failed after the retries (rate limited
	// past patience, server errors, network failures, unreadable
	// answers). A later attempt may succeed.
	ErrUnavailable = errors.New("registers: source unavailable")
	// ErrAmbiguous: several companies of the name in the place, none at
	// the query's address. It matches ErrNotFound with errors.Is (no
	// match), and says why.
	ErrAmbiguous = fmt.Errorf("registers: several companies match, give the address: %w", ErrNotFound)
	// ErrBadQuery: the query cannot be asked (no usable identifier, and no
	// name with a postcode or commune; an unknown activity or zone).
	ErrBadQuery = errors.New("registers: bad query")
)

// APIError is an answer the client does not retry (400, 404...): the
// source refused the request as it is.
type APIError struct {
	Source     string // "recherche-entreprises" or "bodacc"
	StatusCode int
	Message    string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("registers: %s: HTTP %d: %s", e.Source, e.StatusCode, e.Message)
}

// Calls counts the requests a client sent, retries included.
type Calls struct{ Search, Bodacc int64 }

// Client reads the French company registers. It is safe for concurrent
// use: its pacing is shared by every caller.
type Client struct {
	cfg    Config
	retry  upstream.Retry
	hc     *http.Client
	clock  Clock
	gaz    func() (*gazetteer.Gazetteer, error)
	search *endpoint
	bodacc *endpoint
}

// endpoint is one source: its root, its pace and its counter.
type endpoint struct {
	name  string
	base  string
	key   string // sent as Authorization: Apikey, "" none
	pace  pacer
	calls atomic.Int64
}

// New returns a client over d.
func New(d Deps) (*Client, error) {
	cfg := d.Config
	sb, err := upstream.BaseURL("registers", cfg.SearchURL, DefaultSearchURL)
	if err != nil {
		return nil, err
	}
	bb, err := upstream.BaseURL("registers", cfg.BodaccURL, DefaultBodaccURL)
	if err != nil {
		return nil, err
	}
	if cfg.RatePerSecond <= 0 {
		cfg.RatePerSecond = DefaultRatePerSecond
	}
	if cfg.BodaccRatePerSecond <= 0 {
		cfg.BodaccRatePerSecond = DefaultBodaccRatePerSecond
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	c := &Client{cfg: cfg, clock: d.Clock, gaz: d.Gazetteer,
		search: &endpoint{name: "recherche-entreprises", base: sb, pace: pacer{interval: interval(cfg.RatePerSecond)}},
		bodacc: &endpoint{name: "bodacc", base: bb, pace: pacer{interval: interval(cfg.BodaccRatePerSecond)}},
	}
	if key := strings.TrimSpace(cfg.APIKey); key != "" {
		u, _ := url.Parse(bb)
		if u.Scheme != "https" && !upstream.Loopback(u.Hostname()) {
			return nil, fmt.Errorf("registers: BODACC URL %q must be https to carry the API key", bb)
		}
		c.bodacc.key = key
	}
	if c.clock == nil {
		c.clock = SystemClock{}
	}
	c.retry = upstream.Retry{
		MaxAttempts: cfg.MaxAttempts,
		BackoffBase: cfg.BackoffBase,
		BackoffMax:  cfg.BackoffMax,
		Jitter:      upstream.EqualJitter(),
		Sleep:       c.clock.Sleep,
		Now:         c.clock.Now,
	}.Or(upstream.Retry{MaxAttempts: DefaultMaxAttempts, BackoffBase: DefaultBackoffBase, BackoffMax: DefaultBackoffMax})
	if d.HTTP != nil {
		hc := *d.HTTP
		c.hc = &hc
	} else {
		c.hc = &http.Client{Timeout: DefaultTimeout}
	}
	// A redirect would carry the key elsewhere, and neither API redirects.
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c, nil
}

// Calls is how many requests the client sent to each source.
func (c *Client) Calls() Calls {
	return Calls{Search: c.search.calls.Load(), Bodacc: c.bodacc.calls.Load()}
}

func interval(perSecond float64) time.Duration {
	return time.Duration(float64(time.Second) / perSecond)
}

// pacer spaces the requests of one source: each takes the next free slot,
// interval after the previous one, and a 429's Retry-After holds every
// caller back, not only the one that got it.
type pacer struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

func (p *pacer) wait(ctx context.Context, clk Clock) error {
	p.mu.Lock()
	now := clk.Now()
	at := now
	if p.next.After(at) {
		at = p.next
	}
	p.next = at.Add(p.interval)
	p.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		return clk.Sleep(ctx, d)
	}
	return ctx.Err()
}

func (p *pacer) hold(until time.Time) {
	p.mu.Lock()
	if until.After(p.next) {
		p.next = until
	}
	p.mu.Unlock()
}

// failure is one attempt's failure: whether a retry may mend it, and the
// wait the answer asked for.
type failure struct {
	err        error
	temporary  bool
	retryAfter time.Duration
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// get sends GET base+path?query to the source, retrying what is
// temporary (c.retry), and decodes a 200 answer into out. It returns an
// *APIError for an answer not worth retrying, an error wrapping
// ErrUnavailable when the retries ran out, the context's error when it
// ended.
func (c *Client) get(ctx context.Context, ep *endpoint, path string, q url.Values, out any) error {
	u := ep.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var paced error
	policy := c.retry
	policy.OnWait = func(d time.Duration, asked bool) {
		if asked {
			// A Retry-After holds back every caller of the source, not
			// only this one.
			ep.pace.hold(c.clock.Now().Add(d))
		}
	}
	_, err := policy.Do(ctx, func(ctx context.Context, _ int) upstream.Outcome {
		if err := ep.pace.wait(ctx, c.clock); err != nil {
			paced = fmt.Errorf("registers: %s: %w", ep.name, err)
			return upstream.Outcome{Err: paced}
		}
		f := c.once(ctx, ep, u, out)
		if f == nil {
			return upstream.Outcome{}
		}
		return upstream.Outcome{Err: f.err, Temporary: f.temporary, Wait: f.retryAfter}
	})
	var stop *upstream.StopError
	switch {
	case paced != nil:
		return paced
	case !errors.As(err, &stop):
		return err
	}
	// The last failure is quoted (%v), not wrapped: an *APIError is an
	// answer not worth retrying, which these are not.
	switch stop.Reason {
	case upstream.Exhausted:
		return fmt.Errorf("%w: %s after %d attempts: %v", ErrUnavailable, ep.name, stop.Attempts, stop.Last)
	case upstream.WaitTooLong:
		return fmt.Errorf("%w: %s asks to retry after %v: %v", ErrUnavailable, ep.name, stop.Wait, stop.Last)
	case upstream.PastDeadline:
		return fmt.Errorf("%w: %s: the next retry (in %v) would pass the deadline: %v", ErrUnavailable, ep.name, stop.Wait, stop.Last)
	}
	return fmt.Errorf("registers: %s: %w (last: %v)", ep.name, stop.Cause, stop.Last)
}

// once sends the request once.
func (c *Client) once(ctx context.Context, ep *endpoint, u string, out any) *failure {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &failure{err: fmt.Errorf("registers: %s: %w", ep.name, err)}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if ep.key != "" {
		req.Header.Set("Authorization", "Apikey "+ep.key)
	}
	ep.calls.Add(1)
	resp, err := c.hc.Do(req)
	if err != nil {
		var dns *net.DNSError
		notFound := errors.As(err, &dns) && dns.IsNotFound
		err = redact(err, ep.key)
		if notFound {
			// No such host: no retry mends a wrong base URL.
			return &failure{err: fmt.Errorf("%w: %s: %w", ErrUnavailable, ep.name, err)}
		}
		return &failure{err: fmt.Errorf("registers: %s: %w", ep.name, err), temporary: true}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return &failure{err: fmt.Errorf("registers: %s: reading the answer: %w", ep.name, err), temporary: true}
	}
	if len(data) > maxBody {
		return &failure{err: fmt.Errorf("registers: %s: answer larger than %d bytes", ep.name, maxBody)}
	}
	if resp.StatusCode != http.StatusOK {
		ae := &APIError{Source: ep.name, StatusCode: resp.StatusCode, Message: errorMessage(data, resp.StatusCode)}
		tmp := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500
		return &failure{err: ae, temporary: tmp, retryAfter: upstream.RetryAfter(resp.Header.Get("Retry-After"), c.clock.Now())}
	}
	if err := json.Unmarshal(data, out); err != nil {
		// A proxy's page or a cut answer under a 200: worth another try.
		return &failure{err: fmt.Errorf("registers: %s: decoding the answer: %w", ep.name, err), temporary: true}
	}
	return nil
}

// redact keeps the key out of an error (a transport error may quote the
// request).
func redact(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "[key]"))
}

// errorMessage reads an error body: the search API's {"erreur": ...},
// Opendatasoft's {"error_code": ..., "message": ...}, else the status
// text.
func errorMessage(body []byte, status int) string {
	var e struct {
		Erreur    string `json:"erreur"`
		Message   string `json:"message"`
		ErrorCode string `json:"error_code"`
	}
	msg := ""
	if json.Unmarshal(body, &e) == nil {
		msg = strings.TrimSpace(strings.Join(strings.Fields(e.ErrorCode+" "+e.Erreur+" "+e.Message), " "))
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "…"
	}
	return msg
}
