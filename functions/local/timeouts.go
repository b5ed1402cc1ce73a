package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// timeouts are the local server's connection bounds (docs/architecture.md,
// "Local server timeouts"). There is no WriteTimeout nor ReadTimeout: a
// progress stream (GET /api/jobs/{id}/stream) writes for as long as its job
// runs, and net/http's ReadTimeout, once past, cancels the context of a
// handler still running. Bodies are bounded per request instead
// (boundBodyReads).
type timeouts struct {
	header time.Duration // request line and headers
	body   time.Duration // the whole request body, from the end of the headers
	idle   time.Duration // a kept-alive connection between two requests
}

// serverTimeouts reads the bounds: the defaults, or SVC_BODY_READ_TIMEOUT
// and SVC_IDLE_TIMEOUT as Go durations (tests scale them down).
func serverTimeouts(getenv func(string) string) (timeouts, error) {
	t := timeouts{header: 10 * time.Second, body: 30 * time.Second, idle: 2 * time.Minute}
	for _, v := range []struct {
		name string
		dst  *time.Duration
	}{{"SVC_BODY_READ_TIMEOUT", &t.body}, {"SVC_IDLE_TIMEOUT", &t.idle}} {
		s := getenv(v.name)
		if s == "" {
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return t, fmt.Errorf("%s: a positive duration such as 30s, got %q", v.name, s)
		}
		*v.dst = d
	}
	return t, nil
}

// newServer is the local HTTP server over h with the bounds.
func newServer(h http.Handler, t timeouts, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           boundBodyReads(h, t.body),
		ReadHeaderTimeout: t.header,
		IdleTimeout:       t.idle,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// boundBodyReads gives each request body d to arrive in full: a client that
// declares a length and sends less gets a read error, an answer and a
// closed connection instead of holding it open. The deadline does not
// outlive the body: once the body is read to its end, net/http clears the
// connection's read deadline to watch for the client going away, so what
// the handler does next (a long synchronous job) is not bounded by it; a
// request without a body (a progress stream) never gets one.
func boundBodyReads(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			// An error means a connection without deadlines (none here:
			// every connection of this server is TCP); the request is
			// then served unbounded rather than refused.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}
