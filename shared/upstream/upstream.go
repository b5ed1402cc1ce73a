// Package upstream holds what every client of an upstream HTTP API shares
// (the map provider, PageSpeed, the company registers, Overpass, the phone
// line lookup): reading a configured base address, the Retry-After header,
// which statuses are worth a retry, a wait that ends with its context, and
// the retry policy itself (Retry: attempts, backoff, asked waits).
package upstream

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// BaseURL reads a configured API root: def when raw is empty; an http(s)
// URL with no query, fragment or user otherwise, without its trailing
// slash. Plain http is refused but on a loopback host (tests, a local
// twin): keys and queries would travel in clear. name prefixes errors.
func BaseURL(name, raw, def string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return def, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("%s: base URL %q is not an http(s) URL", name, raw)
	}
	if u.Scheme == "http" && !Loopback(u.Hostname()) {
		return "", fmt.Errorf("%s: base URL %q must be https (the key would travel in clear)", name, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%s: base URL %q has a query, fragment or user", name, raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Loopback tells whether a host stays on this machine.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// RetryAfter reads a Retry-After header, seconds or an HTTP date, as a
// wait from now (capped at a day); 0 when absent, past or unreadable.
func RetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, 86400)) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Temporary tells whether an HTTP status may succeed later: rate limits
// (429), timeouts (408) and server errors (5xx).
func Temporary(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// Sleep waits d, or until ctx ends (its error then).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
