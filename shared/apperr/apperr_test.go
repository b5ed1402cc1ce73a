package apperr_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/apperr"
)

// TestCodeOf: an error's code survives wrapping with %w and Wrap; any
// other error is Internal, and nil carries no code.
func TestCodeOf(t *testing.T) {
	missing := apperr.Missing()
	tests := []struct {
		name string
		err  error
		want apperr.Code
	}{
		{"an application error", missing, apperr.NotFound},
		{"wrapped with %w", fmt.Errorf("load job: %w", missing), apperr.NotFound},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", apperr.Unauthenticated())), apperr.Unauthorized},
		{"with a cause", apperr.New(apperr.Unavailable, "Indisponible", "Unavailable").Wrap(io.ErrUnexpectedEOF), apperr.Unavailable},
		{"field errors", apperr.Fields(apperr.Field("zones", "vide", "empty")), apperr.Unprocessable},
		{"a rate limit", apperr.TooManyRequests(3), apperr.TooMany},
		{"any other error", io.EOF, apperr.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := apperr.CodeOf(tt.err); got != tt.want {
				t.Errorf("CodeOf = %q, want %q", got, tt.want)
			}
			if !apperr.Is(tt.err, tt.want) {
				t.Errorf("Is(%q) = false", tt.want)
			}
		})
	}
	if apperr.Is(nil, apperr.Internal) {
		t.Error("nil is an Internal error")
	}
}

// TestWrapKeepsTheOriginal: Wrap returns a copy, so an error value kept
// and reused is never given one request's cause; the cause is logged
// through Error() and reachable with errors.Is, never shown in EN or FR.
func TestWrapKeepsTheOriginal(t *testing.T) {
	base := apperr.New(apperr.Internal, "Erreur interne", "Internal error")
	cause := errors.New("dynamodb: throttled")
	w := base.Wrap(cause)
	if base.Err != nil {
		t.Error("Wrap changed the original")
	}
	if !errors.Is(w, cause) || !strings.Contains(w.Error(), "throttled") {
		t.Errorf("the cause is lost: %v", w)
	}
	if strings.Contains(w.EN+w.FR, "throttled") {
		t.Errorf("the cause reaches the caller's message: %q %q", w.EN, w.FR)
	}
}

// TestMessages: Error() prefers the English message and falls back to the
// French one; a rate limit states its delay in both, at least a second.
func TestMessages(t *testing.T) {
	tests := []struct {
		name string
		err  *apperr.Error
		want string
	}{
		{"English first", apperr.New(apperr.Invalid, "Requête invalide", "Bad request"), "invalid: Bad request"},
		{"French alone", apperr.New(apperr.Gone, "Expiré", ""), "gone: Expiré"},
		{"a rate limit in seconds", apperr.TooManyRequests(42), "too_many: Too many requests. Retry in 42 seconds."},
		{"a rate limit is at least a second", apperr.TooManyRequests(0), "too_many: Too many requests. Retry in 1 seconds."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
	if r := apperr.TooManyRequests(42); r.RetryAfter != 42 || !strings.Contains(r.FR, "42 secondes") {
		t.Errorf("%+v", r)
	}
}
