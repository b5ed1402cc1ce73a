package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/upstream"
)

var (
	errBusy = errors.New("busy")  // a temporary failure
	errBad  = errors.New("bad")   // a permanent one
	errDown = errors.New("class") // a client's class of give-ups
)

// recorder is a Sleep that only remembers its waits, and a clock that
// stays still.
type recorder struct {
	waits []time.Duration
	fail  error // returned by every sleep, when set
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	if r.fail != nil {
		return r.fail
	}
	return ctx.Err()
}

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func TestRetryDo(t *testing.T) {
	const ms = time.Millisecond
	base := upstream.Retry{MaxAttempts: 4, BackoffBase: 100 * ms, BackoffMax: time.Second}
	busy := upstream.Outcome{Err: errBusy, Temporary: true}
	asked := func(d time.Duration) upstream.Outcome {
		return upstream.Outcome{Err: errBusy, Temporary: true, Wait: d}
	}
	for _, tt := range []struct {
		name     string
		policy   func(upstream.Retry) upstream.Retry
		outcomes []upstream.Outcome // the attempts' in turn, the last one again
		deadline time.Duration      // from t0, 0: none
		sleepErr error              // every Sleep's error
		attempts int
		waits    []time.Duration
		stop     upstream.StopReason // 0: not a StopError
		want     error               // errors.Is of Do's error; nil: success
	}{
		{name: "success at once", outcomes: []upstream.Outcome{{}}, attempts: 1},
		{name: "retries on temporary until success",
			outcomes: []upstream.Outcome{busy, busy, {}},
			attempts: 3, waits: []time.Duration{100 * ms, 200 * ms}},
		{name: "stops on permanent, its error as it is",
			outcomes: []upstream.Outcome{busy, {Err: errBad}},
			attempts: 2, waits: []time.Duration{100 * ms}, want: errBad},
		{name: "exhausted after MaxAttempts",
			outcomes: []upstream.Outcome{busy},
			attempts: 4, waits: []time.Duration{100 * ms, 200 * ms, 400 * ms}, stop: upstream.Exhausted, want: errBusy},
		{name: "backoff capped at BackoffMax",
			policy:   func(r upstream.Retry) upstream.Retry { r.MaxAttempts = 7; return r },
			outcomes: []upstream.Outcome{busy},
			attempts: 7, waits: []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second},
			stop: upstream.Exhausted, want: errBusy},
		{name: "MaxAttempts below 1 tries once",
			policy:   func(r upstream.Retry) upstream.Retry { r.MaxAttempts = 0; return r },
			outcomes: []upstream.Outcome{busy},
			attempts: 1, stop: upstream.Exhausted, want: errBusy},
		{name: "an asked wait replaces the backoff",
			outcomes: []upstream.Outcome{asked(700 * ms), {}},
			attempts: 2, waits: []time.Duration{700 * ms}},
		{name: "an asked wait over BackoffMax gives up at once",
			outcomes: []upstream.Outcome{asked(2 * time.Second)},
			attempts: 1, stop: upstream.WaitTooLong, want: errBusy},
		{name: "AskedAtLeast lengthens the backoff to the asked wait",
			policy:   func(r upstream.Retry) upstream.Retry { r.AskedAtLeast = true; return r },
			outcomes: []upstream.Outcome{asked(700 * ms), asked(10 * ms), {}},
			attempts: 3, waits: []time.Duration{700 * ms, 200 * ms}},
		{name: "AskedAtLeast cuts a long asked wait to BackoffMax",
			policy:   func(r upstream.Retry) upstream.Retry { r.AskedAtLeast = true; return r },
			outcomes: []upstream.Outcome{asked(time.Hour), {}},
			attempts: 2, waits: []time.Duration{time.Second}},
		{name: "a wait past the deadline gives up at once",
			outcomes: []upstream.Outcome{busy, busy},
			deadline: 150 * ms,
			attempts: 2, waits: []time.Duration{100 * ms}, stop: upstream.PastDeadline, want: errBusy},
		{name: "WaitPastDeadline waits anyway",
			policy:   func(r upstream.Retry) upstream.Retry { r.WaitPastDeadline = true; return r },
			outcomes: []upstream.Outcome{busy, {}},
			deadline: 50 * ms,
			attempts: 2, waits: []time.Duration{100 * ms}},
		{name: "a failed sleep interrupts the retries",
			outcomes: []upstream.Outcome{busy}, sleepErr: errDown,
			attempts: 1, waits: []time.Duration{100 * ms}, stop: upstream.Interrupted, want: errDown},
		{name: "Backoff replaces the schedule",
			policy: func(r upstream.Retry) upstream.Retry {
				r.Backoff = func(n int) time.Duration { return time.Duration(n) * time.Minute }
				r.BackoffMax = time.Hour
				return r
			},
			outcomes: []upstream.Outcome{busy, busy, {}},
			attempts: 3, waits: []time.Duration{time.Minute, 2 * time.Minute}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			if tt.policy != nil {
				r = tt.policy(r)
			}
			rec := &recorder{fail: tt.sleepErr}
			r.Sleep, r.Now = rec.sleep, func() time.Time { return t0 }
			var ctx context.Context = context.Background()
			if tt.deadline > 0 {
				ctx = atDeadline{ctx, t0.Add(tt.deadline)}
			}
			var seen []int
			n, err := r.Do(ctx, func(_ context.Context, n int) upstream.Outcome {
				seen = append(seen, n)
				return tt.outcomes[min(n, len(tt.outcomes))-1]
			})
			if n != tt.attempts || len(seen) != tt.attempts {
				t.Errorf("%d attempts (%v), want %d", n, seen, tt.attempts)
			}
			if !reflect.DeepEqual(rec.waits, tt.waits) {
				t.Errorf("waits %v, want %v", rec.waits, tt.waits)
			}
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Do = %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("Do = %v, want %v", err, tt.want)
			}
			var stop *upstream.StopError
			if got := errors.As(err, &stop); got != (tt.stop != 0) || got && (stop.Reason != tt.stop || stop.Attempts != n) {
				t.Errorf("Do = %#v, want a stop %d after %d attempts", err, tt.stop, n)
			}
		})
	}
}

// atDeadline carries a deadline on the test's still clock (t0) without
// ever ending: the policy alone reads it.
type atDeadline struct {
	context.Context
	at time.Time
}

func (c atDeadline) Deadline() (time.Time, bool) { return c.at, true }

func TestRetryStopsWhenContextEnds(t *testing.T) {
	busy := upstream.Outcome{Err: errBusy, Temporary: true}
	r := upstream.Retry{MaxAttempts: 5, BackoffBase: time.Hour, BackoffMax: time.Hour}
	for _, tt := range []struct {
		name     string
		cancelIn string // "attempt" or "wait"
		outcome  upstream.Outcome
		reason   upstream.StopReason
		waits    int
	}{
		{"ended during a temporary attempt", "attempt", busy, upstream.Ended, 0},
		{"ended during a permanent attempt: the context first", "attempt", upstream.Outcome{Err: errBad}, upstream.Ended, 0},
		{"ended during the wait", "wait", busy, upstream.Interrupted, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := &recorder{}
			p := r
			p.Sleep = func(ctx context.Context, d time.Duration) error {
				if tt.cancelIn == "wait" {
					cancel()
				}
				return rec.sleep(ctx, d)
			}
			n, err := p.Do(ctx, func(context.Context, int) upstream.Outcome {
				if tt.cancelIn == "attempt" {
					cancel()
				}
				return tt.outcome
			})
			var stop *upstream.StopError
			if !errors.As(err, &stop) || stop.Reason != tt.reason || n != 1 || len(rec.waits) != tt.waits {
				t.Fatalf("Do = %d, %v (waits %v), want a stop %d after 1 attempt", n, err, rec.waits, tt.reason)
			}
			if !errors.Is(err, context.Canceled) || !errors.Is(stop.Cause, context.Canceled) || stop.Last != tt.outcome.Err {
				t.Errorf("stop %+v does not carry the context's error and the last failure", stop)
			}
		})
	}
	// The real Sleep ends with the context too.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	p := r
	p.WaitPastDeadline = true
	start := time.Now()
	_, err := p.Do(ctx, func(context.Context, int) upstream.Outcome { return busy })
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Minute {
		t.Errorf("Do = %v after %v", err, time.Since(start))
	}
}

func TestRetryDelayJitter(t *testing.T) {
	const d = 400 * time.Millisecond // BackoffBase·2 for retry 2
	for _, tt := range []struct {
		name   string
		jitter upstream.Jitter
		draw   float64
		want   time.Duration
	}{
		{"none", upstream.Jitter{}, 0.7, d},
		{"equal, lowest draw", upstream.EqualJitter(), 0, d / 2},
		{"equal, middle draw", upstream.EqualJitter(), 0.5, 3 * d / 4},
		{"±20%, lowest draw", upstream.Jitter{Below: 0.2, Above: 0.2}, 0, 320 * time.Millisecond},
		{"±20%, middle draw", upstream.Jitter{Below: 0.2, Above: 0.2}, 0.5, d},
	} {
		r := upstream.Retry{BackoffBase: 200 * time.Millisecond, BackoffMax: time.Second, Jitter: tt.jitter,
			Rand: func() float64 { return tt.draw }}
		if got := r.Delay(2); got != tt.want {
			t.Errorf("%s: Delay(2) = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Without a fixed draw, waits stay within the jitter's bounds.
	r := upstream.Retry{BackoffBase: 200 * time.Millisecond, BackoffMax: time.Second, Jitter: upstream.EqualJitter()}
	for range 200 {
		if got := r.Delay(2); got < d/2 || got > d {
			t.Fatalf("Delay(2) = %v, want in [%v, %v]", got, d/2, d)
		}
	}
	// No overflow far down the schedule; a cap below the base is the base.
	if got := r.Delay(100); got < 500*time.Millisecond || got > time.Second {
		t.Errorf("Delay(100) = %v", got)
	}
	if got := (upstream.Retry{BackoffBase: time.Second, BackoffMax: time.Millisecond}).Delay(3); got != time.Second {
		t.Errorf("cap below base: Delay(3) = %v", got)
	}
}

func TestStopErrorWrap(t *testing.T) {
	for _, tt := range []struct {
		stop upstream.StopError
		want string
	}{
		{upstream.StopError{Reason: upstream.Exhausted, Attempts: 3, Last: errBusy}, "class after 3 attempts: busy"},
		{upstream.StopError{Reason: upstream.WaitTooLong, Attempts: 1, Wait: 2 * time.Minute, Last: errBusy}, "class: asked to retry after 2m0s: busy"},
		{upstream.StopError{Reason: upstream.PastDeadline, Attempts: 1, Wait: 5 * time.Second, Last: errBusy},
			"class: the next retry (in 5s) would pass the deadline: busy"},
		{upstream.StopError{Reason: upstream.Ended, Attempts: 1, Last: errBusy, Cause: context.Canceled}, "class: context canceled (last: busy)"},
	} {
		err := tt.stop.Wrap(errDown)
		if err.Error() != tt.want || !errors.Is(err, errDown) || !errors.Is(err, errBusy) {
			t.Errorf("Wrap = %q, want %q wrapping both", err, tt.want)
		}
	}
}

type carrier struct{ after time.Duration }

func (carrier) Error() string               { return "slow down" }
func (c carrier) RetryAfter() time.Duration { return c.after }

func TestRetryAfterOf(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want time.Duration
	}{
		{nil, 0},
		{errBusy, 0},
		{carrier{3 * time.Second}, 3 * time.Second},
		{fmt.Errorf("wrapped: %w", carrier{time.Minute}), time.Minute},
	} {
		if got := upstream.RetryAfterOf(tt.err); got != tt.want {
			t.Errorf("RetryAfterOf(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestOnWait: each wait before a retry is told, with whether the upstream
// asked for it; no wait is told once the attempts run out.
func TestOnWait(t *testing.T) {
	type wait struct {
		d     time.Duration
		asked bool
	}
	var got []wait
	r := upstream.Retry{MaxAttempts: 3, Backoff: func(int) time.Duration { return time.Second }, BackoffMax: time.Minute,
		Sleep:  func(context.Context, time.Duration) error { return nil },
		OnWait: func(d time.Duration, asked bool) { got = append(got, wait{d, asked}) }}
	asks := []time.Duration{0, 5 * time.Second, 0}
	_, err := r.Do(context.Background(), func(_ context.Context, n int) upstream.Outcome {
		return upstream.Outcome{Err: errors.New("busy"), Temporary: true, Wait: asks[n-1]}
	})
	if err == nil {
		t.Fatal("no error after the attempts ran out")
	}
	want := []wait{{time.Second, false}, {5 * time.Second, true}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("waits told %v, want %v", got, want)
	}
}

// TestOr: a configured policy keeps what it sets and takes the rest from
// the defaults.
func TestOr(t *testing.T) {
	d := upstream.Retry{MaxAttempts: 5, BackoffBase: time.Second, BackoffMax: time.Minute}
	for _, tt := range []struct {
		name string
		r    upstream.Retry
		want upstream.Retry
	}{
		{"nothing set", upstream.Retry{}, d},
		{"negative is unset", upstream.Retry{MaxAttempts: -1, BackoffBase: -time.Second}, d},
		{"attempts set", upstream.Retry{MaxAttempts: 1}, upstream.Retry{MaxAttempts: 1, BackoffBase: time.Second, BackoffMax: time.Minute}},
		{"all set", upstream.Retry{MaxAttempts: 2, BackoffBase: time.Millisecond, BackoffMax: time.Second},
			upstream.Retry{MaxAttempts: 2, BackoffBase: time.Millisecond, BackoffMax: time.Second}},
	} {
		got := tt.r.Or(d)
		if got.MaxAttempts != tt.want.MaxAttempts || got.BackoffBase != tt.want.BackoffBase || got.BackoffMax != tt.want.BackoffMax {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
