package opendata

import (
	"context"
	"errors"
	"fmt"
	"github.com/prospectdata/svc/shared/upstream"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultOverpassURL is the public instance's interpreter (overpass-api.de,
// run by FOSSGIS). Its usage policy: about 2 queries at once per address
// (429 beyond), and well under 10,000 queries and 1 GB a day.
const DefaultOverpassURL = "https://overpass-api.de/api/interpreter"

// Defaults of Config.
const (
	DefaultUserAgent     = "prospectdata-svc/1.0 (opendata enrichment; OpenStreetMap via Overpass API)"
	DefaultMaxConcurrent = 2
	// DefaultInterval spaces the starts of two requests: with 2 slots, at
	// most 2 requests a second, far inside the public policy.
	DefaultInterval = 500 * time.Millisecond
	// DefaultQueryTimeout is the QL's [timeout:] in seconds: the server
	// gives up on the query after it (and says so in a remark).
	DefaultQueryTimeout = 25
	// DefaultMaxAttempts bounds the attempts of one query (the first and
	// the retries after 429, 5xx, a network failure or a runtime-error
	// remark).
	DefaultMaxAttempts = 4
	DefaultBackoffBase = 2 * time.Second
	DefaultBackoffMax  = 60 * time.Second
	// DefaultMaxBody caps an answer: DefaultLimit elements with their
	// tags are some 200 KB.
	DefaultMaxBody = 4 << 20
	// DefaultLimit is the "out" statement's element limit: a city's
	// hairdressers all have "coiffure" in their name, and an answer cut
	// short makes the match rule cautious (MatchOptions.Truncated).
	DefaultLimit = 500
)

// Config is the client's settings. The zero value is the production
// setting: the public instance, politely.
type Config struct {
	// OverpassURL is the interpreter's URL (DefaultOverpassURL when
	// empty): a private instance, or the sim twin's.
	OverpassURL string
	// UserAgent is sent with every request (DefaultUserAgent when empty):
	// the instance's operators ask clients to say who they are.
	UserAgent string
	// MaxConcurrent is how many queries run at once over all the client's
	// callers (DefaultMaxConcurrent when 0).
	MaxConcurrent int
	// Interval is the least time between the starts of two requests
	// (DefaultInterval when 0, none when negative).
	Interval time.Duration
	// QueryTimeout is the QL's [timeout:N], in seconds (DefaultQueryTimeout
	// when 0). Timeout bounds one HTTP exchange (QueryTimeout + 15 s when
	// 0).
	QueryTimeout int
	Timeout      time.Duration
	// MaxAttempts bounds the attempts of one query (DefaultMaxAttempts
	// when 0). BackoffBase is the wait after the first failure, doubled at
	// each one up to BackoffMax, with ±20% jitter; a Retry-After header
	// lengthens it (up to BackoffMax). The wait holds back every caller of
	// the client, not only the one that failed: the server said it is
	// overloaded.
	MaxAttempts             int
	BackoffBase, BackoffMax time.Duration
	// MaxBody caps the bytes read from one answer (DefaultMaxBody when 0).
	MaxBody int64
	// Limit is the most elements one answer lists (DefaultLimit when 0).
	Limit int
	// Radius is the match rule's distance limit in metres, with
	// coordinates (DefaultRadius when 0).
	Radius float64
}

// Errors of the client.
var (
	// ErrUnreachable: Overpass did not give a usable answer after the
	// attempts (rate limited or overloaded past patience, a network
	// failure, a runtime error, a malformed or oversized body, a query
	// refused). The row's cells stay empty and it counts as unreachable.
	ErrUnreachable = errors.New("opendata: Overpass API unreachable")
)

// StatusError is an HTTP error status of the interpreter.
type StatusError struct {
	Status int
	// Message is the start of the body: Overpass explains in an HTML page
	// ("rate_limited. Please check /api/status for the quota of your IP
	// address.").
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("overpass: HTTP %d: %s", e.Status, e.Message)
}

// retryable says whether the status is worth another attempt: 429 (no
// free slot), 502, 503 and 504 (the server too busy: "Dispatcher_Client::
// request_read_and_idx::timeout"), other 5xx.
func (e *StatusError) retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout || e.Status >= 500
}

// RuntimeError is a remark of a query that failed on the server.
type RuntimeError struct{ Remark string }

func (e *RuntimeError) Error() string { return "overpass: " + e.Remark }

// Client queries an Overpass API interpreter. It is safe for concurrent
// use: its slots, pacing and backoff are shared by every caller, so that
// all the rows of a worker together stay polite.
type Client struct {
	cfg   Config
	retry upstream.Retry
	hc    *http.Client
	slots chan struct{}

	mu sync.Mutex
	// next is the earliest start of the next request: the pacing, pushed
	// further by a backoff.
	next time.Time

	calls atomic.Int64
}

// New returns a client over hc (http.DefaultClient when nil).
func New(cfg Config, hc *http.Client) (*Client, error) {
	if cfg.OverpassURL == "" {
		cfg.OverpassURL = DefaultOverpassURL
	}
	u, err := url.Parse(cfg.OverpassURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("opendata: Overpass URL %q is not an http(s) URL", cfg.OverpassURL)
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	switch {
	case cfg.Interval == 0:
		cfg.Interval = DefaultInterval
	case cfg.Interval < 0:
		cfg.Interval = 0
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Duration(cfg.QueryTimeout)*time.Second + 15*time.Second
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Limit <= 0 {
		cfg.Limit = DefaultLimit
	}
	if cfg.Radius <= 0 {
		cfg.Radius = DefaultRadius
	}
	cfg.Radius = min(cfg.Radius, maxRadius)
	if hc == nil {
		hc = http.DefaultClient
	}
	c := &Client{cfg: cfg, hc: hc, slots: make(chan struct{}, cfg.MaxConcurrent)}
	c.retry = upstream.Retry{
		MaxAttempts: cfg.MaxAttempts,
		BackoffBase: cfg.BackoffBase,
		BackoffMax:  cfg.BackoffMax,
		Jitter:      upstream.Jitter{Below: 0.2, Above: 0.2},
		// A shared, polite client: a long Retry-After is waited out (up
		// to BackoffMax), and the caller's deadline ends the wait.
		AskedAtLeast:     true,
		WaitPastDeadline: true,
		// The backoff is not this caller's sleep: it pushes every
		// caller's next start, and the next attempt waits for it (wait).
		Sleep: func(_ context.Context, d time.Duration) error {
			c.backOff(d)
			return nil
		},
	}.Or(upstream.Retry{MaxAttempts: DefaultMaxAttempts, BackoffBase: DefaultBackoffBase, BackoffMax: DefaultBackoffMax})
	return c, nil
}

// Config is the client's settings, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// Calls is the number of HTTP requests the client has sent, retries
// included.
func (c *Client) Calls() int64 { return c.calls.Load() }

// Query runs one QL query and returns its answer. Failures that may pass
// (429, 5xx, a network error, a runtime-error remark) are retried after
// a backoff (c.retry), at most MaxAttempts attempts in all; what remains
// fails with an error wrapping ErrUnreachable and the last cause. The
// context's error is returned as it is.
func (c *Client) Query(ctx context.Context, ql string) (*Response, error) {
	var resp *Response
	_, err := c.retry.Do(ctx, func(ctx context.Context, _ int) upstream.Outcome {
		r, retryAfter, err := c.attempt(ctx, ql)
		resp = r
		return upstream.Outcome{Err: err, Temporary: retryable(err), Wait: retryAfter}
	})
	if err == nil {
		return resp, nil
	}
	var stop *upstream.StopError
	if errors.As(err, &stop) {
		if stop.Reason == upstream.Ended {
			return nil, stop.Cause
		}
		err = stop.Last
	}
	return nil, fmt.Errorf("%w: %w", ErrUnreachable, err)
}

// retryable tells whether a failed attempt may succeed later.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.retryable()
	}
	var re *RuntimeError
	if errors.As(err, &re) {
		return true
	}
	var me *malformedError
	if errors.As(err, &me) {
		return false
	}
	return true // network failures, timeouts, a cut body
}

// malformedError is a body that is not an answer.
type malformedError struct{ err error }

func (e *malformedError) Error() string { return e.err.Error() }
func (e *malformedError) Unwrap() error { return e.err }

// backOff pushes every caller's next start d from now, at least.
func (c *Client) backOff(d time.Duration) {
	c.mu.Lock()
	if t := time.Now().Add(d); t.After(c.next) {
		c.next = t
	}
	c.mu.Unlock()
}

// wait takes a start time from the pacing and sleeps until it.
func (c *Client) wait(ctx context.Context) error {
	c.mu.Lock()
	start := c.next
	if now := time.Now(); start.Before(now) {
		start = now
	}
	c.next = start.Add(c.cfg.Interval)
	c.mu.Unlock()
	d := time.Until(start)
	if d <= 0 {
		return ctx.Err()
	}
	return upstream.Sleep(ctx, d)
}

// attempt sends the query once, in a slot.
func (c *Client) attempt(ctx context.Context, ql string) (*Response, time.Duration, error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	defer func() { <-c.slots }()
	if err := c.wait(ctx); err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	form := url.Values{"data": {ql}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.OverpassURL, strings.NewReader(form))
	if err != nil {
		return nil, 0, &malformedError{err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	req.Header.Set("Accept", "application/json")
	c.calls.Add(1)
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("overpass: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, c.cfg.MaxBody+1))
	if err != nil {
		return nil, 0, fmt.Errorf("overpass: reading the answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, upstream.RetryAfter(res.Header.Get("Retry-After"), time.Now()), &StatusError{Status: res.StatusCode, Message: excerpt(body)}
	}
	if int64(len(body)) > c.cfg.MaxBody {
		return nil, 0, &malformedError{fmt.Errorf("overpass: answer over %d bytes", c.cfg.MaxBody)}
	}
	r, err := decodeResponse(body)
	if err != nil {
		return nil, 0, &malformedError{err}
	}
	if msg := r.runtimeError(); msg != "" {
		return nil, 0, &RuntimeError{Remark: msg}
	}
	return r, 0, nil
}

// excerpt is the text of an error body, tags removed, cut to 200 bytes.
func excerpt(body []byte) string {
	var b strings.Builder
	in := false
	for _, r := range string(body[:min(len(body), 4096)]) {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	// The page begins with the ODbL notice; the error follows it.
	if i := strings.Index(s, "Error"); i >= 0 {
		s = s[i:]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// Lookup finds the row's business: one query around its point (or in its
// postcode's and commune's areas), then the match rule over the answer:
// the element and the kind of match (nil and MatchNone when no element
// is the business). A row that cannot be asked gives ErrNoQuery.
func (c *Client) Lookup(ctx context.Context, r Row) (*Element, string, error) {
	s := Search{Name: r.Name, Point: r.Point, Radius: c.cfg.Radius, Postcode: r.Postcode, Commune: r.Commune}
	ql, err := s.QL(c.cfg.QueryTimeout, c.cfg.Limit)
	if err != nil {
		return nil, "", err
	}
	resp, err := c.Query(ctx, ql)
	if err != nil {
		return nil, "", err
	}
	e, kind := Match(r, resp.Elements, MatchOptions{Radius: s.Radius, Truncated: len(resp.Elements) >= c.cfg.Limit})
	return e, kind, nil
}
