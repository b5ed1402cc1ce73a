package fleet_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/fleet"
	"github.com/prospectdata/svc/shared/provider/fleet/fleettest"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// openStore is the local runtime's store: one bbolt file that every
// limiter of a test shares, as every process shares the table on AWS.
func openStore(t testing.TB) store.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "fleet.db"), []store.Schema{ratelimit.Schema()}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newLimiter(t testing.TB, db store.DB, cfg fleet.Config) *fleet.Limiter {
	t.Helper()
	if cfg.Scope == "" {
		cfg.Scope = "test"
	}
	l, err := fleet.New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// run sends requests through processes limiters over db (each with
// goroutines workers, as each worker process runs 8), every request a
// Search of rec through its process's limiter, and returns the errors.
func run(t testing.TB, db store.DB, cfg fleet.Config, processes, goroutines, requests int, rec *fleettest.Recorder) []error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	work := make(chan int, requests)
	for i := range requests {
		work <- i
	}
	close(work)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range processes {
		p := fleet.Wrap(rec, newLimiter(t, db, cfg))
		for range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range work {
					if _, err := p.Search(ctx, provider.Request{Query: "boulangerie"}); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				}
			}()
		}
	}
	wg.Wait()
	return errs
}

// TestLimitsHoldAcrossProcesses: several limiters over one store (several
// processes) with many goroutines each never have more than MaxInFlight
// calls under way nor more than MaxPerSecond started in any second,
// sliding, and reach the binding limit.
func TestLimitsHoldAcrossProcesses(t *testing.T) {
	tests := []struct {
		name                  string
		inFlight, perSecond   int
		processes, goroutines int
		requests              int
		latency               time.Duration
		wantBusy              string // the limit the run must reach
	}{
		{"in flight binds", 3, 0, 4, 8, 40, 40 * time.Millisecond, "in flight"},
		{"rate binds", 0, 15, 4, 8, 40, 5 * time.Millisecond, "rate"},
		{"both, rate binding", 6, 20, 5, 8, 50, 20 * time.Millisecond, "rate"},
		{"both, in flight binding", 4, 100, 5, 8, 40, 60 * time.Millisecond, "in flight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := openStore(t)
			rec := &fleettest.Recorder{Latency: tt.latency}
			errs := run(t, db, fleet.Config{MaxInFlight: tt.inFlight, MaxPerSecond: tt.perSecond}, tt.processes, tt.goroutines, tt.requests, rec)
			if len(errs) > 0 {
				t.Fatalf("%d requests failed, first: %v", len(errs), errs[0])
			}
			calls := rec.Calls()
			if len(calls) != tt.requests {
				t.Fatalf("%d calls for %d requests", len(calls), tt.requests)
			}
			inFlight, perSecond := fleettest.MaxInFlight(calls), fleettest.MaxPerWindow(calls, time.Second)
			t.Logf("max in flight %d, max started in a second %d, over %v", inFlight, perSecond, calls[len(calls)-1].End.Sub(calls[0].Start))
			if tt.inFlight > 0 && inFlight > tt.inFlight {
				t.Errorf("%d calls in flight at once, limit %d", inFlight, tt.inFlight)
			}
			if tt.perSecond > 0 && perSecond > tt.perSecond {
				t.Errorf("%d calls started within one second, limit %d", perSecond, tt.perSecond)
			}
			switch tt.wantBusy {
			case "in flight":
				if inFlight != tt.inFlight {
					t.Errorf("the run never had %d calls in flight (most %d): the limit is not what binds", tt.inFlight, inFlight)
				}
			case "rate":
				if perSecond != tt.perSecond {
					t.Errorf("the run never started %d calls within a second (most %d)", tt.perSecond, perSecond)
				}
			}
		})
	}
}

// TestDoneGivesTheSlotBack: a permit's end frees its slot at once, for any
// process.
func TestDoneGivesTheSlotBack(t *testing.T) {
	db := openStore(t)
	a := newLimiter(t, db, fleet.Config{MaxInFlight: 1})
	b := newLimiter(t, db, fleet.Config{MaxInFlight: 1})
	ctx := context.Background()
	for i := range 5 {
		l := a
		if i%2 == 1 {
			l = b
		}
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		p, err := l.Acquire(ctx)
		cancel()
		if err != nil {
			t.Fatalf("acquire %d: %v", i, err)
		}
		p.Done(nil)
		p.Done(nil) // a second end does nothing
	}
}

// TestExpiredLeaseIsReclaimed: a process killed mid-request (its permit
// never ended) holds its slot until the lease expires, then another
// process takes it; the dead request's context ended before.
func TestExpiredLeaseIsReclaimed(t *testing.T) {
	db := openStore(t)
	const lease = 400 * time.Millisecond
	cfg := fleet.Config{MaxInFlight: 1, Lease: lease, Margin: 20 * time.Millisecond}
	dead := newLimiter(t, db, cfg)
	start := time.Now()
	p, err := dead.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	deadline, ok := p.Context().Deadline()
	if !ok || deadline.After(start.Add(lease)) {
		t.Fatalf("the permit's context ends at %v, after its lease (%v)", deadline.Sub(start), lease)
	}
	// p is never ended: its process died.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	q, err := newLimiter(t, db, cfg).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Done(nil)
	got := time.Since(start)
	if got < lease-20*time.Millisecond {
		t.Errorf("slot taken again after %v, before the lease (%v) expired", got, lease)
	}
	if got > lease+time.Second {
		t.Errorf("slot taken again only after %v", got)
	}
	if p.Context().Err() == nil {
		t.Error("the dead holder's request context is still live")
	}
}

// rateLimited is a provider's 429 with a Retry-After.
type rateLimited struct{ after time.Duration }

func (e rateLimited) Error() string             { return "HTTP 429" }
func (e rateLimited) Unwrap() error             { return provider.ErrRateLimited }
func (e rateLimited) RetryAfter() time.Duration { return e.after }

// failFirst fails the first n calls with err.
func failFirst(n int, err error) func(int) error {
	return func(i int) error {
		if i < n {
			return err
		}
		return nil
	}
}

// TestRateLimitedSlowsTheFleet: a 429 met by one process pauses every
// process for its Retry-After, then halves the rate of all; the 429s of
// the requests under way at the pause cut once; a 429 after the pause
// cuts again.
func TestRateLimitedSlowsTheFleet(t *testing.T) {
	db := openStore(t)
	cfg := fleet.Config{MaxPerSecond: 16, Pause: 100 * time.Millisecond, Cool: time.Hour}
	ctx := context.Background()

	// Three requests of one process meet the quota together.
	burst := &fleettest.Recorder{Fail: failFirst(3, rateLimited{after: 400 * time.Millisecond}), Latency: 20 * time.Millisecond}
	if errs := run(t, db, cfg, 1, 3, 3, burst); len(errs) != 3 || !errors.Is(errs[0], provider.ErrRateLimited) {
		t.Fatalf("errors %v", errs)
	}
	cut := time.Now()

	// Another process: nothing starts during the pause, then at most
	// half the rate (one cut for the three answers, not three).
	rec := &fleettest.Recorder{}
	other := fleet.Wrap(rec, newLimiter(t, db, cfg))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(cut) < 1700*time.Millisecond {
				if _, err := other.Search(ctx, provider.Request{}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	calls := rec.Calls()
	if len(calls) == 0 {
		t.Fatal("no call after the pause")
	}
	if first := calls[0].Start.Sub(cut); first < 350*time.Millisecond {
		t.Errorf("first call %v after the 429, within its Retry-After (400ms)", first)
	}
	if got := fleettest.MaxPerWindow(calls, time.Second); got != 8 {
		t.Errorf("%d calls started within a second after one cut, want half of 16", got)
	}

	// A 429 after the pause cuts again: a quarter of the rate.
	if errs := run(t, db, cfg, 1, 1, 1, &fleettest.Recorder{Fail: failFirst(1, rateLimited{})}); len(errs) != 1 {
		t.Fatalf("errors %v", errs)
	}
	cut = time.Now()
	rec2 := &fleettest.Recorder{}
	if errs := run(t, db, cfg, 2, 4, 8, rec2); len(errs) > 0 {
		t.Fatal(errs)
	}
	calls = rec2.Calls()
	if first := calls[0].Start.Sub(cut); first < 80*time.Millisecond {
		t.Errorf("first call %v after the second 429, within the pause (100ms)", first)
	}
	if got := fleettest.MaxPerWindow(calls, time.Second); got != 4 {
		t.Errorf("%d calls started within a second after two cuts, want a quarter of 16", got)
	}
}

// TestLevelComesBack: each Cool without a 429 takes one halving back.
func TestLevelComesBack(t *testing.T) {
	db := openStore(t)
	cfg := fleet.Config{MaxPerSecond: 8, Pause: 50 * time.Millisecond, Cool: 300 * time.Millisecond}
	if errs := run(t, db, cfg, 1, 1, 1, &fleettest.Recorder{Fail: failFirst(1, rateLimited{})}); len(errs) != 1 {
		t.Fatalf("errors %v", errs)
	}
	time.Sleep(350 * time.Millisecond) // one Cool: the cut is over
	rec := &fleettest.Recorder{}
	if errs := run(t, db, cfg, 1, 8, 8, rec); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := fleettest.MaxPerWindow(rec.Calls(), time.Second); got != 8 {
		t.Errorf("%d calls within a second after the cut's Cool, want the whole 8", got)
	}
}

// TestAcquireHonoursItsContext: a request whose deadline comes before a
// slot frees fails at once as transient (another delivery may pass); a
// cancelled one fails with the cancellation.
func TestAcquireHonoursItsContext(t *testing.T) {
	db := openStore(t)
	l := newLimiter(t, db, fleet.Config{MaxInFlight: 1})
	held, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Done(nil)
	other := newLimiter(t, db, fleet.Config{MaxInFlight: 1})

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = other.Acquire(ctx)
	if !errors.Is(err, provider.ErrTransient) {
		t.Errorf("acquire past the deadline = %v, want transient", err)
	}
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Errorf("gave up after %v, past the deadline", d)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = other.Acquire(ctx)
	if !errors.Is(err, context.Canceled) || errors.Is(err, provider.ErrTransient) {
		t.Errorf("acquire cancelled = %v", err)
	}
}

func TestNewRefusesBadBudgets(t *testing.T) {
	db := openStore(t)
	tests := []struct {
		name string
		cfg  fleet.Config
	}{
		{"no scope", fleet.Config{MaxInFlight: 1}},
		{"no limit", fleet.Config{Scope: "s"}},
		{"negative", fleet.Config{Scope: "s", MaxInFlight: -1, MaxPerSecond: 5}},
		{"too many slots", fleet.Config{Scope: "s", MaxPerSecond: fleet.MaxLimit + 1}},
		{"lease shorter than its margins", fleet.Config{Scope: "s", MaxInFlight: 1, Lease: 100 * time.Millisecond, Margin: 50 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := fleet.New(db, tt.cfg); err == nil {
				t.Error("accepted")
			}
		})
	}
}
