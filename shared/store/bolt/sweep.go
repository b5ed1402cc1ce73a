package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/store"
	bbolt "go.etcd.io/bbolt"
)

// sweepBatch bounds the items deleted per write transaction, so that the
// sweeper never holds the (single) write lock for long and request writes
// interleave with a large backlog.
const sweepBatch = 256

func (db *DB) sweepLoop(interval time.Duration) {
	defer close(db.done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-tick.C:
			if n, err := db.sweep(); err != nil {
				db.log.Error("bolt: sweeping expired items", "path", db.path, "deleted", n, "err", err)
			}
		}
	}
}

// sweep deletes every expired item of every TTL table, batch by batch, and
// returns how many it deleted. It stops early when Close is called.
func (db *DB) sweep() (int, error) {
	total := 0
	for _, t := range db.order {
		if t.xBucket == nil {
			continue
		}
		for {
			select {
			case <-db.stop:
				return total, nil
			default:
			}
			n, more, err := t.sweepOnce(db.now())
			total += n
			if err != nil {
				return total, fmt.Errorf("table %s: %w", t.s.Name, err)
			}
			if !more {
				break
			}
		}
	}
	return total, nil
}

// sweepOnce deletes up to sweepBatch items whose expiry is at or before now,
// reading them off the head of the expiry bucket. more reports a full batch.
func (t *table) sweepOnce(now time.Time) (n int, more bool, err error) {
	limit := now.Unix()
	if limit < 0 {
		return 0, false, nil // expiry keys are clamped to 0: nothing is due before the epoch
	}
	err = t.db.bdb.Update(func(tx *bbolt.Tx) error {
		xb := tx.Bucket(t.xBucket)
		// Collect first: deleting under a live cursor can skip keys.
		var due [][]byte
		c := xb.Cursor()
		for k, _ := c.First(); k != nil && len(due) < sweepBatch; k, _ = c.Next() {
			if len(k) < 8 || int64(binary.BigEndian.Uint64(k[:8])) > limit {
				break
			}
			due = append(due, bytes.Clone(k))
		}
		more = len(due) == sweepBatch
		for _, xk := range due {
			tk := xk[8:]
			old, err := t.load(tx, tk, true)
			if err != nil {
				return err
			}
			// Re-check on the item itself: the entry could only be stale
			// after a bug, and deleting a live item is the worse outcome.
			if old != nil && store.Expired(t.s, old, now) {
				if err := t.drop(tx, tk, old); err != nil {
					return err
				}
				n++
			}
			if err := xb.Delete(xk); err != nil {
				return fmt.Errorf("expiry index: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	return n, more, nil
}
