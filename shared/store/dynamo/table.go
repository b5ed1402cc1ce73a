package dynamo

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/prospectdata/svc/shared/store"
)

// Page sizes of Query, the bolt driver's: a page is a count of items on
// every driver, DynamoDB's own 1 MB cut only shortening a page further.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

func (t *table) errorf(op string, err error) error {
	return fmt.Errorf("dynamo: %s %s: %w", op, t.s.Name, err)
}

// key is the DynamoDB key of k (validated by the caller).
func (t *table) key(k store.Key) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{t.s.PK: &types.AttributeValueMemberS{Value: k.PK}}
	if t.s.SK != "" {
		m[t.s.SK] = &types.AttributeValueMemberS{Value: k.SK}
	}
	return m
}

// preparePut validates an item to be written as bolt does (keys, values,
// index keys) and returns its key and DynamoDB form, index key attributes
// that cannot be GSI keys moved to their shadow names.
func (t *table) preparePut(it store.Item) (store.Key, map[string]types.AttributeValue, error) {
	k, err := store.ValidateKey(t.s, it)
	if err != nil {
		return store.Key{}, nil, err
	}
	for _, ix := range t.s.Indexes {
		if _, _, err := store.IndexKey(ix, it); err != nil {
			return store.Key{}, nil, err
		}
	}
	n, err := store.Normalize(map[string]any(it))
	if err != nil {
		return store.Key{}, nil, err
	}
	norm := n.(map[string]any)
	out := make(map[string]types.AttributeValue, len(norm))
	for name, v := range norm {
		if err := checkAttrName(name); err != nil {
			return store.Key{}, nil, err
		}
		av, err := marshalValue(v)
		if err != nil {
			return store.Key{}, nil, fmt.Errorf("%s: %w", name, err)
		}
		out[t.physName(name, v)] = av
	}
	return k, out, nil
}

// checkUpdate validates the key and actions of an update.
func (t *table) checkUpdate(k store.Key, u store.Update) error {
	if err := store.CheckKey(t.s, k); err != nil {
		return err
	}
	return store.ValidateUpdate(t.s, u)
}

// decode reads an item with the store's read rules, shadowed attributes
// back under their names.
func (t *table) decode(m map[string]types.AttributeValue) (store.Item, error) {
	it := make(store.Item, len(m))
	for name, av := range m {
		v, err := unmarshalValue(av)
		if err != nil {
			return nil, fmt.Errorf("read attribute %s: %w", name, err)
		}
		if base, ok := strings.CutPrefix(name, shadowPrefix); ok {
			if _, known := t.shadowed(base); known {
				name = base
			}
		}
		it[name] = v
	}
	return it, nil
}

func (t *table) expired(it store.Item) bool {
	return t.hasTTL && store.Expired(t.s, it, t.db.now())
}

// Get is a strongly consistent GetItem. An expired item is not found: the
// attribute still exists in DynamoDB until its TTL process deletes it.
func (t *table) Get(ctx context.Context, k store.Key) (store.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, t.errorf("get", err)
	}
	if err := store.CheckKey(t.s, k); err != nil {
		return nil, t.errorf("get", err)
	}
	out, err := t.db.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(t.name), Key: t.key(k), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, t.errorf("get", mapErr(err))
	}
	if out.Item == nil {
		return nil, t.errorf("get", store.ErrNotFound)
	}
	it, err := t.decode(out.Item)
	if err != nil {
		return nil, t.errorf("get", err)
	}
	if t.expired(it) {
		return nil, t.errorf("get", store.ErrNotFound)
	}
	return it, nil
}

// Put is a PutItem, conditional when cond is not nil.
func (t *table) Put(ctx context.Context, it store.Item, cond *store.Cond) error {
	if err := store.CheckWrite(ctx, t.s, nil, cond); err != nil {
		return t.errorf("put", err)
	}
	_, item, err := t.preparePut(it)
	if err != nil {
		return t.errorf("put", err)
	}
	e := newExpr()
	ce, err := t.condExpr(e, cond)
	if err != nil {
		return t.errorf("put", err)
	}
	_, err = t.db.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(t.name), Item: item, ConditionExpression: optional(ce),
		ExpressionAttributeNames: e.attrNames(), ExpressionAttributeValues: e.attrValues(),
	})
	if err != nil {
		return t.errorf("put", mapErr(err))
	}
	return nil
}

// Update is an UpdateItem returning ALL_NEW, which creates an absent item
// as the port says. The item returned follows the read rules, like Get; it
// is returned even when expired (Update does not hide, like bolt's).
func (t *table) Update(ctx context.Context, k store.Key, u store.Update, cond *store.Cond) (store.Item, error) {
	if err := store.CheckWrite(ctx, t.s, nil, cond); err != nil {
		return nil, t.errorf("update", err)
	}
	if err := t.checkUpdate(k, u); err != nil {
		return nil, t.errorf("update", err)
	}
	e := newExpr()
	ue, err := t.update(e, u)
	if err != nil {
		return nil, t.errorf("update", err)
	}
	ce, err := t.condExpr(e, cond)
	if err != nil {
		return nil, t.errorf("update", err)
	}
	out, err := t.db.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(t.name), Key: t.key(k),
		UpdateExpression: optional(ue), ConditionExpression: optional(ce),
		ExpressionAttributeNames: e.attrNames(), ExpressionAttributeValues: e.attrValues(),
		ReturnValues: types.ReturnValueAllNew,
	})
	if err != nil {
		return nil, t.errorf("update", mapErr(err))
	}
	attrs := out.Attributes
	if len(attrs) == 0 {
		// ALL_NEW lists at least the key of the item, which exists after
		// any successful UpdateItem; should an implementation return
		// nothing, the key is the least the item holds.
		attrs = t.key(k)
	}
	it, err := t.decode(attrs)
	if err != nil {
		return nil, t.errorf("update", err)
	}
	return it, nil
}

// Delete is a DeleteItem; deleting an absent item without a condition
// succeeds, as in DynamoDB.
func (t *table) Delete(ctx context.Context, k store.Key, cond *store.Cond) error {
	if err := store.CheckWrite(ctx, t.s, &k, cond); err != nil {
		return t.errorf("delete", err)
	}
	e := newExpr()
	ce, err := t.condExpr(e, cond)
	if err != nil {
		return t.errorf("delete", err)
	}
	_, err = t.db.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(t.name), Key: t.key(k), ConditionExpression: optional(ce),
		ExpressionAttributeNames: e.attrNames(), ExpressionAttributeValues: e.attrValues(),
	})
	if err != nil {
		return t.errorf("delete", mapErr(err))
	}
	return nil
}

// cursorAttrs lists the attributes a cursor holds, partition key first: the
// table key for a table query; for an index query the index key then the
// table key, which is what DynamoDB's LastEvaluatedKey holds for a GSI.
func (t *table) cursorAttrs(ix *store.Index) []string {
	var attrs []string
	if ix != nil {
		attrs = append(attrs, ix.PK)
		if ix.SK != "" {
			attrs = append(attrs, ix.SK)
		}
	}
	attrs = append(attrs, t.s.PK)
	if t.s.SK != "" {
		attrs = append(attrs, t.s.SK)
	}
	return attrs
}

// encodeCursor makes Page.Next from a key (a LastEvaluatedKey or the key
// attributes of the last item of the page): the key values joined with NUL,
// which key values cannot contain, in base64url. Opaque to callers, it is
// readable to whoever decodes it: it reveals key values, as a
// LastEvaluatedKey would.
func (t *table) encodeCursor(m map[string]types.AttributeValue, ix *store.Index) (string, error) {
	attrs := t.cursorAttrs(ix)
	parts := make([]string, len(attrs))
	for i, a := range attrs {
		s, ok := m[a].(*types.AttributeValueMemberS)
		if !ok {
			return "", fmt.Errorf("last evaluated key lacks string attribute %q", a)
		}
		parts[i] = s.Value
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(parts, "\x00"))), nil
}

// decodeCursor turns q.After back into an ExclusiveStartKey, refusing a
// cursor that is not one or that belongs to another partition.
func (t *table) decodeCursor(q store.Query, ix *store.Index) (map[string]types.AttributeValue, error) {
	bad := func() error {
		return fmt.Errorf("%w: cursor %q does not belong to this partition", store.ErrInvalid, q.After)
	}
	raw, err := base64.RawURLEncoding.DecodeString(q.After)
	if err != nil || !utf8.Valid(raw) {
		return nil, bad()
	}
	attrs := t.cursorAttrs(ix)
	parts := strings.Split(string(raw), "\x00")
	if len(parts) != len(attrs) || parts[0] != q.PK {
		return nil, bad()
	}
	m := make(map[string]types.AttributeValue, len(attrs))
	for i, a := range attrs {
		if parts[i] == "" {
			return nil, bad()
		}
		m[a] = &types.AttributeValueMemberS{Value: parts[i]}
	}
	return m, nil
}

// Query reads one page with one Query request. It asks for Limit+1 items:
// when the extra one comes back, more follow and Next points after the
// last item of the page (the extra item is read again by the next page);
// otherwise Next is DynamoDB's LastEvaluatedKey, set only when the 1 MB
// response limit cut the page. So Next is empty exactly when the partition
// is exhausted, without the empty last page a bare LastEvaluatedKey gives
// when a page ends on the last item, at the cost of one item's read.
//
// Expired items are dropped from the page after the read: such a page holds
// fewer items than the limit although more may follow.
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
	var ix *store.Index
	pkAttr, skAttr := t.s.PK, t.s.SK
	if q.Index != "" {
		for i := range t.s.Indexes {
			if t.s.Indexes[i].Name == q.Index {
				ix = &t.s.Indexes[i]
			}
		}
		pkAttr, skAttr = ix.PK, ix.SK
	}
	e := newExpr()
	in := &dynamodb.QueryInput{
		TableName:              aws.String(t.name),
		KeyConditionExpression: aws.String(keyCond(e, pkAttr, skAttr, q)),
		ScanIndexForward:       aws.Bool(!q.Desc),
		Limit:                  aws.Int32(int32(limit + 1)),
		// A GSI cannot be read consistently; the table is, as in bolt.
		ConsistentRead: aws.Bool(ix == nil),
	}
	if ix != nil {
		in.IndexName = aws.String(ix.Name)
	}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
	if q.After != "" {
		esk, err := t.decodeCursor(q, ix)
		if err != nil {
			return store.Page{}, t.errorf("query", err)
		}
		in.ExclusiveStartKey = esk
	}
	out, err := t.db.client.Query(ctx, in)
	if err != nil {
		return store.Page{}, t.errorf("query", mapErr(err))
	}
	raw, last := out.Items, out.LastEvaluatedKey
	if len(raw) > limit {
		raw, last = raw[:limit], raw[limit-1]
	}
	var page store.Page
	for _, m := range raw {
		it, err := t.decode(m)
		if err != nil {
			return store.Page{}, t.errorf("query", err)
		}
		if t.expired(it) {
			continue
		}
		page.Items = append(page.Items, it)
	}
	if last != nil {
		if page.Next, err = t.encodeCursor(last, ix); err != nil {
			return store.Page{}, t.errorf("query", err)
		}
	}
	return page, nil
}
