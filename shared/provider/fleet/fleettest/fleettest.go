// Package fleettest measures the load a fleet of workers puts on a map
// provider, for the tests and benchmarks of the fleet limiter: a provider
// recording the start and end of every call, and the two figures the limits
// bound (the most calls under way at once, the most started in any window).
package fleettest

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/provider"
)

// Call is one recorded provider call.
type Call struct {
	Start, End time.Time
}

// Recorder is a provider answering every call after Latency (or when the
// call's context ends), recording each call. Fail, when set, chooses each
// call's error from its index (0 for the first call). It is safe for
// concurrent use.
type Recorder struct {
	Latency time.Duration
	Fail    func(i int) error

	mu    sync.Mutex
	calls []Call
}

var _ provider.Provider = (*Recorder)(nil)

// Name is "recorder".
func (r *Recorder) Name() string { return "recorder" }

// Limits are the Places API's.
func (r *Recorder) Limits() provider.Limits { return provider.Limits{PageSize: 20, Cap: 60} }

func (r *Recorder) call(ctx context.Context) error {
	start := time.Now()
	r.mu.Lock()
	i := len(r.calls)
	r.calls = append(r.calls, Call{Start: start})
	r.mu.Unlock()
	var err error
	if r.Latency > 0 {
		t := time.NewTimer(r.Latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			err = ctx.Err()
		}
	}
	if err == nil && r.Fail != nil {
		err = r.Fail(i)
	}
	r.mu.Lock()
	r.calls[i].End = time.Now()
	r.mu.Unlock()
	return err
}

// Search answers an empty page.
func (r *Recorder) Search(ctx context.Context, _ provider.Request) (provider.Page, error) {
	return provider.Page{}, r.call(ctx)
}

// Place answers an empty place with the id.
func (r *Recorder) Place(ctx context.Context, id string) (provider.Place, error) {
	return provider.Place{ID: id}, r.call(ctx)
}

// Reviews answers no review.
func (r *Recorder) Reviews(ctx context.Context, _ string, _ int) ([]provider.Review, error) {
	return nil, r.call(ctx)
}

// Calls returns the calls recorded so far, in the order they started.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.calls)
	slices.SortFunc(out, func(a, b Call) int { return a.Start.Compare(b.Start) })
	return out
}

// MaxInFlight is the most calls under way at one instant. A call that
// ends when another starts does not overlap it.
func MaxInFlight(calls []Call) int {
	type edge struct {
		t     time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(calls))
	for _, c := range calls {
		end := c.End
		if end.IsZero() {
			end = time.Now() // still under way
		}
		edges = append(edges, edge{c.Start, 1}, edge{end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		return a.delta - b.delta // ends first
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.delta
		most = max(most, n)
	}
	return most
}

// MaxPerWindow is the most calls started in any window of length w,
// sliding: [t, t+w) for every start t.
func MaxPerWindow(calls []Call, w time.Duration) int {
	starts := make([]time.Time, len(calls))
	for i, c := range calls {
		starts[i] = c.Start
	}
	slices.SortFunc(starts, time.Time.Compare)
	most, j := 0, 0
	for i := range starts {
		for j < len(starts) && starts[j].Before(starts[i].Add(w)) {
			j++
		}
		most = max(most, j-i)
	}
	return most
}
