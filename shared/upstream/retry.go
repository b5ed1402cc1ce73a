package upstream

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry is the one retry policy of the upstream clients: at most
// MaxAttempts attempts of a call, and between two either a capped
// exponential backoff with jitter or the wait the upstream asked for
// (Retry-After). The caller classifies each attempt (Outcome); Do decides
// whether and when to try again. A Retry holds no state: a client keeps
// one and every caller shares it. The zero value tries once.
type Retry struct {
	// MaxAttempts bounds the attempts, the first included; below 1 is 1.
	MaxAttempts int
	// BackoffBase is the backoff before the first retry, doubled at each
	// next one up to BackoffMax (BackoffBase when smaller).
	BackoffBase, BackoffMax time.Duration
	// Jitter spreads each backoff, so that callers failing together do not
	// retry in step; the zero value spreads nothing.
	Jitter Jitter
	// AskedAtLeast says how an asked wait (Outcome.Wait) is honoured. When
	// false it replaces the backoff, and one longer than BackoffMax ends
	// the retries at once (WaitTooLong): a worker had better hand the
	// work back to its queue than hold it that long. When true the
	// backoff is lengthened to it, cut to BackoffMax: a client that
	// throttles every caller for the upstream's sake and does not give up
	// on a long Retry-After.
	AskedAtLeast bool
	// WaitPastDeadline, when false, ends the retries at once when the
	// next wait would pass ctx's deadline (PastDeadline), so that the
	// caller keeps the time it has left; when true the wait starts anyway
	// and ctx ends it (Interrupted).
	WaitPastDeadline bool
	// Backoff, when set, is the backoff before retry n (1 for the first)
	// instead of the doubling and the jitter: a caller with a schedule of
	// its own, or a test.
	Backoff func(n int) time.Duration
	// Rand draws uniformly in [0, 1) for the jitter: math/rand/v2's
	// Float64 when nil; tests pass a fixed draw.
	Rand func() float64
	// Sleep waits d or until ctx ends (then returning its error): this
	// package's Sleep when nil. A client whose backoff holds back all its
	// callers passes a hook that pushes their next start instead.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of ctx's deadline: time.Now when nil.
	Now func() time.Time
	// OnWait, when set, is told of each wait Do is about to make before
	// a retry, and whether the upstream asked for it: a client that
	// paces every caller of the upstream holds them back as long.
	OnWait func(d time.Duration, asked bool)
}

// Or is r with the attempts and backoffs it leaves unset (0 or less)
// taken from d: a client's configured policy over its defaults.
func (r Retry) Or(d Retry) Retry {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = d.MaxAttempts
	}
	if r.BackoffBase <= 0 {
		r.BackoffBase = d.BackoffBase
	}
	if r.BackoffMax <= 0 {
		r.BackoffMax = d.BackoffMax
	}
	return r
}

// Jitter spreads a backoff d: the wait is drawn uniformly in
// [d·(1−Below), d·(1+Above)].
type Jitter struct{ Below, Above float64 }

// EqualJitter draws each wait in [d/2, d]: callers that failed together
// do not retry in step, and no wait is null.
func EqualJitter() Jitter { return Jitter{Below: 0.5} }

// Outcome is the caller's reading of one attempt.
type Outcome struct {
	// Err is the attempt's failure; nil is a success.
	Err error
	// Temporary says a later attempt may succeed: Do retries only those.
	Temporary bool
	// Wait is the wait the upstream asked for (Retry-After), 0 for none.
	Wait time.Duration
}

// StopReason is why Do gave up on a failure a retry might have mended.
type StopReason int

// Reasons of a StopError.
const (
	// Exhausted: the last attempt failed.
	Exhausted StopReason = iota + 1
	// WaitTooLong: the upstream asked for a wait longer than BackoffMax.
	WaitTooLong
	// PastDeadline: the next wait would end after ctx's deadline.
	PastDeadline
	// Ended: ctx ended with the attempt; Cause is ctx's error.
	Ended
	// Interrupted: the wait before the next attempt failed; Cause is
	// Sleep's error (mostly ctx's).
	Interrupted
)

// StopError is Do's error when it stopped on a failure that was not
// final by itself: the attempts ran out, the wait was too long or ctx
// ended. Each client words it behind its own error class (Wrap, or a
// switch on Reason).
type StopError struct {
	Reason   StopReason
	Attempts int           // attempts made
	Wait     time.Duration // the wait refused (WaitTooLong, PastDeadline) or cut short (Interrupted)
	Last     error         // the last attempt's failure
	Cause    error         // ctx's or Sleep's error (Ended, Interrupted)
}

func (e *StopError) Error() string {
	switch e.Reason {
	case Exhausted:
		return fmt.Sprintf("after %d attempts: %v", e.Attempts, e.Last)
	case WaitTooLong:
		return fmt.Sprintf("asked to retry after %v: %v", e.Wait, e.Last)
	case PastDeadline:
		return fmt.Sprintf("the next retry (in %v) would pass the deadline: %v", e.Wait, e.Last)
	case Interrupted:
		return fmt.Sprintf("waiting to retry: %v (last: %v)", e.Cause, e.Last)
	}
	return fmt.Sprintf("%v (last: %v)", e.Cause, e.Last)
}

// Unwrap is the cause (ctx's error, when it ended) and the last failure.
func (e *StopError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Cause, e.Last} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Wrap words a give-up behind class, the client's error for "unavailable
// for now", which it wraps with the last failure: "<class> after 3
// attempts: <last>", "<class>: asked to retry after 2m0s: <last>",
// "<class>: the next retry (in 5s) would pass the deadline: <last>". An
// ended context has no such wording: the client says it its way.
func (e *StopError) Wrap(class error) error {
	switch e.Reason {
	case Exhausted:
		return fmt.Errorf("%w after %d attempts: %w", class, e.Attempts, e.Last)
	case WaitTooLong:
		return fmt.Errorf("%w: asked to retry after %v: %w", class, e.Wait, e.Last)
	case PastDeadline:
		return fmt.Errorf("%w: the next retry (in %v) would pass the deadline: %w", class, e.Wait, e.Last)
	}
	return fmt.Errorf("%w: %w", class, e)
}

// Do runs attempt (n is 1 for the first) until it succeeds, fails for
// good or the policy gives up, and returns how many attempts ran. Its
// error is nil, the Err of an attempt that was not Temporary as it is,
// or a *StopError: the attempts ran out, the asked wait was too long, the
// next wait would pass ctx's deadline, or ctx ended (checked first after
// each failed attempt, whatever the failure). Work around each attempt
// (a worker slot, pacing, a gate) belongs in attempt itself.
func (r Retry) Do(ctx context.Context, attempt func(ctx context.Context, n int) Outcome) (int, error) {
	for n := 1; ; n++ {
		o := attempt(ctx, n)
		if o.Err == nil {
			return n, nil
		}
		if err := ctx.Err(); err != nil {
			return n, &StopError{Reason: Ended, Attempts: n, Last: o.Err, Cause: err}
		}
		if !o.Temporary {
			return n, o.Err
		}
		if n >= r.MaxAttempts {
			return n, &StopError{Reason: Exhausted, Attempts: n, Last: o.Err}
		}
		wait := r.Delay(n)
		if o.Wait > 0 {
			switch limit := r.limit(); {
			case r.AskedAtLeast:
				wait = max(wait, min(o.Wait, limit))
			case o.Wait > limit:
				return n, &StopError{Reason: WaitTooLong, Attempts: n, Wait: o.Wait, Last: o.Err}
			default:
				wait = o.Wait
			}
		}
		if dl, ok := ctx.Deadline(); ok && !r.WaitPastDeadline && r.now().Add(wait).After(dl) {
			return n, &StopError{Reason: PastDeadline, Attempts: n, Wait: wait, Last: o.Err}
		}
		if r.OnWait != nil {
			r.OnWait(wait, o.Wait > 0)
		}
		sleep := r.Sleep
		if sleep == nil {
			sleep = Sleep
		}
		if err := sleep(ctx, wait); err != nil {
			return n, &StopError{Reason: Interrupted, Attempts: n, Wait: wait, Last: o.Err, Cause: err}
		}
	}
}

// Delay is the backoff before retry n (1 for the first): BackoffBase
// doubled n−1 times, at most BackoffMax, spread by Jitter (or Backoff's
// when set).
func (r Retry) Delay(n int) time.Duration {
	if r.Backoff != nil {
		return r.Backoff(n)
	}
	d := r.limit()
	// Past 30 doublings any base is over any sensible cap (and the shift
	// would overflow).
	if n >= 1 && n <= 30 {
		if e := r.BackoffBase << (n - 1); e > 0 && e < d {
			d = e
		}
	}
	if r.Jitter == (Jitter{}) {
		return d
	}
	u := r.Rand
	if u == nil {
		u = rand.Float64
	}
	return time.Duration(float64(d) * (1 - r.Jitter.Below + (r.Jitter.Below+r.Jitter.Above)*u()))
}

// limit is the longest backoff, and the longest asked wait honoured.
func (r Retry) limit() time.Duration { return max(r.BackoffMax, r.BackoffBase) }

func (r Retry) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// RetryAfterCarrier is an error that carries the wait its upstream asked
// for (Retry-After): the map provider's *google.APIError, for one.
type RetryAfterCarrier interface {
	RetryAfter() time.Duration
}

// RetryAfterOf is the wait err carries (RetryAfterCarrier), 0 for none.
func RetryAfterOf(err error) time.Duration {
	var c RetryAfterCarrier
	if errors.As(err, &c) {
		return c.RetryAfter()
	}
	return 0
}
