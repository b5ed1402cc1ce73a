package bolt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/store"
	bbolt "go.etcd.io/bbolt"
)

// Page sizes of Query: DynamoDB pages by 1 MB, a count is the closest
// predictable equivalent.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

type index struct {
	ix     store.Index
	bucket []byte
}

type table struct {
	db      *DB
	s       store.Schema
	tBucket []byte
	ixs     []index
	xBucket []byte // nil when the table has no TTL
	// needOld tells whether a write must decode the item it replaces even
	// without a condition: to remove its index and expiry entries.
	needOld bool
}

func newTable(db *DB, s store.Schema) *table {
	t := &table{db: db, s: s, tBucket: []byte("t\x00" + s.Name)}
	for _, ix := range s.Indexes {
		t.ixs = append(t.ixs, index{ix: ix, bucket: indexBucketName(s.Name, ix.Name)})
	}
	if s.TTL != "" {
		t.xBucket = t.xBucketName()
	}
	t.needOld = len(t.ixs) > 0 || t.xBucket != nil
	return t
}

func indexBucketName(tableName, indexName string) []byte {
	return []byte("i\x00" + tableName + "\x00" + indexName)
}

func (t *table) xBucketName() []byte { return []byte("x\x00" + t.s.Name) }

// tableKey is pk 0x00 sk: NUL sorts before every other byte and key values
// cannot contain it, so a partition is the contiguous range of keys
// prefixed by pk 0x00 and, inside it, keys order as their sort keys.
func tableKey(k store.Key) []byte {
	b := make([]byte, 0, len(k.PK)+1+len(k.SK))
	b = append(b, k.PK...)
	b = append(b, 0)
	return append(b, k.SK...)
}

// indexKey is gpk 0x00 gsk 0x00 tk: the table key makes entries of items
// sharing an index key distinct, and orders them.
func indexKey(gk store.Key, tk []byte) []byte {
	b := make([]byte, 0, len(gk.PK)+len(gk.SK)+2+len(tk))
	b = append(b, gk.PK...)
	b = append(b, 0)
	b = append(b, gk.SK...)
	b = append(b, 0)
	return append(b, tk...)
}

// expiryKey is the 8-byte big-endian expiry then the table key, so the
// expired entries are the head of the bucket. Expiries before the epoch
// count as 0: all that matters is that they are in the past.
func expiryKey(exp int64, tk []byte) []byte {
	b := make([]byte, 8, 8+len(tk))
	binary.BigEndian.PutUint64(b, uint64(max(exp, 0)))
	return append(b, tk...)
}

// record is an item ready to be written: its encoding and derived keys.
type record struct {
	enc    []byte
	ixKeys [][]byte // per index of the table; nil when not indexed
	exp    int64
	hasExp bool
}

// makeRecord encodes it (validating every value) and computes its index and
// expiry keys, outside any transaction when possible.
func (t *table) makeRecord(tk []byte, it store.Item) (record, error) {
	enc, err := store.EncodeItem(it)
	if err != nil {
		return record{}, err
	}
	r := record{enc: enc}
	if len(t.ixs) > 0 {
		r.ixKeys = make([][]byte, len(t.ixs))
		for i, ix := range t.ixs {
			gk, ok, err := store.IndexKey(ix.ix, it)
			if err != nil {
				return record{}, err
			}
			if ok {
				r.ixKeys[i] = indexKey(gk, tk)
			}
		}
	}
	r.exp, r.hasExp = store.ExpiryOf(t.s, it)
	return r, nil
}

func (t *table) preparePut(it store.Item) (store.Key, record, error) {
	k, err := store.ValidateKey(t.s, it)
	if err != nil {
		return store.Key{}, record{}, err
	}
	r, err := t.makeRecord(tableKey(k), it)
	return k, r, err
}

// load returns the item stored at tk in a write transaction, nil when absent.
// It decodes only when needed (need, or index/expiry upkeep), returning an
// empty non-nil item for "present but not decoded".
func (t *table) load(tx *bbolt.Tx, tk []byte, need bool) (store.Item, error) {
	raw := tx.Bucket(t.tBucket).Get(tk)
	if raw == nil {
		return nil, nil
	}
	if !need && !t.needOld {
		return store.Item{}, nil
	}
	it, err := store.DecodeItem(raw)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", tk, err)
	}
	return it, nil
}

// write stores r at tk, replacing old (nil when absent), and moves the
// item's index and expiry entries accordingly.
func (t *table) write(tx *bbolt.Tx, tk []byte, old store.Item, r record) error {
	for i, ix := range t.ixs {
		var oldKey []byte
		if old != nil {
			if gk, ok, _ := store.IndexKey(ix.ix, old); ok {
				oldKey = indexKey(gk, tk)
			}
		}
		newKey := r.ixKeys[i]
		if oldKey != nil && newKey != nil && bytes.Equal(oldKey, newKey) {
			continue
		}
		b := tx.Bucket(ix.bucket)
		if oldKey != nil {
			if err := b.Delete(oldKey); err != nil {
				return fmt.Errorf("index %s: %w", ix.ix.Name, err)
			}
		}
		if newKey != nil {
			if err := b.Put(newKey, tk); err != nil {
				return fmt.Errorf("index %s: %w", ix.ix.Name, err)
			}
		}
	}
	if t.xBucket != nil {
		oldExp, oldHas := store.ExpiryOf(t.s, old)
		if oldHas != r.hasExp || max(oldExp, 0) != max(r.exp, 0) {
			b := tx.Bucket(t.xBucket)
			if oldHas {
				if err := b.Delete(expiryKey(oldExp, tk)); err != nil {
					return fmt.Errorf("expiry index: %w", err)
				}
			}
			if r.hasExp {
				if err := b.Put(expiryKey(r.exp, tk), nil); err != nil {
					return fmt.Errorf("expiry index: %w", err)
				}
			}
		}
	}
	if err := tx.Bucket(t.tBucket).Put(tk, r.enc); err != nil {
		return fmt.Errorf("write %q: %w", tk, err)
	}
	return t.recordChange(tx, tk, r.enc)
}

// remove deletes the item at tk, its index and expiry entries, and records
// the deletion in the change feed of a stream table.
func (t *table) remove(tx *bbolt.Tx, tk []byte, old store.Item) error {
	if err := t.drop(tx, tk, old); err != nil {
		return err
	}
	return t.recordChange(tx, tk, nil)
}

// drop deletes the item at tk and its index and expiry entries. The TTL
// sweeper drops expired items without a change: DynamoDB marks such
// deletions as the service's, and the feed's consumers read new images.
func (t *table) drop(tx *bbolt.Tx, tk []byte, old store.Item) error {
	for _, ix := range t.ixs {
		if gk, ok, _ := store.IndexKey(ix.ix, old); ok {
			if err := tx.Bucket(ix.bucket).Delete(indexKey(gk, tk)); err != nil {
				return fmt.Errorf("index %s: %w", ix.ix.Name, err)
			}
		}
	}
	if t.xBucket != nil {
		if exp, ok := store.ExpiryOf(t.s, old); ok {
			if err := tx.Bucket(t.xBucket).Delete(expiryKey(exp, tk)); err != nil {
				return fmt.Errorf("expiry index: %w", err)
			}
		}
	}
	if err := tx.Bucket(t.tBucket).Delete(tk); err != nil {
		return fmt.Errorf("delete %q: %w", tk, err)
	}
	return nil
}

// applyUpdate applies u to old (nil when absent) and writes the result.
func (t *table) applyUpdate(tx *bbolt.Tx, tk []byte, k store.Key, old store.Item, u store.Update) (record, error) {
	it, err := store.ApplyUpdate(old, k, t.s, u)
	if err != nil {
		return record{}, err
	}
	r, err := t.makeRecord(tk, it)
	if err != nil {
		return record{}, err
	}
	return r, t.write(tx, tk, old, r)
}

func (t *table) errorf(op string, err error) error {
	return fmt.Errorf("bolt: %s %s: %w", op, t.s.Name, err)
}

// Get reads the item in a View transaction, concurrent with other readers
// and with the writer.
func (t *table) Get(ctx context.Context, k store.Key) (store.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, t.errorf("get", err)
	}
	if err := store.CheckKey(t.s, k); err != nil {
		return nil, t.errorf("get", err)
	}
	tk := tableKey(k)
	var it store.Item
	err := t.db.bdb.View(func(tx *bbolt.Tx) error {
		raw := tx.Bucket(t.tBucket).Get(tk)
		if raw == nil {
			return store.ErrNotFound
		}
		var err error
		it, err = store.DecodeItem(raw) // copies: raw dies with the transaction
		return err
	})
	if err != nil {
		return nil, t.errorf("get", err)
	}
	if t.xBucket != nil && store.Expired(t.s, it, t.db.now()) {
		return nil, t.errorf("get", store.ErrNotFound)
	}
	return it, nil
}

// Put writes the whole item if cond holds on the one it replaces.
func (t *table) Put(ctx context.Context, it store.Item, cond *store.Cond) error {
	if err := store.CheckWrite(ctx, t.s, nil, cond); err != nil {
		return t.errorf("put", err)
	}
	k, r, err := t.preparePut(it)
	if err != nil {
		return t.errorf("put", err)
	}
	tk := tableKey(k)
	err = t.db.bdb.Update(func(tx *bbolt.Tx) error {
		old, err := t.load(tx, tk, cond != nil)
		if err != nil {
			return err
		}
		if !store.EvalCond(cond, old) {
			return store.ErrConditionFailed
		}
		return t.write(tx, tk, old, r)
	})
	if err != nil {
		return t.errorf("put", err)
	}
	return nil
}

// Update applies u to the item (creating it when absent) if cond holds, and
// returns the item as stored, decoded with the read rules (so 3.0 reads back
// as int64 3 here as in Get).
func (t *table) Update(ctx context.Context, k store.Key, u store.Update, cond *store.Cond) (store.Item, error) {
	if err := store.CheckWrite(ctx, t.s, &k, cond); err != nil {
		return nil, t.errorf("update", err)
	}
	if err := store.ValidateUpdate(t.s, u); err != nil {
		return nil, t.errorf("update", err)
	}
	tk := tableKey(k)
	var r record
	err := t.db.bdb.Update(func(tx *bbolt.Tx) error {
		old, err := t.load(tx, tk, true)
		if err != nil {
			return err
		}
		if !store.EvalCond(cond, old) {
			return store.ErrConditionFailed
		}
		r, err = t.applyUpdate(tx, tk, k, old, u)
		return err
	})
	if err != nil {
		return nil, t.errorf("update", err)
	}
	// Decoded after the commit, to keep the write lock short.
	it, err := store.DecodeItem(r.enc)
	if err != nil {
		return nil, t.errorf("update", err)
	}
	return it, nil
}

// Delete removes the item if cond holds; an absent item with no condition is
// not an error.
func (t *table) Delete(ctx context.Context, k store.Key, cond *store.Cond) error {
	if err := store.CheckWrite(ctx, t.s, &k, cond); err != nil {
		return t.errorf("delete", err)
	}
	tk := tableKey(k)
	err := t.db.bdb.Update(func(tx *bbolt.Tx) error {
		old, err := t.load(tx, tk, cond != nil)
		if err != nil {
			return err
		}
		if !store.EvalCond(cond, old) {
			return store.ErrConditionFailed
		}
		if old == nil {
			return nil
		}
		return t.remove(tx, tk, old)
	})
	if err != nil {
		return t.errorf("delete", err)
	}
	return nil
}

// keyRange is the part of a bucket a query reads: keys k with
// bytes.HasPrefix(k, prefix), lo <= k and (hi == nil or k < hi).
type keyRange struct {
	prefix, lo, hi []byte
}

// sortRange turns a sort key condition into a key range within the partition
// whose keys start with part (pk 0x00, or gpk 0x00 for an index). It relies
// on sort values never containing NUL: after the sort key a table key ends
// and an index key continues with 0x00, so "sort key < v" is "key < part+v"
// and "sort key <= v" is "key < part+v+0x01" for both kinds of bucket.
func sortRange(part []byte, c store.SortCond) keyRange {
	with := func(v string, extra ...byte) []byte {
		b := make([]byte, 0, len(part)+len(v)+len(extra))
		b = append(b, part...)
		b = append(b, v...)
		return append(b, extra...)
	}
	r := keyRange{prefix: part, lo: part}
	switch c.Op {
	case store.SortEq:
		r.lo, r.hi = with(c.Value), with(c.Value, 1)
	case store.SortLt:
		r.hi = with(c.Value)
	case store.SortLe:
		r.hi = with(c.Value, 1)
	case store.SortGt:
		r.lo = with(c.Value, 1)
	case store.SortGe:
		r.lo = with(c.Value)
	case store.SortBetween:
		r.lo, r.hi = with(c.Value), with(c.Value2, 1)
	case store.SortBeginsWith:
		r.prefix = with(c.Value)
		r.lo = r.prefix
	}
	return r
}

func (r keyRange) contains(k []byte) bool {
	return k != nil && bytes.HasPrefix(k, r.prefix) && bytes.Compare(k, r.lo) >= 0 &&
		(r.hi == nil || bytes.Compare(k, r.hi) < 0)
}

// end is the exclusive upper bound of the range, nil for "end of bucket".
func (r keyRange) end() []byte {
	if r.hi != nil {
		return r.hi
	}
	// The smallest key above every key with the prefix: increment the last
	// byte that is not 0xff.
	end := bytes.Clone(r.prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Query reads one page of a partition of the table or of an index in a View
// transaction. The cursor is the base64url of the last key read in the
// bucket queried (for an index that key embeds the table key, so items
// sharing an index key resume exactly). Next is set only when another
// visible item follows, so the last page never points at an empty one.
func (t *table) Query(ctx context.Context, q store.Query) (store.Page, error) {
	if err := ctx.Err(); err != nil {
		return store.Page{}, t.errorf("query", err)
	}
	if err := store.ValidateQuery(t.s, q); err != nil {
		return store.Page{}, t.errorf("query", err)
	}
	limit := q.Limit
	switch {
	case limit == 0:
		limit = defaultPageSize
	case limit > maxPageSize:
		limit = maxPageSize
	}
	bucket := t.tBucket
	if q.Index != "" {
		for _, ix := range t.ixs {
			if ix.ix.Name == q.Index {
				bucket = ix.bucket
			}
		}
	}
	part := append([]byte(q.PK), 0)
	r := sortRange(part, q.SK)
	after, err := decodeCursor(part, q.After)
	if err != nil {
		return store.Page{}, t.errorf("query", err)
	}
	now := t.db.now()
	var page store.Page
	err = t.db.bdb.View(func(tx *bbolt.Tx) error {
		var err error
		page, err = t.readPage(tx, bucket, q, r, after, limit, now)
		return err
	})
	if err != nil {
		return store.Page{}, t.errorf("query", err)
	}
	return page, nil
}

// decodeCursor returns the key a query resumes after, nil without a
// cursor; a cursor of another partition is refused.
func decodeCursor(part []byte, cursor string) ([]byte, error) {
	if cursor == "" {
		return nil, nil
	}
	after, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || !bytes.HasPrefix(after, part) {
		return nil, fmt.Errorf("%w: cursor %q does not belong to this partition", store.ErrInvalid, cursor)
	}
	return after, nil
}

// readPage reads up to limit items visible at now from the range r of
// bucket, past the key after (nil for the first page), in q's order.
func (t *table) readPage(tx *bbolt.Tx, bucket []byte, q store.Query, r keyRange, after []byte, limit int, now time.Time) (store.Page, error) {
	var page store.Page
	c := tx.Bucket(bucket).Cursor()
	tb := tx.Bucket(t.tBucket)
	k, v := seekFirst(c, r, after, q.Desc)
	step := c.Next
	if q.Desc {
		step = c.Prev
	}
	var last []byte
	for ; r.contains(k); k, v = step() {
		raw := v
		if q.Index != "" {
			if raw = tb.Get(v); raw == nil {
				return page, fmt.Errorf("index %s entry %q points to missing item %q", q.Index, k, v)
			}
		}
		if len(page.Items) == limit && t.xBucket == nil {
			// Without TTL every item in range is visible: no need to
			// decode this one to know that more follow.
			page.Next = base64.RawURLEncoding.EncodeToString(last)
			return page, nil
		}
		it, err := store.DecodeItem(raw)
		if err != nil {
			return page, fmt.Errorf("read %q: %w", k, err)
		}
		if t.xBucket != nil && store.Expired(t.s, it, now) {
			continue
		}
		if len(page.Items) == limit {
			page.Next = base64.RawURLEncoding.EncodeToString(last)
			return page, nil
		}
		page.Items = append(page.Items, it)
		last = k
	}
	return page, nil
}

// seekFirst positions c on the first key a page reads: the start of r
// (its end when desc), or the key past after when resuming. The key
// returned may lie outside r: the caller stops there.
func seekFirst(c *bbolt.Cursor, r keyRange, after []byte, desc bool) (k, v []byte) {
	if !desc {
		start := r.lo
		if after != nil && bytes.Compare(after, start) >= 0 {
			start = after
		}
		k, v = c.Seek(start)
		if after != nil && bytes.Equal(k, after) {
			k, v = c.Next()
		}
		return k, v
	}
	end := r.end()
	if after != nil && (end == nil || bytes.Compare(after, end) < 0) {
		end = after
	}
	if end == nil {
		k, v = c.Last()
	} else if k, _ = c.Seek(end); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	return k, v
}
