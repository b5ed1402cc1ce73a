package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider"
)

// Defaults of Options.
const (
	DefaultTransientRate = 0.01
	DefaultCap           = 60
	DefaultPageSize      = 20
	// DefaultCachePlaces bounds the generated places kept in memory (about
	// 40 bytes each: 20 MB).
	DefaultCachePlaces = 1 << 19
)

// Errors of the simulated provider besides provider.ErrTransient,
// provider.ErrNotFound and provider.ErrClosed. Neither is worth retrying.
var (
	// ErrBadRequest: an empty query or an invalid rectangle.
	ErrBadRequest = errors.New("sim: bad request")
	// ErrPageToken: a page token this search did not issue.
	ErrPageToken = errors.New("sim: invalid page token")
)

// Options configure a World. The zero value is a valid configuration.
type Options struct {
	// Seed selects the world: the same seed (and gazetteer) gives the same
	// world in every process.
	Seed uint64
	// Latency is slept before each Search, Place and Reviews call (the
	// app sets it from SVC_SIM_LATENCY_MS); 0 means none.
	Latency time.Duration
	// TransientRate is the share of Search, Place and Reviews calls that
	// fail with an error wrapping provider.ErrTransient: 0 means
	// DefaultTransientRate, a negative value means no failures.
	TransientRate float64
	// Day returns the world's current day (days since Epoch); the app
	// reads it from a table so that every process sees the same world. A
	// nil Day means day 0; negative days are day 0.
	Day func(ctx context.Context) (int, error)
	// Cap is the most places one search returns over all its pages
	// (default 60); PageSize the most one page returns (default 20).
	Cap, PageSize int
	// Epoch is the calendar date of day 0, for review times; zero means
	// 1 January 2026, UTC.
	Epoch time.Time
	// CachePlaces bounds the generated places kept in memory; 0 means
	// DefaultCachePlaces.
	CachePlaces int
}

// World is the simulated map provider. It implements provider.Provider and
// is safe for concurrent use.
type World struct {
	g     *gazetteer.Gazetteer
	opt   Options
	seed  key
	cats  categoryIndex
	byKey map[string]*category

	settleOnce sync.Once
	settle     *settlementIndex

	// convs caches the conventions of communes (conventions.go), by
	// gazetteer ID.
	convs sync.Map

	cache *lru
	// calls numbers the calls, so that the transient failure draw differs
	// between a call and its retry.
	calls atomic.Uint64
}

var _ provider.Provider = (*World)(nil)

// New returns the world of g under opt. It does no work: the settlements
// are indexed on the first search, and places generated as searches reach
// them.
func New(g *gazetteer.Gazetteer, opt Options) *World {
	if opt.TransientRate == 0 {
		opt.TransientRate = DefaultTransientRate
	}
	if opt.Cap <= 0 {
		opt.Cap = DefaultCap
	}
	if opt.PageSize <= 0 {
		opt.PageSize = DefaultPageSize
	}
	if opt.Epoch.IsZero() {
		opt.Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
	}
	if opt.CachePlaces <= 0 {
		opt.CachePlaces = DefaultCachePlaces
	}
	// The world's own copy of the category table, completed with the
	// trades of the other languages: the package's table is never written.
	cs := slices.Clone(categories)
	words := withTrades(cs)
	w := &World{g: g, opt: opt, seed: key(opt.Seed).str("sim world"), cats: newCategoryIndex(cs, words),
		byKey: map[string]*category{}, cache: newLRU(opt.CachePlaces)}
	for i := range cs {
		w.byKey[cs[i].key] = &cs[i]
	}
	return w
}

// Name is "sim": jobs record it, so simulated data is never taken for
// real.
func (w *World) Name() string { return "sim" }

// Limits are the page size and per-search cap.
func (w *World) Limits() provider.Limits {
	return provider.Limits{PageSize: w.opt.PageSize, Cap: w.opt.Cap}
}

// Date is the calendar date (midnight UTC) of a day of the world.
func (w *World) Date(day int) time.Time { return w.opt.Epoch.AddDate(0, 0, day) }

func (w *World) settlements() *settlementIndex {
	w.settleOnce.Do(func() { w.settle = newSettlementIndex(w.g) })
	return w.settle
}

// day is the world's current day.
func (w *World) day(ctx context.Context) (int, error) {
	if w.opt.Day == nil {
		return 0, nil
	}
	d, err := w.opt.Day(ctx)
	if err != nil {
		return 0, fmt.Errorf("sim: reading the world's day: %w", err)
	}
	return max(d, 0), nil
}

// call is what every provider call goes through first: the latency, then
// the transient failure draw.
func (w *World) call(ctx context.Context, what string) error {
	if w.opt.Latency > 0 {
		t := time.NewTimer(w.opt.Latency)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return fmt.Errorf("sim: %s: %w", what, ctx.Err())
		case <-t.C:
		}
	} else if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: %s: %w", what, err)
	}
	// The draw is keyed by the call's number: a sequence of calls fails
	// at the same places in every run, and a retry draws again.
	n := w.calls.Add(1)
	if w.seed.str("transient").int(int64(n)).float() < w.opt.TransientRate {
		return fmt.Errorf("sim: %s: simulated server error (call %d): %w", what, n, provider.ErrTransient)
	}
	return nil
}
