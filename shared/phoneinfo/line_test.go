package phoneinfo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/phoneinfo/phoneinfosim"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// countingLookup is a LineLookup that counts its calls per number and
// answers from a table (an error for the numbers of fail).
type countingLookup struct {
	mu    sync.Mutex
	calls map[string]int
	fail  map[string]bool
	gate  chan struct{} // when not nil, each call waits for it
}

func (l *countingLookup) LookupLine(ctx context.Context, e164 string) (phoneinfo.Status, error) {
	l.mu.Lock()
	if l.calls == nil {
		l.calls = map[string]int{}
	}
	l.calls[e164]++
	l.mu.Unlock()
	if l.gate != nil {
		<-l.gate
	}
	if l.fail[e164] {
		return phoneinfo.Status{}, fmt.Errorf("%w: http 503", phoneinfo.ErrLookup)
	}
	yes := true
	return phoneinfo.Status{CarrierCurrent: "Free Mobile", Ported: &yes, Reachable: &yes}, nil
}

func (l *countingLookup) count(e164 string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls[e164]
}

// TestLineLookupThroughTheCache: a mobile number is looked up once, then
// answered by the cache until LineTTL has passed; a fixed line is never
// looked up; a failed lookup leaves the live columns empty, counts the row
// Unreachable, fills the other columns and is not cached. Over MemCache
// and the store's bbolt driver.
func TestLineLookupThroughTheCache(t *testing.T) {
	schema := store.Schema{Name: "accounts", PK: "pk", SK: "sk", TTL: "ttl"}
	db, err := bolt.Open(filepath.Join(t.TempDir(), "s.db"), []store.Schema{schema}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for name, cache := range map[string]phoneinfo.Cache{
		"mem":   phoneinfo.NewMemCache(),
		"store": phoneinfo.StoreCacheTTL(db.Table(schema.Name), "ttl", phoneinfo.LineTTL),
	} {
		t.Run(name, func(t *testing.T) {
			l := &countingLookup{fail: map[string]bool{"+33600000071": true}}
			now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			clock := now
			m := enrich.PhoneInfoModule(phoneinfo.Deps{Plan: phoneinfosim.Plan(), Cache: cache, Lookup: l, MaxAge: phoneinfo.LineTTL,
				Now: func() time.Time { return clock }})
			live := func(tel string) (phoneinfo.Status, enrich.Result) {
				t.Helper()
				r, err := m.Run(context.Background(), &enrich.Env{}, enrich.Input{"telephone": tel})
				if err != nil {
					t.Fatal(err)
				}
				return phoneinfo.Status{CarrierCurrent: r.Values[5]}, r
			}
			for i := range 3 {
				s, r := live("06 00 00 00 12")
				if s.CarrierCurrent != "Free Mobile" || r.Values[6] != "true" || r.Values[7] != "true" || r.Unreachable || !r.Found || r.Uncharged != 0 {
					t.Fatalf("run %d: %q", i, r.Values)
				}
			}
			if n := l.count("+33600000012"); n != 1 {
				t.Errorf("looked up %d times within the cache's lifetime, want 1", n)
			}
			clock = now.Add(phoneinfo.LineTTL - time.Minute)
			live("+33 6 00 00 00 12")
			if n := l.count("+33600000012"); n != 1 {
				t.Errorf("looked up %d times just before the TTL, want 1", n)
			}
			clock = now.Add(phoneinfo.LineTTL + time.Minute)
			live("06 00 00 00 12")
			if n := l.count("+33600000012"); n != 2 {
				t.Errorf("looked up %d times after the TTL, want 2", n)
			}

			if _, r := live("04 78 12 34 56"); r.Values[5] != "" || r.Values[6] != "" || l.count("+33478123456") != 0 {
				t.Errorf("a fixed line: %q, %d lookups", r.Values, l.count("+33478123456"))
			}

			for i := range 2 {
				_, r := live("06 00 00 00 71")
				if !r.Unreachable || !r.Found || r.Uncharged != 1 || r.Values[0] != "+33600000071" || r.Values[8] != "true" ||
					r.Values[5] != "" || r.Values[6] != "" || r.Values[7] != "" {
					t.Fatalf("failed lookup %d: %+v", i, r)
				}
			}
			if n := l.count("+33600000071"); n != 2 {
				t.Errorf("a failed lookup was cached: %d calls", n)
			}
		})
	}
}

// TestLineLookupOnceForConcurrentDuplicates: the items of a batch run at
// once; the same number twice in it is looked up once.
func TestLineLookupOnceForConcurrentDuplicates(t *testing.T) {
	l := &countingLookup{gate: make(chan struct{})}
	m := enrich.PhoneInfoModule(phoneinfo.Deps{Cache: phoneinfo.NewMemCache(), Lookup: l, MaxAge: phoneinfo.LineTTL})
	var wg sync.WaitGroup
	var filled atomic.Int32
	for _, tel := range []string{"06 00 00 00 12", "+33600000012", "0600000012", "06.00.00.00.12"} {
		wg.Go(func() {
			r, err := m.Run(context.Background(), &enrich.Env{}, enrich.Input{"telephone": tel})
			if err == nil && r.Values[5] == "Free Mobile" {
				filled.Add(1)
			}
		})
	}
	// Let the four reach the lookup (or its wait) before it answers.
	time.Sleep(50 * time.Millisecond)
	close(l.gate)
	wg.Wait()
	if n := l.count("+33600000012"); n != 1 || filled.Load() != 4 {
		t.Errorf("%d lookups, %d rows filled; want 1 and 4", n, filled.Load())
	}
}

// TestLineNotConfigured: without a lookup the module's job note says the
// live columns are left empty; with one it says nothing; the source names
// the lookup.
func TestLineNotConfigured(t *testing.T) {
	without := enrich.PhoneInfoModule(phoneinfo.Deps{Plan: phoneinfosim.Plan(), Cache: phoneinfo.NewMemCache()})
	n, ok := without.(enrich.Noted)
	if !ok {
		t.Fatal("phone_info is not enrich.Noted")
	}
	if en, fr := n.JobNote(); en != "phone line lookup not configured: phone_carrier_current, phone_is_ported, phone_is_reachable left empty" || fr == "" {
		t.Errorf("note %q / %q", en, fr)
	}
	c, err := phoneinfo.NewHLRClient(phoneinfo.HLRConfig{Key: "k", Secret: "s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	with := enrich.PhoneInfoModule(phoneinfo.Deps{Plan: phoneinfosim.Plan(), Cache: phoneinfo.NewMemCache(), Lookup: c})
	if en, _ := with.(enrich.Noted).JobNote(); en != "" {
		t.Errorf("note %q with a lookup", en)
	}
	if got := enrich.SourceOf(with); got != "libphonenumber + numbering plan (sim) + hlr-lookups.com" {
		t.Errorf("source %q", got)
	}
}
