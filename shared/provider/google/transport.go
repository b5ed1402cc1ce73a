package google

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/prospectdata/svc/shared/upstream"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/prospectdata/svc/shared/provider"
)

// APIError is an error answer of the API: its HTTP status and the body's
// error.status and error.message (google.rpc.Status).
type APIError struct {
	StatusCode int    // HTTP status: 400, 403, 404, 429, 500…
	Status     string // the API's code: INVALID_ARGUMENT, PERMISSION_DENIED…
	Message    string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("google places: HTTP %d", e.StatusCode)
	if e.Status != "" {
		s += " " + e.Status
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether the same request may succeed later: rate limits
// (429), timeouts (408) and server errors (5xx).
func (e *APIError) Temporary() bool {
	return upstream.Temporary(e.StatusCode)
}

// netError is a failure to get an answer: no connection, a timeout, a
// connection cut mid-answer.
type netError struct {
	err       error
	temporary bool
}

func (e *netError) Error() string { return "google places: " + e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

var errTooLarge = fmt.Errorf("google places: response larger than %d bytes", maxBody)

// call sends the request, retrying what is temporary, and decodes a 200
// answer into out.
func (c *Client) call(ctx context.Context, method, path, mask string, body []byte, out any) error {
	for attempt := 0; ; attempt++ {
		retryAfter, err := c.once(ctx, method, path, mask, body, out)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctxError(ctx, err)
		}
		if !temporary(err) {
			return err
		}
		if attempt >= c.maxRetries {
			return fmt.Errorf("%w after %d attempts: %w", provider.ErrTransient, attempt+1, err)
		}
		wait := c.backoff(attempt)
		if retryAfter > 0 {
			if retryAfter > c.max {
				return fmt.Errorf("%w: asked to retry after %v: %w", provider.ErrTransient, retryAfter, err)
			}
			wait = retryAfter
		}
		if dl, ok := ctx.Deadline(); ok && c.now().Add(wait).After(dl) {
			return fmt.Errorf("%w: the next retry (in %v) would pass the deadline: %w", provider.ErrTransient, wait, err)
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			if ctx.Err() != nil {
				return ctxError(ctx, err)
			}
			return fmt.Errorf("google places: waiting to retry: %w (last: %v)", serr, err)
		}
	}
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

// backoff is the delay before retry attempt+1: base·2^attempt, at most max,
// drawn in [d/2, d] (equal jitter: never a retry storm, never a null wait).
func (c *Client) backoff(attempt int) time.Duration {
	d := c.max
	if attempt < 30 {
		if e := c.base << attempt; e > 0 && e < c.max {
			d = e
		}
	}
	half := d / 2
	return half + rand.N(d-half+1)
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
		return upstream.RetryAfter(resp.Header.Get("Retry-After"), c.now()), c.apiError(resp.StatusCode, data)
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
		} `json:"error"`
	}
	if json.Unmarshal(body, &s) == nil {
		e.Status, e.Message = s.Error.Status, s.Error.Message
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
