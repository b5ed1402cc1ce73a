package dynamo

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/prospectdata/svc/shared/store"
)

// Expressions are built by hand over the store's small Cond and Update trees
// rather than with feature/dynamodb/expression: the translation needs
// store-specific rules (shadowed index attributes, comparisons that must be
// false on kinds DynamoDB would refuse as operands) that the builder cannot
// express, and it avoids another module.

// expr accumulates the placeholders of one request's expressions: every
// attribute name goes through ExpressionAttributeNames (no reserved-word
// clashes, any character allowed) and every value through
// ExpressionAttributeValues.
type expr struct {
	names  map[string]string // placeholder -> attribute name
	byName map[string]string // attribute name -> placeholder
	values map[string]types.AttributeValue
}

func newExpr() *expr {
	return &expr{names: map[string]string{}, byName: map[string]string{}, values: map[string]types.AttributeValue{}}
}

// name returns the placeholder of an attribute name, reusing it when the
// name appears twice (DynamoDB refuses unused names, not repeated ones).
func (e *expr) name(n string) string {
	if p, ok := e.byName[n]; ok {
		return p
	}
	p := "#n" + strconv.Itoa(len(e.names))
	e.names[p] = n
	e.byName[n] = p
	return p
}

func (e *expr) value(av types.AttributeValue) string {
	p := ":v" + strconv.Itoa(len(e.values))
	e.values[p] = av
	return p
}

func (e *expr) str(s string) string { return e.value(&types.AttributeValueMemberS{Value: s}) }

// attrNames and attrValues return nil for an empty map: DynamoDB refuses an
// empty ExpressionAttributeNames or ExpressionAttributeValues.
func (e *expr) attrNames() map[string]string {
	if len(e.names) == 0 {
		return nil
	}
	return e.names
}

func (e *expr) attrValues() map[string]types.AttributeValue {
	if len(e.values) == 0 {
		return nil
	}
	return e.values
}

// optional returns nil for an empty expression, which the SDK omits.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Shadowed index attributes.
//
// The store's indexes are sparse on value: an item is in an index only when
// both its index key attributes are non-empty strings, and any other value
// (a number, a list, "") simply leaves it out. DynamoDB instead refuses the
// whole write when a GSI key attribute holds a non-S value or an empty
// string. To keep the port's semantics, the driver stores such a value under
// a shadow name (shadowPrefix + attribute) that no index uses, and renames
// it back on every read; conditions and updates on index key attributes
// address whichever name can hold the value involved. A value of an index
// key attribute lives under exactly one of the two names at any time.
const shadowPrefix = "~unindexed:"

// Limits of DynamoDB key values in bytes, as store enforces them.
const (
	maxPKBytes = 2048
	maxSKBytes = 1024
)

// keyString reports whether v can be stored under an index key attribute:
// a non-empty valid UTF-8 string without NUL (a store rule) within the size
// limit of the strictest index using the attribute.
func keyString(v any, maxBytes int) bool {
	s, ok := v.(string)
	return ok && s != "" && len(s) <= maxBytes && strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

// shadowed returns the size limit of an index key attribute that is not a
// table key attribute, and false for any other attribute.
func (t *table) shadowed(attr string) (int, bool) {
	n, ok := t.ixAttrs[attr]
	return n, ok
}

// physName is the attribute name a value of attr is stored under.
func (t *table) physName(attr string, v any) string {
	if limit, ok := t.shadowed(attr); ok && !keyString(v, limit) {
		return shadowPrefix + attr
	}
	return attr
}

// checkAttrName refuses the names the driver reserves.
func checkAttrName(attr string) error {
	if strings.HasPrefix(attr, shadowPrefix) {
		return fmt.Errorf("%w: attribute name %q uses the prefix %q the DynamoDB driver reserves", store.ErrInvalid, attr, shadowPrefix)
	}
	return nil
}

// cond translates a validated condition (store.ValidateCond has run).
func (t *table) cond(e *expr, c *store.Cond) (string, error) {
	switch c.Op {
	case store.CondExists, store.CondNotExists:
		if err := checkAttrName(c.Attr); err != nil {
			return "", err
		}
		fn, join := "attribute_exists", " OR "
		if c.Op == store.CondNotExists {
			fn, join = "attribute_not_exists", " AND "
		}
		s := fn + "(" + e.name(c.Attr) + ")"
		if _, ok := t.shadowed(c.Attr); ok {
			s = "(" + s + join + fn + "(" + e.name(shadowPrefix+c.Attr) + "))"
		}
		return s, nil
	case store.CondEq:
		return t.eq(e, c.Attr, c.Value)
	case store.CondNe:
		// Ne is the negation of Eq in the store (true on a missing
		// attribute); NOT over "=" says exactly that whatever DynamoDB's
		// "<>" does with missing attributes.
		s, err := t.eq(e, c.Attr, c.Value)
		if err != nil {
			return "", err
		}
		return "(NOT " + s + ")", nil
	case store.CondLt, store.CondLe, store.CondGt, store.CondGe:
		return t.compare(e, c)
	case store.CondAnd, store.CondOr:
		join := " AND "
		if c.Op == store.CondOr {
			join = " OR "
		}
		parts := make([]string, len(c.Sub))
		for i, sub := range c.Sub {
			s, err := t.cond(e, sub)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "(" + strings.Join(parts, join) + ")", nil
	case store.CondNot:
		s, err := t.cond(e, c.Sub[0])
		if err != nil {
			return "", err
		}
		return "(NOT " + s + ")", nil
	}
	return "", fmt.Errorf("%w: unknown condition operator %d", store.ErrInvalid, c.Op)
}

// eq holds when attr is present and equal to v under DynamoDB's rules,
// which are the store's (numbers by value, lists and maps deeply).
func (t *table) eq(e *expr, attr string, v any) (string, error) {
	if err := checkAttrName(attr); err != nil {
		return "", err
	}
	n, err := store.Normalize(v)
	if err != nil {
		return "", err
	}
	p := e.name(t.physName(attr, n))
	if budget := maxDeepEq; spellable(n, &budget) {
		return deepEq(e, p, n), nil
	}
	av, err := marshalValue(n)
	if err != nil {
		return "", err
	}
	return p + " = " + e.value(av), nil
}

// compare translates Lt, Le, Gt, Ge. The store orders numbers, strings and
// binaries only, and a kind mismatch is false, which is also how DynamoDB
// evaluates a comparison of operands of different types. But DynamoDB
// refuses the request outright when the value operand is of a kind it
// cannot order (a BOOL, a list), so such a comparison becomes an expression
// that is false on every item.
func (t *table) compare(e *expr, c *store.Cond) (string, error) {
	if err := checkAttrName(c.Attr); err != nil {
		return "", err
	}
	n, err := store.Normalize(c.Value)
	if err != nil {
		return "", err
	}
	_, isString := n.(string)
	switch n.(type) {
	case int64, float64, string, []byte:
	default:
		p := e.name(c.Attr)
		return "(attribute_exists(" + p + ") AND attribute_not_exists(" + p + "))", nil
	}
	av, err := marshalValue(n)
	if err != nil {
		return "", err
	}
	op := ">="
	switch c.Op {
	case store.CondLt:
		op = "<"
	case store.CondLe:
		op = "<="
	case store.CondGt:
		op = ">"
	}
	v := e.value(av)
	if _, ok := t.shadowed(c.Attr); ok {
		s := e.name(shadowPrefix+c.Attr) + " " + op + " " + v
		if !isString {
			return s, nil // numbers and binaries live under the shadow name
		}
		// A string is under the attribute when it is a valid key, under
		// the shadow when it is "" (or not a valid key).
		return "(" + e.name(c.Attr) + " " + op + " " + v + " OR " + s + ")", nil
	}
	return e.name(c.Attr) + " " + op + " " + v, nil
}

// maxDeepEq bounds the nodes of a list or map value that Eq compares one by
// one; a larger value is compared with a single "=" (see deepEq).
const maxDeepEq = 64

// deepEq writes equality with v as DynamoDB defines it for lists and maps
// (same type, same size, equal elements) spelled out element by element:
// attribute_type, size, then one comparison per element through document
// paths. DynamoDB's "=" on a whole list or map means the same, but some
// emulators (dynalite) compare lists and maps by reference and never find
// them equal; the spelled-out form is exact everywhere. Scalars
// use "=", and NULL attribute_type rather than rely on "=" taking a NULL
// operand. spellable tells beforehand whether the form fits.
func deepEq(e *expr, path string, v any) string {
	var l []any
	switch x := v.(type) {
	case nil:
		return "attribute_type(" + path + ", " + e.str("NULL") + ")"
	case []string:
		l = make([]any, len(x))
		for i, s := range x {
			l[i] = s
		}
	case []any:
		l = x
	case map[string]any:
		parts := []string{"attribute_type(" + path + ", " + e.str("M") + ")",
			"size(" + path + ") = " + e.value(&types.AttributeValueMemberN{Value: strconv.Itoa(len(x))})}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, deepEq(e, path+"."+e.name(k), x[k]))
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	default:
		av, _ := marshalValue(v) // normalised by the caller
		return path + " = " + e.value(av)
	}
	parts := []string{"attribute_type(" + path + ", " + e.str("L") + ")",
		"size(" + path + ") = " + e.value(&types.AttributeValueMemberN{Value: strconv.Itoa(len(l))})}
	for i, el := range l {
		parts = append(parts, deepEq(e, path+"["+strconv.Itoa(i)+"]", el))
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// spellable reports whether deepEq may spell v out: at most maxDeepEq
// lists, maps and elements (DynamoDB limits an expression to 4 KB), and no
// empty map key, which no document path can name. Otherwise Eq uses a
// single "=", exact on DynamoDB.
func spellable(v any, budget *int) bool {
	*budget--
	if *budget < 0 {
		return false
	}
	switch x := v.(type) {
	case []string:
		*budget -= len(x)
		return *budget >= 0
	case []any:
		for _, el := range x {
			if !spellable(el, budget) {
				return false
			}
		}
	case map[string]any:
		for k, el := range x {
			if k == "" || !spellable(el, budget) {
				return false
			}
		}
	}
	return true
}

// condExpr translates an optional condition.
func (t *table) condExpr(e *expr, c *store.Cond) (string, error) {
	if c == nil {
		return "", nil
	}
	return t.cond(e, c)
}

// update translates a validated update (store.ValidateUpdate has run) into an
// UpdateExpression; "" for no action.
func (t *table) update(e *expr, u store.Update) (string, error) {
	var set, remove, add []string
	for _, a := range u {
		if err := checkAttrName(a.Attr); err != nil {
			return "", err
		}
		limit, shadow := t.shadowed(a.Attr)
		switch a.Kind {
		case store.UpdSet:
			s, r, err := t.setAction(e, a, limit, shadow)
			if err != nil {
				return "", err
			}
			set = append(set, s)
			if shadow {
				remove = append(remove, r)
			}
		case store.UpdSetIfAbsent:
			if shadow {
				// "Absent" would mean absent under both names, which one
				// UpdateItem cannot test without a condition of its own.
				return "", fmt.Errorf("%w: SetIfAbsent on index key attribute %q is not supported by the DynamoDB driver", store.ErrInvalid, a.Attr)
			}
			av, err := normalizeAndMarshal(a.Value)
			if err != nil {
				return "", err
			}
			p := e.name(a.Attr)
			set = append(set, p+" = if_not_exists("+p+", "+e.value(av)+")")
		case store.UpdAdd:
			d := e.value(&types.AttributeValueMemberN{Value: strconv.FormatInt(a.Delta, 10)})
			if shadow {
				// A number lives under the shadow name. Should the
				// attribute hold a string, if_not_exists yields it and the
				// addition fails with a ValidationException, as ADD on a
				// string does.
				s, p := e.name(shadowPrefix+a.Attr), e.name(a.Attr)
				zero := e.value(&types.AttributeValueMemberN{Value: "0"})
				set = append(set, s+" = if_not_exists("+s+", if_not_exists("+p+", "+zero+")) + "+d)
				continue
			}
			add = append(add, e.name(a.Attr)+" "+d)
		case store.UpdRemove:
			remove = append(remove, e.name(a.Attr))
			if shadow {
				remove = append(remove, e.name(shadowPrefix+a.Attr))
			}
		default:
			return "", fmt.Errorf("%w: unknown update action kind %d on %q", store.ErrInvalid, a.Kind, a.Attr)
		}
	}
	return joinClauses(set, remove, add), nil
}

// setAction translates a SET action. Its value goes under the physical
// name of its kind; for a shadowed attribute, remove is the clause that
// clears the other name ("" otherwise), so one name holds the value.
func (t *table) setAction(e *expr, a store.UpdateAction, limit int, shadow bool) (set, remove string, err error) {
	n, err := store.Normalize(a.Value)
	if err != nil {
		return "", "", err
	}
	if s, ok := n.(string); ok && shadow && s != "" && !keyString(s, limit) {
		// Without the item the driver cannot tell whether this
		// value would land in an index (bolt refuses it only then):
		// refuse a value no index key may hold.
		return "", "", fmt.Errorf("%w: index key attribute %q cannot hold %q (NUL byte, invalid UTF-8 or over %d bytes)", store.ErrInvalid, a.Attr, s, limit)
	}
	av, err := marshalValue(n)
	if err != nil {
		return "", "", err
	}
	p := t.physName(a.Attr, n)
	set = e.name(p) + " = " + e.value(av)
	if shadow {
		other := shadowPrefix + a.Attr
		if p != a.Attr {
			other = a.Attr
		}
		remove = e.name(other)
	}
	return set, remove, nil
}

// joinClauses assembles the UpdateExpression from its clauses, leaving
// out the empty ones.
func joinClauses(set, remove, add []string) string {
	var b strings.Builder
	for _, part := range []struct {
		verb  string
		items []string
	}{{"SET ", set}, {"REMOVE ", remove}, {"ADD ", add}} {
		if len(part.items) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(part.verb)
		b.WriteString(strings.Join(part.items, ", "))
	}
	return b.String()
}

// keyCond translates the key condition of a query on (pkAttr, skAttr).
func keyCond(e *expr, pkAttr, skAttr string, q store.Query) string {
	s := e.name(pkAttr) + " = " + e.str(q.PK)
	if q.SK.Op == store.SortAny {
		return s
	}
	sk := e.name(skAttr)
	switch q.SK.Op {
	case store.SortEq:
		return s + " AND " + sk + " = " + e.str(q.SK.Value)
	case store.SortLt:
		return s + " AND " + sk + " < " + e.str(q.SK.Value)
	case store.SortLe:
		return s + " AND " + sk + " <= " + e.str(q.SK.Value)
	case store.SortGt:
		return s + " AND " + sk + " > " + e.str(q.SK.Value)
	case store.SortGe:
		return s + " AND " + sk + " >= " + e.str(q.SK.Value)
	case store.SortBetween:
		return s + " AND " + sk + " BETWEEN " + e.str(q.SK.Value) + " AND " + e.str(q.SK.Value2)
	default: // store.SortBeginsWith; ValidateQuery refused any other
		return s + " AND begins_with(" + sk + ", " + e.str(q.SK.Value) + ")"
	}
}
