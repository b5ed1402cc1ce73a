package upstream_test

import (
	"context"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/upstream"
)

func TestBaseURL(t *testing.T) {
	for _, tt := range []struct {
		raw, want string
		ok        bool
	}{
		{"", "https://default.example", true},
		{"https://api.example/v1/", "https://api.example/v1", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"http://localhost:9", "http://localhost:9", true},
		{"http://api.example", "", false},
		{"ftp://api.example", "", false},
		{"https://api.example/?key=1", "", false},
		{"https://user@api.example", "", false},
		{"api.example", "", false},
	} {
		got, err := upstream.BaseURL("test", tt.raw, "https://default.example")
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%q: %q %v", tt.raw, got, err)
		}
	}
}

func TestRetryAfterAndTemporary(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		h    string
		want time.Duration
	}{
		{"", 0}, {"0", 0}, {"-3", 0}, {"7", 7 * time.Second}, {"999999", 24 * time.Hour},
		{"Fri, 27 Nov 2026 12:00:30 GMT", 30 * time.Second}, {"Fri, 27 Nov 2026 11:00:00 GMT", 0}, {"soon", 0},
	} {
		if got := upstream.RetryAfter(tt.h, now); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.h, got, tt.want)
		}
	}
	for status, want := range map[int]bool{200: false, 400: false, 404: false, 408: true, 429: true, 500: true, 503: true} {
		if upstream.Temporary(status) != want {
			t.Errorf("%d: %v", status, !want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := upstream.Sleep(ctx, time.Hour); err == nil {
		t.Error("a cancelled sleep returned nil")
	}
}
