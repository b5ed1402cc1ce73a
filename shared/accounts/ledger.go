package accounts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// Ledger keeps what each account spent per calendar month (UTC), in the
// accounts table: item USER#<id> / EF#<yyyy-mm>, attribute cents (EF × 100,
// an integer so that concurrent charges add exactly). The item lives in
// the user's partition, so deleting the account deletes it. The prices
// themselves are shared/pricing's: the ledger only adds up what it is
// told was charged or refunded.
type Ledger struct {
	db    store.DB
	now   func() time.Time
	quota float64
}

// NewLedger returns the ledger over the accounts table of db, with the
// monthly quota in EF.
func NewLedger(db store.DB, now func() time.Time, quota float64) *Ledger {
	return &Ledger{db: db, now: now, quota: quota}
}

// Quota is the EF an account may spend per month.
func (l *Ledger) Quota() float64 { return l.quota }

// Month is the current month of the ledger, yyyy-mm in UTC.
func (l *Ledger) Month() string { return l.now().UTC().Format("2006-01") }

// spendingKey is the item of the account's spending of month (yyyy-mm).
func spendingKey(uid int64, month string) store.Key {
	return store.Key{PK: UserPK(uid), SK: "EF#" + month}
}

// Spent is what the account spent this month, in EF.
func (l *Ledger) Spent(ctx context.Context, uid int64) (float64, error) {
	it, err := l.db.Table(Table).Get(ctx, spendingKey(uid, l.Month()))
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ef spent: %w", err)
	}
	return float64(it.Int("cents")) / 100, nil
}

// Remaining is what the account may still spend this month.
func (l *Ledger) Remaining(ctx context.Context, uid int64) (float64, error) {
	spent, err := l.Spent(ctx, uid)
	if err != nil {
		return 0, err
	}
	return math.Max(0, l.quota-spent), nil
}

// ChargeOp adds ef to this month's spending as an operation of the
// caller's transaction (job creation charges in the transaction that
// writes the job), conditional on the sum staying within the quota: two
// jobs created at once cannot both pass a check only one of them fits.
// ok is false when the cost exceeds the whole quota; a failed condition
// means it exceeds what remains, which the caller reports with
// pricing.OverQuota and Remaining.
func (l *Ledger) ChargeOp(uid int64, ef float64) (op store.TxOp, ok bool) {
	cents := int64(math.Round(ef * 100))
	limit := int64(math.Round(l.quota*100)) - cents
	if limit < 0 {
		return store.TxOp{}, false
	}
	return store.UpdateOp(Table, spendingKey(uid, l.Month()), store.Update{}.Add("cents", cents),
		store.Or(store.NotExists("cents"), store.Le("cents", limit))), true
}

// RefundOp gives ef back to the account's spending of month (yyyy-mm, the
// month the job was created and charged in), as an operation of the
// caller's transaction, which also records the refund on the job so that
// it is made once. It has no condition: the charge it reverses wrote the
// item. What a refund amounts to is pricing.Refund.
func RefundOp(uid int64, month string, ef float64) store.TxOp {
	cents := int64(math.Round(ef * 100))
	return store.UpdateOp(Table, spendingKey(uid, month), store.Update{}.Add("cents", -cents), nil)
}
