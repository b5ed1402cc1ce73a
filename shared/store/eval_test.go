package store

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNormalize(t *testing.T) {
	type custom struct{}
	tests := []struct {
		name string
		in   any
		want any
		bad  bool
	}{
		{name: "nil", in: nil, want: nil},
		{name: "string", in: "x", want: "x"},
		{name: "bool", in: true, want: true},
		{name: "int64", in: int64(-3), want: int64(-3)},
		{name: "int", in: 7, want: int64(7)},
		{name: "int8", in: int8(-8), want: int64(-8)},
		{name: "int16", in: int16(16), want: int64(16)},
		{name: "int32", in: int32(32), want: int64(32)},
		{name: "uint", in: uint(9), want: int64(9)},
		{name: "uint8", in: uint8(255), want: int64(255)},
		{name: "uint16", in: uint16(16), want: int64(16)},
		{name: "uint32", in: uint32(math.MaxUint32), want: int64(math.MaxUint32)},
		{name: "uint64 in range", in: uint64(math.MaxInt64), want: int64(math.MaxInt64)},
		{name: "uint64 overflow", in: uint64(math.MaxInt64) + 1, bad: true},
		{name: "float32", in: float32(1.5), want: float64(1.5)},
		{name: "float64", in: 2.25, want: 2.25},
		{name: "NaN", in: math.NaN(), bad: true},
		{name: "Inf", in: math.Inf(1), bad: true},
		{name: "bytes", in: []byte{1, 2}, want: []byte{1, 2}},
		{name: "strings", in: []string{"a", "b"}, want: []string{"a", "b"}},
		{name: "list", in: []any{1, "a", []any{int8(2)}}, want: []any{int64(1), "a", []any{int64(2)}}},
		{name: "map", in: map[string]any{"n": uint16(3), "m": map[string]any{"f": float32(0.5)}},
			want: map[string]any{"n": int64(3), "m": map[string]any{"f": 0.5}}},
		{name: "item as map", in: Item{"n": 1}, want: map[string]any{"n": int64(1)}},
		{name: "struct", in: custom{}, bad: true},
		{name: "nested struct", in: []any{custom{}}, bad: true},
		{name: "int slice", in: []int{1}, bad: true},
		{name: "invalid utf8", in: "\xff", bad: true},
		{name: "invalid utf8 in list", in: []string{"ok", "\xfe"}, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if tt.bad {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("Normalize(%#v) error = %v, want ErrInvalid", tt.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Normalize(%#v): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Normalize(%#v) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeErrorNamesType(t *testing.T) {
	_, err := Normalize(struct{ A int }{})
	if err == nil || !strings.Contains(err.Error(), "struct") {
		t.Fatalf("error %v does not name the type", err)
	}
}

func TestNormalizeDepth(t *testing.T) {
	var v any = "leaf"
	for range maxDepth + 1 {
		v = []any{v}
	}
	if _, err := Normalize(v); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Normalize of %d nested lists: %v, want ErrInvalid", maxDepth+1, err)
	}
}

func TestEvalCond(t *testing.T) {
	it := Item{
		"pk":  "p",
		"n":   int64(5),
		"f":   2.5,
		"s":   "m",
		"b":   true,
		"bin": []byte{1, 2},
		"l":   []string{"a", "b"},
		"la":  []any{"a", int64(1)},
		"m":   map[string]any{"x": int64(1), "y": []string{"z"}},
		"nul": nil,
		"big": int64(1<<53 + 1),
	}
	tests := []struct {
		name string
		c    *Cond
		want bool
	}{
		{"nil condition", nil, true},
		{"exists", Exists("n"), true},
		{"exists null attribute", Exists("nul"), true},
		{"exists missing", Exists("zz"), false},
		{"not exists missing", NotExists("zz"), true},
		{"not exists present", NotExists("n"), false},

		{"eq int", Eq("n", int64(5)), true},
		{"eq int kind widened", Eq("n", 5), true},
		{"eq int vs float", Eq("n", 5.0), true},
		{"eq differs", Eq("n", 6), false},
		{"eq number vs string", Eq("n", "5"), false},
		{"eq missing", Eq("zz", 5), false},
		{"eq string", Eq("s", "m"), true},
		{"eq bool", Eq("b", true), true},
		{"eq bool differs", Eq("b", false), false},
		{"eq bytes", Eq("bin", []byte{1, 2}), true},
		{"eq bytes differs", Eq("bin", []byte{1}), false},
		{"eq string list", Eq("l", []string{"a", "b"}), true},
		{"eq string list as any", Eq("l", []any{"a", "b"}), true},
		{"eq list order matters", Eq("l", []string{"b", "a"}), false},
		{"eq mixed list", Eq("la", []any{"a", 1}), true},
		{"eq map deep", Eq("m", map[string]any{"x": 1, "y": []any{"z"}}), true},
		{"eq map differs", Eq("m", map[string]any{"x": 1}), false},
		{"eq null", Eq("nul", nil), true},
		{"eq null vs value", Eq("n", nil), false},
		{"eq big int exact", Eq("big", int64(1<<53)), false},
		{"eq big int vs float rounding", Eq("big", float64(1<<53)), false},

		{"ne equal", Ne("n", 5), false},
		{"ne differs", Ne("n", 6), true},
		{"ne other kind", Ne("n", "5"), true},
		{"ne missing", Ne("zz", 1), true},

		{"lt true", Lt("n", 6), true},
		{"lt equal", Lt("n", 5), false},
		{"le equal", Le("n", 5), true},
		{"le below", Le("n", 4), false},
		{"gt true", Gt("n", 4), true},
		{"gt equal", Gt("n", 5), false},
		{"ge equal", Ge("n", 5), true},
		{"ge above", Ge("n", 6), false},
		{"lt int vs float", Lt("n", 5.5), true},
		{"gt int vs float", Gt("n", 4.5), true},
		{"gt float vs int", Gt("f", 2), true},
		{"lt float vs int", Lt("f", 3), true},
		{"ge big int vs float", Ge("big", float64(1<<53)), true},
		{"gt big int vs float", Gt("big", float64(1<<53)), true},
		{"lt string", Lt("s", "n"), true},
		{"gt string", Gt("s", "l"), true},
		{"le string equal", Le("s", "m"), true},
		{"string compare is bytewise", Lt("s", "M"), false},
		{"lt bytes", Lt("bin", []byte{1, 3}), true},
		{"lt string vs number", Lt("s", 10), false},
		{"gt string vs number", Gt("s", 1), false},
		{"ge number vs string", Ge("n", "a"), false},
		{"lt missing", Lt("zz", 1), false},
		{"ge missing", Ge("zz", ""), false},
		{"lt bool", Lt("b", true), false},
		{"gt list", Gt("l", []string{"a"}), false},
		{"lt NaN", Lt("f", math.NaN()), false},

		{"and all true", And(Exists("n"), Eq("s", "m")), true},
		{"and one false", And(Exists("n"), Eq("s", "x")), false},
		{"and empty", And(), false},
		{"or one true", Or(Exists("zz"), Eq("s", "m")), true},
		{"or none true", Or(Exists("zz"), Eq("s", "x")), false},
		{"not", Not(Exists("zz")), true},
		{"not true", Not(Exists("n")), false},
		{"nested", Or(And(Gt("n", 1), Not(Eq("s", "m"))), And(Lt("f", 3), Ne("zz", 1))), true},
		{"malformed not", &Cond{Op: CondNot}, false},
		{"unknown op", &Cond{Op: 99, Attr: "n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EvalCond(tt.c, it); got != tt.want {
				t.Fatalf("EvalCond = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEvalCondAbsentItem(t *testing.T) {
	tests := []struct {
		c    *Cond
		want bool
	}{
		{Exists("pk"), false},
		{NotExists("pk"), true},
		{Eq("pk", "p"), false},
		{Ne("pk", "p"), true},
		{Lt("n", 1), false},
		{Not(Exists("pk")), true},
		{nil, true},
	}
	for _, tt := range tests {
		if got := EvalCond(tt.c, nil); got != tt.want {
			t.Errorf("EvalCond(%+v, nil) = %v, want %v", tt.c, got, tt.want)
		}
	}
}

func TestValidateCond(t *testing.T) {
	tests := []struct {
		name string
		c    *Cond
		ok   bool
	}{
		{"nil", nil, true},
		{"leaf", Eq("a", 1), true},
		{"nested", And(Exists("a"), Or(Lt("b", 2), Not(Eq("c", "x")))), true},
		{"no attribute", Exists(""), false},
		{"bad value", Eq("a", struct{}{}), false},
		{"empty and", And(), false},
		{"nil operand", Or(Exists("a"), nil), false},
		{"not without operand", &Cond{Op: CondNot}, false},
		{"unknown op", &Cond{Op: 42, Attr: "a"}, false},
		{"bad nested", And(Exists("a"), Eq("b", math.NaN())), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateCond(tt.c)
			if tt.ok != (err == nil) {
				t.Fatalf("ValidateCond = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

var testSchema = Schema{
	Name: "things", PK: "pk", SK: "sk",
	Indexes: []Index{{Name: "by_owner", PK: "owner", SK: "created"}},
	TTL:     "expires",
}

func TestApplyUpdate(t *testing.T) {
	k := Key{PK: "p", SK: "s"}
	base := Item{"pk": "p", "sk": "s", "n": int64(1), "f": 1.5, "s": "x", "keep": "k"}
	tests := []struct {
		name string
		old  Item
		u    Update
		want Item
		bad  bool
	}{
		{name: "create with key", old: nil, u: Update{}.Set("a", 1),
			want: Item{"pk": "p", "sk": "s", "a": int64(1)}},
		{name: "create empty update", old: nil, u: nil, want: Item{"pk": "p", "sk": "s"}},
		{name: "set overwrites", old: base, u: Update{}.Set("s", "y"),
			want: Item{"pk": "p", "sk": "s", "n": int64(1), "f": 1.5, "s": "y", "keep": "k"}},
		{name: "set normalises", old: nil, u: Update{}.Set("l", []any{uint8(1)}),
			want: Item{"pk": "p", "sk": "s", "l": []any{int64(1)}}},
		{name: "set if absent keeps", old: base, u: Update{}.SetIfAbsent("s", "y"), want: base},
		{name: "set if absent sets", old: base, u: Update{}.SetIfAbsent("new", "y"),
			want: Item{"pk": "p", "sk": "s", "n": int64(1), "f": 1.5, "s": "x", "keep": "k", "new": "y"}},
		{name: "add", old: base, u: Update{}.Add("n", 41),
			want: Item{"pk": "p", "sk": "s", "n": int64(42), "f": 1.5, "s": "x", "keep": "k"}},
		{name: "add negative", old: base, u: Update{}.Add("n", -3),
			want: Item{"pk": "p", "sk": "s", "n": int64(-2), "f": 1.5, "s": "x", "keep": "k"}},
		{name: "add missing", old: nil, u: Update{}.Add("c", 5),
			want: Item{"pk": "p", "sk": "s", "c": int64(5)}},
		{name: "add to float", old: base, u: Update{}.Add("f", 1),
			want: Item{"pk": "p", "sk": "s", "n": int64(1), "f": 2.5, "s": "x", "keep": "k"}},
		{name: "add to string", old: base, u: Update{}.Add("s", 1), bad: true},
		{name: "add overflow", old: Item{"pk": "p", "sk": "s", "n": int64(math.MaxInt64)}, u: Update{}.Add("n", 1), bad: true},
		{name: "add underflow", old: Item{"pk": "p", "sk": "s", "n": int64(math.MinInt64)}, u: Update{}.Add("n", -1), bad: true},
		{name: "remove", old: base, u: Update{}.Remove("keep").Remove("absent"),
			want: Item{"pk": "p", "sk": "s", "n": int64(1), "f": 1.5, "s": "x"}},
		{name: "combined", old: base, u: Update{}.Set("a", "b").SetIfAbsent("n", 9).Add("c", 2).Remove("s"),
			want: Item{"pk": "p", "sk": "s", "n": int64(1), "f": 1.5, "keep": "k", "a": "b", "c": int64(2)}},
		{name: "set pk refused", old: base, u: Update{}.Set("pk", "q"), bad: true},
		{name: "remove sk refused", old: base, u: Update{}.Remove("sk"), bad: true},
		{name: "add sk refused", old: nil, u: Update{}.Add("sk", 1), bad: true},
		{name: "two actions on one attribute", old: base, u: Update{}.Set("a", 1).Remove("a"), bad: true},
		{name: "empty attribute", old: base, u: Update{}.Set("", 1), bad: true},
		{name: "unsupported value", old: base, u: Update{}.Set("a", struct{}{}), bad: true},
		{name: "unknown kind", old: base, u: Update{{Kind: 99, Attr: "a"}}, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before Item
			if tt.old != nil {
				before = Item{}
				for k, v := range tt.old {
					before[k] = v
				}
			}
			got, err := ApplyUpdate(tt.old, k, testSchema, tt.u)
			if tt.bad {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("ApplyUpdate error = %v, want ErrInvalid", err)
				}
			} else {
				if err != nil {
					t.Fatalf("ApplyUpdate: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("ApplyUpdate = %#v, want %#v", got, tt.want)
				}
			}
			if tt.old != nil && !reflect.DeepEqual(tt.old, before) {
				t.Fatalf("ApplyUpdate modified old: %#v", tt.old)
			}
		})
	}
}

func TestValidateKey(t *testing.T) {
	tests := []struct {
		name string
		it   Item
		want Key
		bad  bool
	}{
		{name: "ok", it: Item{"pk": "a", "sk": "b", "x": 1}, want: Key{PK: "a", SK: "b"}},
		{name: "missing pk", it: Item{"sk": "b"}, bad: true},
		{name: "missing sk", it: Item{"pk": "a"}, bad: true},
		{name: "empty pk", it: Item{"pk": "", "sk": "b"}, bad: true},
		{name: "empty sk", it: Item{"pk": "a", "sk": ""}, bad: true},
		{name: "NUL in pk", it: Item{"pk": "a\x00", "sk": "b"}, bad: true},
		{name: "NUL in sk", it: Item{"pk": "a", "sk": "\x00b"}, bad: true},
		{name: "number pk", it: Item{"pk": 1, "sk": "b"}, bad: true},
		{name: "invalid utf8", it: Item{"pk": "\xff", "sk": "b"}, bad: true},
		{name: "pk too long", it: Item{"pk": strings.Repeat("a", maxPKBytes+1), "sk": "b"}, bad: true},
		{name: "sk at limit", it: Item{"pk": "a", "sk": strings.Repeat("b", maxSKBytes)},
			want: Key{PK: "a", SK: strings.Repeat("b", maxSKBytes)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateKey(testSchema, tt.it)
			if tt.bad {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("ValidateKey error = %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ValidateKey = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	hashOnly := Schema{Name: "h", PK: "id"}
	if k, err := ValidateKey(hashOnly, Item{"id": "x"}); err != nil || k != (Key{PK: "x"}) {
		t.Fatalf("hash-only ValidateKey = %v, %v", k, err)
	}
}

func TestCheckKey(t *testing.T) {
	tests := []struct {
		s  Schema
		k  Key
		ok bool
	}{
		{testSchema, Key{PK: "a", SK: "b"}, true},
		{testSchema, Key{PK: "", SK: "b"}, false},
		{testSchema, Key{PK: "a", SK: ""}, false},
		{testSchema, Key{PK: "a\x00b", SK: "c"}, false},
		{Schema{Name: "h", PK: "id"}, Key{PK: "a"}, true},
		{Schema{Name: "h", PK: "id"}, Key{PK: "a", SK: "b"}, false},
	}
	for _, tt := range tests {
		if err := CheckKey(tt.s, tt.k); tt.ok != (err == nil) {
			t.Errorf("CheckKey(%v) = %v, want ok=%v", tt.k, err, tt.ok)
		}
	}
}

func TestIndexKey(t *testing.T) {
	ix := testSchema.Indexes[0]
	tests := []struct {
		name string
		it   Item
		want Key
		in   bool
		bad  bool
	}{
		{name: "indexed", it: Item{"owner": "o", "created": "c"}, want: Key{PK: "o", SK: "c"}, in: true},
		{name: "no attributes", it: Item{"x": 1}},
		{name: "missing sk", it: Item{"owner": "o"}},
		{name: "empty pk", it: Item{"owner": "", "created": "c"}},
		{name: "number sk", it: Item{"owner": "o", "created": int64(3)}},
		{name: "NUL", it: Item{"owner": "o\x00", "created": "c"}, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, in, err := IndexKey(ix, tt.it)
			if tt.bad {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("IndexKey error = %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil || in != tt.in || k != tt.want {
				t.Fatalf("IndexKey = %v, %v, %v; want %v, %v", k, in, err, tt.want, tt.in)
			}
		})
	}
	k, in, err := IndexKey(Index{Name: "hash", PK: "owner"}, Item{"owner": "o"})
	if err != nil || !in || k != (Key{PK: "o"}) {
		t.Fatalf("hash-only index: %v %v %v", k, in, err)
	}
}

func TestValidateQuery(t *testing.T) {
	tests := []struct {
		name string
		q    Query
		ok   bool
	}{
		{"plain", Query{PK: "p"}, true},
		{"index", Query{Index: "by_owner", PK: "o", SK: BeginsWith("2024")}, true},
		{"unknown index", Query{Index: "nope", PK: "p"}, false},
		{"empty pk", Query{PK: ""}, false},
		{"NUL pk", Query{PK: "a\x00"}, false},
		{"negative limit", Query{PK: "p", Limit: -1}, false},
		{"empty sort value", Query{PK: "p", SK: SortCond{Op: SortEq}}, false},
		{"NUL sort value", Query{PK: "p", SK: SortCond{Op: SortGt, Value: "a\x00"}}, false},
		{"between", Query{PK: "p", SK: SortCond{Op: SortBetween, Value: "a", Value2: "b"}}, true},
		{"between equal bounds", Query{PK: "p", SK: SortCond{Op: SortBetween, Value: "a", Value2: "a"}}, true},
		{"between reversed", Query{PK: "p", SK: SortCond{Op: SortBetween, Value: "b", Value2: "a"}}, false},
		{"unknown op", Query{PK: "p", SK: SortCond{Op: 99, Value: "a"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := ValidateQuery(testSchema, tt.q); tt.ok != (err == nil) {
				t.Fatalf("ValidateQuery = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestExpired(t *testing.T) {
	now := time.Unix(1000, 500)
	tests := []struct {
		name string
		s    Schema
		it   Item
		want bool
	}{
		{"past", testSchema, Item{"expires": int64(999)}, true},
		{"exactly now", testSchema, Item{"expires": int64(1000)}, true},
		{"future", testSchema, Item{"expires": int64(1001)}, false},
		{"float past", testSchema, Item{"expires": 999.5}, true},
		{"float just after now", testSchema, Item{"expires": 1000.5}, false},
		{"int kind", testSchema, Item{"expires": 5}, true},
		{"missing", testSchema, Item{}, false},
		{"not a number", testSchema, Item{"expires": "999"}, false},
		{"no TTL in schema", Schema{Name: "x", PK: "pk"}, Item{"expires": int64(1)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expired(tt.s, tt.it, now); got != tt.want {
				t.Fatalf("Expired = %v, want %v", got, tt.want)
			}
		})
	}
	if e, ok := ExpiryOf(testSchema, Item{"expires": 1e300}); !ok || e != math.MaxInt64 {
		t.Fatalf("ExpiryOf(1e300) = %v, %v", e, ok)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want any // as read back
	}{
		{"string", "héllo \"quoted\" \\ \n\t\x01 ✓ 😀", "héllo \"quoted\" \\ \n\t\x01 ✓ 😀"},
		{"empty string", "", ""},
		{"int64", int64(-42), int64(-42)},
		{"int64 max", int64(math.MaxInt64), int64(math.MaxInt64)},
		{"int64 min", int64(math.MinInt64), int64(math.MinInt64)},
		{"int widened", 7, int64(7)},
		{"uint32 widened", uint32(7), int64(7)},
		{"float64", 1.25, 1.25},
		{"float64 small", 1e-7, 1e-7},
		{"float64 huge", 1e300, 1e300},
		{"float64 integral reads as int", 3.0, int64(3)},
		{"float64 2^63 stays float", 0x1p63, 0x1p63},
		{"float32", float32(0.5), 0.5},
		{"bool true", true, true},
		{"bool false", false, false},
		{"bytes", []byte{0, 1, 254, 255}, []byte{0, 1, 254, 255}},
		{"empty bytes", []byte{}, []byte{}},
		{"strings", []string{"a", "b"}, []string{"a", "b"}},
		{"empty strings", []string{}, []string{}},
		{"nil strings", []string(nil), []string{}},
		{"empty any list", []any{}, []string{}},
		{"any list of strings", []any{"a", "b"}, []string{"a", "b"}},
		{"mixed list", []any{"a", 1, true, nil, 2.5}, []any{"a", int64(1), true, nil, 2.5}},
		{"string then list", []any{"a", []any{"b"}}, []any{"a", []string{"b"}}},
		{"nested map", map[string]any{"a": map[string]any{"b": []any{int64(1)}}, "c": "d"},
			map[string]any{"a": map[string]any{"b": []any{int64(1)}}, "c": "d"}},
		{"empty map", map[string]any{}, map[string]any{}},
		{"nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc, err := EncodeItem(Item{"v": tt.in})
			if err != nil {
				t.Fatalf("EncodeItem: %v", err)
			}
			got, err := DecodeItem(enc)
			if err != nil {
				t.Fatalf("DecodeItem(%s): %v", enc, err)
			}
			if !reflect.DeepEqual(got, Item{"v": tt.want}) {
				t.Fatalf("round trip of %#v via %s = %#v, want %#v", tt.in, enc, got["v"], tt.want)
			}
		})
	}
}

func TestEncodeItemShape(t *testing.T) {
	enc, err := EncodeItem(Item{
		"s": "x", "n": int64(12), "f": 1.5, "b": true, "z": nil, "bin": []byte("hi"),
		"l": []any{"a", int64(1)}, "m": map[string]any{"k": "v"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":{"BOOL":true},"bin":{"B":"aGk="},"f":{"N":"1.5"},"l":{"L":[{"S":"a"},{"N":"1"}]},` +
		`"m":{"M":{"k":{"S":"v"}}},"n":{"N":"12"},"s":{"S":"x"},"z":{"NULL":true}}`
	if string(enc) != want {
		t.Fatalf("EncodeItem =\n%s\nwant\n%s", enc, want)
	}
}

func TestEncodeItemErrors(t *testing.T) {
	tests := []struct {
		name string
		it   Item
	}{
		{"struct", Item{"a": struct{}{}}},
		{"nested struct", Item{"a": map[string]any{"b": []any{struct{}{}}}}},
		{"NaN", Item{"a": math.NaN()}},
		{"invalid utf8", Item{"a": "\xff"}},
		{"invalid utf8 name", Item{"\xff": "a"}},
		{"uint64 overflow", Item{"a": uint64(math.MaxUint64)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := EncodeItem(tt.it); !errors.Is(err, ErrInvalid) {
				t.Fatalf("EncodeItem error = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestDecodeItemForeignJSON(t *testing.T) {
	// Whitespace, escapes and number forms another writer may produce.
	in := ` { "a" : { "S" : "x\u00e9\ud83d\ude00\/\"" } , "n":{"N":"1.50e1"}, "i":{"N":"1E3"},
		"l":{"L":[ ]}, "m":{"M":{}}, "f":{"BOOL":false} } `
	got, err := DecodeItem([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Item{"a": "xé😀/\"", "n": int64(15), "i": int64(1000), "l": []string{}, "m": map[string]any{}, "f": false}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeItem = %#v, want %#v", got, want)
	}
}

func TestDecodeItemErrors(t *testing.T) {
	for _, in := range []string{
		``, `{`, `[]`, `{"a":1}`, `{"a":{"X":"1"}}`, `{"a":{"N":"x"}}`, `{"a":{"N":1}}`,
		`{"a":{"S":"x"}} trailing`, `{"a":{"B":"!!"}}`, `{"a":{"NULL":false}}`, `{"a":{"S":"x"`,
		`{"a":{"L":[{"S":"x"} {"S":"y"}]}}`, `{"a":{"S":"\q"}}`, `{"a":{"BOOL":yes}}`,
	} {
		if _, err := DecodeItem([]byte(in)); err == nil {
			t.Errorf("DecodeItem(%q) succeeded", in)
		}
	}
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in   string
		want any
		bad  bool
	}{
		{in: "12", want: int64(12)},
		{in: "-12", want: int64(-12)},
		{in: "-0", want: int64(0)},
		{in: "007", want: int64(7)},
		{in: "1.5", want: 1.5},
		{in: "1.0", want: int64(1)},
		{in: "1.000", want: int64(1)},
		{in: "1e3", want: int64(1000)},
		{in: "1.5e1", want: int64(15)},
		{in: "1.25e1", want: 12.5},
		{in: "1500e-2", want: int64(15)},
		{in: "1e-2", want: 0.01},
		{in: "0.000", want: int64(0)},
		{in: ".5", want: 0.5},
		{in: "9223372036854775807", want: int64(math.MaxInt64)},
		{in: "-9223372036854775808", want: int64(math.MinInt64)},
		{in: "9223372036854775808", want: 9223372036854775808.0},
		{in: "12345678901234567.0", want: int64(12345678901234567)},
		{in: "1.0000000000000000001", want: 1.0}, // not integral: float64 rounding
		{in: "1e21", want: 1e21},
		{in: "", bad: true},
		{in: "-", bad: true},
		{in: "abc", bad: true},
		{in: "1e", bad: true},
		{in: "1e999", bad: true},
		{in: "NaN", bad: true},
		{in: "Inf", bad: true},
		{in: "0x10", bad: true},
		{in: "1_000", bad: true},
		{in: "1.2.3", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseNumber(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("ParseNumber(%q) = %#v, want error", tt.in, got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseNumber(%q) = %#v, %v; want %#v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestDecodeItemCopies(t *testing.T) {
	enc, err := EncodeItem(Item{"s": "abc", "b": []byte("xyz"), "l": []string{"q"}})
	if err != nil {
		t.Fatal(err)
	}
	it, err := DecodeItem(enc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range enc {
		enc[i] = 'Z' // as if the database reused the page
	}
	if it.String("s") != "abc" || string(it.Bytes("b")) != "xyz" || it.Strings("l")[0] != "q" {
		t.Fatalf("decoded item aliases its input: %#v", it)
	}
}

func FuzzDecodeItem(f *testing.F) {
	seed, _ := EncodeItem(Item{"a": "x", "n": int64(1), "l": []any{"a", 1.5}, "m": map[string]any{"k": nil}})
	f.Add(seed)
	f.Add([]byte(`{"a":{"S":"\u00e9"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := DecodeItem(data)
		if err != nil {
			return
		}
		// Whatever decodes must re-encode and decode to the same item.
		enc, err := EncodeItem(it)
		if err != nil {
			return // e.g. a lone surrogate decoded to valid text is fine; other refusals too
		}
		again, err := DecodeItem(enc)
		if err != nil || !reflect.DeepEqual(it, again) {
			t.Fatalf("re-decode of %s: %#v, %v; want %#v", enc, again, err, it)
		}
	})
}

func benchItem() Item {
	return Item{
		"pk": "key#0123456789abcdef", "sk": "meta", "owner": "acct#42", "created": "2024-05-01T10:00:00Z",
		"scopes": []string{"read", "write"}, "active": true, "uses": int64(12345), "rate": 2.5,
		"hash": []byte("0123456789abcdef0123456789abcdef"),
	}
}

func BenchmarkEncodeItem(b *testing.B) {
	it := benchItem()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeItem(it); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeItem(b *testing.B) {
	enc, err := EncodeItem(benchItem())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeItem(enc); err != nil {
			b.Fatal(err)
		}
	}
}
