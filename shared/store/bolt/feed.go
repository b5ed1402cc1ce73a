package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/store"
	bbolt "go.etcd.io/bbolt"
)

// The change feed (store.Feed) of the tables whose schema has Stream: every
// write records, in the same bbolt transaction, a change under the table's
// feed bucket, keyed by the bucket's next sequence (8 bytes big-endian, so
// keys order as sequences), valued by the item's table key (length-prefixed)
// and its encoded new image (empty for a delete). Readers waiting for a
// change are woken after the commit that recorded one.

var _ store.Feed = (*DB)(nil)

// maxChanges bounds one read of the feed.
const maxChanges = 1000

// feed wakes readers: ch is closed and replaced after each commit that
// recorded a change.
type feed struct {
	mu sync.Mutex
	ch chan struct{}
}

func (f *feed) wait() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ch == nil {
		f.ch = make(chan struct{})
	}
	return f.ch
}

func (f *feed) notify() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ch != nil {
		close(f.ch)
		f.ch = nil
	}
}

func feedBucketName(table string) []byte { return []byte("c\x00" + table) }

// recordChange appends the write of tk (enc nil for a delete) to the
// table's feed when it has one.
func (t *table) recordChange(tx *bbolt.Tx, tk, enc []byte) error {
	if !t.s.Stream {
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(feedBucketName(t.s.Name))
	if err != nil {
		return fmt.Errorf("change feed: %w", err)
	}
	seq, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("change feed: %w", err)
	}
	v := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+len(tk)+len(enc)), uint64(len(tk)))
	v = append(append(v, tk...), enc...)
	if err := b.Put(binary.BigEndian.AppendUint64(nil, seq), v); err != nil {
		return fmt.Errorf("change feed: %w", err)
	}
	tx.OnCommit(t.db.feed.notify)
	return nil
}

// feedTable returns the stream table named table.
func (db *DB) feedTable(table string) (*table, error) {
	t, ok := db.tables[table]
	if !ok || !t.s.Stream {
		return nil, fmt.Errorf("bolt: change feed: %w: %q is not a table with a stream", store.ErrInvalid, table)
	}
	return t, nil
}

// parseSeq reads a cursor ("" is before the first change).
func parseSeq(cursor string) (uint64, error) {
	if cursor == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(cursor, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bolt: change feed: %w: bad cursor %q", store.ErrInvalid, cursor)
	}
	return n, nil
}

func formatSeq(n uint64) string { return fmt.Sprintf("%020d", n) }

// Changes implements store.Feed.
func (db *DB) Changes(ctx context.Context, table, after string, max int, wait time.Duration) ([]store.Change, error) {
	t, err := db.feedTable(table)
	if err != nil {
		return nil, err
	}
	if max < 1 || max > maxChanges {
		return nil, fmt.Errorf("bolt: change feed: %w: max %d outside 1..%d", store.ErrInvalid, max, maxChanges)
	}
	from, err := parseSeq(after)
	if err != nil {
		return nil, err
	}
	var timer <-chan time.Time
	if wait > 0 {
		tm := time.NewTimer(wait)
		defer tm.Stop()
		timer = tm.C
	}
	for {
		// Take the wake-up channel before reading: a commit between the
		// read and the wait closes this channel, so it is never missed.
		woken := db.feed.wait()
		out, err := db.readChanges(t, from, max)
		if err != nil || len(out) > 0 || timer == nil {
			return out, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer:
			return db.readChanges(t, from, max)
		case <-woken:
		}
	}
}

func (db *DB) readChanges(t *table, from uint64, max int) ([]store.Change, error) {
	out := []store.Change{}
	err := db.bdb.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(feedBucketName(t.s.Name))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(binary.BigEndian.AppendUint64(nil, from+1)); k != nil && len(out) < max; k, v = c.Next() {
			n, w := binary.Uvarint(v)
			if w <= 0 || uint64(len(v)-w) < n {
				return fmt.Errorf("change %x: corrupt record", k)
			}
			tk, enc := v[w:w+int(n)], v[w+int(n):]
			pk, sk, _ := bytes.Cut(tk, []byte{0})
			ch := store.Change{Seq: formatSeq(binary.BigEndian.Uint64(k)), Table: t.s.Name, Key: store.Key{PK: string(pk), SK: string(sk)}}
			if len(enc) > 0 {
				it, err := store.DecodeItem(enc)
				if err != nil {
					return fmt.Errorf("change %x: %w", k, err)
				}
				ch.New = it
			}
			out = append(out, ch)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bolt: change feed of %s: %w", t.s.Name, err)
	}
	return out, nil
}

// Trim implements store.Feed.
func (db *DB) Trim(ctx context.Context, table, upTo string) error {
	t, err := db.feedTable(table)
	if err != nil {
		return err
	}
	last, err := parseSeq(upTo)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err = db.bdb.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(feedBucketName(t.s.Name))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= last; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bolt: trim change feed of %s: %w", t.s.Name, err)
	}
	return nil
}
