// Package store is the table port: a small key-value interface shaped after
// DynamoDB (partition key, sort key, sparse global secondary indexes, TTL,
// conditional writes, atomic counters, transactions). Repositories are written
// once against it; drivers (store/bolt, store/dynamo) implement it with the
// same observable semantics, checked by the contract suite in store/storetest.
//
// Rules every driver follows (see docs/tables.md):
//   - Key attributes (table and index keys) are strings, compared bytewise,
//     which is DynamoDB's order for S keys. A key value may not be empty
//     and may not contain a NUL byte.
//   - Item values are string, int64, float64, bool, []byte, []string, []any,
//     map[string]any or nil. Other Go integer kinds are widened to int64 on
//     write. Numbers read back as int64 when integral, float64 otherwise;
//     lists of strings read back as []string, other lists as []any.
//   - An index is sparse: an item appears in it only when it carries both the
//     index's key attributes as non-empty strings. Index queries return whole
//     items (projection ALL).
//   - Items whose TTL attribute (epoch seconds) is at or before now are
//     invisible to Get and Query; their physical deletion is eventual, and
//     conditions still see them, so a repository never relies on expiry to
//     make a conditional write succeed.
//   - Nothing here scans a table: every read names a partition.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned by Get when no visible item has the key.
var ErrNotFound = errors.New("store: item not found")

// ErrConditionFailed is returned when a write's condition does not hold; the
// write (or the whole transaction) changed nothing.
var ErrConditionFailed = errors.New("store: condition failed")

// TxConditionError tells which operation of a transaction failed its
// condition. It matches ErrConditionFailed with errors.Is.
type TxConditionError struct {
	Index int // position of the failed operation in the Transact call
}

func (e *TxConditionError) Error() string {
	return fmt.Sprintf("store: transaction cancelled: condition of operation %d failed", e.Index)
}

// Is makes errors.Is(err, ErrConditionFailed) true for a failed transaction.
func (e *TxConditionError) Is(target error) bool { return target == ErrConditionFailed }

// MaxTxOps is the largest transaction DynamoDB accepts.
const MaxTxOps = 100

// Item is one row: attribute name to value.
type Item map[string]any

// Key names an item by its partition and sort key values.
type Key struct {
	PK string
	SK string
}

// Index describes a global secondary index.
type Index struct {
	Name string
	PK   string // attribute holding the index partition key
	SK   string // attribute holding the index sort key
}

// Schema describes one table.
type Schema struct {
	Name    string
	PK      string // attribute name of the partition key
	SK      string // attribute name of the sort key
	Indexes []Index
	TTL     string // attribute holding the expiry in epoch seconds; "" for none
	Stream  bool   // the table publishes a change feed (events table)
}

// DB is a set of tables opened with their schemas.
type DB interface {
	// Table returns the named table. It panics if the name was not among the
	// schemas the DB was opened with: that is a wiring bug, not a runtime case.
	Table(name string) Table
	// Transact applies every operation or none (at most MaxTxOps, at most one
	// operation per item). A failed condition yields a *TxConditionError.
	Transact(ctx context.Context, ops ...TxOp) error
	Close() error
}

// Table is one table of a DB.
type Table interface {
	// Get returns the item with the key, or ErrNotFound. Reads are strongly
	// consistent.
	Get(ctx context.Context, k Key) (Item, error)
	// Put writes the whole item (its key attributes included), replacing any
	// item with the same key, if cond (nil for none) holds on the old item.
	Put(ctx context.Context, it Item, cond *Cond) error
	// Update applies u to the item with the key, creating it when absent (as
	// DynamoDB's UpdateItem does; guard with Exists(pk) to forbid that), if
	// cond holds. It returns the item as it is after the update.
	Update(ctx context.Context, k Key, u Update, cond *Cond) (Item, error)
	// Delete removes the item if cond holds. Deleting an absent item with no
	// condition is not an error.
	Delete(ctx context.Context, k Key, cond *Cond) error
	// Query reads one partition of the table or of an index, in sort key
	// order (reverse when Desc), one page at a time.
	Query(ctx context.Context, q Query) (Page, error)
}

// Query selects items of one partition.
type Query struct {
	Index string // "" queries the table itself
	PK    string // partition key value (required)
	SK    SortCond
	Limit int    // at most this many items in the page; 0 means the driver's page size
	Desc  bool   // descending sort key order
	After string // resume after this cursor (Page.Next of the previous page)
}

// Page is one page of a Query. Next is empty when there is nothing more.
type Page struct {
	Items []Item
	Next  string
}

// SortOp is a sort key condition operator.
type SortOp int

// Sort key conditions, as in a DynamoDB key condition expression.
const (
	SortAny SortOp = iota // no condition on the sort key
	SortEq
	SortLt
	SortLe
	SortGt
	SortGe
	SortBetween // Value <= sk <= Value2
	SortBeginsWith
)

// SortCond restricts the sort key of a Query.
type SortCond struct {
	Op     SortOp
	Value  string
	Value2 string // upper bound of SortBetween
}

// BeginsWith is the common sort key condition.
func BeginsWith(prefix string) SortCond { return SortCond{Op: SortBeginsWith, Value: prefix} }

// CondOp is a condition expression operator.
type CondOp int

// Condition operators. Comparisons hold only between values of the same kind
// (numbers with numbers, strings with strings bytewise); a missing attribute
// makes every comparison false, as in DynamoDB.
const (
	CondExists CondOp = iota + 1
	CondNotExists
	CondEq
	CondNe // true when the attribute is missing or differs
	CondLt
	CondLe
	CondGt
	CondGe
	CondAnd
	CondOr
	CondNot
)

// Cond is a condition expression on the item a write replaces.
type Cond struct {
	Op    CondOp
	Attr  string
	Value any
	Sub   []*Cond
}

// Exists holds when the attribute is present.
func Exists(attr string) *Cond { return &Cond{Op: CondExists, Attr: attr} }

// NotExists holds when the attribute is absent (or the item is absent).
func NotExists(attr string) *Cond { return &Cond{Op: CondNotExists, Attr: attr} }

// Eq holds when the attribute equals v.
func Eq(attr string, v any) *Cond { return &Cond{Op: CondEq, Attr: attr, Value: v} }

// Ne holds when the attribute is absent or differs from v.
func Ne(attr string, v any) *Cond { return &Cond{Op: CondNe, Attr: attr, Value: v} }

// Lt holds when the attribute is less than v.
func Lt(attr string, v any) *Cond { return &Cond{Op: CondLt, Attr: attr, Value: v} }

// Le holds when the attribute is at most v.
func Le(attr string, v any) *Cond { return &Cond{Op: CondLe, Attr: attr, Value: v} }

// Gt holds when the attribute is greater than v.
func Gt(attr string, v any) *Cond { return &Cond{Op: CondGt, Attr: attr, Value: v} }

// Ge holds when the attribute is at least v.
func Ge(attr string, v any) *Cond { return &Cond{Op: CondGe, Attr: attr, Value: v} }

// And holds when every sub-condition holds.
func And(c ...*Cond) *Cond { return &Cond{Op: CondAnd, Sub: c} }

// Or holds when one sub-condition holds.
func Or(c ...*Cond) *Cond { return &Cond{Op: CondOr, Sub: c} }

// Not negates c.
func Not(c *Cond) *Cond { return &Cond{Op: CondNot, Sub: []*Cond{c}} }

// UpdateKind is the kind of one update action.
type UpdateKind int

// Update actions, as in a DynamoDB update expression.
const (
	UpdSet         UpdateKind = iota + 1
	UpdSetIfAbsent            // SET a = if_not_exists(a, v)
	UpdAdd                    // ADD a n: atomic counter, absent counts as 0
	UpdRemove
)

// UpdateAction is one action of an Update.
type UpdateAction struct {
	Kind  UpdateKind
	Attr  string
	Value any   // UpdSet, UpdSetIfAbsent
	Delta int64 // UpdAdd
}

// Update is a list of actions applied together. Key attributes cannot be
// updated.
type Update []UpdateAction

// Set sets attr to v.
func (u Update) Set(attr string, v any) Update {
	return append(u, UpdateAction{Kind: UpdSet, Attr: attr, Value: v})
}

// SetIfAbsent sets attr to v only when attr is absent.
func (u Update) SetIfAbsent(attr string, v any) Update {
	return append(u, UpdateAction{Kind: UpdSetIfAbsent, Attr: attr, Value: v})
}

// Add adds delta to the numeric attr (absent counts as 0).
func (u Update) Add(attr string, delta int64) Update {
	return append(u, UpdateAction{Kind: UpdAdd, Attr: attr, Delta: delta})
}

// Remove deletes attr from the item.
func (u Update) Remove(attr string) Update {
	return append(u, UpdateAction{Kind: UpdRemove, Attr: attr})
}

// TxKind is the kind of one transaction operation.
type TxKind int

// Transaction operations.
const (
	TxPut TxKind = iota + 1
	TxUpdate
	TxDelete
	TxCheck // condition only, writes nothing
)

// TxOp is one operation of a transaction.
type TxOp struct {
	Table  string
	Kind   TxKind
	Item   Item   // TxPut
	Key    Key    // TxUpdate, TxDelete, TxCheck
	Update Update // TxUpdate
	Cond   *Cond
}

// PutOp builds a transactional put.
func PutOp(table string, it Item, cond *Cond) TxOp {
	return TxOp{Table: table, Kind: TxPut, Item: it, Cond: cond}
}

// UpdateOp builds a transactional update.
func UpdateOp(table string, k Key, u Update, cond *Cond) TxOp {
	return TxOp{Table: table, Kind: TxUpdate, Key: k, Update: u, Cond: cond}
}

// DeleteOp builds a transactional delete.
func DeleteOp(table string, k Key, cond *Cond) TxOp {
	return TxOp{Table: table, Kind: TxDelete, Key: k, Cond: cond}
}

// CheckOp builds a transactional condition check.
func CheckOp(table string, k Key, cond *Cond) TxOp {
	return TxOp{Table: table, Kind: TxCheck, Key: k, Cond: cond}
}

// Change is one committed write of a table whose schema has Stream: the
// written item's key and its whole image after the write (nil for a
// delete). It is what a DynamoDB stream record with NEW_IMAGE carries.
type Change struct {
	// Seq is the change's position in its table's feed: increasing in
	// commit order, opaque to callers, usable as a cursor.
	Seq   string
	Table string
	Key   Key
	New   Item
}

// Feed is the change feed of a driver that publishes one in process (the
// embedded driver; on AWS the DynamoDB stream of the table feeds a Lambda
// instead). A change is recorded in the same commit as its write, so a
// write is never visible without its change, and changes survive a
// restart until trimmed. Delivery is at least once: a consumer processes
// the changes it read, then trims up to the last one; a consumer that dies
// before trimming reads them again.
type Feed interface {
	// Changes returns up to max (1 to 1000) changes of the table after the
	// cursor after ("" for the oldest kept), in commit order, waiting at
	// most wait for the first one when there is none yet. It returns an
	// empty list, not an error, when wait passes; ctx ending returns its
	// error.
	Changes(ctx context.Context, table, after string, max int, wait time.Duration) ([]Change, error)
	// Trim drops the changes of the table up to and including the cursor
	// upTo (a Seq it returned).
	Trim(ctx context.Context, table, upTo string) error
}
