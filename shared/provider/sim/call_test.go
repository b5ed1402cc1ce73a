package sim_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

// TestLatencyHonoursContext: a call waiting out its latency returns as
// soon as its context ends, with the context's error.
func TestLatencyHonoursContext(t *testing.T) {
	w := newWorld(t, sim.Options{Latency: time.Hour})
	r := provider.Request{Query: "bar", Bound: simtest.CentralLyon}
	tests := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Millisecond)
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			if _, err := w.Search(ctx, r); !errors.Is(err, tt.want) {
				t.Errorf("Search = %v, want %v", err, tt.want)
			}
			if _, err := w.Reviews(ctx, "sim:whatever", 5); !errors.Is(err, provider.ErrNotFound) {
				t.Errorf("Reviews of an unknown id = %v, want ErrNotFound before any wait", err)
			}
		})
	}
	// Cancelling during the wait ends it too.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := w.Search(ctx, r)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Search cancelled while waiting = %v, want context.Canceled", err)
	}
}

// TestLatencyWaits: a short latency is waited out (no timing assertion:
// the call just succeeds).
func TestLatencyWaits(t *testing.T) {
	w := newWorld(t, sim.Options{Latency: time.Millisecond})
	if _, err := w.Search(context.Background(), provider.Request{Query: "bar", Bound: simtest.CentralLyon}); err != nil {
		t.Fatal(err)
	}
}

// TestTransientRate: about the set share of calls fails with a transient
// error; a retry may succeed; a negative rate means none.
func TestTransientRate(t *testing.T) {
	tests := []struct {
		name     string
		rate     float64
		low, top int // failures of 4,000 calls
	}{
		{"default 1%", 0, 20, 70},
		{"10%", 0.1, 320, 480},
		{"none", -1, 0, 0},
	}
	r := provider.Request{Query: "pharmacie", Bound: simtest.RuralLozere}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := sim.New(gaz(t), sim.Options{TransientRate: tt.rate})
			failed := 0
			for range 4000 {
				_, err := w.Search(context.Background(), r)
				switch {
				case err == nil:
				case isTransient(err):
					failed++
				default:
					t.Fatalf("Search = %v, want nil or a transient error", err)
				}
			}
			if failed < tt.low || failed > tt.top {
				t.Errorf("%d of 4,000 calls failed, want %d to %d", failed, tt.low, tt.top)
			}
		})
	}
}

// TestReviews: a place's latest reviews, newest first, before the day,
// as many as asked up to its review count; the same every time.
func TestReviews(t *testing.T) {
	const day = 40
	w := newWorld(t, sim.Options{Day: fixedDay(day)})
	ctx := context.Background()
	ps := truth(t, w, "restaurant", simtest.CentralLyon)
	dayStart := w.Date(day)
	tests := []struct {
		name  string
		place provider.Place
		max   int
	}{
		{"most reviewed, 5", ps[0], 5},
		{"most reviewed, 50", ps[0], 50},
		{"least reviewed, 10", ps[len(ps)-1], 10},
		{"middle, 0", ps[len(ps)/2], 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := w.Reviews(ctx, tt.place.ID, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if want := min(tt.max, tt.place.ReviewCount); len(rs) != want {
				t.Fatalf("%d reviews, want %d (place has %d)", len(rs), want, tt.place.ReviewCount)
			}
			var prev time.Time
			for i, r := range rs {
				at, err := time.Parse(time.RFC3339, r.Time)
				if err != nil {
					t.Fatalf("review %d: time %q: %v", i, r.Time, err)
				}
				if !at.Before(dayStart.Add(time.Second)) {
					t.Errorf("review %d at %s, after the world's day %s", i, at, dayStart)
				}
				if i > 0 && at.After(prev) {
					t.Errorf("review %d at %s is newer than review %d at %s", i, at, i-1, prev)
				}
				prev = at
				if r.Rating < 1 || r.Rating > 5 || r.Author == "" {
					t.Errorf("review %d: %+v", i, r)
				}
			}
			again, _ := w.Reviews(ctx, tt.place.ID, tt.max)
			if !reflect.DeepEqual(again, rs) {
				t.Error("reviews differ between calls")
			}
		})
	}
	texts := 0
	rs, _ := w.Reviews(ctx, ps[0].ID, 100)
	for _, r := range rs {
		if r.Text != "" {
			texts++
		}
	}
	if texts == 0 {
		t.Error("no review has a text")
	}
	t.Logf("%s (%d reviews): %+v", ps[0].Name, ps[0].ReviewCount, rs[0])
}

func TestReviewsUnknownPlace(t *testing.T) {
	w := newWorld(t, sim.Options{})
	id := truth(t, w, "restaurant", simtest.CentralLyon)[0].ID
	tests := []struct{ name, id string }{
		{"empty", ""},
		{"another provider's", "ChIJN1t_tDeuEmsRUsoyG83frY4"},
		{"malformed", "sim:nothing"},
		{"bad check", id[:len(id)-1] + flip(id[len(id)-1])},
		{"altered index", strings.Replace(id, "-0-", "-0-9999", 1)},
		{"unknown settlement", strings.Replace(id, "fra-", "xyz-", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := w.Reviews(context.Background(), tt.id, 5); !errors.Is(err, provider.ErrNotFound) {
				t.Errorf("Reviews(%q) = %v, want ErrNotFound", tt.id, err)
			}
		})
	}
	other := newWorld(t, sim.Options{Seed: 1})
	if _, err := other.Reviews(context.Background(), id, 5); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("another world's id: %v, want ErrNotFound", err)
	}
}

// TestReviewsNotYetOpen: a place that opens later is not found before.
func TestReviewsNotYetOpen(t *testing.T) {
	g := gaz(t)
	later := sim.New(g, sim.Options{TransientRate: -1, Day: fixedDay(300)})
	before := ids(truth(t, sim.New(g, sim.Options{TransientRate: -1}), "restaurant", simtest.CentralParis))
	for _, p := range truth(t, later, "restaurant", simtest.CentralParis) {
		if _, ok := before[p.ID]; ok {
			continue
		}
		if _, err := later.Reviews(context.Background(), p.ID, 1); err != nil {
			t.Fatalf("on day 300: %v", err)
		}
		early := sim.New(g, sim.Options{TransientRate: -1})
		if _, err := early.Reviews(context.Background(), p.ID, 1); !errors.Is(err, provider.ErrNotFound) {
			t.Errorf("on day 0, a place opened later: %v, want ErrNotFound", err)
		}
		return
	}
	t.Fatal("no place opened in 300 days")
}

func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}
