package ratelimit_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// newDB opens the counters table in a temp dir, on the test clock: the
// counters expire by TTL, which the driver applies at its clock's time.
func newDB(t *testing.T, c *clocktest.Clock) store.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "tables.db"), []store.Schema{ratelimit.Schema()}, bolt.WithNoSync(),
		bolt.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// at is a time on the test day.
func at(h, m, s int) time.Time { return time.Date(2026, 11, 24, h, m, s, 0, time.UTC) }

// retryAfter returns the Retry-After of a 429, -1 for nil and fails on
// any other error.
func retryAfter(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return -1
	}
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.TooMany {
		t.Fatalf("err %v, want a 429", err)
	}
	return ae.RetryAfter
}

// TestSpecLimits pins the values of the spec's Limits table.
func TestSpecLimits(t *testing.T) {
	for _, tt := range []struct {
		name   string
		rule   ratelimit.Rule
		max    int64
		window time.Duration
	}{
		{"Signup: 3 per hour per IP", ratelimit.Signup, 3, time.Hour},
		{"Login: 5 per 15 minutes per IP", ratelimit.LoginIP, 5, 15 * time.Minute},
		{"Login: 5 per 15 minutes per email", ratelimit.LoginEmail, 5, 15 * time.Minute},
		{"Password reset request: 3 per hour per IP", ratelimit.ResetIP, 3, time.Hour},
		{"Password reset request: 3 per hour per email", ratelimit.ResetEmail, 3, time.Hour},
		{"Password change: 5 per hour per user", ratelimit.PasswordChange, 5, time.Hour},
		{"Verification resend: 3 per hour per user", ratelimit.ResendVerify, 3, time.Hour},
		{"API key creation: 10 per day per user", ratelimit.KeyCreate, 10, 24 * time.Hour},
		{"Job and pipeline creation: 30 per 10 minutes", ratelimit.JobCreate, 30, 10 * time.Minute},
		{"Job and pipeline creation: 300 per 24 hours", ratelimit.JobCreateDay, 300, 24 * time.Hour},
		{"Validation and estimation: 120 calls per 10 minutes", ratelimit.Validate, 120, 10 * time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rule.Max != tt.max || tt.rule.Window != tt.window {
				t.Fatalf("%s: %d per %s, want %d per %s", tt.rule.Name, tt.rule.Max, tt.rule.Window, tt.max, tt.window)
			}
		})
	}
}

// TestRuleNamesDistinct: each rule counts apart, so their names (part of
// the counter key) differ.
func TestRuleNamesDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range []ratelimit.Rule{ratelimit.Signup, ratelimit.LoginIP, ratelimit.LoginEmail, ratelimit.ResetIP,
		ratelimit.ResetEmail, ratelimit.PasswordChange, ratelimit.ResendVerify, ratelimit.KeyCreate,
		ratelimit.JobCreate, ratelimit.JobCreateDay, ratelimit.Validate} {
		if r.Name == "" || seen[r.Name] {
			t.Fatalf("rule name %q empty or shared", r.Name)
		}
		seen[r.Name] = true
	}
}

// TestWindow: Max attempts pass in a fixed window, the next is a 429 whose
// Retry-After is the seconds left in the window; refused attempts count,
// so hammering never reopens it early; the next window opens afresh.
func TestWindow(t *testing.T) {
	rule := ratelimit.Rule{Name: "test.hour", Max: 3, Window: time.Hour}
	tests := []struct {
		name string
		at   time.Time
		// want is the Retry-After expected, -1 for allowed.
		want int
	}{
		{"first attempt", at(10, 15, 0), -1},
		{"second", at(10, 20, 0), -1},
		{"third, the last allowed", at(10, 59, 0), -1},
		{"fourth: refused until 11:00", at(10, 59, 0), 60},
		{"hammering: still refused", at(10, 59, 30), 30},
		{"last second of the window", at(10, 59, 59), 1},
		{"the next window opens at the hour", at(11, 0, 0), -1},
		{"second of the new window", at(11, 30, 0), -1},
		{"third of the new window", at(11, 45, 0), -1},
		{"fourth of the new window: refused until noon", at(11, 45, 0), 900},
	}
	c := clocktest.New(time.Time{})
	l := ratelimit.New(newDB(t, c), c.Now)
	for _, tt := range tests {
		c.Set(tt.at)
		if got := retryAfter(t, l.Allow(context.Background(), rule, "1.2.3.4")); got != tt.want {
			t.Fatalf("%s: Retry-After %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestWindowsAlignedToTheClock: a window is a fixed slice of time, not a
// sliding one: attempts at the end of one window do not weigh on the next.
func TestWindowsAlignedToTheClock(t *testing.T) {
	for _, tt := range []struct {
		name          string
		window        time.Duration
		first, second time.Time
		secondAllowed bool
	}{
		{"15 minutes: 10:14:59 then 10:15:00", 15 * time.Minute, at(10, 14, 59), at(10, 15, 0), true},
		{"15 minutes: 10:00:00 then 10:14:59", 15 * time.Minute, at(10, 0, 0), at(10, 14, 59), false},
		{"a day: 23:59:59 then midnight UTC", 24 * time.Hour, at(23, 59, 59), at(24, 0, 0), true},
		{"a day: midnight then 23:59:59", 24 * time.Hour, at(0, 0, 0), at(23, 59, 59), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := clocktest.New(time.Time{})
			l := ratelimit.New(newDB(t, c), c.Now)
			rule := ratelimit.Rule{Name: "test.aligned", Max: 1, Window: tt.window}
			c.Set(tt.first)
			if err := l.Allow(context.Background(), rule, "s"); err != nil {
				t.Fatal(err)
			}
			c.Set(tt.second)
			err := l.Allow(context.Background(), rule, "s")
			if allowed := retryAfter(t, err) < 0; allowed != tt.secondAllowed {
				t.Fatalf("second attempt allowed %v, want %v", allowed, tt.secondAllowed)
			}
		})
	}
}

// TestCountersApart: each subject and each rule has its own counter.
func TestCountersApart(t *testing.T) {
	ctx := context.Background()
	c := clocktest.New(at(9, 0, 0))
	l := ratelimit.New(newDB(t, c), c.Now)
	a := ratelimit.Rule{Name: "test.a", Max: 1, Window: time.Hour}
	b := ratelimit.Rule{Name: "test.b", Max: 1, Window: time.Hour}
	if err := l.Allow(ctx, a, "USER#1"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		rule    ratelimit.Rule
		subject string
		allowed bool
	}{
		{"same rule, same subject", a, "USER#1", false},
		{"same rule, another subject", a, "USER#2", true},
		{"another rule, same subject", b, "USER#1", true},
		{"a subject that extends the first", a, "USER#10", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := l.Allow(ctx, tt.rule, tt.subject)
			if allowed := retryAfter(t, err) < 0; allowed != tt.allowed {
				t.Fatalf("allowed %v, want %v", allowed, tt.allowed)
			}
		})
	}
}

// TestSharedAcrossLimiters: the counters live in the table, so every
// process (two limiters over one table) counts against the same limit.
func TestSharedAcrossLimiters(t *testing.T) {
	ctx := context.Background()
	c := clocktest.New(at(9, 0, 0))
	db := newDB(t, c)
	one, two := ratelimit.New(db, c.Now), ratelimit.New(db, c.Now)
	rule := ratelimit.Rule{Name: "test.shared", Max: 2, Window: time.Hour}
	if err := one.Allow(ctx, rule, "s"); err != nil {
		t.Fatal(err)
	}
	if err := two.Allow(ctx, rule, "s"); err != nil {
		t.Fatal(err)
	}
	if retryAfter(t, one.Allow(ctx, rule, "s")) < 0 {
		t.Fatal("a third attempt through either limiter passed a limit of 2")
	}
}

// TestConcurrentAttempts: the count is an atomic add, so Max attempts made
// at once pass and no more.
func TestConcurrentAttempts(t *testing.T) {
	ctx := context.Background()
	c := clocktest.New(at(9, 0, 0))
	l := ratelimit.New(newDB(t, c), c.Now)
	rule := ratelimit.Rule{Name: "test.race", Max: 5, Window: time.Hour}
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for range 20 {
		wg.Go(func() {
			if err := l.Allow(ctx, rule, "s"); err == nil {
				mu.Lock()
				passed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if passed != 5 {
		t.Fatalf("%d of 20 concurrent attempts passed, want 5", passed)
	}
}

// TestMessage: the 429's French message states the delay in seconds (spec:
// Limits).
func TestMessage(t *testing.T) {
	c := clocktest.New(at(10, 59, 18))
	l := ratelimit.New(newDB(t, c), c.Now)
	rule := ratelimit.Rule{Name: "test.msg", Max: 1, Window: time.Hour}
	_ = l.Allow(context.Background(), rule, "s")
	err := l.Allow(context.Background(), rule, "s")
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("err %v", err)
	}
	if ae.FR != "Trop de tentatives. Réessaie dans 42 secondes." || ae.RetryAfter != 42 {
		t.Fatalf("FR %q, Retry-After %d", ae.FR, ae.RetryAfter)
	}
}
