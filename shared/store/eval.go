package store

// Semantics shared by the drivers: value normalisation, condition evaluation,
// update application, key validation, expiry and the item codec. They live
// here rather than in a driver so that every embedded driver (bolt today, an
// in-memory one later) gets bit-for-bit the same behaviour, and so that the
// DynamoDB driver can validate requests client-side with the same rules.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrInvalid is wrapped by errors caused by a malformed request (a bad key, an
// unsupported value, an update of a key attribute...). Retrying such a request
// never helps; it is a caller bug, unlike ErrConditionFailed.
var ErrInvalid = errors.New("store: invalid request")

// Limits DynamoDB enforces on key values; enforced everywhere so that code
// that works on an embedded driver does not start failing in production.
const (
	maxPKBytes = 2048
	maxSKBytes = 1024
	// maxDepth is DynamoDB's limit on nested lists and maps. It also bounds
	// the recursion of every helper here (a cyclic map would not terminate).
	maxDepth = 32
)

// number is a numeric value as stored: an integer or a float.
type number struct {
	i       int64
	f       float64
	isFloat bool
}

// toNumber recognises every Go numeric kind a caller may pass. It does not
// reject NaN or out-of-range uint64: Normalize does that, comparisons simply
// fail on them.
func toNumber(v any) (number, bool) {
	switch x := v.(type) {
	case int64:
		return number{i: x}, true
	case float64:
		return number{f: x, isFloat: true}, true
	case int:
		return number{i: int64(x)}, true
	case int32:
		return number{i: int64(x)}, true
	case int16:
		return number{i: int64(x)}, true
	case int8:
		return number{i: int64(x)}, true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return number{f: float64(x), isFloat: true}, true
		}
		return number{i: int64(x)}, true
	case uint64:
		if x > math.MaxInt64 {
			return number{f: float64(x), isFloat: true}, true
		}
		return number{i: int64(x)}, true
	case uint32:
		return number{i: int64(x)}, true
	case uint16:
		return number{i: int64(x)}, true
	case uint8:
		return number{i: int64(x)}, true
	case float32:
		return number{f: float64(x), isFloat: true}, true
	}
	return number{}, false
}

// cmpNumbers compares two numbers exactly (no int64 -> float64 rounding); ok
// is false when a NaN is involved.
func cmpNumbers(a, b number) (int, bool) {
	switch {
	case !a.isFloat && !b.isFloat:
		return cmp.Compare(a.i, b.i), true
	case a.isFloat && b.isFloat:
		if math.IsNaN(a.f) || math.IsNaN(b.f) {
			return 0, false
		}
		return cmp.Compare(a.f, b.f), true
	case a.isFloat:
		r, ok := cmpIntFloat(b.i, a.f)
		return -r, ok
	default:
		return cmpIntFloat(a.i, b.f)
	}
}

// cmpIntFloat compares an int64 with a float64 without converting the int64
// to float64, which would make 2^53+1 equal to 2^53.
func cmpIntFloat(i int64, f float64) (int, bool) {
	if math.IsNaN(f) {
		return 0, false
	}
	t := math.Trunc(f)
	switch {
	case t >= 0x1p63:
		return -1, true
	case t < -0x1p63:
		return 1, true
	}
	if ti := int64(t); i != ti {
		return cmp.Compare(i, ti), true
	}
	// Same integer part: the fraction decides.
	switch {
	case f > t:
		return -1, true
	case f < t:
		return 1, true
	}
	return 0, true
}

// Normalize validates a value for storage and returns it in canonical form:
// every Go integer kind becomes int64, float32 becomes float64, lists and maps
// are normalised recursively ([]string is kept as is). Strings must be valid
// UTF-8 (DynamoDB's S type is UTF-8, and the codec could not round-trip other
// bytes); floats must be finite. Anything else is an error wrapping ErrInvalid.
func Normalize(v any) (any, error) { return normalize(v, 0) }

func normalize(v any, depth int) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64, []byte:
		return v, nil
	case string:
		if !utf8.ValidString(x) {
			return nil, fmt.Errorf("%w: string is not valid UTF-8", ErrInvalid)
		}
		return v, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: number %v is not finite", ErrInvalid, x)
		}
		return v, nil
	case []string:
		for _, s := range x {
			if !utf8.ValidString(s) {
				return nil, fmt.Errorf("%w: string is not valid UTF-8", ErrInvalid)
			}
		}
		return v, nil
	case []any:
		if depth >= maxDepth {
			return nil, fmt.Errorf("%w: value nested deeper than %d levels", ErrInvalid, maxDepth)
		}
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		return normalizeMap(x, depth)
	case Item:
		return normalizeMap(x, depth)
	}
	n, ok := toNumber(v)
	if !ok {
		return nil, fmt.Errorf("%w: unsupported value type %T", ErrInvalid, v)
	}
	if !n.isFloat {
		return n.i, nil
	}
	if _, isU64 := v.(uint64); isU64 {
		return nil, fmt.Errorf("%w: integer %v overflows int64", ErrInvalid, v)
	}
	if _, isUint := v.(uint); isUint {
		return nil, fmt.Errorf("%w: integer %v overflows int64", ErrInvalid, v)
	}
	if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
		return nil, fmt.Errorf("%w: number %v is not finite", ErrInvalid, n.f)
	}
	return n.f, nil
}

func normalizeMap(m map[string]any, depth int) (any, error) {
	if depth >= maxDepth {
		return nil, fmt.Errorf("%w: value nested deeper than %d levels", ErrInvalid, maxDepth)
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		if !utf8.ValidString(k) {
			return nil, fmt.Errorf("%w: attribute name is not valid UTF-8", ErrInvalid)
		}
		n, err := normalize(e, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = n
	}
	return out, nil
}

// EqualValues reports whether two values are equal under DynamoDB's rules:
// numbers compare numerically whatever their Go type (1 == 1.0), lists
// ([]string or []any) and maps compare deeply, bytes by content. Values of
// different kinds are never equal.
func EqualValues(a, b any) bool { return equalValues(a, b, 0) }

func equalValues(a, b any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	if na, ok := toNumber(a); ok {
		nb, ok := toNumber(b)
		if !ok {
			return false
		}
		r, ok := cmpNumbers(na, nb)
		return ok && r == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []string, []any:
		return equalLists(a, b, depth)
	case map[string]any:
		return equalMaps(x, b, depth)
	case Item:
		return equalMaps(x, b, depth)
	}
	return false
}

// listView gives uniform access to the two list representations.
type listView struct {
	s   []string
	a   []any
	isS bool
}

func asList(v any) (listView, bool) {
	switch x := v.(type) {
	case []string:
		return listView{s: x, isS: true}, true
	case []any:
		return listView{a: x}, true
	}
	return listView{}, false
}

func (l listView) len() int {
	if l.isS {
		return len(l.s)
	}
	return len(l.a)
}

func (l listView) at(i int) any {
	if l.isS {
		return l.s[i]
	}
	return l.a[i]
}

func equalLists(a, b any, depth int) bool {
	la, _ := asList(a)
	lb, ok := asList(b)
	if !ok || la.len() != lb.len() {
		return false
	}
	if la.isS && lb.isS {
		for i := range la.s {
			if la.s[i] != lb.s[i] {
				return false
			}
		}
		return true
	}
	for i := range la.len() {
		if !equalValues(la.at(i), lb.at(i), depth+1) {
			return false
		}
	}
	return true
}

func equalMaps(x map[string]any, b any, depth int) bool {
	var y map[string]any
	switch m := b.(type) {
	case map[string]any:
		y = m
	case Item:
		y = m
	default:
		return false
	}
	if len(x) != len(y) {
		return false
	}
	for k, xv := range x {
		yv, ok := y[k]
		if !ok || !equalValues(xv, yv, depth+1) {
			return false
		}
	}
	return true
}

// compareValues orders two values of the same comparable kind: numbers,
// strings (bytewise) or binary (bytewise, as DynamoDB compares B values).
// ok is false for any other pair.
func compareValues(a, b any) (int, bool) {
	if na, ok := toNumber(a); ok {
		nb, ok := toNumber(b)
		if !ok {
			return 0, false
		}
		return cmpNumbers(na, nb)
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y), true
		}
	}
	return 0, false
}

// ValidateCond checks that a condition is well formed: known operators, an
// attribute on every leaf, storable comparison values, operands on And/Or
// and exactly one on Not. A nil condition is valid (no condition). Drivers
// call it before starting a write so that a malformed condition is an
// ErrInvalid error rather than a silent condition failure.
func ValidateCond(c *Cond) error { return validateCond(c, 0) }

// CheckWrite is what every driver checks before a Put, Update or Delete:
// the context, the key (nil for a Put, whose item the driver checks
// whole) and the condition.
func CheckWrite(ctx context.Context, s Schema, k *Key, cond *Cond) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if k != nil {
		if err := CheckKey(s, *k); err != nil {
			return err
		}
	}
	return ValidateCond(cond)
}

func validateCond(c *Cond, depth int) error {
	if c == nil {
		return nil
	}
	if depth > maxDepth {
		return fmt.Errorf("%w: condition nested deeper than %d levels", ErrInvalid, maxDepth)
	}
	switch c.Op {
	case CondExists, CondNotExists:
		if c.Attr == "" {
			return fmt.Errorf("%w: condition without attribute", ErrInvalid)
		}
	case CondEq, CondNe, CondLt, CondLe, CondGt, CondGe:
		if c.Attr == "" {
			return fmt.Errorf("%w: condition without attribute", ErrInvalid)
		}
		if _, err := Normalize(c.Value); err != nil {
			return fmt.Errorf("condition on %q: %w", c.Attr, err)
		}
	case CondAnd, CondOr:
		if len(c.Sub) == 0 {
			return fmt.Errorf("%w: And/Or condition without operands", ErrInvalid)
		}
		for _, s := range c.Sub {
			if s == nil {
				return fmt.Errorf("%w: nil operand in And/Or condition", ErrInvalid)
			}
			if err := validateCond(s, depth+1); err != nil {
				return err
			}
		}
	case CondNot:
		if len(c.Sub) != 1 || c.Sub[0] == nil {
			return fmt.Errorf("%w: Not condition needs exactly one operand", ErrInvalid)
		}
		return validateCond(c.Sub[0], depth+1)
	default:
		return fmt.Errorf("%w: unknown condition operator %d", ErrInvalid, c.Op)
	}
	return nil
}

// EvalCond reports whether c holds on it; it is nil when the item is absent,
// which behaves as an item without attributes. A nil condition holds.
// Comparisons (Lt, Le, Gt, Ge) hold only between two numbers (int64 and
// float64 compared numerically), two strings or two binaries (bytewise); a
// missing attribute or a kind mismatch makes them false. Ne holds on a missing
// attribute. A malformed condition (see ValidateCond) evaluates to false.
func EvalCond(c *Cond, it Item) bool { return evalCond(c, it, 0) }

func evalCond(c *Cond, it Item, depth int) bool {
	if c == nil {
		return true
	}
	if depth > maxDepth {
		return false
	}
	switch c.Op {
	case CondExists:
		_, ok := it[c.Attr]
		return ok
	case CondNotExists:
		_, ok := it[c.Attr]
		return !ok
	case CondEq:
		v, ok := it[c.Attr]
		return ok && EqualValues(v, c.Value)
	case CondNe:
		v, ok := it[c.Attr]
		return !ok || !EqualValues(v, c.Value)
	case CondLt, CondLe, CondGt, CondGe:
		v, ok := it[c.Attr]
		if !ok {
			return false
		}
		r, ok := compareValues(v, c.Value)
		if !ok {
			return false
		}
		switch c.Op {
		case CondLt:
			return r < 0
		case CondLe:
			return r <= 0
		case CondGt:
			return r > 0
		default:
			return r >= 0
		}
	case CondAnd:
		if len(c.Sub) == 0 {
			return false
		}
		for _, s := range c.Sub {
			if s == nil || !evalCond(s, it, depth+1) {
				return false
			}
		}
		return true
	case CondOr:
		for _, s := range c.Sub {
			if s != nil && evalCond(s, it, depth+1) {
				return true
			}
		}
		return false
	case CondNot:
		if len(c.Sub) != 1 || c.Sub[0] == nil {
			return false
		}
		return !evalCond(c.Sub[0], it, depth+1)
	}
	return false
}

// isKeyAttr reports whether attr is one of the table's key attributes.
func isKeyAttr(s Schema, attr string) bool {
	return attr == s.PK || (s.SK != "" && attr == s.SK)
}

// ValidateUpdate checks what can be checked of an update without the item:
// known action kinds, a non-empty attribute, no action on a key attribute,
// at most one action per attribute (DynamoDB refuses overlapping paths) and
// storable values.
func ValidateUpdate(s Schema, u Update) error {
	for i, a := range u {
		if a.Attr == "" {
			return fmt.Errorf("%w: update action %d without attribute", ErrInvalid, i)
		}
		if isKeyAttr(s, a.Attr) {
			return fmt.Errorf("%w: update of key attribute %q", ErrInvalid, a.Attr)
		}
		// Updates are a handful of actions: a quadratic scan beats a map.
		for _, b := range u[:i] {
			if b.Attr == a.Attr {
				return fmt.Errorf("%w: two update actions on attribute %q", ErrInvalid, a.Attr)
			}
		}
		switch a.Kind {
		case UpdSet, UpdSetIfAbsent:
			if _, err := Normalize(a.Value); err != nil {
				return fmt.Errorf("update of %q: %w", a.Attr, err)
			}
		case UpdAdd, UpdRemove:
		default:
			return fmt.Errorf("%w: unknown update action kind %d on %q", ErrInvalid, a.Kind, a.Attr)
		}
	}
	return nil
}

// ApplyUpdate returns the item u makes of old (nil when absent: the new item
// then starts with the key attributes of k). old is not modified; the result
// shares old's nested values, which no driver mutates. Add treats a missing
// attribute as 0, keeps an int64 counter an int64 (overflow is an error) and
// turns a float64 into float64; on any other kind it fails with ErrInvalid.
func ApplyUpdate(old Item, k Key, s Schema, u Update) (Item, error) {
	if err := ValidateUpdate(s, u); err != nil {
		return nil, err
	}
	out := make(Item, len(old)+len(u)+2)
	if old == nil {
		out[s.PK] = k.PK
		if s.SK != "" {
			out[s.SK] = k.SK
		}
	} else {
		maps.Copy(out, old)
	}
	for _, a := range u {
		switch a.Kind {
		case UpdSet:
			v, _ := Normalize(a.Value) // validated above
			out[a.Attr] = v
		case UpdSetIfAbsent:
			if _, ok := out[a.Attr]; !ok {
				v, _ := Normalize(a.Value)
				out[a.Attr] = v
			}
		case UpdAdd:
			cur, ok := out[a.Attr]
			if !ok {
				out[a.Attr] = a.Delta
				continue
			}
			n, ok := toNumber(cur)
			if !ok {
				return nil, fmt.Errorf("%w: add to attribute %q holding %T, not a number", ErrInvalid, a.Attr, cur)
			}
			if n.isFloat {
				out[a.Attr] = n.f + float64(a.Delta)
				continue
			}
			sum := n.i + a.Delta
			if (a.Delta > 0 && sum < n.i) || (a.Delta < 0 && sum > n.i) {
				return nil, fmt.Errorf("%w: add to attribute %q overflows int64", ErrInvalid, a.Attr)
			}
			out[a.Attr] = sum
		case UpdRemove:
			delete(out, a.Attr)
		}
	}
	return out, nil
}

// validateKeyValue applies the rules of key values (table and index keys,
// query values): non-empty, no NUL (drivers use NUL as a separator), valid
// UTF-8, within DynamoDB's size limit.
func validateKeyValue(what, v string, maxBytes int) error {
	switch {
	case v == "":
		return fmt.Errorf("%w: %s is empty", ErrInvalid, what)
	case strings.IndexByte(v, 0) >= 0:
		return fmt.Errorf("%w: %s contains a NUL byte", ErrInvalid, what)
	case len(v) > maxBytes:
		return fmt.Errorf("%w: %s is %d bytes, over the limit of %d", ErrInvalid, what, len(v), maxBytes)
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalid, what)
	}
	return nil
}

func keyAttr(it Item, attr string, maxBytes int) (string, error) {
	v, ok := it[attr]
	if !ok {
		return "", fmt.Errorf("%w: key attribute %q is missing", ErrInvalid, attr)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: key attribute %q is %T, want string", ErrInvalid, attr, v)
	}
	if err := validateKeyValue("key attribute "+attr, s, maxBytes); err != nil {
		return "", err
	}
	return s, nil
}

// ValidateKey returns the key of an item to be written: its key attributes
// must be non-empty strings without NUL bytes (a table without a sort key
// has Key.SK == "").
func ValidateKey(s Schema, it Item) (Key, error) {
	pk, err := keyAttr(it, s.PK, maxPKBytes)
	if err != nil {
		return Key{}, err
	}
	if s.SK == "" {
		return Key{PK: pk}, nil
	}
	sk, err := keyAttr(it, s.SK, maxSKBytes)
	if err != nil {
		return Key{}, err
	}
	return Key{PK: pk, SK: sk}, nil
}

// CheckKey validates a key passed to Get, Update, Delete or a transaction.
func CheckKey(s Schema, k Key) error {
	if err := validateKeyValue("partition key", k.PK, maxPKBytes); err != nil {
		return err
	}
	if s.SK == "" {
		if k.SK != "" {
			return fmt.Errorf("%w: table %s has no sort key", ErrInvalid, s.Name)
		}
		return nil
	}
	return validateKeyValue("sort key", k.SK, maxSKBytes)
}

// IndexKey returns the index key of it for ix, and false when the item is not
// in the (sparse) index: an attribute missing, not a string, or empty. An
// index key value that is present but unusable (a NUL byte, too long) is an
// error, as DynamoDB refuses such writes.
func IndexKey(ix Index, it Item) (Key, bool, error) {
	pk, ok := it[ix.PK].(string)
	if !ok || pk == "" {
		return Key{}, false, nil
	}
	var sk string
	if ix.SK != "" {
		sk, ok = it[ix.SK].(string)
		if !ok || sk == "" {
			return Key{}, false, nil
		}
	}
	if err := validateKeyValue("index "+ix.Name+" key attribute "+ix.PK, pk, maxPKBytes); err != nil {
		return Key{}, false, err
	}
	if ix.SK != "" {
		if err := validateKeyValue("index "+ix.Name+" key attribute "+ix.SK, sk, maxSKBytes); err != nil {
			return Key{}, false, err
		}
	}
	return Key{PK: pk, SK: sk}, true, nil
}

// ValidateQuery checks a query against the table schema: a known index, a
// valid partition key, a known sort operator with valid values (Between with
// its bounds in order), a non-negative limit.
func ValidateQuery(s Schema, q Query) error {
	if q.Index != "" {
		found := false
		for _, ix := range s.Indexes {
			if ix.Name == q.Index {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%w: table %s has no index %q", ErrInvalid, s.Name, q.Index)
		}
	}
	if err := validateKeyValue("query partition key", q.PK, maxPKBytes); err != nil {
		return err
	}
	if q.Limit < 0 {
		return fmt.Errorf("%w: negative query limit %d", ErrInvalid, q.Limit)
	}
	switch q.SK.Op {
	case SortAny:
		return nil
	case SortEq, SortLt, SortLe, SortGt, SortGe, SortBeginsWith:
		return validateKeyValue("query sort value", q.SK.Value, maxSKBytes)
	case SortBetween:
		if err := validateKeyValue("query sort lower bound", q.SK.Value, maxSKBytes); err != nil {
			return err
		}
		if err := validateKeyValue("query sort upper bound", q.SK.Value2, maxSKBytes); err != nil {
			return err
		}
		if q.SK.Value > q.SK.Value2 {
			return fmt.Errorf("%w: Between lower bound %q is above upper bound %q", ErrInvalid, q.SK.Value, q.SK.Value2)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown sort operator %d", ErrInvalid, q.SK.Op)
}

// ExpiryOf returns the expiry of it in epoch seconds, rounded up so that
// "expiry <= now.Unix()" is exact for fractional values, and false when the
// table has no TTL or the item's TTL attribute is missing or not a number (as
// in DynamoDB, such an item never expires).
func ExpiryOf(s Schema, it Item) (int64, bool) {
	if s.TTL == "" {
		return 0, false
	}
	v, ok := it[s.TTL]
	if !ok {
		return 0, false
	}
	n, ok := toNumber(v)
	if !ok {
		return 0, false
	}
	if !n.isFloat {
		return n.i, true
	}
	if math.IsNaN(n.f) {
		return 0, false
	}
	c := math.Ceil(n.f)
	switch {
	case c >= 0x1p63:
		return math.MaxInt64, true
	case c < -0x1p63:
		return math.MinInt64, true
	}
	return int64(c), true
}

// Expired reports whether it is past its TTL at now: the TTL attribute holds
// epoch seconds at or before now.Unix().
func Expired(s Schema, it Item, now time.Time) bool {
	e, ok := ExpiryOf(s, it)
	return ok && e <= now.Unix()
}

// The item codec. Items are stored as JSON in the shape of DynamoDB's
// AttributeValue JSON ({"name":{"S":"x"},"n":{"N":"12"}}) so that a stored
// value reads the same as a DynamoDB export and the number rules are the
// DynamoDB ones (numbers travel as decimal text). It is hand written because
// it sits on the hot path of every read: encoding/json with interface values
// costs several times more and allocates per token.

// EncodeItem encodes an item, attributes in name order so that equal items
// encode to equal bytes. It accepts every value Normalize accepts (widening
// integer kinds itself, so a driver need not normalise first) and fails with
// ErrInvalid on anything else.
func EncodeItem(it Item) ([]byte, error) {
	return appendMap(make([]byte, 0, 64+32*len(it)), it, 0)
}

func appendMap(dst []byte, m map[string]any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: value nested deeper than %d levels", ErrInvalid, maxDepth)
	}
	// Sort the names on the stack for the usual small item.
	var buf [24]string
	names := buf[:0]
	for k := range m {
		names = append(names, k)
	}
	sortStrings(names)
	dst = append(dst, '{')
	for i, k := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendString(dst, k); err != nil {
			return nil, fmt.Errorf("attribute name: %w", err)
		}
		dst = append(dst, ':')
		if dst, err = appendValue(dst, m[k], depth); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return append(dst, '}'), nil
}

// sortStrings sorts attribute names: insertion sort for the usual handful
// (cheaper than pdqsort's setup at that size), slices.Sort for large maps.
func sortStrings(s []string) {
	if len(s) > 24 {
		slices.Sort(s)
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(dst, `{"NULL":true}`...), nil
	case string:
		dst = append(dst, `{"S":`...)
		if dst, err = appendString(dst, x); err != nil {
			return nil, err
		}
		return append(dst, '}'), nil
	case bool:
		if x {
			return append(dst, `{"BOOL":true}`...), nil
		}
		return append(dst, `{"BOOL":false}`...), nil
	case []byte:
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, x)
		return append(dst, `"}`...), nil
	case []string:
		dst = append(dst, `{"L":[`...)
		for i, s := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"S":`...)
			if dst, err = appendString(dst, s); err != nil {
				return nil, err
			}
			dst = append(dst, '}')
		}
		return append(dst, `]}`...), nil
	case []any:
		if depth >= maxDepth {
			return nil, fmt.Errorf("%w: value nested deeper than %d levels", ErrInvalid, maxDepth)
		}
		dst = append(dst, `{"L":[`...)
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, `]}`...), nil
	case map[string]any:
		return appendNested(dst, x, depth)
	case Item:
		return appendNested(dst, x, depth)
	}
	n, err := Normalize(v) // the numeric kinds, with their range checks
	if err != nil {
		return nil, err
	}
	dst = append(dst, `{"N":"`...)
	switch n := n.(type) {
	case int64:
		dst = strconv.AppendInt(dst, n, 10)
	case float64:
		dst = appendFloat(dst, n)
	}
	return append(dst, `"}`...), nil
}

func appendNested(dst []byte, m map[string]any, depth int) ([]byte, error) {
	dst = append(dst, `{"M":`...)
	dst, err := appendMap(dst, m, depth+1)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendFloat writes integral floats as plain integers (they read back as
// int64 anyway) and others in the shortest form that round-trips.
func appendFloat(dst []byte, f float64) []byte {
	if t := math.Trunc(f); t == f && t >= -0x1p63 && t < 0x1p63 {
		return strconv.AppendInt(dst, int64(t), 10)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

// appendString appends s as a JSON string. Only '"', '\\' and control
// characters need escaping; invalid UTF-8 is refused rather than replaced
// so that what is read back is what was written.
func appendString(dst []byte, s string) ([]byte, error) {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, fmt.Errorf("%w: string is not valid UTF-8", ErrInvalid)
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

// DecodeItem decodes an item written by EncodeItem (or any JSON in the same
// AttributeValue shape) with the read rules of the package: numbers become
// int64 when integral and within range, float64 otherwise; a list whose
// elements are all strings becomes []string (an empty list too), any other
// list []any; NULL becomes nil. The result shares no memory with data, so
// data may be memory a database reclaims after the call: the decoder copies
// data into one string once and every unescaped string of the item is a
// slice of it, which saves an allocation per attribute name and value.
func DecodeItem(data []byte) (Item, error) {
	d := decoder{s: string(data), b: data}
	d.skipSpace()
	// Sizing the top-level map up front avoids a rehash once an item passes
	// eight attributes (a fifth of the decoding time). Every attribute value
	// opens a brace, so counting them (a vectorised byte count) bounds the
	// attribute count from above; nested values and braces inside strings
	// inflate it, hence the cap.
	m, err := d.object(0, max(min(strings.Count(d.s, "{")-1, 64), 0))
	if err != nil {
		return nil, fmt.Errorf("store: decode item: %w", err)
	}
	d.skipSpace()
	if d.i != len(d.s) {
		return nil, fmt.Errorf("store: decode item: %w", d.errorf("trailing data"))
	}
	return Item(m), nil
}

// errCorrupt is wrapped by every decoding error.
var errCorrupt = errors.New("malformed item encoding")

type decoder struct {
	s string
	b []byte // the same bytes as s, for base64 decoding without a copy
	i int
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", errCorrupt, d.i, fmt.Sprintf(format, args...))
}

func (d *decoder) skipSpace() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// consume skips spaces and the expected byte.
func (d *decoder) consume(c byte) error {
	d.skipSpace()
	if d.i >= len(d.s) || d.s[d.i] != c {
		return d.errorf("expected %q", c)
	}
	d.i++
	return nil
}

// peek skips spaces and returns the next byte (0 at the end).
func (d *decoder) peek() byte {
	d.skipSpace()
	if d.i >= len(d.s) {
		return 0
	}
	return d.s[d.i]
}

// object decodes {"name": AttributeValue, ...}.
func (d *decoder) object(depth, hint int) (map[string]any, error) {
	if depth > maxDepth {
		return nil, d.errorf("nested deeper than %d levels", maxDepth)
	}
	if err := d.consume('{'); err != nil {
		return nil, err
	}
	m := make(map[string]any, hint)
	if d.peek() == '}' {
		d.i++
		return m, nil
	}
	for {
		if d.peek() != '"' {
			return nil, d.errorf("expected attribute name")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if err := d.consume(':'); err != nil {
			return nil, err
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.errorf("expected ',' or '}'")
		}
	}
}

// value decodes one AttributeValue: an object with a single type tag.
func (d *decoder) value(depth int) (any, error) {
	if err := d.consume('{'); err != nil {
		return nil, err
	}
	if d.peek() != '"' {
		return nil, d.errorf("expected type tag")
	}
	tag, err := d.rawStr()
	if err != nil {
		return nil, err
	}
	if err := d.consume(':'); err != nil {
		return nil, err
	}
	d.skipSpace()
	var v any
	switch tag {
	case "S":
		if d.peek() != '"' {
			return nil, d.errorf("S value is not a string")
		}
		v, err = d.str()
	case "N":
		if d.peek() != '"' {
			return nil, d.errorf("N value is not a string")
		}
		var raw string
		if raw, err = d.rawStr(); err == nil {
			if v, err = parseNumber(raw); err != nil {
				err = d.errorf("%v", err)
			}
		}
	case "BOOL":
		v, err = d.boolean()
	case "NULL":
		var b bool
		if b, err = d.boolean(); err == nil && !b {
			err = d.errorf("NULL must be true")
		}
	case "B":
		if d.peek() != '"' {
			return nil, d.errorf("B value is not a string")
		}
		var raw string
		if raw, err = d.rawStr(); err == nil {
			src := d.b[d.i-1-len(raw) : d.i-1] // raw, before its closing quote
			b := make([]byte, base64.StdEncoding.DecodedLen(len(src)))
			var n int
			if n, err = base64.StdEncoding.Decode(b, src); err != nil {
				err = d.errorf("B value: %v", err)
			}
			v = b[:n]
		}
	case "L":
		v, err = d.list(depth)
	case "M":
		v, err = d.object(depth+1, 0)
	default:
		return nil, d.errorf("unknown type tag %q", tag)
	}
	if err != nil {
		return nil, err
	}
	if err := d.consume('}'); err != nil {
		return nil, err
	}
	return v, nil
}

// list decodes [AttributeValue, ...] into []string while every element is a
// string (the common case: no second allocation), switching to []any at the
// first element of another kind.
func (d *decoder) list(depth int) (any, error) {
	if depth >= maxDepth {
		return nil, d.errorf("nested deeper than %d levels", maxDepth)
	}
	if err := d.consume('['); err != nil {
		return nil, err
	}
	strs := make([]string, 0, 4)
	var anys []any
	if d.peek() == ']' {
		d.i++
		return strs, nil
	}
	for {
		e, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if s, ok := e.(string); ok && anys == nil {
			strs = append(strs, s)
		} else {
			if anys == nil {
				anys = make([]any, len(strs), len(strs)+4)
				for i, s := range strs {
					anys[i] = s
				}
			}
			anys = append(anys, e)
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			if anys != nil {
				return anys, nil
			}
			return strs, nil
		default:
			return nil, d.errorf("expected ',' or ']'")
		}
	}
}

func (d *decoder) boolean() (bool, error) {
	switch {
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return true, nil
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return false, nil
	}
	return false, d.errorf("expected true or false")
}

// rawStr returns a string token that may not contain escapes: tags, numbers
// and base64 never need them.
func (d *decoder) rawStr() (string, error) {
	d.i++ // opening quote, checked by the caller
	start := d.i
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case '"':
			s := d.s[start:d.i]
			d.i++
			return s, nil
		case '\\':
			return "", d.errorf("unexpected escape")
		}
		d.i++
	}
	return "", d.errorf("unterminated string")
}

// str decodes a string token; the fast path (no escapes) does not allocate.
func (d *decoder) str() (string, error) {
	d.i++ // opening quote, checked by the caller
	start := d.i
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case '"':
			s := d.s[start:d.i]
			d.i++
			return s, nil
		case '\\':
			return d.strSlow(start)
		}
		d.i++
	}
	return "", d.errorf("unterminated string")
}

func (d *decoder) strSlow(start int) (string, error) {
	out := append([]byte(nil), d.s[start:d.i]...)
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.s) {
			break
		}
		e := d.s[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.errorf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate pairs with a following \u low surrogate;
				// a lone one becomes U+FFFD, as encoding/json does.
				pair := unicode.ReplacementChar
				if save := d.i; d.i+1 < len(d.s) && d.s[d.i] == '\\' && d.s[d.i+1] == 'u' {
					d.i += 2
					if lo, ok := d.hex4(); ok {
						pair = utf16.DecodeRune(r, lo)
					}
					if pair == unicode.ReplacementChar {
						d.i = save // not a pair: decode the next escape on its own
					}
				}
				r = pair
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", d.errorf("bad escape \\%c", e)
		}
	}
	return "", d.errorf("unterminated string")
}

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	var r rune
	for j := d.i; j < d.i+4; j++ {
		c := d.s[j]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// ParseNumber reads DynamoDB number text with the read rules of the package:
// int64 when the decimal value is integral and fits, float64 otherwise. Only
// plain decimal syntax is accepted ([-]digits[.digits][e[+-]digits]), not
// Go's hex floats, underscores, Inf or NaN.
func ParseNumber(s string) (any, error) { return parseNumber(s) }

func parseNumber(b string) (any, error) {
	// Fast path: a plain integer of up to 18 digits cannot overflow.
	if n := len(b); n > 0 && n <= 18 {
		neg := b[0] == '-'
		digits := b
		if neg {
			digits = b[1:]
		}
		if len(digits) > 0 {
			var v int64
			plain := true
			for i := range len(digits) {
				c := digits[i]
				if c < '0' || c > '9' {
					plain = false
					break
				}
				v = v*10 + int64(c-'0')
			}
			if plain {
				if neg {
					v = -v
				}
				return v, nil
			}
		}
	}
	return parseNumberSlow(b)
}

func parseNumberSlow(b string) (any, error) {
	neg, intDigits, fracDigits, exp, ok := splitDecimal(b)
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a decimal number", ErrInvalid, b)
	}
	// The decimal point sits after point digits of intDigits+fracDigits.
	all := len(intDigits) + len(fracDigits)
	digit := func(i int) byte {
		if i < len(intDigits) {
			return intDigits[i]
		}
		return fracDigits[i-len(intDigits)]
	}
	point := len(intDigits) + exp
	integral := true
	for i := max(point, 0); i < all; i++ {
		if digit(i) != '0' {
			integral = false
			break
		}
	}
	if integral {
		// Rebuild the integer's digits exactly; ParseInt tells if it fits.
		first := 0
		for first < all && first < point && digit(first) == '0' {
			first++
		}
		n := point - first
		if n <= 0 {
			return int64(0), nil
		}
		if n <= 19 {
			txt := make([]byte, 0, n+1)
			if neg {
				txt = append(txt, '-')
			}
			for i := first; i < point; i++ {
				if i < all {
					txt = append(txt, digit(i))
				} else {
					txt = append(txt, '0')
				}
			}
			if v, err := strconv.ParseInt(string(txt), 10, 64); err == nil {
				return v, nil
			}
		}
	}
	f, err := strconv.ParseFloat(b, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: number %q out of range", ErrInvalid, b)
	}
	return f, nil
}

// splitDecimal parses [-]digits[.digits][(e|E)[+-]digits]. The exponent is
// clamped, which only matters for values that overflow float64 anyway.
func splitDecimal(b string) (neg bool, intDigits, fracDigits string, exp int, ok bool) {
	i := 0
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	intDigits = b[start:i]
	if i < len(b) && b[i] == '.' {
		i++
		start = i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		fracDigits = b[start:i]
	}
	if len(intDigits)+len(fracDigits) == 0 {
		return false, "", "", 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		start = i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if exp < 100000 {
				exp = exp*10 + int(b[i]-'0')
			}
			i++
		}
		if i == start {
			return false, "", "", 0, false
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(b) {
		return false, "", "", 0, false
	}
	return neg, intDigits, fracDigits, exp, true
}
