// Package dynamo is the DynamoDB driver of the table port (store.DB), on
// aws-sdk-go-v2. It has the observable semantics of the bolt driver, as
// checked by store/storetest, and costs one DynamoDB request per Get, Put,
// Update, Delete, Query page and Transact (docs/dynamodb.md).
//
// The mapping in short:
//   - Get is a strongly consistent GetItem; an item past its TTL is hidden
//     (DynamoDB deletes expired items up to days later).
//   - Put, Update and Delete are PutItem, UpdateItem (ReturnValues ALL_NEW)
//     and DeleteItem with a ConditionExpression translated from store.Cond;
//     a failed condition is store.ErrConditionFailed.
//   - Query is one Query request (ConsistentRead on the table, eventually
//     consistent on a GSI, which DynamoDB cannot read otherwise), asking for
//     one item more than the page so that Next is empty exactly when the
//     partition is exhausted.
//   - Transact is TransactWriteItems; the first ConditionalCheckFailed
//     cancellation reason becomes a *store.TxConditionError, and a
//     cancellation due to contention alone (TransactionConflict) is tried
//     again a few times, as bolt's serialised writes never fail that way.
//   - Requests the store would refuse are refused before any network call
//     with the store's validators, and DynamoDB's ValidationException (a
//     number out of DynamoDB's range, an item over 400 KB, an ADD on a
//     string) wraps store.ErrInvalid too.
//
// Index key attributes holding a value a GSI key cannot hold (not a
// non-empty string) are stored under a shadow name; see shadowPrefix.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/prospectdata/svc/shared/store"
)

// Option configures New.
type Option func(*config)

type config struct {
	now func() time.Time
}

// WithClock replaces time.Now for TTL decisions (which items Get and Query
// hide), so that tests control expiry without sleeping. Expiry is decided
// by the driver, not by DynamoDB, whose deletion of expired items lags.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// DB is a set of DynamoDB tables. It is safe for concurrent use, as is the
// client it wraps.
type DB struct {
	client *dynamodb.Client
	tables map[string]*table
	now    func() time.Time
}

var (
	_ store.DB    = (*DB)(nil)
	_ store.Table = (*table)(nil)
)

type table struct {
	db   *DB
	s    store.Schema
	name string // physical table name
	// ixAttrs maps the index key attributes that are not table key
	// attributes to the size limit of their values (the sort key limit when
	// some index uses the attribute as its sort key). Those are the
	// attributes that may be shadowed.
	ixAttrs map[string]int
	// hasTTL tells whether reads must hide expired items.
	hasTTL bool
}

// New returns the tables of schemas on client. names maps a schema name to
// its physical table name (on AWS the CDK generates the names and passes
// them in the environment); a schema without an entry uses its own name.
// Index names are used as they are. New makes no request: it cannot fail on
// a missing table, which the first request reports instead.
//
// New panics on schemas that declare a table twice or without a partition
// key, or use an attribute name the driver reserves: a wiring bug, as is an
// unknown name given to Table.
func New(client *dynamodb.Client, schemas []store.Schema, names map[string]string, opts ...Option) *DB {
	cfg := config{now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	db := &DB{client: client, tables: make(map[string]*table, len(schemas)), now: cfg.now}
	for _, s := range schemas {
		if err := validateSchema(s); err != nil {
			panic(fmt.Sprintf("dynamo: %v", err))
		}
		if _, dup := db.tables[s.Name]; dup {
			panic(fmt.Sprintf("dynamo: table %s declared twice", s.Name))
		}
		t := &table{db: db, s: s, name: s.Name, ixAttrs: map[string]int{}, hasTTL: s.TTL != ""}
		if n := names[s.Name]; n != "" {
			t.name = n
		}
		for _, ix := range s.Indexes {
			for _, a := range []struct {
				name  string
				limit int
			}{{ix.PK, maxPKBytes}, {ix.SK, maxSKBytes}} {
				if a.name == "" || a.name == s.PK || a.name == s.SK {
					continue // table key values are always valid keys
				}
				if cur, ok := t.ixAttrs[a.name]; !ok || a.limit < cur {
					t.ixAttrs[a.name] = a.limit
				}
			}
		}
		db.tables[s.Name] = t
	}
	return db
}

func validateSchema(s store.Schema) error {
	switch {
	case s.Name == "":
		return errors.New("table without a name")
	case s.PK == "":
		return fmt.Errorf("table %s has no partition key attribute", s.Name)
	case s.PK == s.SK:
		return fmt.Errorf("table %s uses %q as both partition and sort key", s.Name, s.PK)
	}
	attrs := []string{s.PK, s.SK, s.TTL}
	for _, ix := range s.Indexes {
		if ix.Name == "" || ix.PK == "" || ix.PK == ix.SK {
			return fmt.Errorf("table %s: index %q with key attributes %q, %q", s.Name, ix.Name, ix.PK, ix.SK)
		}
		attrs = append(attrs, ix.PK, ix.SK)
	}
	for _, a := range attrs {
		if err := checkAttrName(a); err != nil {
			return fmt.Errorf("table %s: %w", s.Name, err)
		}
	}
	return nil
}

// Table returns the named table; it panics on a name the DB was not created
// with, a wiring bug.
func (db *DB) Table(name string) store.Table {
	t, ok := db.tables[name]
	if !ok {
		panic(fmt.Sprintf("dynamo: unknown table %q (not in the schemas given to New)", name))
	}
	return t
}

// Close releases nothing: the client belongs to the caller, and holds no
// connection that needs closing beyond its HTTP client's idle ones.
func (db *DB) Close() error { return nil }

// mapErr turns DynamoDB's errors into the store's: a failed condition is
// ErrConditionFailed (the SDK error adds only a request id to an expected
// outcome), a ValidationException wraps ErrInvalid as well as the SDK error
// (retrying never helps; the message says what DynamoDB refused).
func mapErr(err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return store.ErrConditionFailed
	}
	if isCode(err, "ValidationException") {
		return fmt.Errorf("%w: %w", store.ErrInvalid, err)
	}
	return err
}

// isCode reports whether err is a DynamoDB error with the code; codes not
// modelled as types (ValidationException, UnknownOperationException) are
// only visible this way.
func isCode(err error, code string) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == code
}

// Transact applies every operation or none with one TransactWriteItems
// request. Operations are validated first, as bolt does, so that a malformed
// transaction fails with store.ErrInvalid before any network call: at most
// store.MaxTxOps operations, one per item, known tables, valid keys, updates
// and conditions, a condition on every check.
func (db *DB) Transact(ctx context.Context, ops ...store.TxOp) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("dynamo: transact: %w", err)
	}
	if len(ops) > store.MaxTxOps {
		return fmt.Errorf("dynamo: transact: %w: %d operations, over the limit of %d", store.ErrInvalid, len(ops), store.MaxTxOps)
	}
	if len(ops) == 0 {
		return nil
	}
	items := make([]types.TransactWriteItem, len(ops))
	seen := make(map[string]int, len(ops))
	for i, op := range ops {
		t, ok := db.tables[op.Table]
		if !ok {
			return fmt.Errorf("dynamo: transact: operation %d: %w: unknown table %q", i, store.ErrInvalid, op.Table)
		}
		item, k, err := t.txItem(op)
		if err != nil {
			return fmt.Errorf("dynamo: transact: operation %d on %s: %w", i, op.Table, err)
		}
		// Keys cannot contain NUL, so this identifies the item; DynamoDB
		// would refuse the duplicate too, but less clearly.
		id := op.Table + "\x00" + k.PK + "\x00" + k.SK
		if j, dup := seen[id]; dup {
			return fmt.Errorf("dynamo: transact: %w: operations %d and %d both target %s %q/%q", store.ErrInvalid, j, i, op.Table, k.PK, k.SK)
		}
		seen[id] = i
		items[i] = item
	}
	for attempt := 1; ; attempt++ {
		// A fresh input each time: the SDK writes the idempotency token it
		// generates into the input, and a retry after a cancellation is a
		// new transaction, not a replay of the cancelled one.
		_, err := db.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		if attempt >= txAttempts || !conflictOnly(err) {
			return fmt.Errorf("dynamo: transact: %w", mapTxErr(err))
		}
		// Exponential backoff with full jitter: 0-20 ms, 0-40 ms, 0-80 ms.
		delay := time.Duration(rand.Int64N(int64(10*time.Millisecond) << attempt))
		select {
		case <-ctx.Done():
			return fmt.Errorf("dynamo: transact: %w", ctx.Err())
		case <-time.After(delay):
		}
	}
}

// txAttempts bounds the tries of a transaction cancelled by conflicts only.
// DynamoDB cancels a transaction that meets a concurrent write or
// transaction on one of its items (TransactionConflict); the SDK does not
// retry that, and repositories written against bolt, whose writes are
// serialised, never see it. A few quick retries make it as rare as a
// contended lock wait; the conditions are evaluated afresh each time.
const txAttempts = 4

// conflictOnly reports whether a cancellation is due to contention only:
// no failed condition, no validation error, and at least one conflict or
// throttling reason.
func conflictOnly(err error) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return false
	}
	retry := false
	for _, r := range tce.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "None", "":
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
			retry = true
		default:
			return false
		}
	}
	return retry
}

// mapTxErr maps a cancelled transaction: the first operation whose
// condition failed wins, as in bolt, which checks every condition before
// applying anything; otherwise a ValidationError (an ADD on a string, an
// item too large) is ErrInvalid. Other reasons (TransactionConflict with a
// concurrent write, throttling) are returned as they are: retrying may help.
func mapTxErr(err error) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return mapErr(err)
	}
	for i, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) == "ConditionalCheckFailed" {
			return &store.TxConditionError{Index: i}
		}
	}
	for i, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) == "ValidationError" {
			return fmt.Errorf("%w: operation %d: %s: %w", store.ErrInvalid, i, aws.ToString(r.Message), err)
		}
	}
	return err
}

// txItem validates one operation and builds its TransactWriteItem.
func (t *table) txItem(op store.TxOp) (types.TransactWriteItem, store.Key, error) {
	if err := store.ValidateCond(op.Cond); err != nil {
		return types.TransactWriteItem{}, store.Key{}, err
	}
	e := newExpr()
	ce, err := t.condExpr(e, op.Cond)
	if err != nil {
		return types.TransactWriteItem{}, store.Key{}, err
	}
	name := aws.String(t.name)
	switch op.Kind {
	case store.TxPut:
		k, item, err := t.preparePut(op.Item)
		if err != nil {
			return types.TransactWriteItem{}, store.Key{}, err
		}
		return types.TransactWriteItem{Put: &types.Put{
			TableName: name, Item: item, ConditionExpression: optional(ce),
			ExpressionAttributeNames: e.attrNames(), ExpressionAttributeValues: e.attrValues(),
		}}, k, nil
	case store.TxUpdate:
		if err := t.checkUpdate(op.Key, op.Update); err != nil {
			return types.TransactWriteItem{}, store.Key{}, err
		}
		ue, err := t.update(e, op.Update)
		if err != nil {
			return types.TransactWriteItem{}, store.Key{}, err
		}
		if ue == "" {
			// TransactWriteItems requires an UpdateExpression, where
			// UpdateItem does not. Removing the reserved (never present)
			// attribute changes nothing yet still creates an absent item,
			// as an Update without actions does.
			ue = "REMOVE " + e.name(shadowPrefix)
		}
		return types.TransactWriteItem{Update: &types.Update{
			TableName: name, Key: t.key(op.Key), UpdateExpression: aws.String(ue), ConditionExpression: optional(ce),
			ExpressionAttributeNames: e.attrNames(), ExpressionAttributeValues: e.attrValues(),
		}}, op.Key, nil
	case store.TxDelete:
		if err := store.CheckKey(t.s, op.Key); err != nil {
			return types.TransactWriteItem{}, store.Key{}, err
		}
		return types.TransactWriteItem{Delete: &types.Delete{
			TableName: name, Key: t.key(op.Key), ConditionExpression: optional(ce),
			ExpressionAttributeNames: e.attrNames(), ExpressionAttributeValues: e.attrValues(),
		}}, op.Key, nil
	case store.TxCheck:
		if err := store.CheckKey(t.s, op.Key); err != nil {
			return types.TransactWriteItem{}, store.Key{}, err
		}
		if op.Cond == nil {
			return types.TransactWriteItem{}, store.Key{}, fmt.Errorf("%w: check without a condition", store.ErrInvalid)
		}
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: name, Key: t.key(op.Key), ConditionExpression: aws.String(ce),
			ExpressionAttributeNames: e.attrNames(), ExpressionAttributeValues: e.attrValues(),
		}}, op.Key, nil
	}
	return types.TransactWriteItem{}, store.Key{}, fmt.Errorf("%w: unknown operation kind %d", store.ErrInvalid, op.Kind)
}
