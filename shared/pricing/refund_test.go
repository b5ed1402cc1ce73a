package pricing_test

import (
	"context"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/pricing"
)

func TestRefund(t *testing.T) {
	for _, tt := range []struct {
		name     string
		ef       float64
		planned  float64
		answered int
		want     float64
	}{
		{"nothing answered", 160, 160, 0, 160},
		{"half answered", 160, 160, 80, 80},
		{"every search answered", 160, 160, 160, 0},
		{"more answered than planned", 160, 100, 130, 0},
		{"a third, to the cent", 10, 3, 1, 6.67},
		{"a continuation, charged nothing", 0, 50, 0, 0},
		{"nothing planned", 12, 0, 0, 0},
		{"negative counts", 12, 10, -5, 12},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := pricing.Refund(tt.ef, tt.planned, tt.answered); got != tt.want {
				t.Errorf("Refund(%v, %v, %d) = %v, want %v", tt.ef, tt.planned, tt.answered, got, tt.want)
			}
		})
	}
}

// TestRefundOp: a refund lowers the spending of the month the job was
// charged in, even when another month is current, so the quota it frees is
// that month's.
func TestRefundOp(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	db := openDB(t)
	l := pricing.NewLedger(db, func() time.Time { return now }, 100)
	if err := charge(ctx, db, l, 7, 90.5); err != nil {
		t.Fatal(err)
	}
	if err := db.Transact(ctx, pricing.RefundOp(7, "2026-11", 40.25)); err != nil {
		t.Fatal(err)
	}
	if spent, _ := l.Spent(ctx, 7); spent != 50.25 {
		t.Errorf("spent %v after the refund", spent)
	}
	if err := charge(ctx, db, l, 7, 49.75); err != nil {
		t.Errorf("the refunded EF cannot be spent again: %v", err)
	}
	if err := db.Transact(ctx, pricing.RefundOp(7, "2026-10", 5)); err != nil {
		t.Fatal(err)
	}
	if spent, _ := l.Spent(ctx, 7); spent != 100 {
		t.Errorf("a refund of another month changed this one's: %v", spent)
	}
}
