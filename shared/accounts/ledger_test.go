package accounts_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// charge is how job creation charges: ChargeOp in a transaction, a failed
// condition reported as pricing.OverQuota with what remains.
func charge(ctx context.Context, db store.DB, l *accounts.Ledger, uid int64, ef float64) error {
	op, ok := l.ChargeOp(uid, ef)
	if !ok {
		return pricing.OverQuota(ef, l.Quota())
	}
	if err := db.Transact(ctx, op); err != nil {
		if errors.Is(err, store.ErrConditionFailed) {
			rem, _ := l.Remaining(ctx, uid)
			return pricing.OverQuota(ef, rem)
		}
		return err
	}
	return nil
}

func openDB(t *testing.T) store.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), []store.Schema{accounts.Schema()}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestLedgerChargesWithinTheQuota(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	db := openDB(t)
	l := accounts.NewLedger(db, func() time.Time { return now }, 100)
	steps := []struct {
		ef        float64
		refused   bool
		spentThen float64
	}{
		{40.25, false, 40.25},
		{59.75, false, 100},
		{0.01, true, 100},
		{0, false, 100},
	}
	for i, s := range steps {
		err := charge(ctx, db, l, 7, s.ef)
		if s.refused != apperr.Is(err, apperr.Invalid) || (!s.refused && err != nil) {
			t.Fatalf("step %d: charge %v: %v", i, s.ef, err)
		}
		if got, err := l.Spent(ctx, 7); err != nil || got != s.spentThen {
			t.Fatalf("step %d: spent %v %v, want %v", i, got, err, s.spentThen)
		}
	}
	if rem, _ := l.Remaining(ctx, 7); rem != 0 {
		t.Errorf("remaining %v, want 0", rem)
	}
	if got, _ := l.Spent(ctx, 8); got != 0 {
		t.Errorf("another account spent %v", got)
	}
	// A new month starts from zero.
	now = now.Add(2 * time.Hour)
	if got, _ := l.Spent(ctx, 7); got != 0 {
		t.Errorf("December spent %v, want 0", got)
	}
	if err := charge(ctx, db, l, 7, 101); !apperr.Is(err, apperr.Invalid) {
		t.Errorf("a charge above the whole quota: %v", err)
	}
}

func TestLedgerConcurrentChargesNeverExceedTheQuota(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	l := accounts.NewLedger(db, time.Now, 10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if charge(ctx, db, l, 1, 1) == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if spent, _ := l.Spent(ctx, 1); ok != 10 || spent != 10 {
		t.Fatalf("%d charges passed, spent %v; want 10 and 10", ok, spent)
	}
}

// TestRefundOp: a refund lowers the spending of the month the job was
// charged in, even when another month is current, so the quota it frees is
// that month's.
func TestRefundOp(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	db := openDB(t)
	l := accounts.NewLedger(db, func() time.Time { return now }, 100)
	if err := charge(ctx, db, l, 7, 90.5); err != nil {
		t.Fatal(err)
	}
	if err := db.Transact(ctx, accounts.RefundOp(7, "2026-11", 40.25)); err != nil {
		t.Fatal(err)
	}
	if spent, _ := l.Spent(ctx, 7); spent != 50.25 {
		t.Errorf("spent %v after the refund", spent)
	}
	// The stored item, as docs/pricing.md and docs/tables.md describe it.
	it, err := db.Table("accounts").Get(ctx, store.Key{PK: "USER#7", SK: "EF#2026-11"})
	if err != nil || it.Int("cents") != 5025 {
		t.Errorf("USER#7 / EF#2026-11: cents %d, %v; want 5025", it.Int("cents"), err)
	}
	if err := charge(ctx, db, l, 7, 49.75); err != nil {
		t.Errorf("the refunded EF cannot be spent again: %v", err)
	}
	if err := db.Transact(ctx, accounts.RefundOp(7, "2026-10", 5)); err != nil {
		t.Fatal(err)
	}
	if spent, _ := l.Spent(ctx, 7); spent != 100 {
		t.Errorf("a refund of another month changed this one's: %v", spent)
	}
}
