// Package pagespeed is the pagespeed check: Google's PageSpeed Insights
// API v5 runs Lighthouse on a site's page and gives the four category
// scores and the Core Web Vitals, from its lab run (Lighthouse) and from
// the field (the Chrome UX Report, when the site has enough visitors).
//
// One row is one request (GET /pagespeedonline/v5/runPagespeed with the
// four categories), which takes 10 to 30 seconds upstream. 429 and 5xx
// answers, cut or malformed bodies and network failures are retried with
// backoff (Retry-After honoured) a bounded number of times, then the row
// is Unreachable. A site Lighthouse cannot load (the API's "Lighthouse
// returned error: …", or a 200 whose lighthouseResult has a runtimeError)
// is Unreachable at once. See docs/pagespeed.md for the columns, their
// sources and units.
package pagespeed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/upstream"
)

// DefaultBaseURL is the API's root.
const DefaultBaseURL = "https://www.googleapis.com"

// Path is the runPagespeed method under the root.
const Path = "/pagespeedonline/v5/runPagespeed"

// Categories are the Lighthouse categories a run asks for, as the API
// names them.
var Categories = []string{"performance", "seo", "accessibility", "best-practices"}

// Defaults of Config.
const (
	DefaultStrategy       = "mobile"
	DefaultMaxAttempts    = 3
	DefaultBackoffBase    = 2 * time.Second
	DefaultBackoffMax     = 30 * time.Second
	DefaultAttemptTimeout = 60 * time.Second
)

// maxBody caps the bytes read from one answer (a full Lighthouse result
// is 0.3 to 1 MB, with its screenshots).
const maxBody = 16 << 20

// Config is a Client's setting; the zero value with an APIKey is the
// production one.
type Config struct {
	// BaseURL is the API's root, DefaultBaseURL when empty; tests and the
	// simulated twin (pagespeedsim.Handler) point it at a local server. It
	// must be https, except on a loopback host.
	BaseURL string
	// APIKey is the Google Cloud API key, sent in the X-Goog-Api-Key
	// header (the same as the key= parameter, kept out of URLs). Empty
	// sends none: the API then serves a small anonymous quota.
	APIKey string
	// Strategy is "mobile" (DefaultStrategy) or "desktop".
	Strategy string
	// MaxAttempts bounds the requests for one page (DefaultMaxAttempts
	// when 0).
	MaxAttempts int
	// BackoffBase is the wait before the first retry, doubled at each
	// retry up to BackoffMax, with jitter (each wait is drawn in
	// [d/2, d]). A Retry-After longer than BackoffMax ends the retries.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// AttemptTimeout bounds one request (DefaultAttemptTimeout when 0):
	// Lighthouse takes up to 30 s upstream.
	AttemptTimeout time.Duration
	// Sleep waits d or until ctx ends (returning its error); a timer when
	// nil. Tests pass a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of Retry-After dates and deadlines; time.Now when
	// nil.
	Now func() time.Time
}

// Client calls the PageSpeed Insights API. It is safe for concurrent use.
type Client struct {
	cfg      Config
	retry    upstream.Retry
	endpoint string
	hc       *http.Client
}

// NewClient returns a client over hc (a client without timeout when nil:
// each attempt has its own). hc is copied and made to refuse redirects,
// so that the key header never follows one.
func NewClient(cfg Config, hc *http.Client) (*Client, error) {
	base, err := upstream.BaseURL("pagespeed", cfg.BaseURL, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	switch cfg.Strategy {
	case "":
		cfg.Strategy = DefaultStrategy
	case "mobile", "desktop":
	default:
		return nil, fmt.Errorf("pagespeed: strategy %q is neither mobile nor desktop", cfg.Strategy)
	}
	cfg.APIKey = strings.TrimSpace(cfg.APIKey)
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = DefaultAttemptTimeout
	}
	if cfg.Sleep == nil {
		cfg.Sleep = upstream.Sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Client{cfg: cfg, endpoint: base + Path, retry: upstream.Retry{
		MaxAttempts: cfg.MaxAttempts,
		BackoffBase: cfg.BackoffBase,
		BackoffMax:  cfg.BackoffMax,
		Jitter:      upstream.EqualJitter(),
		Sleep:       cfg.Sleep,
		Now:         cfg.Now,
	}.Or(upstream.Retry{MaxAttempts: DefaultMaxAttempts, BackoffBase: DefaultBackoffBase, BackoffMax: DefaultBackoffMax})}
	if hc != nil {
		cp := *hc
		c.hc = &cp
	} else {
		c.hc = &http.Client{}
	}
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c, nil
}

// Strategy is the client's strategy.
func (c *Client) Strategy() string { return c.cfg.Strategy }

// Report is what one run says of a page. A nil field is one the run did
// not give.
type Report struct {
	// Scores are the category scores, 0 to 100 (Lighthouse's 0..1 score
	// × 100, rounded), by category id ("performance", "seo",
	// "accessibility", "best-practices").
	Scores map[string]int
	// LCP is the lab Largest Contentful Paint in milliseconds (the
	// largest-contentful-paint audit's numericValue).
	LCP *float64
	// CLS is the lab Cumulative Layout Shift, unitless (the
	// cumulative-layout-shift audit's numericValue).
	CLS *float64
	// INP is the field Interaction to Next Paint in milliseconds: the
	// 75th percentile of the Chrome UX Report's
	// INTERACTION_TO_NEXT_PAINT for the page (or its origin, when the
	// page alone has too few visitors). Lighthouse's lab run has no INP.
	INP *int
	// INPFrom says whose field data INP is: "page" or "origin".
	INPFrom string
	// FinalURL is the page Lighthouse ended on, after redirects.
	FinalURL string
}

// SiteError is a page the API could not analyse because of the site: a
// name that does not resolve, a refused connection, an error status, no
// content painted. Code is Lighthouse's ("FAILED_DOCUMENT_REQUEST",
// "NO_FCP", "DNS_FAILURE"…).
type SiteError struct {
	Code    string
	Message string
}

func (e *SiteError) Error() string {
	if e.Code == "" {
		return "pagespeed: the site could not be analysed: " + e.Message
	}
	return "pagespeed: the site could not be analysed: " + e.Code + ": " + e.Message
}

// ErrUnavailable wraps the failure of a page whose retries ran out (rate
// limits, server errors, malformed answers, network failures) or whose
// answer says nothing usable.
var ErrUnavailable = errors.New("pagespeed: the API gave no usable answer")

// APIError is an error answer of the API (a google.rpc.Status body).
type APIError struct {
	StatusCode int    // HTTP status
	Status     string // INVALID_ARGUMENT, RESOURCE_EXHAUSTED, INTERNAL…
	Message    string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("pagespeed: HTTP %d", e.StatusCode)
	if e.Status != "" {
		s += " " + e.Status
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// temporary reports whether the same request may succeed later.
func (e *APIError) temporary() bool {
	return upstream.Temporary(e.StatusCode)
}

// attemptError is an attempt's failure that a retry may mend.
type attemptError struct{ err error }

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

// Run analyses one page: it returns the report, a *SiteError when the
// site could not be analysed, an error wrapping ErrUnavailable when the
// API gave no usable answer, or the context's error when ctx ended.
func (c *Client) Run(ctx context.Context, pageURL string) (*Report, error) {
	u := c.requestURL(pageURL)
	var rep *Report
	_, err := c.retry.Do(ctx, func(ctx context.Context, _ int) upstream.Outcome {
		r, err := c.once(ctx, u)
		rep = r
		var ae *attemptError
		return upstream.Outcome{Err: err, Temporary: errors.As(err, &ae), Wait: upstream.RetryAfterOf(err)}
	})
	var stop *upstream.StopError
	switch {
	case err == nil:
		return rep, nil
	case !errors.As(err, &stop):
		return nil, err
	case stop.Reason == upstream.Ended:
		return nil, stop.Cause
	case stop.Reason == upstream.Interrupted:
		return nil, ctxErr(ctx, stop.Cause)
	}
	return nil, stop.Wrap(ErrUnavailable)
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// requestURL is the method's URL for a page: the page, the strategy and
// the four categories.
func (c *Client) requestURL(pageURL string) string {
	q := url.Values{}
	q.Set("url", pageURL)
	q.Set("strategy", c.cfg.Strategy)
	for _, cat := range Categories {
		q.Add("category", cat)
	}
	return c.endpoint + "?" + q.Encode()
}

// retryAfterError is an answer that asked for a wait (Retry-After).
type retryAfterError struct {
	*APIError
	after time.Duration
}

func (e *retryAfterError) Unwrap() error { return e.APIError }

// RetryAfter makes the asked wait upstream.RetryAfterOf's.
func (e *retryAfterError) RetryAfter() time.Duration { return e.after }

// once sends one request and reads its answer.
func (c *Client) once(ctx context.Context, u string) (*Report, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("pagespeed: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("X-Goog-Api-Key", c.cfg.APIKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, &attemptError{fmt.Errorf("pagespeed: %w", c.scrub(err))}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, &attemptError{fmt.Errorf("pagespeed: reading the answer: %w", c.scrub(err))}
	}
	if len(data) > maxBody {
		return nil, fmt.Errorf("%w: answer larger than %d bytes", ErrUnavailable, maxBody)
	}
	if resp.StatusCode != http.StatusOK {
		ae := c.apiError(resp.StatusCode, data)
		if se := siteError(ae, data); se != nil {
			return nil, se
		}
		if ae.temporary() {
			return nil, &attemptError{&retryAfterError{ae, upstream.RetryAfter(resp.Header.Get("Retry-After"), c.cfg.Now())}}
		}
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, ae)
	}
	var body response
	if err := json.Unmarshal(data, &body); err != nil {
		// A body cut short or garbled on the way: the next attempt may
		// get it whole.
		return nil, &attemptError{fmt.Errorf("pagespeed: decoding the answer: %w", err)}
	}
	return body.report()
}

// scrub keeps the key out of an error's text (a transport error quotes
// the URL, which has no key, but stay safe).
func (c *Client) scrub(err error) error {
	if c.cfg.APIKey == "" || !strings.Contains(err.Error(), c.cfg.APIKey) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), c.cfg.APIKey, "[key]"))
}

// apiError reads a google.rpc.Status body.
func (c *Client) apiError(code int, body []byte) *APIError {
	e := &APIError{StatusCode: code}
	var s rpcStatus
	if json.Unmarshal(body, &s) == nil {
		e.Status, e.Message = s.Error.Status, s.Error.Message
	}
	if e.Message == "" {
		e.Message = http.StatusText(code)
	}
	if c.cfg.APIKey != "" {
		e.Message = strings.ReplaceAll(e.Message, c.cfg.APIKey, "[key]")
	}
	if r := []rune(e.Message); len(r) > 500 {
		e.Message = string(r[:500]) + "…"
	}
	return e
}

type rpcStatus struct {
	Error struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Errors  []struct {
			Domain string `json:"domain"`
			Reason string `json:"reason"`
		} `json:"errors"`
	} `json:"error"`
}

// lighthousePrefix starts the API's message when Lighthouse itself failed
// on the page: "Lighthouse returned error: FAILED_DOCUMENT_REQUEST. …".
const lighthousePrefix = "Lighthouse returned error:"

// siteError reads an error answer as Lighthouse's failure on the page,
// nil when it is not one. The API sends those as 400 or 500 with the
// message above and an errors[] entry of domain "lighthouse".
func siteError(ae *APIError, body []byte) *SiteError {
	var s rpcStatus
	_ = json.Unmarshal(body, &s)
	lighthouse := false
	for _, e := range s.Error.Errors {
		if e.Domain == "lighthouse" {
			lighthouse = true
		}
	}
	i := strings.Index(ae.Message, lighthousePrefix)
	if i < 0 && !lighthouse {
		return nil
	}
	se := &SiteError{Message: ae.Message}
	if i >= 0 {
		rest := strings.TrimSpace(ae.Message[i+len(lighthousePrefix):])
		code, msg, _ := strings.Cut(rest, ".")
		if isCode(code) {
			se.Code, se.Message = code, strings.TrimSpace(msg)
		}
	}
	return se
}

// isCode tells a Lighthouse error code: upper-case letters, digits and
// underscores.
func isCode(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// response is the part of a v5 answer the module reads.
type response struct {
	LoadingExperience       *experience `json:"loadingExperience"`
	OriginLoadingExperience *experience `json:"originLoadingExperience"`
	LighthouseResult        *struct {
		FinalURL          string `json:"finalUrl"`
		FinalDisplayedURL string `json:"finalDisplayedUrl"`
		RuntimeError      *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"runtimeError"`
		Categories map[string]struct {
			Score *float64 `json:"score"`
		} `json:"categories"`
		Audits map[string]struct {
			NumericValue *float64 `json:"numericValue"`
			NumericUnit  string   `json:"numericUnit"`
		} `json:"audits"`
	} `json:"lighthouseResult"`
}

type experience struct {
	ID      string `json:"id"`
	Metrics map[string]struct {
		Percentile *float64 `json:"percentile"`
		Category   string   `json:"category"`
	} `json:"metrics"`
	OriginFallback bool `json:"origin_fallback"`
}

func (r *response) report() (*Report, error) {
	lh := r.LighthouseResult
	if lh == nil {
		return nil, fmt.Errorf("%w: the answer has no lighthouseResult", ErrUnavailable)
	}
	if e := lh.RuntimeError; e != nil && e.Code != "" && e.Code != "NO_ERROR" {
		return nil, &SiteError{Code: e.Code, Message: e.Message}
	}
	rep := &Report{Scores: map[string]int{}, FinalURL: lh.FinalURL}
	if rep.FinalURL == "" {
		rep.FinalURL = lh.FinalDisplayedURL
	}
	for _, cat := range Categories {
		if s := lh.Categories[cat].Score; s != nil && *s >= 0 && *s <= 1 {
			rep.Scores[cat] = int(math.Round(*s * 100))
		}
	}
	if a, ok := lh.Audits["largest-contentful-paint"]; ok && a.NumericValue != nil && *a.NumericValue >= 0 &&
		(a.NumericUnit == "" || a.NumericUnit == "millisecond") {
		v := *a.NumericValue
		rep.LCP = &v
	}
	if a, ok := lh.Audits["cumulative-layout-shift"]; ok && a.NumericValue != nil && *a.NumericValue >= 0 {
		v := *a.NumericValue
		rep.CLS = &v
	}
	for _, x := range []struct {
		e    *experience
		from string
	}{{r.LoadingExperience, "page"}, {r.OriginLoadingExperience, "origin"}} {
		if x.e == nil {
			continue
		}
		if m, ok := x.e.Metrics["INTERACTION_TO_NEXT_PAINT"]; ok && m.Percentile != nil && *m.Percentile >= 0 {
			v := int(math.Round(*m.Percentile))
			rep.INP = &v
			rep.INPFrom = x.from
			if x.e.OriginFallback {
				rep.INPFrom = "origin"
			}
			break
		}
	}
	if len(rep.Scores) == 0 && rep.LCP == nil && rep.CLS == nil {
		return nil, fmt.Errorf("%w: the answer has no score and no metric", ErrUnavailable)
	}
	return rep, nil
}
