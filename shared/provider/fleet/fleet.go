// Package fleet bounds the load that every process of the service puts on
// the map provider together: at most MaxInFlight requests under way and at
// most MaxPerSecond started in any one second, counted in the table port
// (DynamoDB on AWS, bbolt locally) so that every worker invocation, however
// many Lambda runs at once, draws on the same budget. A provider answer
// asking to slow down (provider.ErrRateLimited) pauses and slows the whole
// fleet, not only the request that met it.
//
// The items, in the counters table of ratelimit (one partition per scope,
// read by one Query before each request):
//
//	pk fleet#<scope>  sk inflight#<i>  until (ms), owner, ttl   a lease on one of MaxInFlight slots
//	pk fleet#<scope>  sk rate#<j>      at (ms), ttl             the last start drawn on one of MaxPerSecond slots
//	pk fleet#<scope>  sk state         pause_until, level, cut_at (ms)
//
// An in-flight slot is a lease: taken by a conditional write that holds
// only when the slot is free or its lease has expired, given back by a
// conditional delete naming its owner. A process killed mid-request leaks
// its slot for one lease at most, and the request's context ends before
// its lease does, so that a live holder never overlaps the next one.
//
// A rate slot holds the time of the last request started on it; it may be
// drawn again one window (1 s) plus twice Margin later. A request must
// leave within Margin of its stamp (else it draws another slot), and may
// take up to Margin more on its way to the provider, so two requests of
// one slot reach the provider at least a window apart and MaxPerSecond
// slots let at most MaxPerSecond arrive in any window, sliding, whatever
// the latency of the store. The price: a sustained rate of MaxPerSecond
// over 1 + 2·Margin seconds (91 % of it by default). docs/provider-load.md
// tells the design and its cost.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/upstream"
)

// Table is the table of the limiter's items: the counters table, whose
// schema (pk, sk, ttl) it shares with ratelimit.
const Table = ratelimit.Table

// MaxLimit bounds MaxInFlight and MaxPerSecond: the slots of a scope are
// read by one Query before each request, and a page of it stays small.
const MaxLimit = 1000

// Defaults of Config.
const (
	// DefaultLease outlives one provider request: the Google client gives
	// up an attempt after 30 s.
	DefaultLease = time.Minute
	// DefaultMargin is the latency a request may take between its rate
	// stamp and its start (a conditional write to DynamoDB in the same
	// region takes a few milliseconds), and again between its start and
	// its arrival at the provider (the network's jitter, the clock skew
	// between processes).
	DefaultMargin = 50 * time.Millisecond
	// DefaultPause is the shortest fleet-wide pause after a rate-limited
	// answer without Retry-After.
	DefaultPause = 2 * time.Second
	// DefaultCool is how long each halving of the rate lasts: the Places
	// quota is counted per minute.
	DefaultCool = time.Minute
	// MaxLevel is the deepest cut: the rate divided by 2^MaxLevel.
	MaxLevel = 4
)

// Waiting for a busy in-flight slot polls the store with jittered
// exponential backoff from pollBase to pollMax; a pause never exceeds
// maxPause whatever Retry-After says.
const (
	pollBase = 25 * time.Millisecond
	pollMax  = 500 * time.Millisecond
	maxPause = 10 * time.Minute
	// window is the span of the per-second budget.
	window = time.Second
	// releaseTimeout bounds the writes of a permit's end, which run after
	// the request's own context may have ended.
	releaseTimeout = 5 * time.Second
)

// Config is a limiter's budget and timings.
type Config struct {
	// Scope names the budget: every limiter of one scope shares it (the
	// provider's name: one key, one quota).
	Scope string
	// MaxInFlight is the most requests under way at once, MaxPerSecond the
	// most started in any window of one second; 0 leaves that dimension
	// unbounded.
	MaxInFlight  int
	MaxPerSecond int
	// Lease, Margin, Pause and Cool are DefaultLease, DefaultMargin,
	// DefaultPause and DefaultCool when 0.
	Lease  time.Duration
	Margin time.Duration
	Pause  time.Duration
	Cool   time.Duration
	// Now and Sleep are time.Now and a timer when nil.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Log   *slog.Logger
}

// Limiter admits provider requests within the scope's budget. One per
// process; several over one store share the budget. It is safe for
// concurrent use.
type Limiter struct {
	tbl  store.Table
	cfg  Config
	pk   string
	weff int64 // ms a rate slot stays drawn: the window plus twice Margin
	// turn lets one goroutine of the process at a time wait on the store:
	// the others wait here without a request of their own, so that the
	// store sees at most one waiter per process.
	turn chan struct{}
}

// New returns a limiter over the counters table of db.
func New(db store.DB, cfg Config) (*Limiter, error) {
	if strings.TrimSpace(cfg.Scope) == "" {
		return nil, errors.New("provider fleet limit: empty scope")
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"MaxInFlight", cfg.MaxInFlight}, {"MaxPerSecond", cfg.MaxPerSecond}} {
		if v.n < 0 || v.n > MaxLimit {
			return nil, fmt.Errorf("provider fleet limit: %s %d is not within 0 to %d", v.name, v.n, MaxLimit)
		}
	}
	if cfg.MaxInFlight == 0 && cfg.MaxPerSecond == 0 {
		return nil, errors.New("provider fleet limit: neither MaxInFlight nor MaxPerSecond is set")
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Margin <= 0 {
		cfg.Margin = DefaultMargin
	}
	if cfg.Pause <= 0 {
		cfg.Pause = DefaultPause
	}
	if cfg.Cool <= 0 {
		cfg.Cool = DefaultCool
	}
	if cfg.Lease <= 4*cfg.Margin {
		return nil, fmt.Errorf("provider fleet limit: lease %v too short for margin %v", cfg.Lease, cfg.Margin)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = upstream.Sleep
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Limiter{
		tbl:  db.Table(Table),
		cfg:  cfg,
		pk:   "fleet#" + cfg.Scope,
		weff: (window + 2*cfg.Margin).Milliseconds(),
		turn: make(chan struct{}, 1),
	}, nil
}

// Permit is one admitted request. Its Context ends before its lease does;
// Done ends it.
type Permit struct {
	l      *Limiter
	slot   int // -1 without an in-flight slot
	owner  string
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
}

// Context is the context the request runs under: the caller's, ending
// Margin before the in-flight lease expires.
func (p *Permit) Context() context.Context { return p.ctx }

// Done ends the request with its outcome: an error wrapping
// provider.ErrRateLimited pauses and slows the fleet (honouring a
// Retry-After the error carries, see upstream.RetryAfterCarrier), then
// the in-flight slot is given back. Calls after the first do nothing.
func (p *Permit) Done(err error) {
	p.once.Do(func() {
		p.cancel()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), releaseTimeout)
		defer cancel()
		if errors.Is(err, provider.ErrRateLimited) {
			p.l.slowDown(ctx, upstream.RetryAfterOf(err))
		}
		p.l.free(ctx, p.slot, p.owner)
	})
}

// Admit is Acquire in the shape of the Google client's gate: the context
// the request runs under and the function ending it.
func (l *Limiter) Admit(ctx context.Context) (context.Context, func(error), error) {
	p, err := l.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	return p.Context(), p.Done, nil
}

// Acquire waits for an in-flight slot and a rate slot, within ctx. Its
// errors: ctx's when it is cancelled; an error wrapping
// provider.ErrTransient when the budget has no room before ctx's deadline
// or the store fails (the request may pass later).
func (l *Limiter) Acquire(ctx context.Context) (*Permit, error) {
	select {
	case l.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, l.ctxErr(ctx)
	}
	defer func() { <-l.turn }()

	slot, owner, until := -1, "", time.Time{}
	giveBack := func() {
		if slot >= 0 {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
			l.free(rctx, slot, owner)
			cancel()
			slot = -1
		}
	}
	for polls := 0; ; {
		v, err := l.read(ctx)
		if err != nil {
			giveBack()
			return nil, l.storeErr(ctx, err)
		}
		now := l.cfg.Now()
		nowMs := now.UnixMilli()
		if v.pauseUntil > nowMs {
			// Paused by a rate-limited answer: wait without holding a
			// slot, each waiter at its own moment after the pause.
			giveBack()
			d := time.Duration(v.pauseUntil-nowMs)*time.Millisecond + jitter(l.cfg.Pause/4)
			if err := l.wait(ctx, d, "the provider asked the fleet to pause"); err != nil {
				return nil, err
			}
			continue
		}
		if slot < 0 && l.cfg.MaxInFlight > 0 {
			var ok bool
			slot, owner, until, ok, err = l.takeSlot(ctx, v, now)
			if err != nil {
				return nil, l.storeErr(ctx, err)
			}
			if !ok {
				if err := l.wait(ctx, backoff(polls), "every in-flight slot is taken"); err != nil {
					return nil, err
				}
				polls++
				continue
			}
		}
		if l.cfg.MaxPerSecond > 0 {
			ok, d, err := l.takeRate(ctx, v, v.level(nowMs, l.cfg.Cool))
			if err != nil {
				giveBack()
				return nil, l.storeErr(ctx, err)
			}
			if !ok {
				if err := l.wait(ctx, d, "the per-second budget is spent"); err != nil {
					giveBack()
					return nil, err
				}
				continue
			}
		}
		p := &Permit{l: l, slot: slot, owner: owner}
		if slot >= 0 {
			p.ctx, p.cancel = context.WithDeadline(ctx, until.Add(-l.cfg.Margin))
		} else {
			p.ctx, p.cancel = context.WithCancel(ctx)
		}
		slot = -1 // the permit holds it now
		return p, nil
	}
}

// view is the scope's partition as one Query read it.
type view struct {
	slots             map[int]int64 // in-flight slot -> lease end (ms)
	rates             map[int]int64 // rate slot -> last stamp (ms)
	pauseUntil, cutAt int64
	lvl               int
}

// level is the cut in force at nowMs: each Cool since the last cut takes
// one halving back.
func (v view) level(nowMs int64, cool time.Duration) int {
	if v.lvl <= 0 {
		return 0
	}
	back := int((nowMs - v.cutAt) / cool.Milliseconds())
	return max(0, v.lvl-max(0, back))
}

func (l *Limiter) read(ctx context.Context) (view, error) {
	v := view{slots: map[int]int64{}, rates: map[int]int64{}}
	q := store.Query{PK: l.pk}
	for {
		page, err := l.tbl.Query(ctx, q)
		if err != nil {
			return v, err
		}
		for _, it := range page.Items {
			sk := it.String("sk")
			switch {
			case sk == "state":
				v.pauseUntil, v.cutAt, v.lvl = it.Int("pause_until"), it.Int("cut_at"), int(it.Int("level"))
			case strings.HasPrefix(sk, "inflight#"):
				if i, err := strconv.Atoi(sk[len("inflight#"):]); err == nil && it.Has("until") {
					v.slots[i] = it.Int("until")
				}
			case strings.HasPrefix(sk, "rate#"):
				if j, err := strconv.Atoi(sk[len("rate#"):]); err == nil {
					v.rates[j] = it.Int("at")
				}
			}
		}
		if page.Next == "" {
			return v, nil
		}
		q.After = page.Next
	}
}

func slotKey(pk string, i int) store.Key {
	return store.Key{PK: pk, SK: fmt.Sprintf("inflight#%04d", i)}
}
func rateKey(pk string, j int) store.Key   { return store.Key{PK: pk, SK: fmt.Sprintf("rate#%04d", j)} }
func stateKey(pk string) store.Key         { return store.Key{PK: pk, SK: "state"} }
func ttlAfter(ms int64) int64              { return ms/1000 + 3600 }
func newOwner() string                     { return strconv.FormatUint(rand.Uint64(), 36) }
func jitter(d time.Duration) time.Duration { return rand.N(d + 1) }

// takeSlot leases one of the free in-flight slots the view shows, in
// random order so that concurrent takers rarely meet on one.
func (l *Limiter) takeSlot(ctx context.Context, v view, now time.Time) (int, string, time.Time, bool, error) {
	nowMs := now.UnixMilli()
	var free []int
	for i := range l.cfg.MaxInFlight {
		if until, held := v.slots[i]; !held || until <= nowMs {
			free = append(free, i)
		}
	}
	rand.Shuffle(len(free), func(a, b int) { free[a], free[b] = free[b], free[a] })
	owner := newOwner()
	for _, i := range free {
		at := l.cfg.Now()
		until := at.Add(l.cfg.Lease)
		_, err := l.tbl.Update(ctx, slotKey(l.pk, i),
			store.Update{}.Set("until", until.UnixMilli()).Set("owner", owner).Set("ttl", ttlAfter(until.UnixMilli())),
			store.Or(store.NotExists("until"), store.Le("until", at.UnixMilli())))
		switch {
		case err == nil:
			return i, owner, until, true, nil
		case !errors.Is(err, store.ErrConditionFailed):
			return -1, "", time.Time{}, false, err
		}
	}
	return -1, "", time.Time{}, false, nil
}

// takeRate draws one of the first capacity rate slots that the view shows
// free: its stamp is rewritten only when it is a window and Margin old.
// When none is, d is the wait until one of the next to free, drawn among
// the first few so that the waiters of several processes spread.
func (l *Limiter) takeRate(ctx context.Context, v view, level int) (ok bool, d time.Duration, err error) {
	capacity := max(1, l.cfg.MaxPerSecond>>level)
	nowMs := l.cfg.Now().UnixMilli()
	var free []int
	var next []int64
	for j := range capacity {
		at, drawn := v.rates[j]
		if !drawn || at <= nowMs-l.weff {
			free = append(free, j)
		} else {
			next = append(next, at+l.weff)
		}
	}
	rand.Shuffle(len(free), func(a, b int) { free[a], free[b] = free[b], free[a] })
	margin := l.cfg.Margin.Milliseconds()
	for _, j := range free {
		stamp := l.cfg.Now().UnixMilli()
		_, err := l.tbl.Update(ctx, rateKey(l.pk, j),
			store.Update{}.Set("at", stamp).Set("ttl", ttlAfter(stamp)),
			store.Or(store.NotExists("at"), store.Le("at", stamp-l.weff)))
		switch {
		case err == nil:
			if l.cfg.Now().UnixMilli()-stamp <= margin {
				return true, 0, nil
			}
			// The write took longer than the margin: a start now could
			// reach the provider less than a window before the slot's
			// next draw does. The slot is spent; draw another.
		case !errors.Is(err, store.ErrConditionFailed):
			return false, 0, err
		}
	}
	if len(next) == 0 {
		// Every free slot was drawn by another process meanwhile.
		return false, pollBase/2 + jitter(pollBase/2), nil
	}
	slices.Sort(next)
	pick := next[rand.N(min(len(next), max(1, l.cfg.MaxInFlight)))]
	return false, time.Duration(max(1, pick-nowMs))*time.Millisecond + jitter(5*time.Millisecond), nil
}

// free gives the in-flight slot back, unless its lease expired and
// another holder took it since.
func (l *Limiter) free(ctx context.Context, slot int, owner string) {
	if slot < 0 {
		return
	}
	err := l.tbl.Delete(ctx, slotKey(l.pk, slot), store.Eq("owner", owner))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		// The lease expires by itself.
		l.cfg.Log.Warn("provider fleet limit: giving an in-flight slot back", "scope", l.cfg.Scope, "slot", slot, "err", err)
	}
}

// slowDown records a rate-limited answer for the fleet: every limiter
// pauses for the Retry-After asked (DefaultPause at least) and then draws
// on half the per-second budget, one more halving per answer up to
// MaxLevel, each taken back after Cool. The answers of requests under way
// when the pause began meet the same quota: only one answer per pause
// cuts (the write's condition: no pause in force, and the cut read is the
// last one).
func (l *Limiter) slowDown(ctx context.Context, asked time.Duration) {
	now := l.cfg.Now()
	nowMs := now.UnixMilli()
	it, err := l.tbl.Get(ctx, stateKey(l.pk))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		l.cfg.Log.Warn("provider fleet limit: reading the pause", "scope", l.cfg.Scope, "err", err)
		return
	}
	v := view{pauseUntil: it.Int("pause_until"), cutAt: it.Int("cut_at"), lvl: int(it.Int("level"))}
	if v.pauseUntil > nowMs {
		return
	}
	level := min(MaxLevel, v.level(nowMs, l.cfg.Cool)+1)
	pause := min(maxPause, max(asked, l.cfg.Pause))
	lastCut := store.NotExists("cut_at")
	if it.Has("cut_at") {
		lastCut = store.Eq("cut_at", v.cutAt)
	}
	_, err = l.tbl.Update(ctx, stateKey(l.pk),
		store.Update{}.Set("pause_until", now.Add(pause).UnixMilli()).Set("level", int64(level)).Set("cut_at", nowMs),
		store.And(store.Or(store.NotExists("pause_until"), store.Le("pause_until", nowMs)), lastCut))
	switch {
	case err == nil:
		l.cfg.Log.Warn("provider rate limited: the fleet pauses and slows down", "scope", l.cfg.Scope,
			"pause", pause, "per_second", max(1, l.cfg.MaxPerSecond>>level), "level", level)
	case !errors.Is(err, store.ErrConditionFailed):
		l.cfg.Log.Warn("provider fleet limit: recording a pause", "scope", l.cfg.Scope, "err", err)
	}
}

// wait sleeps d, unless ctx's deadline comes first: then the request
// cannot pass within it, which is transient.
func (l *Limiter) wait(ctx context.Context, d time.Duration, why string) error {
	if dl, ok := ctx.Deadline(); ok && l.cfg.Now().Add(d).After(dl) {
		return fmt.Errorf("provider fleet limit: %w: %s for longer than the request's deadline (%v)", provider.ErrTransient, why, d.Round(time.Millisecond))
	}
	if err := l.cfg.Sleep(ctx, d); err != nil {
		return l.ctxErr(ctx)
	}
	return nil
}

func (l *Limiter) ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		err = context.Canceled
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("provider fleet limit: %w: %w", provider.ErrTransient, err)
	}
	return fmt.Errorf("provider fleet limit: %w", err)
}

// storeErr is a failure of the store: the request may pass once the store
// answers again.
func (l *Limiter) storeErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return l.ctxErr(ctx)
	}
	return fmt.Errorf("provider fleet limit: %w: %w", provider.ErrTransient, err)
}

// backoff is the wait before poll n+1 of a busy in-flight budget: the
// upstream retry policy's backoff, pollBase·2^n up to pollMax, drawn in
// [d/2, d].
func backoff(n int) time.Duration {
	return upstream.Retry{BackoffBase: pollBase, BackoffMax: pollMax, Jitter: upstream.EqualJitter()}.Delay(n + 1)
}
