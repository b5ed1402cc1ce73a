// Package bolt is the embedded driver of the table port (store.DB) on
// go.etcd.io/bbolt: one file, one process, no server, same observable
// semantics as DynamoDB as checked by store/storetest.
//
// Layout of the file (bucket names use NUL as separator because names and
// key values cannot contain it):
//
//	t\x00<table>                   pk 0x00 sk -> item (store.EncodeItem)
//	i\x00<table>\x00<index>         gpk 0x00 gsk 0x00 pk 0x00 sk -> pk 0x00 sk
//	x\x00<table>                   8-byte big-endian expiry, pk 0x00 sk -> empty
//	meta                           <table> -> JSON of the schema last opened
//
// A partition is thus a contiguous key range in both table and index buckets,
// sort keys order bytewise (DynamoDB's order for string keys), and the TTL
// sweeper finds expired items by reading the head of the expiry bucket
// instead of scanning the table. Index and expiry entries are maintained in
// the same bbolt transaction as the item they describe, so they are never
// stale. bbolt allows one writer at a time: every write is serialised, reads
// run concurrently in View transactions.
package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/store"
	bbolt "go.etcd.io/bbolt"
)

// Option configures Open.
type Option func(*config)

type config struct {
	now         func() time.Time
	sweep       time.Duration
	openTimeout time.Duration
	noSync      bool
	log         *slog.Logger
}

// WithClock replaces time.Now for TTL decisions (visibility and sweeping), so
// that tests control expiry without sleeping.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithSweepInterval sets how often expired items are deleted (default one
// minute). 0 disables the sweeper: expired items stay invisible but on disk.
func WithSweepInterval(d time.Duration) Option { return func(c *config) { c.sweep = d } }

// WithOpenTimeout sets how long Open waits for the file lock held by another
// process (default one second) before failing. A value <= 0 means the
// default: bbolt would otherwise wait forever.
func WithOpenTimeout(d time.Duration) Option { return func(c *config) { c.openTimeout = d } }

// WithNoSync skips the fsync at each commit. A crash may then lose or corrupt
// recent writes: only for tests, benchmarks and throwaway data.
func WithNoSync() Option { return func(c *config) { c.noSync = true } }

// WithLogger sets where background errors (the sweeper's) are reported;
// default slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// DB is a bbolt file holding a set of tables. It is safe for concurrent use.
type DB struct {
	bdb    *bbolt.DB
	path   string
	tables map[string]*table
	order  []*table // schema order, for deterministic sweeping
	now    func() time.Time
	log    *slog.Logger

	stop      chan struct{} // closed by Close to stop the sweeper
	done      chan struct{} // closed by the sweeper when it has stopped
	closeOnce sync.Once
	closeErr  error

	feed feed // wakes readers of the change feed (feed.go)
}

var (
	_ store.DB    = (*DB)(nil)
	_ store.Table = (*table)(nil)
)

// Open opens (creating if needed) the bbolt file at path with the given
// tables. It fails after the open timeout when another process holds the
// file. Index and expiry buckets are rebuilt from the items when a schema
// adds or changes an index or the TTL attribute; changing a non-empty table's
// key attributes is refused.
func Open(path string, schemas []store.Schema, opts ...Option) (*DB, error) {
	cfg := config{now: time.Now, sweep: time.Minute, openTimeout: time.Second, log: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.log == nil {
		cfg.log = slog.Default()
	}
	if err := validateSchemas(schemas); err != nil {
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if cfg.openTimeout <= 0 {
		// bbolt treats 0 as "wait forever", the hang this option exists to avoid.
		cfg.openTimeout = time.Second
	}
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:      cfg.openTimeout,
		NoSync:       cfg.noSync,
		FreelistType: bbolt.FreelistMapType, // faster than the array freelist once the file fragments
		NoStatistics: true,                  // unused, and a shared counter every read transaction updates
	})
	if err != nil {
		if errors.Is(err, bbolt.ErrTimeout) {
			return nil, fmt.Errorf("bolt: open %s: file locked by another process or DB (waited %s): %w", path, cfg.openTimeout, err)
		}
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	db := &DB{
		bdb:    bdb,
		path:   path,
		tables: make(map[string]*table, len(schemas)),
		now:    cfg.now,
		log:    cfg.log,
	}
	for _, s := range schemas {
		t := newTable(db, s)
		db.tables[s.Name] = t
		db.order = append(db.order, t)
	}
	if err := bdb.Update(db.prepare); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if cfg.sweep > 0 && db.hasTTL() {
		db.stop = make(chan struct{})
		db.done = make(chan struct{})
		go db.sweepLoop(cfg.sweep)
	}
	return db, nil
}

func validateSchemas(schemas []store.Schema) error {
	names := make(map[string]bool, len(schemas))
	for _, s := range schemas {
		switch {
		case s.Name == "":
			return fmt.Errorf("%w: table without a name", store.ErrInvalid)
		case bytes.IndexByte([]byte(s.Name), 0) >= 0:
			return fmt.Errorf("%w: table name %q contains a NUL byte", store.ErrInvalid, s.Name)
		case names[s.Name]:
			return fmt.Errorf("%w: table %s declared twice", store.ErrInvalid, s.Name)
		case s.PK == "":
			return fmt.Errorf("%w: table %s has no partition key attribute", store.ErrInvalid, s.Name)
		case s.PK == s.SK:
			return fmt.Errorf("%w: table %s uses %q as both partition and sort key", store.ErrInvalid, s.Name, s.PK)
		case s.TTL != "" && (s.TTL == s.PK || s.TTL == s.SK):
			return fmt.Errorf("%w: table %s uses key attribute %q as TTL", store.ErrInvalid, s.Name, s.TTL)
		}
		names[s.Name] = true
		ixNames := make(map[string]bool, len(s.Indexes))
		for _, ix := range s.Indexes {
			switch {
			case ix.Name == "" || bytes.IndexByte([]byte(ix.Name), 0) >= 0:
				return fmt.Errorf("%w: table %s: index name %q", store.ErrInvalid, s.Name, ix.Name)
			case ixNames[ix.Name]:
				return fmt.Errorf("%w: table %s: index %s declared twice", store.ErrInvalid, s.Name, ix.Name)
			case ix.PK == "" || ix.PK == ix.SK:
				return fmt.Errorf("%w: table %s: index %s key attributes %q, %q", store.ErrInvalid, s.Name, ix.Name, ix.PK, ix.SK)
			}
			ixNames[ix.Name] = true
		}
	}
	return nil
}

func (db *DB) hasTTL() bool {
	for _, t := range db.order {
		if t.xBucket != nil {
			return true
		}
	}
	return false
}

// Table returns the named table; it panics on a name the DB was not opened
// with, a wiring bug.
func (db *DB) Table(name string) store.Table {
	t, ok := db.tables[name]
	if !ok {
		panic(fmt.Sprintf("bolt: unknown table %q (not in the schemas given to Open)", name))
	}
	return t
}

// Close stops the sweeper and closes the file. It is idempotent: later calls
// return the first call's result.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		if db.stop != nil {
			close(db.stop)
			<-db.done // the sweeper may be mid-transaction; bbolt's Close would wait anyway
		}
		if err := db.bdb.Close(); err != nil {
			db.closeErr = fmt.Errorf("bolt: close %s: %w", db.path, err)
		}
	})
	return db.closeErr
}

// metaSchema is what the meta bucket remembers of a table, to detect schema
// changes that need the derived buckets rebuilt.
type metaSchema struct {
	PK      string               `json:"pk"`
	SK      string               `json:"sk"`
	TTL     string               `json:"ttl,omitempty"`
	Indexes map[string][2]string `json:"indexes,omitempty"`
}

const metaBucket = "meta"

// prepare creates the buckets of every table and brings index and expiry
// buckets in line with the schema, in the Open transaction.
func (db *DB) prepare(tx *bbolt.Tx) error {
	mb, err := tx.CreateBucketIfNotExists([]byte(metaBucket))
	if err != nil {
		return fmt.Errorf("create meta bucket: %w", err)
	}
	for _, t := range db.order {
		if err := t.prepare(tx, mb); err != nil {
			return fmt.Errorf("table %s: %w", t.s.Name, err)
		}
	}
	return nil
}

func (t *table) prepare(tx *bbolt.Tx, mb *bbolt.Bucket) error {
	tb, err := tx.CreateBucketIfNotExists(t.tBucket)
	if err != nil {
		return fmt.Errorf("create bucket: %w", err)
	}
	var old metaSchema
	known := false
	if raw := mb.Get([]byte(t.s.Name)); raw != nil {
		if err := json.Unmarshal(raw, &old); err != nil {
			return fmt.Errorf("read stored schema: %w", err)
		}
		known = true
	}
	cur := metaSchema{PK: t.s.PK, SK: t.s.SK, TTL: t.s.TTL, Indexes: map[string][2]string{}}
	for _, ix := range t.s.Indexes {
		cur.Indexes[ix.Name] = [2]string{ix.PK, ix.SK}
	}
	if known && (old.PK != cur.PK || old.SK != cur.SK) {
		if k, _ := tb.Cursor().First(); k != nil {
			return fmt.Errorf("%w: key attributes changed from (%q, %q) to (%q, %q) on a non-empty table",
				store.ErrInvalid, old.PK, old.SK, cur.PK, cur.SK)
		}
		known = false // empty table: start afresh
	}

	// Drop the derived buckets the schema no longer has or has changed.
	for name, def := range old.Indexes {
		if now, ok := cur.Indexes[name]; !known || !ok || now != def {
			if err := deleteBucketIfExists(tx, indexBucketName(t.s.Name, name)); err != nil {
				return err
			}
		}
	}
	if !known || old.TTL != cur.TTL {
		if err := deleteBucketIfExists(tx, t.xBucketName()); err != nil {
			return err
		}
	}

	// Create the missing ones and fill them from the items.
	var rebuild []int
	for i, ix := range t.ixs {
		if tx.Bucket(ix.bucket) == nil {
			if _, err := tx.CreateBucket(ix.bucket); err != nil {
				return fmt.Errorf("create index %s: %w", ix.ix.Name, err)
			}
			rebuild = append(rebuild, i)
		}
	}
	rebuildTTL := false
	if t.xBucket != nil && tx.Bucket(t.xBucket) == nil {
		if _, err := tx.CreateBucket(t.xBucket); err != nil {
			return fmt.Errorf("create expiry bucket: %w", err)
		}
		rebuildTTL = true
	}
	if len(rebuild) > 0 || rebuildTTL {
		if err := t.rebuild(tx, tb, rebuild, rebuildTTL); err != nil {
			return err
		}
	}

	raw, err := json.Marshal(cur)
	if err != nil {
		return fmt.Errorf("store schema: %w", err)
	}
	if err := mb.Put([]byte(t.s.Name), raw); err != nil {
		return fmt.Errorf("store schema: %w", err)
	}
	return nil
}

func deleteBucketIfExists(tx *bbolt.Tx, name []byte) error {
	if tx.Bucket(name) == nil {
		return nil
	}
	if err := tx.DeleteBucket(name); err != nil {
		return fmt.Errorf("drop bucket %q: %w", name, err)
	}
	return nil
}

// rebuild fills new index and expiry buckets from the table: the one place
// that scans a table, and only when the schema changed.
func (t *table) rebuild(tx *bbolt.Tx, tb *bbolt.Bucket, ixs []int, ttl bool) error {
	return tb.ForEach(func(tk, v []byte) error {
		it, err := store.DecodeItem(v)
		if err != nil {
			return fmt.Errorf("rebuild from item %q: %w", tk, err)
		}
		tk = bytes.Clone(tk) // stored as a value: must outlive the cursor position
		for _, i := range ixs {
			ix := t.ixs[i]
			gk, ok, err := store.IndexKey(ix.ix, it)
			if err != nil {
				// Written before the index existed: leave it out rather
				// than refuse to open the file.
				continue
			}
			if ok {
				if err := tx.Bucket(ix.bucket).Put(indexKey(gk, tk), tk); err != nil {
					return fmt.Errorf("rebuild index %s: %w", ix.ix.Name, err)
				}
			}
		}
		if ttl {
			if exp, ok := store.ExpiryOf(t.s, it); ok {
				if err := tx.Bucket(t.xBucket).Put(expiryKey(exp, tk), nil); err != nil {
					return fmt.Errorf("rebuild expiry index: %w", err)
				}
			}
		}
		return nil
	})
}

// Transact applies every operation or none, in one bbolt write transaction:
// all conditions are evaluated first (the first failing one yields a
// *store.TxConditionError with its position), then all writes are applied.
func (db *DB) Transact(ctx context.Context, ops ...store.TxOp) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bolt: transact: %w", err)
	}
	if len(ops) > store.MaxTxOps {
		return fmt.Errorf("bolt: transact: %w: %d operations, over the limit of %d", store.ErrInvalid, len(ops), store.MaxTxOps)
	}
	if len(ops) == 0 {
		return nil
	}
	preps, err := db.prepareTx(ops)
	if err != nil {
		return err
	}
	err = db.bdb.Update(func(tx *bbolt.Tx) error {
		olds, err := checkTx(tx, ops, preps)
		if err != nil {
			return err
		}
		return applyTx(tx, ops, preps, olds)
	})
	if err != nil {
		return fmt.Errorf("bolt: transact: %w", err)
	}
	return nil
}

// txPrep is one transaction operation resolved before the write
// transaction: its table, its key in the table bucket and, for a TxPut,
// the record to write.
type txPrep struct {
	t   *table
	tk  []byte
	rec record // TxPut
}

// prepareTx validates every operation outside the write transaction and
// refuses two operations on the same item, as DynamoDB does.
func (db *DB) prepareTx(ops []store.TxOp) ([]txPrep, error) {
	preps := make([]txPrep, len(ops))
	seen := make(map[string]int, len(ops))
	for i, op := range ops {
		t, ok := db.tables[op.Table]
		if !ok {
			return nil, fmt.Errorf("bolt: transact: operation %d: %w: unknown table %q", i, store.ErrInvalid, op.Table)
		}
		if err := store.ValidateCond(op.Cond); err != nil {
			return nil, fmt.Errorf("bolt: transact: operation %d on %s: %w", i, op.Table, err)
		}
		k, rec, err := t.prepareTxOp(op)
		if err != nil {
			return nil, fmt.Errorf("bolt: transact: operation %d on %s: %w", i, op.Table, err)
		}
		p := txPrep{t: t, tk: tableKey(k), rec: rec}
		id := op.Table + "\x00" + string(p.tk)
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("bolt: transact: %w: operations %d and %d both target %s %q/%q", store.ErrInvalid, j, i, op.Table, k.PK, k.SK)
		}
		seen[id] = i
		preps[i] = p
	}
	return preps, nil
}

// prepareTxOp checks one operation against t's schema and returns the key
// it targets and, for a TxPut, the record to write.
func (t *table) prepareTxOp(op store.TxOp) (k store.Key, rec record, err error) {
	switch op.Kind {
	case store.TxPut:
		k, rec, err = t.preparePut(op.Item)
	case store.TxUpdate:
		if err = store.CheckKey(t.s, op.Key); err == nil {
			err = store.ValidateUpdate(t.s, op.Update)
		}
		k = op.Key
	case store.TxDelete:
		err = store.CheckKey(t.s, op.Key)
		k = op.Key
	case store.TxCheck:
		err = store.CheckKey(t.s, op.Key)
		if err == nil && op.Cond == nil {
			err = fmt.Errorf("%w: check without a condition", store.ErrInvalid)
		}
		k = op.Key
	default:
		err = fmt.Errorf("%w: unknown operation kind %d", store.ErrInvalid, op.Kind)
	}
	return k, rec, err
}

// checkTx loads every operation's item and evaluates its condition, before
// any write: the first failing one yields a *store.TxConditionError.
func checkTx(tx *bbolt.Tx, ops []store.TxOp, preps []txPrep) ([]store.Item, error) {
	olds := make([]store.Item, len(ops))
	for i, op := range ops {
		p := preps[i]
		// Every kind but a bare Put needs the old item to write, and a
		// Put needs it for its condition and index upkeep.
		old, err := p.t.load(tx, p.tk, true)
		if err != nil {
			return nil, err
		}
		if !store.EvalCond(op.Cond, old) {
			return nil, &store.TxConditionError{Index: i}
		}
		olds[i] = old
	}
	return olds, nil
}

// applyTx applies the writes of a transaction whose conditions all hold;
// olds are the items as checkTx loaded them.
func applyTx(tx *bbolt.Tx, ops []store.TxOp, preps []txPrep, olds []store.Item) error {
	for i, op := range ops {
		p, old := preps[i], olds[i]
		switch op.Kind {
		case store.TxPut:
			if err := p.t.write(tx, p.tk, old, p.rec); err != nil {
				return err
			}
		case store.TxUpdate:
			if _, err := p.t.applyUpdate(tx, p.tk, op.Key, old, op.Update); err != nil {
				return fmt.Errorf("operation %d on %s: %w", i, op.Table, err)
			}
		case store.TxDelete:
			if old != nil {
				if err := p.t.remove(tx, p.tk, old); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
