package google

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/upstream"
)

// APIError is an error answer of the API: its HTTP status, the body's
// error.status and error.message (google.rpc.Status), and the reason and
// quota limit of its google.rpc.ErrorInfo detail when it has one.
//
// It wraps the provider's class of the failure: provider.ErrRateLimited
// for a 429 of a per-minute quota (a transient failure that slows the
// whole fleet), provider.ErrRefused for an answer no retry mends (Refused).
type APIError struct {
	StatusCode int    // HTTP status: 400, 403, 404, 429, 500…
	Status     string // the API's code: INVALID_ARGUMENT, PERMISSION_DENIED…
	Message    string
	// Reason is ErrorInfo's reason (API_KEY_INVALID, SERVICE_DISABLED,
	// RATE_LIMIT_EXCEEDED…), QuotaLimit, QuotaMetric and QuotaUnit its
	// quota_limit (SearchTextRequestPerMinutePerProject…), quota_metric
	// (places.googleapis.com/search_text_requests) and quota_unit
	// (1/min/{project}, 1/d/{project}) metadata; "" when absent.
	Reason      string
	QuotaLimit  string
	QuotaMetric string
	QuotaUnit   string
	// retryAfter is the answer's Retry-After (0 when absent).
	retryAfter time.Duration
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("google places: HTTP %d", e.StatusCode)
	if e.Daily() {
		// The job stops on it: say what ran out and what mends it.
		q := e.QuotaLimit
		if q == "" {
			q = e.QuotaMetric
		}
		if q != "" {
			q = " " + q
		}
		s = "google places: the daily quota" + q + " of the project is exhausted; requests are refused until it resets " +
			"(midnight Pacific time) or is raised in the Google Cloud console (HTTP 429"
		if e.Reason != "" {
			s += " " + e.Reason
		}
		s += ")"
		if e.Message != "" {
			s += ": " + e.Message
		}
		return s
	}
	if e.Status != "" {
		s += " " + e.Status
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}

// Temporary reports whether the same request may succeed later: rate limits
// (429) of a per-minute quota, timeouts (408) and server errors (5xx).
func (e *APIError) Temporary() bool {
	return upstream.Temporary(e.StatusCode) && !e.Refused()
}

// Refused reports an answer that no retry mends for any request of the
// key: the key refused or invalid (401, 403, 400 API_KEY_INVALID), the API
// disabled or billing off (403), a daily quota spent (429 whose quota limit
// is per day). Other 400s are this request's fault, not the key's.
func (e *APIError) Refused() bool {
	switch {
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		return true
	case e.StatusCode == http.StatusBadRequest:
		return e.Reason == "API_KEY_INVALID" || strings.Contains(e.Message, "API key not valid")
	case e.StatusCode == http.StatusTooManyRequests:
		return e.Daily()
	}
	return false
}

// Daily reports a 429 of a quota counted per day (a cap the project set),
// which no retry mends before the next day, as opposed to the per-minute
// ones. The ErrorInfo decides: its quota_unit (1/d/{project} against
// 1/min/{project}), else its quota_limit's name (…PerDayPerProject);
// an answer without either is read from its message ("… per day' of
// service …"). Anything else is per minute: retried.
func (e *APIError) Daily() bool {
	if e.StatusCode != http.StatusTooManyRequests {
		return false
	}
	if u := strings.ToLower(e.QuotaUnit); u != "" {
		return strings.Contains(u, "/d/") || strings.HasSuffix(u, "/d") || strings.Contains(u, "/day")
	}
	if l := strings.ToLower(e.QuotaLimit); l != "" {
		return strings.Contains(l, "perday") || strings.Contains(l, "per day")
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "per day") || strings.Contains(m, "daily")
}

// Unwrap is the provider's class of the answer.
func (e *APIError) Unwrap() error {
	switch {
	case e.Refused():
		return provider.ErrRefused
	case e.StatusCode == http.StatusTooManyRequests:
		return provider.ErrRateLimited
	}
	return nil
}

// RetryAfter is the wait the answer asked for (Retry-After), 0 when it
// asked none: the fleet limiter pauses every worker that long.
func (e *APIError) RetryAfter() time.Duration { return e.retryAfter }

// netError is a failure to get an answer: no connection, a timeout, a
// connection cut mid-answer.
type netError struct {
	err       error
	temporary bool
}

func (e *netError) Error() string { return "google places: " + e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

var errTooLarge = fmt.Errorf("google places: response larger than %d bytes", maxBody)

// call sends the request, retrying what is temporary (c.retry), and
// decodes a 200 answer into out. With a gate, each attempt waits for its
// admission and reports its outcome, so that retries count against the
// fleet's budget and a 429 slows the fleet before this request's own
// backoff.
func (c *Client) call(ctx context.Context, method, path, mask string, body []byte, out any) error {
	_, err := c.retry.Do(ctx, func(ctx context.Context, _ int) upstream.Outcome {
		retryAfter, err := c.attempt(ctx, method, path, mask, body, out)
		// A request the gate did not let through is not retried: the
		// gate's error says why.
		return upstream.Outcome{Err: err, Temporary: temporary(err) && !errors.Is(err, errNotAdmitted), Wait: retryAfter}
	})
	var stop *upstream.StopError
	if !errors.As(err, &stop) {
		return err
	}
	switch {
	case stop.Reason == upstream.Ended || stop.Reason == upstream.Interrupted && ctx.Err() != nil:
		return ctxError(ctx, stop.Last)
	case stop.Reason == upstream.Interrupted:
		return fmt.Errorf("google places: waiting to retry: %w (last: %v)", stop.Cause, stop.Last)
	}
	return stop.Wrap(provider.ErrTransient)
}

// errNotAdmitted marks a request the gate did not let through: its error
// (the gate's) says why, and the client does not retry it.
var errNotAdmitted = errors.New("google places: not admitted")

// attempt is one request, through the gate when there is one.
func (c *Client) attempt(ctx context.Context, method, path, mask string, body []byte, out any) (time.Duration, error) {
	if c.gate == nil {
		return c.once(ctx, method, path, mask, body, out)
	}
	actx, done, err := c.gate.Admit(ctx)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errNotAdmitted, err)
	}
	retryAfter, err := c.once(actx, method, path, mask, body, out)
	done(err)
	return retryAfter, err
}

// ctxError is the error of a call ended by its context, after last. A
// deadline is transient (the work may be retried with more time); a
// cancellation is not.
func ctxError(ctx context.Context, last error) error {
	cause := ctx.Err()
	if errors.Is(cause, context.DeadlineExceeded) {
		return fmt.Errorf("google places: %w: %w (last: %v)", provider.ErrTransient, cause, last)
	}
	return fmt.Errorf("google places: %w (last: %v)", cause, last)
}

func temporary(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Temporary()
	}
	var ne *netError
	return errors.As(err, &ne) && ne.temporary
}

// once sends the request once. On an error answer it returns the answer's
// Retry-After (0 when absent).
func (c *Client) once(ctx context.Context, method, path, mask string, body []byte, out any) (time.Duration, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return 0, fmt.Errorf("google places: %w", err)
	}
	req.Header.Set("X-Goog-Api-Key", c.key)
	req.Header.Set("X-Goog-FieldMask", mask)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, &netError{err: err, temporary: temporaryNet(err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return 0, &netError{err: err, temporary: temporaryNet(err)}
	}
	if len(data) > maxBody {
		return 0, errTooLarge
	}
	if resp.StatusCode != http.StatusOK {
		e := c.apiError(resp.StatusCode, data)
		e.retryAfter = upstream.RetryAfter(resp.Header.Get("Retry-After"), c.now())
		return e.retryAfter, e
	}
	if err := json.Unmarshal(data, out); err != nil {
		return 0, fmt.Errorf("google places: decoding the answer: %w", err)
	}
	return 0, nil
}

// temporaryNet reports whether a transport failure may pass: a timeout, a
// refused or reset connection, an answer cut short.
func temporaryNet(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// apiError reads a google.rpc.Status body. The message never holds the key.
func (c *Client) apiError(code int, body []byte) *APIError {
	e := &APIError{StatusCode: code}
	var s struct {
		Error struct {
			Status  string `json:"status"`
			Message string `json:"message"`
			Details []struct {
				Type     string            `json:"@type"`
				Reason   string            `json:"reason"`
				Metadata map[string]string `json:"metadata"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &s) == nil {
		e.Status, e.Message = s.Error.Status, s.Error.Message
		for _, d := range s.Error.Details {
			if strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") {
				e.Reason, e.QuotaLimit = d.Reason, d.Metadata["quota_limit"]
				e.QuotaMetric, e.QuotaUnit = d.Metadata["quota_metric"], d.Metadata["quota_unit"]
				break
			}
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(code)
	}
	e.Message = strings.ReplaceAll(e.Message, c.key, "[key]")
	if r := []rune(e.Message); len(r) > 500 {
		e.Message = string(r[:500]) + "…"
	}
	return e
}
