package dynamo

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/storetest"
)

// Unit tests of the translation, which need no emulator: the codec, the
// expressions, cursors and error mapping. The contract suite in
// dynamo_test.go checks their effect on a real DynamoDB implementation.

func itemsTable(t *testing.T) *table {
	t.Helper()
	return New(nil, storetest.Schemas(), nil).tables[storetest.Items]
}

func TestValueRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"string", "é\x00\"", "é\x00\""},
		{"empty string", "", ""},
		{"int64 max", int64(math.MaxInt64), int64(math.MaxInt64)},
		{"int64 min", int64(math.MinInt64), int64(math.MinInt64)},
		{"int widened", 7, int64(7)},
		{"float", 2.5, 2.5},
		{"tiny float", 1.5e-9, 1.5e-9},
		{"integral float reads as int64", 8.0, int64(8)},
		{"float beyond int64", 1e19, 1e19},
		{"bool", false, false},
		{"bytes", []byte{0, 255}, []byte{0, 255}},
		{"nil", nil, nil},
		{"strings", []string{"a", ""}, []string{"a", ""}},
		{"empty strings", []string{}, []string{}},
		{"list of strings as any", []any{"a"}, []string{"a"}},
		{"mixed list", []any{"a", 1, nil}, []any{"a", int64(1), nil}},
		{"nested", map[string]any{"m": map[string]any{"l": []any{[]string{"x"}}}},
			map[string]any{"m": map[string]any{"l": []any{[]string{"x"}}}}},
		{"empty map", map[string]any{}, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			av, err := normalizeAndMarshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := unmarshalValue(av)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("round trip of %#v = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValueWireForm(t *testing.T) {
	tests := []struct {
		in   any
		want types.AttributeValue
	}{
		{[]string{"a"}, &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "a"}}}},
		{3.0, &types.AttributeValueMemberN{Value: "3"}},
		{0.1, &types.AttributeValueMemberN{Value: "0.1"}},
		{1e-20, &types.AttributeValueMemberN{Value: "1e-20"}},
		{nil, &types.AttributeValueMemberNULL{Value: true}},
	}
	for _, tt := range tests {
		got, err := normalizeAndMarshal(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("marshal %#v = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
	if _, err := normalizeAndMarshal(struct{}{}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("unsupported value: %v, want ErrInvalid", err)
	}
}

func TestSetsReadAsLists(t *testing.T) {
	tests := []struct {
		in   types.AttributeValue
		want any
	}{
		{&types.AttributeValueMemberSS{Value: []string{"a", "b"}}, []string{"a", "b"}},
		{&types.AttributeValueMemberNS{Value: []string{"1", "1.5"}}, []any{int64(1), 1.5}},
		{&types.AttributeValueMemberBS{Value: [][]byte{{1}}}, []any{[]byte{1}}},
	}
	for _, tt := range tests {
		got, err := unmarshalValue(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("unmarshal %#v = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
	if _, err := unmarshalValue(&types.AttributeValueMemberN{Value: "x"}); err == nil {
		t.Error("malformed number accepted")
	}
}

// rendered is an expression with its placeholders replaced, for readable
// expectations: names as `name`, values as their Go value.
func rendered(s string, e *expr) string {
	var pairs []string
	for p, n := range e.names {
		pairs = append(pairs, p, "`"+n+"`")
	}
	for p, av := range e.values {
		v, _ := unmarshalValue(av)
		pairs = append(pairs, p, fmt.Sprintf("%#v", v))
	}
	// Longest placeholders first, so that :v1 does not eat into :v10.
	for i := 0; i < len(pairs); i += 2 {
		for j := i + 2; j < len(pairs); j += 2 {
			if len(pairs[j]) > len(pairs[i]) {
				pairs[i], pairs[i+1], pairs[j], pairs[j+1] = pairs[j], pairs[j+1], pairs[i], pairs[i+1]
			}
		}
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

func TestCondExpr(t *testing.T) {
	tb := itemsTable(t)
	big := make([]string, maxDeepEq+1)
	tests := []struct {
		name string
		c    *store.Cond
		want string
	}{
		{"exists", store.Exists("a"), "attribute_exists(`a`)"},
		{"not exists", store.NotExists("pk"), "attribute_not_exists(`pk`)"},
		{"exists shadowed", store.Exists("owner"), "(attribute_exists(`owner`) OR attribute_exists(`~unindexed:owner`))"},
		{"not exists shadowed", store.NotExists("owner"), "(attribute_not_exists(`owner`) AND attribute_not_exists(`~unindexed:owner`))"},
		{"eq", store.Eq("a", 1), "`a` = 1"},
		{"eq null", store.Eq("a", nil), `attribute_type(` + "`a`" + `, "NULL")`},
		{"ne is not eq", store.Ne("a", "x"), "(NOT `a` = \"x\")"},
		{"eq list spelled out", store.Eq("l", []any{"x", 2}),
			"(attribute_type(`l`, \"L\") AND size(`l`) = 2 AND `l`[0] = \"x\" AND `l`[1] = 2)"},
		{"eq map spelled out", store.Eq("m", map[string]any{"b": nil, "a": []string{}}),
			"(attribute_type(`m`, \"M\") AND size(`m`) = 2 AND (attribute_type(`m`.`a`, \"L\") AND size(`m`.`a`) = 0) AND attribute_type(`m`.`b`, \"NULL\"))"},
		{"eq large list", store.Eq("l", big), "`l` = []string{" + strings.Repeat(`"", `, maxDeepEq) + `""}`},
		{"eq key string on shadowed", store.Eq("created", "c"), "`created` = \"c\""},
		{"eq empty string on shadowed", store.Eq("created", ""), "`~unindexed:created` = \"\""},
		{"eq number on shadowed", store.Eq("created", 1), "`~unindexed:created` = 1"},
		{"lt", store.Lt("n", 2.5), "`n` < 2.5"},
		{"ge string", store.Ge("s", "m"), "`s` >= \"m\""},
		{"gt number on shadowed", store.Gt("created", 1), "`~unindexed:created` > 1"},
		{"le string on shadowed", store.Le("created", "x"), "(`created` <= \"x\" OR `~unindexed:created` <= \"x\")"},
		{"lt bool is never", store.Lt("b", true), "(attribute_exists(`b`) AND attribute_not_exists(`b`))"},
		{"gt list is never", store.Gt("l", []string{"a"}), "(attribute_exists(`l`) AND attribute_not_exists(`l`))"},
		{"and or not", store.And(store.Exists("a"), store.Or(store.Not(store.Exists("b")), store.Eq("a", true))),
			"(attribute_exists(`a`) AND ((NOT attribute_exists(`b`)) OR `a` = true))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := store.ValidateCond(tt.c); err != nil {
				t.Fatal(err)
			}
			e := newExpr()
			s, err := tb.cond(e, tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if got := rendered(s, e); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	e := newExpr()
	if _, err := tb.cond(e, store.Exists(shadowPrefix+"a")); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("reserved name in a condition: %v", err)
	}
}

func TestUpdateExpr(t *testing.T) {
	tb := itemsTable(t)
	tests := []struct {
		name string
		u    store.Update
		want string
		err  bool
	}{
		{"none", nil, "", false},
		{"set", store.Update{}.Set("a", "x"), "SET `a` = \"x\"", false},
		{"set if absent", store.Update{}.SetIfAbsent("a", 1), "SET `a` = if_not_exists(`a`, 1)", false},
		{"add", store.Update{}.Add("n", -2), "ADD `n` -2", false},
		{"remove", store.Update{}.Remove("a"), "REMOVE `a`", false},
		{"all kinds", store.Update{}.Add("n", 1).Remove("r").Set("a", true),
			"SET `a` = true REMOVE `r` ADD `n` 1", false},
		{"set key string on shadowed", store.Update{}.Set("owner", "o"),
			"SET `owner` = \"o\" REMOVE `~unindexed:owner`", false},
		{"set number on shadowed", store.Update{}.Set("owner", 3),
			"SET `~unindexed:owner` = 3 REMOVE `owner`", false},
		{"remove shadowed", store.Update{}.Remove("created"),
			"REMOVE `created`, `~unindexed:created`", false},
		{"add shadowed", store.Update{}.Add("created", 1),
			"SET `~unindexed:created` = if_not_exists(`~unindexed:created`, if_not_exists(`created`, 0)) + 1", false},
		{"set if absent shadowed", store.Update{}.SetIfAbsent("owner", "o"), "", true},
		{"invalid key string on shadowed", store.Update{}.Set("created", "a\x00b"), "", true},
		{"reserved name", store.Update{}.Set(shadowPrefix+"x", 1), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExpr()
			s, err := tb.update(e, tt.u)
			if tt.err {
				if !errors.Is(err, store.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rendered(s, e); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestKeyCond(t *testing.T) {
	tests := []struct {
		sk   store.SortCond
		want string
	}{
		{store.SortCond{}, "`pk` = \"p\""},
		{store.SortCond{Op: store.SortEq, Value: "a"}, "`pk` = \"p\" AND `sk` = \"a\""},
		{store.SortCond{Op: store.SortLt, Value: "a"}, "`pk` = \"p\" AND `sk` < \"a\""},
		{store.SortCond{Op: store.SortLe, Value: "a"}, "`pk` = \"p\" AND `sk` <= \"a\""},
		{store.SortCond{Op: store.SortGt, Value: "a"}, "`pk` = \"p\" AND `sk` > \"a\""},
		{store.SortCond{Op: store.SortGe, Value: "a"}, "`pk` = \"p\" AND `sk` >= \"a\""},
		{store.SortCond{Op: store.SortBetween, Value: "a", Value2: "b"}, "`pk` = \"p\" AND `sk` BETWEEN \"a\" AND \"b\""},
		{store.BeginsWith("a"), "`pk` = \"p\" AND begins_with(`sk`, \"a\")"},
	}
	for _, tt := range tests {
		e := newExpr()
		if got := rendered(keyCond(e, "pk", "sk", store.Query{PK: "p", SK: tt.sk}), e); got != tt.want {
			t.Errorf("sort %+v: got %s, want %s", tt.sk, got, tt.want)
		}
	}
}

func TestCursor(t *testing.T) {
	tb := itemsTable(t)
	ix := &tb.s.Indexes[0]
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	lek := map[string]types.AttributeValue{"owner": s("o"), "created": s("c"), "pk": s("p"), "sk": s("s")}
	for _, index := range []*store.Index{nil, ix} {
		cur, err := tb.encodeCursor(lek, index)
		if err != nil {
			t.Fatal(err)
		}
		pk := "p"
		if index != nil {
			pk = "o"
		}
		got, err := tb.decodeCursor(store.Query{PK: pk, After: cur}, index)
		if err != nil {
			t.Fatal(err)
		}
		want := len(tb.cursorAttrs(index))
		if len(got) != want {
			t.Fatalf("index %v: decoded %d attributes, want %d", index != nil, len(got), want)
		}
		for a, v := range got {
			if !reflect.DeepEqual(v, lek[a]) {
				t.Fatalf("attribute %s = %#v, want %#v", a, v, lek[a])
			}
		}
		if _, err := tb.decodeCursor(store.Query{PK: "other", After: cur}, index); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("cursor of another partition: %v", err)
		}
	}
	table, _ := tb.encodeCursor(lek, nil)
	for name, after := range map[string]string{
		"garbage":          "!!",
		"table for index":  table,
		"empty part":       "cAA", // "p\x00"
		"not a key string": "_w",
	} {
		if _, err := tb.decodeCursor(store.Query{PK: "o", After: after}, ix); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := tb.encodeCursor(map[string]types.AttributeValue{"pk": s("p")}, nil); err == nil {
		t.Error("encoded a key without its sort key")
	}
}

func TestMapTxErr(t *testing.T) {
	reasons := func(codes ...string) error {
		var rs []types.CancellationReason
		for _, c := range codes {
			rs = append(rs, types.CancellationReason{Code: aws.String(c), Message: aws.String("m")})
		}
		return fmt.Errorf("operation error: %w", &types.TransactionCanceledException{CancellationReasons: rs})
	}
	var txErr *store.TxConditionError
	err := mapTxErr(reasons("None", "ValidationError", "ConditionalCheckFailed", "ConditionalCheckFailed"))
	if !errors.As(err, &txErr) || txErr.Index != 2 || !errors.Is(err, store.ErrConditionFailed) {
		t.Fatalf("conditions failed: %v, want TxConditionError at 2", err)
	}
	if err := mapTxErr(reasons("None", "ValidationError")); !errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrConditionFailed) {
		t.Fatalf("validation error: %v, want ErrInvalid", err)
	}
	err = mapTxErr(reasons("TransactionConflict", "None"))
	if errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrConditionFailed) {
		t.Fatalf("conflict: %v, want neither ErrInvalid nor ErrConditionFailed", err)
	}
	if err := mapTxErr(fmt.Errorf("x: %w", &types.ConditionalCheckFailedException{})); err != store.ErrConditionFailed {
		t.Fatalf("single condition failure: %v", err)
	}
}
