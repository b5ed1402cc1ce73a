package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
	"github.com/prospectdata/svc/shared/store/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, schemas []store.Schema) store.DB {
		// The sweeper is off: the suite checks that expired items still
		// count for conditions, which a sweep could race with.
		db, err := bolt.Open(filepath.Join(t.TempDir(), "contract.db"), schemas, bolt.WithSweepInterval(0))
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

func open(t testing.TB, path string, opts ...bolt.Option) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, storetest.Schemas(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.db")
	db := open(t, path)
	tb := db.Table(storetest.Items)
	want := store.Item{"pk": "p", "sk": "s", "owner": "o", "created": "c", "n": int64(7), "l": []string{"a"}}
	if err := tb.Put(ctx, want, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := tb.Get(ctx, store.Key{PK: "p", SK: "s"}); err == nil {
		t.Fatal("Get after Close succeeded")
	}

	db = open(t, path)
	tb = db.Table(storetest.Items)
	got, err := tb.Get(ctx, store.Key{PK: "p", SK: "s"})
	if err != nil {
		t.Fatalf("Get after reopen: %v", err)
	}
	if got.Int("n") != 7 || got.Strings("l")[0] != "a" {
		t.Fatalf("reopened item %#v", got)
	}
	p, err := tb.Query(ctx, store.Query{Index: storetest.ByOwner, PK: "o"})
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("index after reopen: %+v, %v", p, err)
	}
}

func TestSchemaChangeRebuildsIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "schema.db")
	plain := []store.Schema{{Name: "t", PK: "pk", SK: "sk"}}
	db, err := bolt.Open(path, plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range []store.Item{
		{"pk": "a", "sk": "1", "g": "x", "h": "1", "exp": int64(1)},
		{"pk": "b", "sk": "1", "g": "x", "h": "2"},
		{"pk": "c", "sk": "1"},
	} {
		if err := db.Table("t").Put(ctx, it, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// An index and a TTL added later cover the items written before.
	withIndex := []store.Schema{{Name: "t", PK: "pk", SK: "sk", TTL: "exp",
		Indexes: []store.Index{{Name: "g", PK: "g", SK: "h"}}}}
	db, err = bolt.Open(path, withIndex, bolt.WithSweepInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.Table("t").Query(ctx, store.Query{Index: "g", PK: "x"})
	if err != nil || len(p.Items) != 1 || p.Items[0].String("pk") != "b" {
		t.Fatalf("rebuilt index: %+v, %v (a is expired)", p, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Changing the key attributes of a non-empty table is refused.
	rekeyed := []store.Schema{{Name: "t", PK: "id", SK: "sk"}}
	if db, err := bolt.Open(path, rekeyed); err == nil {
		_ = db.Close()
		t.Fatal("Open with other key attributes on a non-empty table succeeded")
	}
}

func TestSweeperDeletesExpired(t *testing.T) {
	ctx := context.Background()
	var now atomic.Int64
	now.Store(1_000_000)
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	db := open(t, filepath.Join(t.TempDir(), "sweep.db"), bolt.WithClock(clock), bolt.WithSweepInterval(5*time.Millisecond))
	tb := db.Table(storetest.Items)
	const n = 600 // more than one sweep batch
	for i := range n {
		it := store.Item{"pk": "s", "sk": fmt.Sprintf("k%04d", i),
			"expires": int64(1_000_100), "owner": "o", "created": "c"}
		if err := tb.Put(ctx, it, nil); err != nil {
			t.Fatal(err)
		}
	}
	keep := store.Item{"pk": "s", "sk": "keep", "expires": int64(2_000_000)}
	if err := tb.Put(ctx, keep, nil); err != nil {
		t.Fatal(err)
	}
	// A condition sees an expired item until the sweeper deletes it, so
	// NotExists succeeding tells that the item is physically gone.
	gone := func(sk string) bool {
		err := db.Transact(ctx, store.CheckOp(storetest.Items, store.Key{PK: "s", SK: sk}, store.NotExists("pk")))
		return err == nil
	}
	first := "k0000"
	time.Sleep(30 * time.Millisecond) // a few sweeps with nothing due
	if gone(first) {
		t.Fatal("swept an item before its expiry")
	}

	now.Store(1_000_100) // due now
	deadline := time.Now().Add(10 * time.Second)
	for !gone(first) || !indexEmpty(t, tb) {
		if time.Now().After(deadline) {
			t.Fatal("sweeper did not delete the expired items within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p, err := tb.Query(ctx, store.Query{PK: "s"})
	if err != nil || len(p.Items) != 1 || p.Items[0].String("sk") != "keep" {
		t.Fatalf("after sweep: %d items, %v", len(p.Items), err)
	}
	for i := range n {
		sk := fmt.Sprintf("k%04d", i)
		if !gone(sk) {
			t.Fatalf("item %q survived the sweep", sk)
		}
	}
	if gone("keep") {
		t.Fatal("sweeper deleted an item not yet expired")
	}
}

// indexEmpty reports whether the sweeper removed the index entries too (with
// the clock moved back, the query would show any left).
func indexEmpty(t *testing.T, tb store.Table) bool {
	t.Helper()
	p, err := tb.Query(context.Background(), store.Query{Index: storetest.ByOwner, PK: "o", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return len(p.Items) == 0 && p.Next == ""
}

func TestSecondOpenFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	open(t, path)
	start := time.Now()
	db, err := bolt.Open(path, storetest.Schemas(), bolt.WithOpenTimeout(100*time.Millisecond))
	if err == nil {
		_ = db.Close()
		t.Fatal("second Open of a locked file succeeded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("second Open took %s", d)
	}
	// The default timeout is short too.
	start = time.Now()
	if db, err := bolt.Open(path, storetest.Schemas()); err == nil {
		_ = db.Close()
		t.Fatal("second Open of a locked file succeeded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("second Open with the default timeout took %s", d)
	}
}

func TestOpenRejectsBadSchemas(t *testing.T) {
	for name, schemas := range map[string][]store.Schema{
		"no name":         {{PK: "pk"}},
		"duplicate table": {{Name: "a", PK: "pk"}, {Name: "a", PK: "pk"}},
		"no pk":           {{Name: "a"}},
		"pk is sk":        {{Name: "a", PK: "k", SK: "k"}},
		"ttl is key":      {{Name: "a", PK: "k", TTL: "k"}},
		"index no pk":     {{Name: "a", PK: "k", Indexes: []store.Index{{Name: "i"}}}},
		"duplicate index": {{Name: "a", PK: "k", Indexes: []store.Index{{Name: "i", PK: "x"}, {Name: "i", PK: "y"}}}},
	} {
		db, err := bolt.Open(filepath.Join(t.TempDir(), "bad.db"), schemas)
		if err == nil {
			_ = db.Close()
			t.Errorf("%s: Open succeeded", name)
		} else if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: %v does not wrap ErrInvalid", name, err)
		}
	}
}

func TestHashOnlyTable(t *testing.T) {
	ctx := context.Background()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "hash.db"), []store.Schema{{Name: "h", PK: "id"}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tb := db.Table("h")
	if err := tb.Put(ctx, store.Item{"id": "x", "v": int64(1)}, nil); err != nil {
		t.Fatal(err)
	}
	if it, err := tb.Get(ctx, store.Key{PK: "x"}); err != nil || it.Int("v") != 1 {
		t.Fatalf("Get = %v, %v", it, err)
	}
	if _, err := tb.Update(ctx, store.Key{PK: "y"}, store.Update{}.Add("n", 1), nil); err != nil {
		t.Fatal(err)
	}
	if p, err := tb.Query(ctx, store.Query{PK: "y"}); err != nil || len(p.Items) != 1 {
		t.Fatalf("Query = %+v, %v", p, err)
	}
}

// TestNextIsExact checks the bolt driver's stronger promise: Next is empty
// when the page ends the partition, even when it ends exactly on a full
// page or when only expired items follow.
func TestNextIsExact(t *testing.T) {
	ctx := context.Background()
	db := open(t, filepath.Join(t.TempDir(), "next.db"), bolt.WithSweepInterval(0))
	tb := db.Table(storetest.Items)
	for _, sk := range []string{"a", "b", "c", "d"} {
		it := store.Item{"pk": "p", "sk": sk}
		if sk == "d" {
			it["expires"] = storetest.LongExpired
		}
		if err := tb.Put(ctx, it, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, desc := range []bool{false, true} {
		p, err := tb.Query(ctx, store.Query{PK: "p", Limit: 3, Desc: desc})
		if err != nil || len(p.Items) != 3 || p.Next != "" {
			t.Fatalf("desc %v: %d items, Next %q, %v", desc, len(p.Items), p.Next, err)
		}
		p, err = tb.Query(ctx, store.Query{PK: "p", Limit: 2, Desc: desc})
		if err != nil || p.Next == "" {
			t.Fatalf("desc %v: first of two pages has no Next (%v)", desc, err)
		}
	}
	others := db.Table(storetest.Others)
	for _, rev := range []string{"1", "2"} {
		if err := others.Put(ctx, store.Item{"id": "o", "rev": rev}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := others.Query(ctx, store.Query{PK: "o", Limit: 2}); err != nil || p.Next != "" {
		t.Fatalf("table without TTL: Next %q, %v", p.Next, err)
	}
}

func benchDB(b *testing.B) store.DB {
	return open(b, filepath.Join(b.TempDir(), "bench.db"), bolt.WithSweepInterval(0))
}

func BenchmarkGet(b *testing.B)         { storetest.BenchGet(b, benchDB(b)) }
func BenchmarkGetParallel(b *testing.B) { storetest.BenchGetParallel(b, benchDB(b)) }
func BenchmarkPut(b *testing.B)         { storetest.BenchPut(b, benchDB(b)) }
func BenchmarkUpdate(b *testing.B)      { storetest.BenchUpdateCounter(b, benchDB(b)) }
func BenchmarkQuery(b *testing.B)       { storetest.BenchQuery(b, benchDB(b)) }

// The NoSync variants show the cost of the engine without the fsync of each
// commit, which dominates writes on most disks.
func benchDBNoSync(b *testing.B) store.DB {
	return open(b, filepath.Join(b.TempDir(), "bench.db"), bolt.WithSweepInterval(0), bolt.WithNoSync())
}

func BenchmarkPutNoSync(b *testing.B)    { storetest.BenchPut(b, benchDBNoSync(b)) }
func BenchmarkUpdateNoSync(b *testing.B) { storetest.BenchUpdateCounter(b, benchDBNoSync(b)) }
