// Package bolt is the local driver of the queue port (queue.Queue) on
// go.etcd.io/bbolt: a durable queue in a file of its own that survives a
// restart, with SQS's semantics as checked by queue/queuetest.
//
// Layout of the file (bucket names use NUL as separator because queue names
// cannot contain it):
//
//	m\x00<queue>   id -> message record (see record)
//	v\x00<queue>   visible-at (8 bytes, big-endian, order-preserving) id -> state
//
// Every message has exactly one entry in its queue's visibility index, keyed
// by the time it becomes visible: sent time plus delay for a new message,
// receive time plus visibility timeout for one in flight. Receive therefore
// reads the head of the index up to now instead of scanning the queue, and
// the first entry after now is when to look again. The entry's one-byte
// state tells a delayed message (never delivered) from one in flight, for
// Depth. A receipt is the message id and its receive count: each delivery
// increments the count, so a receipt of an earlier delivery no longer
// matches and is refused with queue.ErrReceiptExpired.
//
// All of a message's state is in the file, written in the transaction of the
// call that changes it: after a restart in-flight messages stay hidden until
// their visibility timeout, delayed ones until their delay, and receipts
// issued before the restart still work. The dead-letter move happens in the
// transaction of the receive that would exceed MaxReceives, so a message is
// never in both queues or in neither.
//
// Long polling is in-process: a receive that finds nothing waits for a send
// or a visibility change on its queue (a channel closed and replaced, i.e. a
// broadcast) or for the next visible-at time in the index, whichever comes
// first. Another process writing the same file is excluded by bbolt's file
// lock, so no wake-up can come from outside.
package bolt

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/queue"
	bbolt "go.etcd.io/bbolt"
)

// Option configures Open.
type Option func(*config)

type config struct {
	now    func() time.Time
	noSync bool
}

// WithClock replaces time.Now for visibility and delay decisions, so that
// tests control time without sleeping. Long polls still wait in real time.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithNoSync skips the fsync at each commit. A crash may then lose or corrupt
// recent messages: only for tests, benchmarks and throwaway data.
func WithNoSync() Option { return func(c *config) { c.noSync = true } }

// openTimeout is how long Open waits for the file lock another process
// holds; bbolt's default would wait forever.
const openTimeout = time.Second

// defaultVisibility is SQS's, used for a queue configured with 0.
const defaultVisibility = 30 * time.Second

// Queue is a set of queues in one bbolt file. It is safe for concurrent use.
type Queue struct {
	bdb    *bbolt.DB
	path   string
	queues map[string]*state
	now    func() time.Time

	closed    chan struct{} // closed by Close: ends long polls
	closeOnce sync.Once
	closeErr  error
}

var _ queue.Queue = (*Queue)(nil)

// state is one configured queue.
type state struct {
	name       string
	visibility time.Duration
	maxRecv    int
	dead       *state // nil without a dead-letter queue
	mBucket    []byte
	vBucket    []byte

	mu   sync.Mutex
	wake chan struct{} // closed and replaced when a message may have become visible
}

// Open opens (creating if needed) the bbolt file at path with the given
// queues. It fails after a second when another process holds the file.
// Queues in the file but not in cfgs are left untouched and unreachable.
func Open(path string, cfgs []queue.Config, opts ...Option) (*Queue, error) {
	cfg := config{now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	queues, err := buildStates(cfgs)
	if err != nil {
		return nil, fmt.Errorf("queue/bolt: open %s: %w", path, err)
	}
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:      openTimeout,
		NoSync:       cfg.noSync,
		FreelistType: bbolt.FreelistMapType, // a queue's file churns: the map freelist stays fast as it fragments
		NoStatistics: true,                  // unused, and a shared counter every read transaction updates
	})
	if err != nil {
		if errors.Is(err, bbolt.ErrTimeout) {
			return nil, fmt.Errorf("queue/bolt: open %s: file locked by another process (waited %s): %w", path, openTimeout, err)
		}
		return nil, fmt.Errorf("queue/bolt: open %s: %w", path, err)
	}
	err = bdb.Update(func(tx *bbolt.Tx) error {
		for _, s := range queues {
			for _, b := range [][]byte{s.mBucket, s.vBucket} {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return fmt.Errorf("queue %s: create bucket: %w", s.name, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("queue/bolt: open %s: %w", path, err)
	}
	return &Queue{bdb: bdb, path: path, queues: queues, now: cfg.now, closed: make(chan struct{})}, nil
}

// buildStates checks the configs with the rules the CDK app applies to the
// same configs (infra/spec.go), so that a config accepted locally deploys.
func buildStates(cfgs []queue.Config) (map[string]*state, error) {
	queues := make(map[string]*state, len(cfgs))
	for _, c := range cfgs {
		switch {
		case c.Name == "" || strings.IndexByte(c.Name, 0) >= 0:
			return nil, fmt.Errorf("%w: queue name %q", queue.ErrInvalid, c.Name)
		case queues[c.Name] != nil:
			return nil, fmt.Errorf("%w: queue %s declared twice", queue.ErrInvalid, c.Name)
		case c.VisibilityTimeout < 0 || c.VisibilityTimeout > queue.MaxVisibility || c.VisibilityTimeout%time.Second != 0:
			return nil, fmt.Errorf("%w: queue %s: visibility timeout %v is not whole seconds within %v", queue.ErrInvalid, c.Name, c.VisibilityTimeout, queue.MaxVisibility)
		}
		s := &state{
			name:       c.Name,
			visibility: c.VisibilityTimeout,
			maxRecv:    c.MaxReceives,
			mBucket:    []byte("m\x00" + c.Name),
			vBucket:    []byte("v\x00" + c.Name),
			wake:       make(chan struct{}),
		}
		if s.visibility == 0 {
			s.visibility = defaultVisibility
		}
		queues[c.Name] = s
	}
	for _, c := range cfgs {
		if c.DeadLetter == "" {
			continue
		}
		dead := queues[c.DeadLetter]
		if dead == nil || c.DeadLetter == c.Name {
			return nil, fmt.Errorf("%w: queue %s: dead-letter queue %q is not another configured queue", queue.ErrInvalid, c.Name, c.DeadLetter)
		}
		if c.MaxReceives < 1 || c.MaxReceives > 1000 {
			return nil, fmt.Errorf("%w: queue %s: MaxReceives %d is outside SQS's 1..1000", queue.ErrInvalid, c.Name, c.MaxReceives)
		}
		queues[c.Name].dead = dead
	}
	return queues, nil
}

// Close ends waiting receives and closes the file. It is idempotent: later
// calls return the first call's result.
func (q *Queue) Close() error {
	q.closeOnce.Do(func() {
		close(q.closed)
		if err := q.bdb.Close(); err != nil {
			q.closeErr = fmt.Errorf("queue/bolt: close %s: %w", q.path, err)
		}
	})
	return q.closeErr
}

func (q *Queue) lookup(op, name string) (*state, error) {
	s, ok := q.queues[name]
	if !ok {
		return nil, fmt.Errorf("queue/bolt: %s %s: %w", op, name, queue.ErrUnknownQueue)
	}
	return s, nil
}

// signal wakes the long polls of s: something in it may have become visible
// or its next visible-at time may have moved earlier.
func (s *state) signal() {
	s.mu.Lock()
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

func (s *state) waiter() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wake
}

// Send stores the messages in one transaction: all of them or none.
func (q *Queue) Send(ctx context.Context, name string, msgs ...queue.Message) ([]string, error) {
	s, err := q.lookup("send to", name)
	if err != nil {
		return nil, err
	}
	if err := queue.CheckSend(msgs); err != nil {
		return nil, fmt.Errorf("queue/bolt: send to %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("queue/bolt: send to %s: %w", name, err)
	}
	ids := make([]string, len(msgs))
	for i := range ids {
		ids[i] = newID()
	}
	err = q.bdb.Update(func(tx *bbolt.Tx) error {
		mb, vb := tx.Bucket(s.mBucket), tx.Bucket(s.vBucket)
		now := q.now()
		for i, m := range msgs {
			r := record{sentAt: now, visibleAt: now.Add(ceilSecond(m.Delay)), body: m.Body}
			if err := r.put(mb, vb, ids[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("queue/bolt: send to %s: %w", name, err)
	}
	// Also for delayed messages: a waiting receive then shortens its wait
	// to their visible-at time.
	s.signal()
	return ids, nil
}

// Receive takes up to limit visible messages, waiting for one up to wait.
func (q *Queue) Receive(ctx context.Context, name string, limit int, wait, visibility time.Duration) ([]queue.Delivery, error) {
	s, err := q.lookup("receive from", name)
	if err != nil {
		return nil, err
	}
	if err := queue.CheckReceive(limit, wait, visibility); err != nil {
		return nil, fmt.Errorf("queue/bolt: receive from %s: %w", name, err)
	}
	vis := s.visibility
	if visibility > 0 {
		vis = ceilSecond(visibility)
	}
	deadline := time.Now().Add(wait)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("queue/bolt: receive from %s: %w", name, err)
		}
		// Taken before looking, so that a send committed after the look
		// closes this very channel and is not missed.
		wake := s.waiter()
		ds, next, err := q.take(s, limit, vis)
		if err != nil {
			return nil, fmt.Errorf("queue/bolt: receive from %s: %w", name, err)
		}
		left := time.Until(deadline)
		if len(ds) > 0 || left <= 0 {
			return ds, nil
		}
		if !next.IsZero() {
			left = min(left, max(next.Sub(q.now()), time.Millisecond))
		}
		timer := time.NewTimer(left)
		select {
		case <-wake:
		case <-timer.C:
		case <-ctx.Done():
		case <-q.closed:
			timer.Stop()
			return nil, fmt.Errorf("queue/bolt: receive from %s: %w", name, bbolt.ErrDatabaseNotOpen)
		}
		timer.Stop()
	}
}

// take delivers up to limit visible messages of s in one write transaction,
// moving to the dead-letter queue those past MaxReceives. next is when the
// earliest hidden message becomes visible (zero when there is none).
func (q *Queue) take(s *state, limit int, vis time.Duration) (ds []queue.Delivery, next time.Time, err error) {
	ready, next, err := q.peek(s)
	if err != nil || !ready {
		return nil, next, err
	}
	moved := false
	err = q.bdb.Update(func(tx *bbolt.Tx) error {
		var err error
		ds, next, moved, err = q.claim(tx, s, limit, vis)
		return err
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	if moved {
		s.dead.signal()
	}
	return ds, next, nil
}

// peek reports whether s has a visible message, else when the earliest
// hidden one becomes visible (zero when there is none).
func (q *Queue) peek(s *state) (ready bool, next time.Time, err error) {
	// Look first in a read transaction: an empty or all-hidden queue, what
	// every long poll finds while it waits, then costs no write transaction
	// (and no fsync) and does not queue behind the writers.
	err = q.bdb.View(func(tx *bbolt.Tx) error {
		k, _ := tx.Bucket(s.vBucket).Cursor().First()
		switch {
		case k == nil:
		case bytes.Compare(k[:8], timeKey(q.now())) > 0:
			next = keyTime(k)
		default:
			ready = true
		}
		return nil
	})
	return ready, next, err
}

// claim is take's write transaction: it hides up to limit visible
// messages for vis and returns them, and reports whether any went to the
// dead-letter queue.
func (q *Queue) claim(tx *bbolt.Tx, s *state, limit int, vis time.Duration) (ds []queue.Delivery, next time.Time, moved bool, err error) {
	mb, vb := tx.Bucket(s.mBucket), tx.Bucket(s.vBucket)
	now := q.now()
	nowKey := timeKey(now)
	// One seek per message: the entry just handled leaves the head of
	// the index (re-keyed into the future, or moved), and bbolt
	// cursors do not survive writes to their bucket.
	for len(ds) < limit {
		k, _ := vb.Cursor().First()
		if k == nil {
			return ds, next, moved, nil
		}
		if bytes.Compare(k[:8], nowKey) > 0 {
			next = keyTime(k)
			return ds, next, moved, nil
		}
		id := string(k[8:])
		r, err := getRecord(mb, id)
		if err != nil {
			return ds, next, moved, err
		}
		if err := vb.Delete(k); err != nil {
			return ds, next, moved, fmt.Errorf("message %s: %w", id, err)
		}
		r.count++
		if s.dead != nil && r.count > s.maxRecv {
			if err := deadLetter(tx, s, mb, id, r, now); err != nil {
				return ds, next, moved, err
			}
			moved = true
			continue
		}
		r.visibleAt = now.Add(vis)
		if err := r.put(mb, vb, id); err != nil {
			return ds, next, moved, err
		}
		ds = append(ds, queue.Delivery{
			ID:           id,
			Body:         bytes.Clone(r.body), // r.body points into the mmap, valid only during the transaction
			Receipt:      receipt(id, r.count),
			ReceiveCount: r.count,
			SentAt:       r.sentAt,
		})
	}
	if k, _ := vb.Cursor().First(); k != nil && bytes.Compare(k[:8], nowKey) > 0 {
		next = keyTime(k)
	}
	return ds, next, moved, nil
}

// deadLetter moves message id, received once too often, from s to its
// dead-letter queue, visible there at once.
func deadLetter(tx *bbolt.Tx, s *state, mb *bbolt.Bucket, id string, r record, now time.Time) error {
	if err := mb.Delete([]byte(id)); err != nil {
		return fmt.Errorf("message %s: %w", id, err)
	}
	r.visibleAt = now
	if err := r.put(tx.Bucket(s.dead.mBucket), tx.Bucket(s.dead.vBucket), id); err != nil {
		return fmt.Errorf("move to %s: %w", s.dead.name, err)
	}
	return nil
}

// Delete removes the message of a current receipt.
func (q *Queue) Delete(ctx context.Context, name, rcpt string) error {
	s, err := q.lookup("delete from", name)
	if err != nil {
		return err
	}
	err = q.withReceipt(ctx, s, rcpt, func(mb, vb *bbolt.Bucket, id string, r record) error {
		if err := vb.Delete(indexKey(r.visibleAt, id)); err != nil {
			return err
		}
		return mb.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("queue/bolt: delete from %s: %w", name, err)
	}
	return nil
}

// ChangeVisibility makes the message of a current receipt visible after d.
func (q *Queue) ChangeVisibility(ctx context.Context, name, rcpt string, d time.Duration) error {
	s, err := q.lookup("change visibility in", name)
	if err != nil {
		return err
	}
	if d < 0 || d > queue.MaxVisibility {
		return fmt.Errorf("queue/bolt: change visibility in %s: %w: timeout %v outside 0..%v", name, queue.ErrInvalid, d, queue.MaxVisibility)
	}
	err = q.withReceipt(ctx, s, rcpt, func(mb, vb *bbolt.Bucket, id string, r record) error {
		if err := vb.Delete(indexKey(r.visibleAt, id)); err != nil {
			return err
		}
		r.visibleAt = q.now().Add(ceilSecond(d))
		return r.put(mb, vb, id)
	})
	if err != nil {
		return fmt.Errorf("queue/bolt: change visibility in %s: %w", name, err)
	}
	s.signal()
	return nil
}

// withReceipt runs fn in a write transaction on the message rcpt names, if
// rcpt is its latest delivery.
func (q *Queue) withReceipt(ctx context.Context, s *state, rcpt string, fn func(mb, vb *bbolt.Bucket, id string, r record) error) error {
	if rcpt == "" {
		return fmt.Errorf("%w: empty receipt", queue.ErrInvalid)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	id, count, ok := parseReceipt(rcpt)
	if !ok {
		// Not one of ours: it cannot name an in-flight delivery.
		return fmt.Errorf("%w: malformed receipt %q", queue.ErrReceiptExpired, rcpt)
	}
	return q.bdb.Update(func(tx *bbolt.Tx) error {
		mb, vb := tx.Bucket(s.mBucket), tx.Bucket(s.vBucket)
		if mb.Get([]byte(id)) == nil {
			return fmt.Errorf("%w: message %s deleted or moved", queue.ErrReceiptExpired, id)
		}
		r, err := getRecord(mb, id)
		if err != nil {
			return err
		}
		if r.count != count {
			return fmt.Errorf("%w: message %s delivered again (receive %d, receipt of receive %d)", queue.ErrReceiptExpired, id, r.count, count)
		}
		return fn(mb, vb, id, r)
	})
}

// Depth counts the queue's messages from its visibility index alone.
func (q *Queue) Depth(ctx context.Context, name string) (visible, inFlight, delayed int, err error) {
	s, err := q.lookup("depth of", name)
	if err != nil {
		return 0, 0, 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, 0, fmt.Errorf("queue/bolt: depth of %s: %w", name, err)
	}
	err = q.bdb.View(func(tx *bbolt.Tx) error {
		nowKey := timeKey(q.now())
		return tx.Bucket(s.vBucket).ForEach(func(k, v []byte) error {
			switch {
			case bytes.Compare(k[:8], nowKey) <= 0:
				visible++
			case len(v) == 1 && v[0] == stateDelivered:
				inFlight++
			default:
				delayed++
			}
			return nil
		})
	})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("queue/bolt: depth of %s: %w", name, err)
	}
	return visible, inFlight, delayed, nil
}

// Index entry states.
const (
	stateNew       = 0 // never delivered: hidden means delayed
	stateDelivered = 1 // delivered at least once: hidden means in flight
)

// record is a stored message. Encoding: version byte (1), sent-at and
// visible-at as Unix nanoseconds (8 bytes each, big-endian), receive count
// (4 bytes), then the body. visibleAt is kept in the record to find the
// message's index entry.
type record struct {
	sentAt    time.Time
	visibleAt time.Time
	count     int
	body      []byte
}

const (
	recordVersion = 1
	recordHeader  = 1 + 8 + 8 + 4
)

func (r record) encode() []byte {
	b := make([]byte, recordHeader+len(r.body))
	b[0] = recordVersion
	binary.BigEndian.PutUint64(b[1:], uint64(r.sentAt.UnixNano()))
	binary.BigEndian.PutUint64(b[9:], uint64(r.visibleAt.UnixNano()))
	binary.BigEndian.PutUint32(b[17:], uint32(r.count))
	copy(b[recordHeader:], r.body)
	return b
}

func getRecord(mb *bbolt.Bucket, id string) (record, error) {
	b := mb.Get([]byte(id))
	if len(b) < recordHeader || b[0] != recordVersion {
		return record{}, fmt.Errorf("message %s: missing or corrupt record", id)
	}
	return record{
		sentAt:    time.Unix(0, int64(binary.BigEndian.Uint64(b[1:]))),
		visibleAt: time.Unix(0, int64(binary.BigEndian.Uint64(b[9:]))),
		count:     int(binary.BigEndian.Uint32(b[17:])),
		body:      b[recordHeader:],
	}, nil
}

// put writes the record and its index entry; the caller has removed the
// previous entry.
func (r record) put(mb, vb *bbolt.Bucket, id string) error {
	if err := mb.Put([]byte(id), r.encode()); err != nil {
		return fmt.Errorf("message %s: %w", id, err)
	}
	st := byte(stateNew)
	if r.count > 0 {
		st = stateDelivered
	}
	if err := vb.Put(indexKey(r.visibleAt, id), []byte{st}); err != nil {
		return fmt.Errorf("message %s: index: %w", id, err)
	}
	return nil
}

// timeKey encodes t so that byte order is time order, before 1970 included
// (the sign bit flipped).
func timeKey(t time.Time) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(t.UnixNano())^(1<<63))
	return b
}

func keyTime(k []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])^(1<<63)))
}

func indexKey(t time.Time, id string) []byte {
	return append(timeKey(t), id...)
}

// newID returns a random UUID (version 4), the form of SQS message ids:
// unique across files, so that an id recorded elsewhere (logs, a consumer's
// idempotency table) never names two messages, even after the file is
// recreated.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it panics first)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// receipt is "<id>.<receive count>": the count identifies the delivery.
func receipt(id string, count int) string { return id + "." + strconv.Itoa(count) }

func parseReceipt(r string) (id string, count int, ok bool) {
	i := strings.LastIndexByte(r, '.')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(r[i+1:])
	if err != nil || n < 1 {
		// A count of 0 would match a message never delivered.
		return "", 0, false
	}
	return r[:i], n, true
}
