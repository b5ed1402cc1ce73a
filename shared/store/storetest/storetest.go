// Package storetest is the contract suite of the table port: every driver of
// store.DB runs Run, so that repositories observe the same semantics on
// every driver (see the package doc of store).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/prospectdata/svc/shared/store"
)

// Table names and attributes of the schemas the suite uses.
const (
	// Items has a sort key, a sparse index and a TTL attribute.
	Items = "items"
	// Others is a second table with other key attribute names, for
	// transactions across tables.
	Others = "others"

	ByOwner = "by_owner" // index of Items on (owner, created)
)

// Expiries used for TTL tests: far enough from any test run's wall clock
// that no test depends on the time it runs at or on sleeping.
const (
	LongExpired = int64(86400)      // 1970-01-02
	FarFuture   = int64(4102444800) // 2100-01-01
)

// Schemas returns the tables the suite opens.
func Schemas() []store.Schema {
	return []store.Schema{
		{
			Name: Items, PK: "pk", SK: "sk",
			Indexes: []store.Index{{Name: ByOwner, PK: "owner", SK: "created"}},
			TTL:     "expires",
		},
		{Name: Others, PK: "id", SK: "rev"},
	}
}

// Run runs the contract suite against the driver open creates. open must
// return a fresh, empty DB with the given schemas; Run closes every DB it
// opens (with t.Cleanup). Subtests run in parallel, each on its own DB. A
// driver with a TTL sweeper should disable it: the suite checks that expired
// items stay visible to conditions until they are physically deleted.
func Run(t *testing.T, open func(t *testing.T, schemas []store.Schema) store.DB) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.DB)
	}{
		{"RoundTripValueKinds", testRoundTrip},
		{"UnsupportedValuesRefused", testUnsupportedValues},
		{"GetNotFound", testNotFound},
		{"PutOverwrites", testOverwrite},
		{"ConditionalPutNotExists", testConditionalPut},
		{"ConditionOperators", testConditionOperators},
		{"ConditionsOnAbsentItem", testConditionsOnAbsentItem},
		{"UpdateCreatesItem", testUpdateCreates},
		{"UpdateActions", testUpdateActions},
		{"UpdateReturnsStoredForm", testUpdateReturnsStoredForm},
		{"UpdateAddOnMissingCounter", testAddMissing},
		{"UpdateAddOnNonNumberRefused", testAddNonNumber},
		{"UpdateConcurrentAddIsAtomic", testConcurrentAdd},
		{"UpdateFailedConditionChangesNothing", testUpdateFailedCond},
		{"UpdateKeyAttributeRefused", testUpdateKeyAttr},
		{"Delete", testDelete},
		{"QuerySortConditions", testQuerySortConditions},
		{"QueryPagination", testQueryPagination},
		{"QueryBadCursorRefused", testQueryBadCursor},
		{"IndexQuery", testIndexQuery},
		{"IndexIsSparse", testIndexSparse},
		{"IndexFollowsUpdatesAndDeletes", testIndexMaintenance},
		{"IndexPaginationWithEqualSortKeys", testIndexPagination},
		{"TTLHidesExpiredFromGetAndQuery", testTTLHides},
		{"TTLConditionsStillSeeExpiredItems", testTTLConditions},
		{"TransactAllApplied", testTxAll},
		{"TransactFailedConditionAppliesNothing", testTxCondFails},
		{"TransactCheckOp", testTxCheck},
		{"TransactFailedUpdateAppliesNothing", testTxUpdateFails},
		{"TransactInvalidRefused", testTxInvalid},
		{"InvalidKeysRefused", testInvalidKeys},
		{"CancelledContext", testCancelled},
		{"UnknownTablePanics", testUnknownTable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := open(t, Schemas())
			t.Cleanup(func() {
				if err := db.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tt.fn(t, db)
		})
	}
}

// key builds a Key.
func key(pk, sk string) store.Key { return store.Key{PK: pk, SK: sk} }

func item(pk, sk string, kv ...any) store.Item {
	it := store.Item{"pk": pk, "sk": sk}
	for i := 0; i+1 < len(kv); i += 2 {
		it[kv[i].(string)] = kv[i+1]
	}
	return it
}

func mustPut(t *testing.T, tb store.Table, it store.Item) {
	t.Helper()
	if err := tb.Put(context.Background(), it, nil); err != nil {
		t.Fatalf("Put(%v): %v", it, err)
	}
}

func mustGet(t *testing.T, tb store.Table, k store.Key) store.Item {
	t.Helper()
	it, err := tb.Get(context.Background(), k)
	if err != nil {
		t.Fatalf("Get(%v): %v", k, err)
	}
	return it
}

func wantNotFound(t *testing.T, tb store.Table, k store.Key) {
	t.Helper()
	it, err := tb.Get(context.Background(), k)
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(%v) = %v, %v; want ErrNotFound", k, it, err)
	}
}

func wantItem(t *testing.T, tb store.Table, want store.Item) {
	t.Helper()
	got := mustGet(t, tb, key(want.String("pk"), want.String("sk")))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %#v\nwant  %#v", got, want)
	}
}

// invalid asserts a request was refused as malformed: an error that is not a
// condition failure (retrying or re-reading would not help).
func invalid(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want an error", what)
	}
	if errors.Is(err, store.ErrConditionFailed) || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: %v, want a validation error", what, err)
	}
	if !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("%s: %v does not wrap store.ErrInvalid", what, err)
	}
}

func condFailed(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrConditionFailed) {
		t.Fatalf("%s: %v, want ErrConditionFailed", what, err)
	}
}

func testRoundTrip(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"string", "hello, wörld \"\\\n\x01 😀", "hello, wörld \"\\\n\x01 😀"},
		{"empty string", "", ""},
		{"int64", int64(-1234567890123), int64(-1234567890123)},
		{"int64 max", int64(math.MaxInt64), int64(math.MaxInt64)},
		{"int64 min", int64(math.MinInt64), int64(math.MinInt64)},
		{"int widened", 42, int64(42)},
		{"uint16 widened", uint16(7), int64(7)},
		{"float64", 3.25, 3.25},
		{"float64 tiny", 1.5e-9, 1.5e-9},
		{"float64 integral reads as int64", 8.0, int64(8)},
		{"float32", float32(0.5), 0.5},
		{"bool true", true, true},
		{"bool false", false, false},
		{"bytes", []byte{0, 1, 2, 253, 254, 255}, []byte{0, 1, 2, 253, 254, 255}},
		{"strings", []string{"a", "", "c"}, []string{"a", "", "c"}},
		{"empty strings", []string{}, []string{}},
		{"list of strings as any", []any{"x", "y"}, []string{"x", "y"}},
		{"mixed list", []any{"a", int64(1), 2.5, true, nil, []byte{9}}, []any{"a", int64(1), 2.5, true, nil, []byte{9}}},
		{"nested list", []any{[]any{int64(1)}, []string{"s"}}, []any{[]any{int64(1)}, []string{"s"}}},
		{"nested map", map[string]any{"a": map[string]any{"b": []any{int64(1), "c"}}, "d": 4},
			map[string]any{"a": map[string]any{"b": []any{int64(1), "c"}}, "d": int64(4)}},
		{"empty map", map[string]any{}, map[string]any{}},
		{"nil", nil, nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sk := fmt.Sprintf("v%02d", i)
			mustPut(t, tb, item("round", sk, "v", tt.in))
			wantItem(t, tb, item("round", sk, "v", tt.want))
		})
	}
	t.Run("all kinds in one item", func(t *testing.T) {
		in, want := item("round", "all"), item("round", "all")
		for i, tt := range tests {
			in[fmt.Sprintf("a%02d", i)] = tt.in
			want[fmt.Sprintf("a%02d", i)] = tt.want
		}
		mustPut(t, tb, in)
		wantItem(t, tb, want)
	})
}

func testUnsupportedValues(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	for name, v := range map[string]any{
		"struct":       struct{ A int }{1},
		"int slice":    []int{1},
		"nested":       map[string]any{"a": []any{struct{}{}}},
		"NaN":          math.NaN(),
		"invalid utf8": "\xff\xfe",
	} {
		invalid(t, "Put "+name, tb.Put(ctx, item("bad", "v", "v", v), nil))
		_, err := tb.Update(ctx, key("bad", "u"), store.Update{}.Set("v", v), nil)
		invalid(t, "Update "+name, err)
	}
	wantNotFound(t, tb, key("bad", "v"))
	wantNotFound(t, tb, key("bad", "u"))
}

func testNotFound(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	wantNotFound(t, tb, key("nobody", "nothing"))
	mustPut(t, tb, item("p", "a"))
	wantNotFound(t, tb, key("p", "b"))
	wantNotFound(t, tb, key("q", "a"))
	// Same item name in another table is another item.
	wantNotFound(t, db.Table(Others), key("p", "a"))
}

func testOverwrite(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	mustPut(t, tb, item("p", "s", "a", "1", "b", "2"))
	mustPut(t, tb, item("p", "s", "a", "3"))
	// Put replaces the whole item: b is gone.
	wantItem(t, tb, item("p", "s", "a", "3"))
}

func testConditionalPut(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	if err := tb.Put(ctx, item("p", "s", "v", "first"), store.NotExists("pk")); err != nil {
		t.Fatalf("first conditional Put: %v", err)
	}
	condFailed(t, "second conditional Put", tb.Put(ctx, item("p", "s", "v", "second"), store.NotExists("pk")))
	wantItem(t, tb, item("p", "s", "v", "first"))
	if err := tb.Put(ctx, item("p", "s", "v", "third"), store.Eq("v", "first")); err != nil {
		t.Fatalf("Put with Eq on the old item: %v", err)
	}
	wantItem(t, tb, item("p", "s", "v", "third"))
}

// condItem is the item the condition tests evaluate against.
func condItem() store.Item {
	return item("c", "s",
		"n", int64(5), "f", 2.5, "s", "m", "b", true, "bin", []byte{1, 2},
		"l", []string{"a", "b"}, "la", []any{"a", int64(1)},
		"m", map[string]any{"x": int64(1), "y": "z"}, "nul", nil, "big", int64(1<<53+1))
}

func testConditionOperators(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	mustPut(t, tb, condItem())
	ctx := context.Background()
	for _, tt := range conditionCases() {
		t.Run(tt.name, func(t *testing.T) {
			// Putting the same item back changes nothing whatever happens,
			// so the cases are independent.
			err := tb.Put(ctx, condItem(), tt.c)
			switch {
			case tt.want && err != nil:
				t.Fatalf("condition should hold: %v", err)
			case !tt.want:
				condFailed(t, "condition should fail", err)
			}
			// Every write kind evaluates conditions the same way.
			_, err = tb.Update(ctx, key("c", "s"), nil, tt.c)
			if tt.want != (err == nil) {
				t.Fatalf("Update with the condition: %v, want ok=%v", err, tt.want)
			}
			err = db.Transact(ctx, store.CheckOp(Items, key("c", "s"), tt.c))
			if tt.want != (err == nil) {
				t.Fatalf("CheckOp with the condition: %v, want ok=%v", err, tt.want)
			}
		})
	}
	wantItem(t, tb, condItem())
}

// condCase is a condition and whether it holds on condItem.
type condCase struct {
	name string
	c    *store.Cond
	want bool
}

// conditionCases are testConditionOperators' cases, every operator on
// every kind of value condItem holds.
func conditionCases() []condCase {
	return []condCase{
		{"exists", store.Exists("n"), true},
		{"exists null", store.Exists("nul"), true},
		{"exists missing", store.Exists("zz"), false},
		{"not exists missing", store.NotExists("zz"), true},
		{"not exists present", store.NotExists("n"), false},
		{"eq int", store.Eq("n", int64(5)), true},
		{"eq int kind", store.Eq("n", 5), true},
		{"eq int vs integral float", store.Eq("n", 5.0), true},
		{"eq differs", store.Eq("n", 6), false},
		{"eq number vs string", store.Eq("n", "5"), false},
		{"eq missing", store.Eq("zz", 5), false},
		{"eq float", store.Eq("f", 2.5), true},
		{"eq string", store.Eq("s", "m"), true},
		{"eq string differs", store.Eq("s", "M"), false},
		{"eq bool", store.Eq("b", true), true},
		{"eq bytes", store.Eq("bin", []byte{1, 2}), true},
		{"eq bytes differ", store.Eq("bin", []byte{1, 3}), false},
		{"eq string list", store.Eq("l", []string{"a", "b"}), true},
		{"eq string list as any", store.Eq("l", []any{"a", "b"}), true},
		{"eq list order", store.Eq("l", []string{"b", "a"}), false},
		{"eq mixed list", store.Eq("la", []any{"a", 1}), true},
		{"eq map", store.Eq("m", map[string]any{"x": 1, "y": "z"}), true},
		{"eq map differs", store.Eq("m", map[string]any{"x": 1}), false},
		{"eq null", store.Eq("nul", nil), true},
		{"eq big int exactly", store.Eq("big", int64(1<<53+1)), true},
		{"eq big int no float rounding", store.Eq("big", int64(1<<53)), false},
		{"ne equal", store.Ne("n", 5), false},
		{"ne differs", store.Ne("n", 6), true},
		{"ne other kind", store.Ne("n", "5"), true},
		{"ne missing attribute", store.Ne("zz", 1), true},
		{"lt", store.Lt("n", 6), true},
		{"lt equal", store.Lt("n", 5), false},
		{"le equal", store.Le("n", 5), true},
		{"le below", store.Le("n", 4), false},
		{"gt", store.Gt("n", 4), true},
		{"gt equal", store.Gt("n", 5), false},
		{"ge equal", store.Ge("n", 5), true},
		{"ge above", store.Ge("n", 6), false},
		{"lt int vs float", store.Lt("n", 5.5), true},
		{"gt float vs int", store.Gt("f", 2), true},
		{"lt float vs int", store.Lt("f", 3), true},
		{"gt big int vs float", store.Gt("big", float64(1<<53)), true},
		{"lt string", store.Lt("s", "n"), true},
		{"gt string", store.Gt("s", "l"), true},
		{"le string equal", store.Le("s", "m"), true},
		{"string order is bytewise", store.Gt("s", "Z"), true},
		{"lt string vs number", store.Lt("s", 100), false},
		{"gt string vs number", store.Gt("s", 0), false},
		{"ge number vs string", store.Ge("n", "0"), false},
		{"lt missing", store.Lt("zz", 1), false},
		{"ge missing", store.Ge("zz", "a"), false},
		{"lt bool", store.Lt("b", true), false},
		{"gt list", store.Gt("l", []string{"a"}), false},
		{"and true", store.And(store.Exists("n"), store.Eq("s", "m")), true},
		{"and false", store.And(store.Exists("n"), store.Eq("s", "x")), false},
		{"or true", store.Or(store.Exists("zz"), store.Eq("s", "m")), true},
		{"or false", store.Or(store.Exists("zz"), store.Eq("s", "x")), false},
		{"not", store.Not(store.Exists("zz")), true},
		{"not false", store.Not(store.Exists("n")), false},
		{"nested", store.Or(store.And(store.Gt("n", 1), store.Not(store.Eq("s", "m"))),
			store.And(store.Lt("f", 3), store.Ne("zz", 1))), true},
	}
}

func testConditionsOnAbsentItem(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	tests := []struct {
		c    *store.Cond
		want bool
	}{
		{store.Exists("pk"), false},
		{store.NotExists("pk"), true},
		{store.Eq("pk", "absent"), false},
		{store.Ne("pk", "absent"), true},
		{store.Lt("n", 1), false},
		{store.Not(store.Exists("pk")), true},
	}
	for i, tt := range tests {
		k := key("absent", fmt.Sprint(i))
		err := tb.Delete(ctx, k, tt.c)
		if tt.want != (err == nil) {
			t.Errorf("Delete of absent item with %+v: %v, want ok=%v", tt.c, err, tt.want)
		}
		if !tt.want {
			condFailed(t, "Delete of absent item", err)
		}
		wantNotFound(t, tb, k)
	}
}

func testUpdateCreates(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	got, err := tb.Update(ctx, key("u", "new"), store.Update{}.Set("a", "x").Add("n", 2), nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := item("u", "new", "a", "x", "n", int64(2))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Update returned %#v, want %#v", got, want)
	}
	wantItem(t, tb, want)
	// Guarding with Exists(pk) forbids the creation.
	_, err = tb.Update(ctx, key("u", "other"), store.Update{}.Set("a", "x"), store.Exists("pk"))
	condFailed(t, "Update guarded by Exists(pk)", err)
	wantNotFound(t, tb, key("u", "other"))
	// An update without actions still creates the item, as UpdateItem does.
	got, err = tb.Update(ctx, key("u", "bare"), nil, nil)
	if err != nil || !reflect.DeepEqual(got, item("u", "bare")) {
		t.Fatalf("empty Update = %#v, %v", got, err)
	}
}

func testUpdateActions(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	k := key("u", "s")
	tests := []struct {
		name string
		u    store.Update
		want store.Item
	}{
		{"set", store.Update{}.Set("a", "1").Set("l", []string{"x"}),
			item("u", "s", "a", "1", "l", []string{"x"})},
		{"set replaces", store.Update{}.Set("a", int64(2)),
			item("u", "s", "a", int64(2), "l", []string{"x"})},
		{"set if absent keeps existing", store.Update{}.SetIfAbsent("a", "no"),
			item("u", "s", "a", int64(2), "l", []string{"x"})},
		{"set if absent sets missing", store.Update{}.SetIfAbsent("b", "yes"),
			item("u", "s", "a", int64(2), "l", []string{"x"}, "b", "yes")},
		{"add", store.Update{}.Add("a", 40),
			item("u", "s", "a", int64(42), "l", []string{"x"}, "b", "yes")},
		{"add negative", store.Update{}.Add("a", -50),
			item("u", "s", "a", int64(-8), "l", []string{"x"}, "b", "yes")},
		{"remove", store.Update{}.Remove("l").Remove("never-there"),
			item("u", "s", "a", int64(-8), "b", "yes")},
		{"several actions at once", store.Update{}.Set("c", true).SetIfAbsent("b", "no").Add("d", 1).Remove("a"),
			item("u", "s", "b", "yes", "c", true, "d", int64(1))},
		{"set float then add", store.Update{}.Set("f", 1.5),
			item("u", "s", "b", "yes", "c", true, "d", int64(1), "f", 1.5)},
		{"add to float", store.Update{}.Add("f", 2),
			item("u", "s", "b", "yes", "c", true, "d", int64(1), "f", 3.5)},
	}
	for _, tt := range tests { // sequential: each builds on the previous
		got, err := tb.Update(ctx, k, tt.u, nil)
		if err != nil {
			t.Fatalf("%s: Update: %v", tt.name, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Fatalf("%s: Update returned %#v\nwant %#v", tt.name, got, tt.want)
		}
		wantItem(t, tb, tt.want)
	}
	// Two actions on one attribute are refused, as DynamoDB refuses
	// overlapping paths.
	_, err := tb.Update(ctx, k, store.Update{}.Set("x", 1).Add("x", 1), nil)
	invalid(t, "two actions on one attribute", err)
}

func testUpdateReturnsStoredForm(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	got, err := tb.Update(context.Background(), key("u", "form"),
		store.Update{}.Set("f", 4.0).Set("l", []any{"a"}).Set("i", 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The returned item follows the read rules, like Get.
	want := item("u", "form", "f", int64(4), "l", []string{"a"}, "i", int64(3))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Update returned %#v, want %#v", got, want)
	}
	wantItem(t, tb, want)
}

func testAddMissing(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	mustPut(t, tb, item("c", "s", "other", "x"))
	got, err := tb.Update(ctx, key("c", "s"), store.Update{}.Add("hits", 1), store.Exists("pk"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Int("hits") != 1 {
		t.Fatalf("hits = %#v, want 1", got["hits"])
	}
	got, err = tb.Update(ctx, key("c", "s"), store.Update{}.Add("hits", 1), nil)
	if err != nil || got["hits"] != int64(2) {
		t.Fatalf("second Add: %#v, %v", got["hits"], err)
	}
}

func testAddNonNumber(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	mustPut(t, tb, item("c", "s", "hits", "many"))
	_, err := tb.Update(context.Background(), key("c", "s"), store.Update{}.Add("hits", 1).Set("other", 1), nil)
	invalid(t, "Add on a string", err)
	wantItem(t, tb, item("c", "s", "hits", "many"))
}

func testConcurrentAdd(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	const workers, increments = 20, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range increments {
				if _, err := tb.Update(context.Background(), key("ctr", "hits"), store.Update{}.Add("n", 1), nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Add: %v", err)
	}
	if n := mustGet(t, tb, key("ctr", "hits"))["n"]; n != int64(workers*increments) {
		t.Fatalf("counter = %#v, want %d", n, workers*increments)
	}
}

func testUpdateFailedCond(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	orig := item("u", "s", "v", int64(1), "owner", "o1", "created", "c1")
	mustPut(t, tb, orig)
	_, err := tb.Update(context.Background(), key("u", "s"),
		store.Update{}.Set("v", int64(2)).Set("owner", "o2").Remove("created"), store.Eq("v", int64(9)))
	condFailed(t, "Update with a false condition", err)
	wantItem(t, tb, orig)
	// The index did not move either.
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1"}), "u/s")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o2"}))
}

func testUpdateKeyAttr(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	mustPut(t, tb, item("u", "s"))
	for name, u := range map[string]store.Update{
		"set pk":        store.Update{}.Set("pk", "other"),
		"set sk":        store.Update{}.Set("sk", "other"),
		"remove sk":     store.Update{}.Remove("sk"),
		"add to pk":     store.Update{}.Add("pk", 1),
		"set if absent": store.Update{}.SetIfAbsent("sk", "x"),
	} {
		_, err := tb.Update(ctx, key("u", "s"), u, nil)
		invalid(t, name, err)
	}
	_, err := db.Table(Others).Update(ctx, key("i", "r"), store.Update{}.Set("rev", "2"), nil)
	invalid(t, "set the sort key of others", err)
	wantItem(t, tb, item("u", "s"))
}

func testDelete(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	mustPut(t, tb, item("d", "1", "v", int64(1)))
	if err := tb.Delete(ctx, key("d", "1"), nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	wantNotFound(t, tb, key("d", "1"))
	if err := tb.Delete(ctx, key("d", "1"), nil); err != nil {
		t.Fatalf("Delete of an absent item without condition: %v", err)
	}
	mustPut(t, tb, item("d", "2", "v", int64(1)))
	condFailed(t, "Delete with a false condition", tb.Delete(ctx, key("d", "2"), store.Eq("v", int64(2))))
	wantItem(t, tb, item("d", "2", "v", int64(1)))
	if err := tb.Delete(ctx, key("d", "2"), store.Eq("v", int64(1))); err != nil {
		t.Fatalf("Delete with a true condition: %v", err)
	}
	wantNotFound(t, tb, key("d", "2"))
	condFailed(t, "Delete of an absent item guarded by Exists", tb.Delete(ctx, key("d", "3"), store.Exists("pk")))
}

// queryAll reads every page of q with a small page size, checking that no
// page exceeds it, and returns all items.
func queryAll(t *testing.T, tb store.Table, q store.Query) []store.Item {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 3
	}
	var all []store.Item
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("query %+v does not terminate", q)
		}
		p, err := tb.Query(context.Background(), q)
		if err != nil {
			t.Fatalf("Query(%+v): %v", q, err)
		}
		if len(p.Items) > q.Limit {
			t.Fatalf("page of %d items over the limit %d", len(p.Items), q.Limit)
		}
		all = append(all, p.Items...)
		if p.Next == "" {
			return all
		}
		q.After = p.Next
	}
}

func keysOf(items []store.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.String("pk") + "/" + it.String("sk")
	}
	return out
}

func wantKeys(t *testing.T, items []store.Item, want ...string) {
	t.Helper()
	got := keysOf(items)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("items %q, want %q", got, want)
	}
}

func testQuerySortConditions(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	sks := []string{"a", "b", "ba", "bb", "b~", "c", "d"}
	for _, sk := range sks {
		mustPut(t, tb, item("p", sk))
	}
	// Neighbouring partitions, one a prefix of "p" and one extending it,
	// must never leak into the results.
	for _, pk := range []string{"o", "pp", "p "} {
		for _, sk := range sks {
			mustPut(t, tb, item(pk, sk))
		}
	}
	mk := func(sks ...string) []string {
		out := make([]string, len(sks))
		for i, s := range sks {
			out[i] = "p/" + s
		}
		return out
	}
	tests := []struct {
		name string
		sk   store.SortCond
		want []string
	}{
		{"any", store.SortCond{}, mk(sks...)},
		{"eq", store.SortCond{Op: store.SortEq, Value: "b"}, mk("b")},
		{"eq absent", store.SortCond{Op: store.SortEq, Value: "bc"}, nil},
		{"lt", store.SortCond{Op: store.SortLt, Value: "ba"}, mk("a", "b")},
		{"le", store.SortCond{Op: store.SortLe, Value: "ba"}, mk("a", "b", "ba")},
		{"le between keys", store.SortCond{Op: store.SortLe, Value: "bc"}, mk("a", "b", "ba", "bb")},
		{"gt", store.SortCond{Op: store.SortGt, Value: "b"}, mk("ba", "bb", "b~", "c", "d")},
		{"ge", store.SortCond{Op: store.SortGe, Value: "b~"}, mk("b~", "c", "d")},
		{"gt last", store.SortCond{Op: store.SortGt, Value: "d"}, nil},
		{"lt first", store.SortCond{Op: store.SortLt, Value: "a"}, nil},
		{"between", store.SortCond{Op: store.SortBetween, Value: "b", Value2: "c"}, mk("b", "ba", "bb", "b~", "c")},
		{"between same", store.SortCond{Op: store.SortBetween, Value: "bb", Value2: "bb"}, mk("bb")},
		{"begins with", store.BeginsWith("b"), mk("b", "ba", "bb", "b~")},
		{"begins with whole key", store.BeginsWith("bb"), mk("bb")},
		{"begins with nothing", store.BeginsWith("e"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, limit := range []int{1, 2, 100} {
				got := queryAll(t, tb, store.Query{PK: "p", SK: tt.sk, Limit: limit})
				wantKeys(t, got, tt.want...)
				desc := queryAll(t, tb, store.Query{PK: "p", SK: tt.sk, Limit: limit, Desc: true})
				rev := slices.Clone(tt.want)
				slices.Reverse(rev)
				wantKeys(t, desc, rev...)
			}
		})
	}
	// Query returns whole items.
	mustPut(t, tb, item("whole", "x", "a", int64(1), "b", []string{"c"}))
	p, err := tb.Query(context.Background(), store.Query{PK: "whole"})
	if err != nil || len(p.Items) != 1 || !reflect.DeepEqual(p.Items[0], item("whole", "x", "a", int64(1), "b", []string{"c"})) {
		t.Fatalf("Query of one item = %+v, %v", p, err)
	}
	// An invalid query is refused.
	_, err = tb.Query(context.Background(), store.Query{PK: "p", SK: store.SortCond{Op: store.SortBetween, Value: "c", Value2: "a"}})
	invalid(t, "Between with reversed bounds", err)
	_, err = tb.Query(context.Background(), store.Query{PK: "p", Index: "nope"})
	invalid(t, "unknown index", err)
}

func testQueryPagination(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	const n = 25
	var want []string
	for i := range n {
		sk := fmt.Sprintf("k%03d", i)
		mustPut(t, tb, item("pg", sk, "i", int64(i)))
		want = append(want, "pg/"+sk)
	}
	mustPut(t, tb, item("pg2", "k000"))
	ctx := context.Background()
	for _, limit := range []int{1, 5, 7, 24, 25, 26} {
		for _, desc := range []bool{false, true} {
			t.Run(fmt.Sprintf("limit %d desc %v", limit, desc), func(t *testing.T) {
				exp := slices.Clone(want)
				if desc {
					slices.Reverse(exp)
				}
				q := store.Query{PK: "pg", Limit: limit, Desc: desc}
				var got []string
				for pages := 0; ; pages++ {
					if pages > n+1 {
						t.Fatal("pagination does not terminate")
					}
					p, err := tb.Query(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					if len(p.Items) > limit {
						t.Fatalf("page of %d items, limit %d", len(p.Items), limit)
					}
					// A page is full unless it is the last one, which may be
					// empty when the previous page ended exactly at the end.
					if p.Next != "" && len(p.Items) != limit {
						t.Fatalf("page of %d items with a Next, limit %d", len(p.Items), limit)
					}
					got = append(got, keysOf(p.Items)...)
					if p.Next == "" {
						break
					}
					q.After = p.Next
				}
				if !slices.Equal(got, exp) {
					t.Fatalf("visited %q, want %q", got, exp)
				}
			})
		}
	}
	t.Run("with sort condition", func(t *testing.T) {
		got := queryAll(t, tb, store.Query{PK: "pg", SK: store.SortCond{Op: store.SortBetween, Value: "k005", Value2: "k014"}, Limit: 4})
		wantKeys(t, got, want[5:15]...)
		got = queryAll(t, tb, store.Query{PK: "pg", SK: store.BeginsWith("k01"), Limit: 3, Desc: true})
		rev := slices.Clone(want[10:20])
		slices.Reverse(rev)
		wantKeys(t, got, rev...)
	})
	t.Run("writes between pages", func(t *testing.T) {
		// A cursor is a position, not a snapshot: items written behind it
		// are not revisited, items ahead of it are seen.
		p, err := tb.Query(ctx, store.Query{PK: "pg", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		mustPut(t, tb, item("pg", "k000a"))
		mustPut(t, tb, item("pg", "k020a"))
		rest := queryAll(t, tb, store.Query{PK: "pg", Limit: 10, After: p.Next})
		if got := keysOf(rest); got[0] != "pg/k010" || !slices.Contains(got, "pg/k020a") || slices.Contains(got, "pg/k000a") {
			t.Fatalf("second pages %q", got)
		}
	})
}

func testQueryBadCursor(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	mustPut(t, tb, item("a", "1"))
	mustPut(t, tb, item("a", "2"))
	mustPut(t, tb, item("b", "1"))
	ctx := context.Background()
	_, err := tb.Query(ctx, store.Query{PK: "a", After: "!!not a cursor!!"})
	if err == nil {
		t.Fatal("garbage cursor accepted")
	}
	p, err := tb.Query(ctx, store.Query{PK: "a", Limit: 1})
	if err != nil || p.Next == "" {
		t.Fatalf("first page: %+v, %v", p, err)
	}
	if _, err := tb.Query(ctx, store.Query{PK: "b", After: p.Next}); err == nil {
		t.Fatal("cursor of partition a accepted for partition b")
	}
}

func ownerItem(pk, sk, owner, created string) store.Item {
	return item(pk, sk, "owner", owner, "created", created)
}

func testIndexQuery(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	mustPut(t, tb, ownerItem("k3", "m", "o1", "2024-03"))
	mustPut(t, tb, ownerItem("k1", "m", "o1", "2024-01"))
	mustPut(t, tb, ownerItem("k2", "m", "o1", "2024-02"))
	mustPut(t, tb, ownerItem("k4", "m", "o2", "2024-01"))
	mustPut(t, tb, ownerItem("k5", "m", "o", "2024-01"))
	mustPut(t, tb, ownerItem("k6", "m", "o11", "2024-01"))

	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1"}), "k1/m", "k2/m", "k3/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", Desc: true}), "k3/m", "k2/m", "k1/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", SK: store.SortCond{Op: store.SortGt, Value: "2024-01"}}), "k2/m", "k3/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", SK: store.SortCond{Op: store.SortLe, Value: "2024-02"}}), "k1/m", "k2/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", SK: store.SortCond{Op: store.SortLt, Value: "2024-02"}}), "k1/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", SK: store.SortCond{Op: store.SortEq, Value: "2024-02"}}), "k2/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", SK: store.SortCond{Op: store.SortGe, Value: "2024-02"}, Desc: true}), "k3/m", "k2/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", SK: store.SortCond{Op: store.SortBetween, Value: "2024-01", Value2: "2024-02"}}), "k1/m", "k2/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", SK: store.BeginsWith("2024-0")}), "k1/m", "k2/m", "k3/m")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o1", SK: store.BeginsWith("2023")}))
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o3"}))

	// Index queries return whole items.
	p, err := tb.Query(context.Background(), store.Query{Index: ByOwner, PK: "o2"})
	if err != nil || len(p.Items) != 1 || !reflect.DeepEqual(p.Items[0], ownerItem("k4", "m", "o2", "2024-01")) {
		t.Fatalf("index Query = %+v, %v", p, err)
	}
	// The table is not the index: its partitions are the item keys.
	wantKeys(t, queryAll(t, tb, store.Query{PK: "o1"}))
}

func testIndexSparse(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	mustPut(t, tb, ownerItem("in", "1", "o", "c1"))
	mustPut(t, tb, item("out", "no-attrs"))
	mustPut(t, tb, item("out", "no-sk", "owner", "o"))
	mustPut(t, tb, item("out", "no-pk", "created", "c2"))
	mustPut(t, tb, ownerItem("out", "empty-pk", "", "c3"))
	mustPut(t, tb, ownerItem("out", "empty-sk", "o", ""))
	mustPut(t, tb, item("out", "number-sk", "owner", "o", "created", int64(5)))
	mustPut(t, tb, item("out", "list-pk", "owner", []string{"o"}, "created", "c4"))
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o"}), "in/1")
	// The items themselves are stored.
	mustGet(t, tb, key("out", "no-sk"))
	// A present index key value a key cannot hold is refused.
	invalid(t, "index key with NUL", tb.Put(context.Background(), ownerItem("bad", "1", "o\x00", "c"), nil))
	_, err := tb.Update(context.Background(), key("bad", "2"), store.Update{}.Set("owner", "o").Set("created", "c\x00"), nil)
	invalid(t, "index key with NUL by Update", err)
}

func testIndexMaintenance(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	mustPut(t, tb, ownerItem("m1", "s", "a", "1"))
	mustPut(t, tb, ownerItem("m2", "s", "a", "2"))
	q := func(owner string) []store.Item { return queryAll(t, tb, store.Query{Index: ByOwner, PK: owner}) }
	wantKeys(t, q("a"), "m1/s", "m2/s")

	// Changing the index partition moves the item.
	if _, err := tb.Update(ctx, key("m1", "s"), store.Update{}.Set("owner", "b"), nil); err != nil {
		t.Fatal(err)
	}
	wantKeys(t, q("a"), "m2/s")
	wantKeys(t, q("b"), "m1/s")
	// Changing the index sort key reorders it.
	if _, err := tb.Update(ctx, key("m2", "s"), store.Update{}.Set("created", "0"), nil); err != nil {
		t.Fatal(err)
	}
	mustPut(t, tb, ownerItem("m3", "s", "a", "1"))
	wantKeys(t, q("a"), "m2/s", "m3/s")
	// A Put replacing the item moves it too.
	mustPut(t, tb, ownerItem("m3", "s", "b", "9"))
	wantKeys(t, q("a"), "m2/s")
	wantKeys(t, q("b"), "m1/s", "m3/s")
	// Removing an index attribute takes it out.
	if _, err := tb.Update(ctx, key("m1", "s"), store.Update{}.Remove("created"), nil); err != nil {
		t.Fatal(err)
	}
	wantKeys(t, q("b"), "m3/s")
	// Setting it back puts it in.
	if _, err := tb.Update(ctx, key("m1", "s"), store.Update{}.Set("created", "5"), nil); err != nil {
		t.Fatal(err)
	}
	wantKeys(t, q("b"), "m1/s", "m3/s")
	// Deleting removes it.
	if err := tb.Delete(ctx, key("m3", "s"), nil); err != nil {
		t.Fatal(err)
	}
	wantKeys(t, q("b"), "m1/s")
	// Unrelated updates keep it where it is.
	if _, err := tb.Update(ctx, key("m1", "s"), store.Update{}.Set("x", 1), nil); err != nil {
		t.Fatal(err)
	}
	wantKeys(t, q("b"), "m1/s")
	// Transactions maintain the index too.
	err := db.Transact(ctx,
		store.PutOp(Items, ownerItem("m4", "s", "c", "1"), nil),
		store.UpdateOp(Items, key("m1", "s"), store.Update{}.Set("owner", "c"), nil),
		store.DeleteOp(Items, key("m2", "s"), nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	wantKeys(t, q("a"))
	wantKeys(t, q("b"))
	wantKeys(t, q("c"), "m4/s", "m1/s")
}

func testIndexPagination(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	// Index sort keys repeat: pagination must still visit each item once.
	var want []string
	for i := range 13 {
		pk := fmt.Sprintf("ip%02d", i)
		mustPut(t, tb, ownerItem(pk, "s", "o", fmt.Sprintf("c%d", i/4)))
		want = append(want, pk+"/s")
	}
	for _, desc := range []bool{false, true} {
		for _, limit := range []int{1, 2, 3, 5, 13} {
			got := queryAll(t, tb, store.Query{Index: ByOwner, PK: "o", Limit: limit, Desc: desc})
			keys := keysOf(got)
			// Sort key order holds; ties come in an unspecified order.
			if !sort.SliceIsSorted(got, func(i, j int) bool {
				if desc {
					return got[i].String("created") > got[j].String("created")
				}
				return got[i].String("created") < got[j].String("created")
			}) {
				t.Fatalf("limit %d desc %v: out of order %q", limit, desc, keys)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("limit %d desc %v: visited %q, want each of %q once", limit, desc, keys, want)
			}
		}
	}
}

func testTTLHides(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	mustPut(t, tb, item("ttl", "expired", "expires", LongExpired, "owner", "o", "created", "1"))
	mustPut(t, tb, item("ttl", "expired-float", "expires", float64(LongExpired)+0.5))
	mustPut(t, tb, item("ttl", "future", "expires", FarFuture, "owner", "o", "created", "2"))
	mustPut(t, tb, item("ttl", "never"))
	mustPut(t, tb, item("ttl", "not-a-number", "expires", "yesterday"))
	// Others has no TTL attribute: the same value means nothing there.
	others := db.Table(Others)
	if err := others.Put(ctx, store.Item{"id": "x", "rev": "1", "expires": LongExpired}, nil); err != nil {
		t.Fatal(err)
	}

	wantNotFound(t, tb, key("ttl", "expired"))
	wantNotFound(t, tb, key("ttl", "expired-float"))
	mustGet(t, tb, key("ttl", "future"))
	mustGet(t, tb, key("ttl", "never"))
	mustGet(t, tb, key("ttl", "not-a-number"))
	mustGet(t, others, key("x", "1"))
	wantKeys(t, queryAll(t, tb, store.Query{PK: "ttl", Limit: 1}), "ttl/future", "ttl/never", "ttl/not-a-number")
	wantKeys(t, queryAll(t, tb, store.Query{PK: "ttl", Limit: 1, Desc: true}), "ttl/not-a-number", "ttl/never", "ttl/future")
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o", Limit: 1}), "ttl/future")
	wantKeys(t, queryAll(t, tb, store.Query{PK: "ttl", SK: store.BeginsWith("exp")}))

	// Updating the expiry revives the item.
	if _, err := tb.Update(ctx, key("ttl", "expired"), store.Update{}.Set("expires", FarFuture), nil); err != nil {
		t.Fatal(err)
	}
	mustGet(t, tb, key("ttl", "expired"))
	wantKeys(t, queryAll(t, tb, store.Query{Index: ByOwner, PK: "o"}), "ttl/expired", "ttl/future")
}

func testTTLConditions(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	// Expiry hides an item from reads, not from conditions: a repository
	// must not count on expiry to make a conditional write succeed. (Until
	// the item is physically deleted, which is eventual.)
	mustPut(t, tb, item("ttl", "lock", "expires", LongExpired, "holder", "a"))
	wantNotFound(t, tb, key("ttl", "lock"))
	condFailed(t, "NotExists on an expired item", tb.Put(ctx, item("ttl", "lock", "holder", "b"), store.NotExists("pk")))
	if err := db.Transact(ctx, store.CheckOp(Items, key("ttl", "lock"), store.Eq("holder", "a"))); err != nil {
		t.Fatalf("CheckOp on an expired item: %v", err)
	}
	// Update sees the old attributes and so does the item it returns.
	got, err := tb.Update(ctx, key("ttl", "lock"), store.Update{}.Set("expires", FarFuture), store.Eq("holder", "a"))
	if err != nil {
		t.Fatalf("Update conditioned on an expired item's attribute: %v", err)
	}
	if got.String("holder") != "a" {
		t.Fatalf("Update of an expired item lost its attributes: %#v", got)
	}
	mustGet(t, tb, key("ttl", "lock"))
}

func testTxAll(t *testing.T, db store.DB) {
	ctx := context.Background()
	tb, others := db.Table(Items), db.Table(Others)
	mustPut(t, tb, item("tx", "del", "v", int64(1)))
	mustPut(t, tb, item("tx", "check", "v", int64(1)))
	if err := others.Put(ctx, store.Item{"id": "o", "rev": "1", "n": int64(1)}, nil); err != nil {
		t.Fatal(err)
	}
	err := db.Transact(ctx,
		store.PutOp(Items, item("tx", "put", "v", "new"), store.NotExists("pk")),
		store.UpdateOp(Others, key("o", "1"), store.Update{}.Add("n", 1), store.Eq("n", int64(1))),
		store.DeleteOp(Items, key("tx", "del"), store.Exists("pk")),
		store.CheckOp(Items, key("tx", "check"), store.Eq("v", int64(1))),
		store.UpdateOp(Others, key("o", "2"), store.Update{}.Set("created", true), nil),
	)
	if err != nil {
		t.Fatalf("Transact: %v", err)
	}
	wantItem(t, tb, item("tx", "put", "v", "new"))
	wantNotFound(t, tb, key("tx", "del"))
	wantItem(t, tb, item("tx", "check", "v", int64(1)))
	if it := mustGet(t, others, key("o", "1")); it["n"] != int64(2) {
		t.Fatalf("updated n = %#v", it["n"])
	}
	if it := mustGet(t, others, key("o", "2")); !reflect.DeepEqual(it, store.Item{"id": "o", "rev": "2", "created": true}) {
		t.Fatalf("created by update: %#v", it)
	}
	if err := db.Transact(ctx); err != nil {
		t.Fatalf("empty Transact: %v", err)
	}
}

func testTxCondFails(t *testing.T, db store.DB) {
	ctx := context.Background()
	tb := db.Table(Items)
	mustPut(t, tb, item("tx", "a", "v", int64(1)))
	mustPut(t, tb, item("tx", "b", "v", int64(1)))
	mustPut(t, tb, item("tx", "c", "v", int64(1)))
	for failing := range 4 {
		ops := []store.TxOp{
			store.PutOp(Items, item("tx", "new", "v", int64(9)), store.NotExists("pk")),
			store.UpdateOp(Items, key("tx", "a"), store.Update{}.Add("v", 1), store.Eq("v", int64(1))),
			store.DeleteOp(Items, key("tx", "b"), store.Exists("v")),
			store.CheckOp(Items, key("tx", "c"), store.Eq("v", int64(1))),
		}
		// Make one condition false.
		ops[failing].Cond = store.Eq("v", "never")
		err := db.Transact(ctx, ops...)
		condFailed(t, "Transact", err)
		var txErr *store.TxConditionError
		if !errors.As(err, &txErr) {
			t.Fatalf("error %v is not a *store.TxConditionError", err)
		}
		if txErr.Index != failing {
			t.Fatalf("failed operation index = %d, want %d", txErr.Index, failing)
		}
		wantNotFound(t, tb, key("tx", "new"))
		wantItem(t, tb, item("tx", "a", "v", int64(1)))
		wantItem(t, tb, item("tx", "b", "v", int64(1)))
		wantItem(t, tb, item("tx", "c", "v", int64(1)))
	}
}

func testTxCheck(t *testing.T, db store.DB) {
	ctx := context.Background()
	tb := db.Table(Items)
	mustPut(t, tb, item("chk", "1", "state", "open"))
	if err := db.Transact(ctx,
		store.CheckOp(Items, key("chk", "1"), store.Eq("state", "open")),
		store.PutOp(Items, item("chk", "2"), nil),
	); err != nil {
		t.Fatalf("Transact with a true check: %v", err)
	}
	mustGet(t, tb, key("chk", "2"))
	err := db.Transact(ctx,
		store.PutOp(Items, item("chk", "3"), nil),
		store.CheckOp(Items, key("chk", "1"), store.Eq("state", "closed")),
	)
	var txErr *store.TxConditionError
	if !errors.As(err, &txErr) || txErr.Index != 1 {
		t.Fatalf("Transact with a false check: %v, want TxConditionError at 1", err)
	}
	wantNotFound(t, tb, key("chk", "3"))
	// A check on an absent item sees no attributes.
	if err := db.Transact(ctx, store.CheckOp(Items, key("chk", "absent"), store.NotExists("pk"))); err != nil {
		t.Fatalf("NotExists check on an absent item: %v", err)
	}
	wantNotFound(t, tb, key("chk", "absent"))
}

func testTxUpdateFails(t *testing.T, db store.DB) {
	ctx := context.Background()
	tb := db.Table(Items)
	mustPut(t, tb, item("txu", "s", "v", "text"))
	err := db.Transact(ctx,
		store.PutOp(Items, item("txu", "new"), nil),
		store.UpdateOp(Items, key("txu", "s"), store.Update{}.Add("v", 1), nil),
	)
	invalid(t, "Transact with an Add on a string", err)
	wantNotFound(t, tb, key("txu", "new"))
}

func testTxInvalid(t *testing.T, db store.DB) {
	ctx := context.Background()
	tb := db.Table(Items)
	put := func(sk string) store.TxOp { return store.PutOp(Items, item("inv", sk), nil) }

	invalid(t, "two operations on one item", db.Transact(ctx,
		put("new"), store.UpdateOp(Items, key("inv", "new"), store.Update{}.Set("a", 1), nil)))
	invalid(t, "two checks on one item", db.Transact(ctx,
		store.CheckOp(Items, key("inv", "x"), store.NotExists("pk")), store.CheckOp(Items, key("inv", "x"), store.NotExists("pk"))))
	// The same key in two tables is two items.
	if err := db.Transact(ctx, put("same"), store.PutOp(Others, store.Item{"id": "inv", "rev": "same"}, nil)); err != nil {
		t.Fatalf("same key in two tables: %v", err)
	}

	var ops []store.TxOp
	for i := range store.MaxTxOps + 1 {
		ops = append(ops, put(fmt.Sprintf("many%03d", i)))
	}
	invalid(t, "more than MaxTxOps operations", db.Transact(ctx, ops...))
	wantNotFound(t, tb, key("inv", "many000"))
	if err := db.Transact(ctx, ops[:store.MaxTxOps]...); err != nil {
		t.Fatalf("MaxTxOps operations: %v", err)
	}
	mustGet(t, tb, key("inv", fmt.Sprintf("many%03d", store.MaxTxOps-1)))

	invalid(t, "unknown table", db.Transact(ctx, put("t"), store.PutOp("nope", item("inv", "t"), nil)))
	invalid(t, "invalid key", db.Transact(ctx, put("k"), store.DeleteOp(Items, key("", "x"), nil)))
	invalid(t, "key attribute update", db.Transact(ctx, store.UpdateOp(Items, key("inv", "u"), store.Update{}.Set("sk", "x"), nil)))
	invalid(t, "check without condition", db.Transact(ctx, store.CheckOp(Items, key("inv", "c"), nil)))
	wantNotFound(t, tb, key("inv", "t"))
	wantNotFound(t, tb, key("inv", "k"))
	wantNotFound(t, tb, key("inv", "new"))
}

func testInvalidKeys(t *testing.T, db store.DB) {
	ctx := context.Background()
	tb := db.Table(Items)
	bad := []store.Item{
		{"sk": "s"},
		{"pk": "p"},
		{"pk": "", "sk": "s"},
		{"pk": "p", "sk": ""},
		{"pk": "p\x00q", "sk": "s"},
		{"pk": "p", "sk": "\x00"},
		{"pk": int64(1), "sk": "s"},
		{"pk": "p", "sk": []byte("s")},
	}
	for _, it := range bad {
		invalid(t, fmt.Sprintf("Put %q", it), tb.Put(ctx, it, nil))
	}
	for _, k := range []store.Key{key("", "s"), key("p", ""), key("p\x00", "s"), key("p", "s\x00"), key("", "")} {
		_, err := tb.Get(ctx, k)
		invalid(t, fmt.Sprintf("Get %q", k), err)
		_, err = tb.Update(ctx, k, store.Update{}.Set("a", 1), nil)
		invalid(t, fmt.Sprintf("Update %q", k), err)
		invalid(t, fmt.Sprintf("Delete %q", k), tb.Delete(ctx, k, nil))
	}
	for _, q := range []store.Query{
		{PK: ""},
		{PK: "p\x00"},
		{PK: "p", SK: store.SortCond{Op: store.SortEq, Value: ""}},
		{PK: "p", SK: store.BeginsWith("a\x00")},
		{PK: "p", Limit: -1},
	} {
		_, err := tb.Query(ctx, q)
		invalid(t, fmt.Sprintf("Query %+v", q), err)
	}
	p, err := tb.Query(ctx, store.Query{PK: "p"})
	if err != nil || len(p.Items) != 0 {
		t.Fatalf("nothing must have been written: %+v, %v", p, err)
	}
	invalid(t, "malformed condition", tb.Put(ctx, item("p", "s"), &store.Cond{Op: store.CondNot}))
	wantNotFound(t, tb, key("p", "s"))
}

func testCancelled(t *testing.T, db store.DB) {
	tb := db.Table(Items)
	mustPut(t, tb, item("ctx", "s", "v", int64(1)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", what, err)
		}
	}
	_, err := tb.Get(ctx, key("ctx", "s"))
	check("Get", err)
	check("Put", tb.Put(ctx, item("ctx", "new"), nil))
	_, err = tb.Update(ctx, key("ctx", "s"), store.Update{}.Add("v", 1), nil)
	check("Update", err)
	check("Delete", tb.Delete(ctx, key("ctx", "s"), nil))
	_, err = tb.Query(ctx, store.Query{PK: "ctx"})
	check("Query", err)
	check("Transact", db.Transact(ctx, store.PutOp(Items, item("ctx", "tx"), nil)))
	// Nothing happened.
	wantItem(t, tb, item("ctx", "s", "v", int64(1)))
	wantNotFound(t, tb, key("ctx", "new"))
	wantNotFound(t, tb, key("ctx", "tx"))
}

func testUnknownTable(t *testing.T, db store.DB) {
	defer func() {
		if recover() == nil {
			t.Fatal("Table of an unknown name did not panic")
		}
	}()
	db.Table("no-such-table")
}
