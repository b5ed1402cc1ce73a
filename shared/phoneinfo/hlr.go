package phoneinfo

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/upstream"
)

// The live lookup of the real sources is hlr-lookups.com's HLR API (v2,
// https://www.hlr-lookups.com/en/api-docs): POST /hlr-lookup with
// {"msisdn": "+…"} answers, from the number's home network, whether the
// handset is attached (connectivity_status), the network it was
// allocated to and, when ported, the one serving it now. docs/phone-info.md
// says how its fields become the columns.
const (
	// DefaultHLRURL is the API's root.
	DefaultHLRURL = "https://www.hlr-lookups.com/api/v2"
	// HLRPath is the synchronous lookup's endpoint under the root; it is
	// also what the request's signature covers.
	HLRPath = "/hlr-lookup"
)

// Defaults of HLRConfig.
const (
	DefaultHLRMaxAttempts    = 3
	DefaultHLRBackoffBase    = time.Second
	DefaultHLRBackoffMax     = 10 * time.Second
	DefaultHLRAttemptTimeout = 20 * time.Second
	// DefaultRefusedPause is how long a refusal (wrong key, no credit)
	// answers for every number without a call: the next ones would be
	// refused alike, and each would cost a round trip.
	DefaultRefusedPause = time.Minute
)

// maxHLRBody caps an answer read (one lookup's JSON is under 1 KB).
const maxHLRBody = 64 << 10

// HLRConfig is an HLRClient's setting.
type HLRConfig struct {
	// BaseURL is the API's root (DefaultHLRURL when empty); https, except
	// on a loopback host. The sim twin is reached the same way.
	BaseURL string
	// Key and Secret are the account's API credentials: the key travels
	// in X-Digest-Key, the secret only signs (X-Digest-Signature).
	Key, Secret string
	// MaxAttempts bounds the requests for one number
	// (DefaultHLRMaxAttempts when 0 or less).
	MaxAttempts int
	// BackoffBase is the wait before the first retry, doubled at each up
	// to BackoffMax (each drawn in [d/2, d]); a Retry-After longer than
	// BackoffMax ends the retries. DefaultHLRBackoffBase and
	// DefaultHLRBackoffMax when 0 or less.
	BackoffBase, BackoffMax time.Duration
	// AttemptTimeout bounds one request (an HLR answers in 1 to 5 s).
	AttemptTimeout time.Duration
	// RefusedPause: see DefaultRefusedPause.
	RefusedPause time.Duration
	// Sleep waits d or until ctx ends; a timer when nil (tests record).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of signatures, Retry-After dates and CheckedAt.
	Now func() time.Time
	// Label is the source's name on jobs (Source); "hlr-lookups.com"
	// when empty.
	Label string
}

// HLRClient is the LineLookup over hlr-lookups.com's API. It is safe for
// concurrent use.
type HLRClient struct {
	cfg      HLRConfig
	retry    upstream.Retry
	endpoint string
	hc       *http.Client

	mu      sync.Mutex
	refused time.Time // until when a refusal answers without a call
	why     error
}

var _ LineLookup = (*HLRClient)(nil)

// NewHLRClient returns a client over hc (each attempt has its own
// timeout; nil is a plain client). hc is copied and made to refuse
// redirects, so that the key never follows one.
func NewHLRClient(cfg HLRConfig, hc *http.Client) (*HLRClient, error) {
	base, err := upstream.BaseURL("phone line lookup", cfg.BaseURL, DefaultHLRURL)
	if err != nil {
		return nil, err
	}
	cfg.Key, cfg.Secret = strings.TrimSpace(cfg.Key), strings.TrimSpace(cfg.Secret)
	if cfg.Key == "" || cfg.Secret == "" {
		return nil, errors.New("phone line lookup: a key and a secret are needed")
	}
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = DefaultHLRAttemptTimeout
	}
	if cfg.RefusedPause <= 0 {
		cfg.RefusedPause = DefaultRefusedPause
	}
	if cfg.Sleep == nil {
		cfg.Sleep = upstream.Sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Label == "" {
		cfg.Label = "hlr-lookups.com"
	}
	c := &HLRClient{cfg: cfg, endpoint: base + HLRPath, hc: &http.Client{}, retry: upstream.Retry{
		MaxAttempts: cfg.MaxAttempts,
		BackoffBase: cfg.BackoffBase,
		BackoffMax:  cfg.BackoffMax,
		Jitter:      upstream.EqualJitter(),
		Sleep:       cfg.Sleep,
		Now:         cfg.Now,
	}.Or(upstream.Retry{MaxAttempts: DefaultHLRMaxAttempts, BackoffBase: DefaultHLRBackoffBase, BackoffMax: DefaultHLRBackoffMax})}
	if hc != nil {
		cp := *hc
		c.hc = &cp
	}
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c, nil
}

// Source names the lookup on jobs.
func (c *HLRClient) Source() string { return c.cfg.Label }

// HLRSignature is the request's X-Digest-Signature: HMAC-SHA256, keyed
// with the secret, of the endpoint's path, the Unix timestamp (the
// X-Digest-Timestamp header), the method and the body, in hex — as the
// provider's own SDKs compute it.
func HLRSignature(secret, path string, ts int64, method string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(path + strconv.FormatInt(ts, 10) + strings.ToUpper(method)))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// HLRAnswer is the API's answer to one lookup (the fields read; the
// others — imsi, msc, roaming, cost, storage, route — are ignored).
type HLRAnswer struct {
	ID                  string  `json:"id"`
	MSISDN              string  `json:"msisdn"`
	ConnectivityStatus  string  `json:"connectivity_status"`
	MCCMNC              *string `json:"mccmnc"`
	OriginalNetworkName *string `json:"original_network_name"`
	OriginalCountryCode *string `json:"original_country_code"`
	IsPorted            *bool   `json:"is_ported"`
	PortedNetworkName   *string `json:"ported_network_name"`
	PortedCountryCode   *string `json:"ported_country_code"`
	ProcessingStatus    string  `json:"processing_status"`
	// ErrorCode is the provider's code of a lookup that did not complete
	// (a number or null).
	ErrorCode  json.RawMessage `json:"error_code"`
	DataSource string          `json:"data_source"`
}

// Connectivity statuses of the API.
const (
	HLRConnected    = "CONNECTED"      // attached to its network: reachable
	HLRAbsent       = "ABSENT"         // valid, switched off or out of reach
	HLRInvalid      = "INVALID_MSISDN" // not assigned to any subscriber
	HLRUndetermined = "UNDETERMINED"   // the network did not tell
)

// Status reads an answer as a line's Status (CheckedAt left to the
// caller). CONNECTED is reachable; ABSENT and INVALID_MSISDN are not (a
// number assigned to nobody rings nowhere, and is served by no one: its
// carrier and porting are left unknown); UNDETERMINED leaves
// reachability unknown. The current carrier is the ported network when
// ported, the original network when not, unknown when the answer does
// not say.
func (a HLRAnswer) Status() Status {
	var s Status
	switch strings.ToUpper(a.ConnectivityStatus) {
	case HLRConnected:
		s.Reachable = ptr(true)
	case HLRAbsent:
		s.Reachable = ptr(false)
	case HLRInvalid:
		s.Reachable = ptr(false)
		return s
	}
	if a.IsPorted != nil {
		s.Ported = ptr(*a.IsPorted)
		if *a.IsPorted {
			s.CarrierCurrent = str(a.PortedNetworkName)
		} else {
			s.CarrierCurrent = str(a.OriginalNetworkName)
		}
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func str(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

// HLRError is the API's refusal of a request.
type HLRError struct {
	StatusCode int
	Message    string // the body's start, when any
}

func (e *HLRError) Error() string {
	s := "hlr lookup: http " + strconv.Itoa(e.StatusCode)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// LookupLine implements LineLookup: one number, retried on a network
// failure, a 429, 408 or 5xx (Retry-After honoured) up to MaxAttempts.
// A 401, 402 or 403 is ErrRefused (and answers every number for
// RefusedPause); another 4xx, a lookup the API did not complete
// (processing_status REJECTED or FAILED) or an unreadable answer wraps
// ErrLookup.
func (c *HLRClient) LookupLine(ctx context.Context, e164 string) (Status, error) {
	if err := c.refusal(); err != nil {
		return Status{}, err
	}
	body, err := json.Marshal(map[string]string{"msisdn": e164})
	if err != nil {
		return Status{}, fmt.Errorf("%w: %w", ErrLookup, err)
	}
	var a *HLRAnswer
	_, err = c.retry.Do(ctx, func(ctx context.Context, _ int) upstream.Outcome {
		var err error
		a, err = c.once(ctx, body)
		var re *retryable
		if !errors.As(err, &re) {
			return upstream.Outcome{Err: err}
		}
		return upstream.Outcome{Err: err, Temporary: true, Wait: re.after}
	})
	var stop *upstream.StopError
	switch {
	case err == nil:
		return c.read(a, e164)
	case !errors.As(err, &stop):
		return Status{}, err
	case stop.Reason == upstream.Ended || stop.Reason == upstream.Interrupted:
		return Status{}, stop.Cause
	}
	return Status{}, stop.Wrap(ErrLookup)
}

// read checks a completed answer and turns it into a Status.
func (c *HLRClient) read(a *HLRAnswer, e164 string) (Status, error) {
	switch ps := strings.ToUpper(a.ProcessingStatus); ps {
	case "", "COMPLETED":
	default:
		code := strings.TrimSpace(string(a.ErrorCode))
		if code == "" || code == "null" {
			return Status{}, fmt.Errorf("%w: processing_status %s", ErrLookup, ps)
		}
		return Status{}, fmt.Errorf("%w: processing_status %s, error_code %s", ErrLookup, ps, code)
	}
	if a.MSISDN != "" && a.MSISDN != e164 {
		// An answer about another number is not this one's.
		return Status{}, fmt.Errorf("%w: answered for another number", ErrLookup)
	}
	s := a.Status()
	s.CheckedAt = c.cfg.Now().UTC()
	return s, nil
}

// retryable is an attempt's failure that a retry may mend, with the
// upstream's Retry-After when it gave one.
type retryable struct {
	err   error
	after time.Duration
}

func (e *retryable) Error() string { return e.err.Error() }
func (e *retryable) Unwrap() error { return e.err }

// once sends one signed request and reads its answer.
func (c *HLRClient) once(ctx context.Context, body []byte) (*HLRAnswer, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLookup, err)
	}
	ts := c.cfg.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Digest-Key", c.cfg.Key)
	req.Header.Set("X-Digest-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("X-Digest-Signature", HLRSignature(c.cfg.Secret, HLRPath, ts, http.MethodPost, body))
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, &retryable{err: fmt.Errorf("hlr lookup: %w", c.scrub(err))}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHLRBody+1))
	if err != nil {
		return nil, &retryable{err: fmt.Errorf("hlr lookup: reading the answer: %w", c.scrub(err))}
	}
	if len(data) > maxHLRBody {
		return nil, fmt.Errorf("%w: answer larger than %d bytes", ErrLookup, maxHLRBody)
	}
	if resp.StatusCode != http.StatusOK {
		he := &HLRError{StatusCode: resp.StatusCode, Message: c.excerpt(data)}
		switch {
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusPaymentRequired ||
			resp.StatusCode == http.StatusForbidden:
			return nil, c.refuse(he)
		case upstream.Temporary(resp.StatusCode):
			return nil, &retryable{err: he, after: upstream.RetryAfter(resp.Header.Get("Retry-After"), c.cfg.Now())}
		}
		return nil, fmt.Errorf("%w: %w", ErrLookup, he)
	}
	var a HLRAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		// Cut short or garbled on the way: the next attempt may get it
		// whole.
		return nil, &retryable{err: fmt.Errorf("hlr lookup: decoding the answer: %w", err)}
	}
	return &a, nil
}

// refuse records a refusal: for RefusedPause every lookup answers it
// without a call.
func (c *HLRClient) refuse(he *HLRError) error {
	err := fmt.Errorf("%w: %w", ErrRefused, he)
	c.mu.Lock()
	c.refused, c.why = c.cfg.Now().Add(c.cfg.RefusedPause), err
	c.mu.Unlock()
	return err
}

func (c *HLRClient) refusal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.why != nil && c.cfg.Now().Before(c.refused) {
		return c.why
	}
	return nil
}

// excerpt is an error body's start, one line, without the credentials.
func (c *HLRClient) excerpt(data []byte) string {
	s := strings.Join(strings.Fields(string(data)), " ")
	if len(s) > 200 {
		s = s[:200]
	}
	return c.scrubString(s)
}

func (c *HLRClient) scrub(err error) error {
	if s := c.scrubString(err.Error()); s != err.Error() {
		return errors.New(s)
	}
	return err
}

func (c *HLRClient) scrubString(s string) string {
	for _, k := range []string{c.cfg.Key, c.cfg.Secret} {
		if k != "" {
			s = strings.ReplaceAll(s, k, "[key]")
		}
	}
	return s
}
