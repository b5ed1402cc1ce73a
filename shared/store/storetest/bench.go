package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/prospectdata/svc/shared/store"
)

// Benchmarks shared by the drivers, so that their figures compare. Each
// takes a DB opened with Schemas() and works in partitions of its own, so
// they can share one DB. The items look like the service's API keys: a few
// strings, a list, a counter, an index entry and an expiry.

func benchItem(pk, sk string) store.Item {
	return store.Item{
		"pk": pk, "sk": sk,
		"owner": "acct#" + pk, "created": "2024-05-01T10:00:00Z",
		"scopes": []string{"read", "write"}, "active": true, "uses": int64(0),
		"hash":    []byte("0123456789abcdef0123456789abcdef"),
		"expires": FarFuture,
	}
}

// Bench runs every benchmark as a sub-benchmark.
func Bench(b *testing.B, db store.DB) {
	b.Run("Get", func(b *testing.B) { BenchGet(b, db) })
	b.Run("GetParallel", func(b *testing.B) { BenchGetParallel(b, db) })
	b.Run("Put", func(b *testing.B) { BenchPut(b, db) })
	b.Run("UpdateCounter", func(b *testing.B) { BenchUpdateCounter(b, db) })
	b.Run("Query20", func(b *testing.B) { BenchQuery(b, db) })
}

// BenchGet reads one item by key: the API-key lookup on every request.
func BenchGet(b *testing.B, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	const n = 1000
	keys := make([]store.Key, n)
	for i := range keys {
		keys[i] = store.Key{PK: fmt.Sprintf("bget%04d", i), SK: "meta"}
		if err := tb.Put(ctx, benchItem(keys[i].PK, keys[i].SK), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := tb.Get(ctx, keys[i%n]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchGetParallel is BenchGet from GOMAXPROCS goroutines: reads must scale.
func BenchGetParallel(b *testing.B, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	const n = 1000
	keys := make([]store.Key, n)
	for i := range keys {
		keys[i] = store.Key{PK: fmt.Sprintf("bgetp%04d", i), SK: "meta"}
		if err := tb.Put(ctx, benchItem(keys[i].PK, keys[i].SK), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := tb.Get(ctx, keys[i%n]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// BenchPut writes a new item with an index entry and an expiry, guarded by
// NotExists as a create is.
func BenchPut(b *testing.B, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := tb.Put(ctx, benchItem(fmt.Sprintf("bput%08d", i), "meta"), store.NotExists("pk")); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchUpdateCounter increments a counter under a condition, as rate
// limiting and usage metering do.
func BenchUpdateCounter(b *testing.B, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	k := store.Key{PK: "bupd", SK: "meta"}
	if err := tb.Put(ctx, benchItem(k.PK, k.SK), nil); err != nil {
		b.Fatal(err)
	}
	u := store.Update{}.Add("uses", 1)
	cond := store.Eq("active", true)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tb.Update(ctx, k, u, cond); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchQuery reads a partition of 20 items in one page.
func BenchQuery(b *testing.B, db store.DB) {
	tb := db.Table(Items)
	ctx := context.Background()
	for i := range 20 {
		if err := tb.Put(ctx, benchItem("bquery", fmt.Sprintf("item%02d", i)), nil); err != nil {
			b.Fatal(err)
		}
	}
	q := store.Query{PK: "bquery", Limit: 20}
	b.ReportAllocs()
	for b.Loop() {
		p, err := tb.Query(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Items) != 20 || p.Next != "" {
			b.Fatalf("page of %d items, next %q", len(p.Items), p.Next)
		}
	}
}
