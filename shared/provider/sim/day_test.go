package sim_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

func TestDays(t *testing.T) {
	ctx := context.Background()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), []store.Schema{{Name: "accounts", PK: "pk", SK: "sk"}}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	a, b := sim.NewDays(db, "accounts", clock), sim.NewDays(db, "accounts", clock)
	if d, err := a.Day(ctx); err != nil || d != 0 {
		t.Fatalf("day %d %v, want 0", d, err)
	}
	if d, err := b.Advance(ctx, 7); err != nil || d != 7 {
		t.Fatalf("advance: %d %v", d, err)
	}
	if d, _ := a.Day(ctx); d != 0 {
		t.Errorf("another process read %d within its cache second, want the cached 0", d)
	}
	now = now.Add(2 * time.Second)
	if d, _ := a.Day(ctx); d != 7 {
		t.Errorf("another process reads %d after a second, want 7", d)
	}
	for _, n := range []int{0, -1, sim.MaxAdvance + 1} {
		if _, err := a.Advance(ctx, n); err == nil {
			t.Errorf("advance of %d accepted", n)
		}
	}
}
