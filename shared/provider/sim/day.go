package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// Days keeps the simulated world's current day in a table, so that every
// process (every Lambda) sees the same world, and an admin can move it
// forward (POST /api/admin/sim/advance). Its Day method is the World's
// Options.Day.
type Days struct {
	db    store.DB
	table string
	now   func() time.Time

	mu      sync.Mutex
	day     int
	readAt  time.Time
	hasRead bool
}

// dayKey is the item holding the day offset.
var dayKey = store.Key{PK: "SIM", SK: "DAY"}

// dayCache is how long a read day is reused: a search needs no table read
// of its own, and an advance reaches every process within a second.
const dayCache = time.Second

// NewDays returns the day store over table (the accounts table, whose
// partitions are users: "SIM" is none of them).
func NewDays(db store.DB, table string, now func() time.Time) *Days {
	return &Days{db: db, table: table, now: now}
}

// Day returns the world's current day offset (0 until advanced).
func (d *Days) Day(ctx context.Context) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hasRead && d.now().Sub(d.readAt) < dayCache {
		return d.day, nil
	}
	it, err := d.db.Table(d.table).Get(ctx, dayKey)
	switch {
	case errors.Is(err, store.ErrNotFound):
		d.day = 0
	case err != nil:
		return 0, fmt.Errorf("sim day: %w", err)
	default:
		d.day = int(it.Int("n"))
	}
	d.readAt, d.hasRead = d.now(), true
	return d.day, nil
}

// MaxAdvance bounds one advance, in days.
const MaxAdvance = 3650

// MaxAdvance is the most days one Advance may move the world (the
// constant, as the API's admin clock reads it).
func (d *Days) MaxAdvance() int { return MaxAdvance }

// Advance moves the world n days forward (1 to MaxAdvance) and returns the
// new day offset.
func (d *Days) Advance(ctx context.Context, n int) (int, error) {
	if n < 1 || n > MaxAdvance {
		return 0, fmt.Errorf("sim advance of %d days: want 1 to %d", n, MaxAdvance)
	}
	it, err := d.db.Table(d.table).Update(ctx, dayKey, store.Update{}.Add("n", int64(n)), nil)
	if err != nil {
		return 0, fmt.Errorf("sim advance: %w", err)
	}
	d.mu.Lock()
	d.day, d.readAt, d.hasRead = int(it.Int("n")), d.now(), true
	d.mu.Unlock()
	return d.day, nil
}
