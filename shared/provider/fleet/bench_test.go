package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/provider/fleet"
	"github.com/prospectdata/svc/shared/provider/fleet/fleettest"
	"github.com/prospectdata/svc/shared/store"
)

// countingDB counts the store requests the limiters send: what each
// provider request costs in DynamoDB requests (docs/provider-load.md).
type countingDB struct {
	store.DB
	reads, writes, conflicts atomic.Int64
}

func (c *countingDB) Table(name string) store.Table { return &countingTable{c.DB.Table(name), c} }

type countingTable struct {
	store.Table
	c *countingDB
}

func (t *countingTable) count(err error) {
	t.c.writes.Add(1)
	if errors.Is(err, store.ErrConditionFailed) {
		t.c.conflicts.Add(1)
	}
}

func (t *countingTable) Get(ctx context.Context, k store.Key) (store.Item, error) {
	t.c.reads.Add(1)
	return t.Table.Get(ctx, k)
}

func (t *countingTable) Query(ctx context.Context, q store.Query) (store.Page, error) {
	t.c.reads.Add(1)
	return t.Table.Query(ctx, q)
}

func (t *countingTable) Update(ctx context.Context, k store.Key, u store.Update, cond *store.Cond) (store.Item, error) {
	it, err := t.Table.Update(ctx, k, u, cond)
	t.count(err)
	return it, err
}

func (t *countingTable) Delete(ctx context.Context, k store.Key, cond *store.Cond) error {
	err := t.Table.Delete(ctx, k, cond)
	t.count(err)
	return err
}

// BenchmarkLimiterCost: 10 or 50 processes of 8 workers each send 200
// requests of 100 ms under 10 in flight and 50 per second (the benchmark
// of docs/benchmarks.md, on bbolt): the store requests per provider
// request, reads (Query, Get) and writes (conditional, the failed ones
// apart).
func BenchmarkLimiterCost(b *testing.B) {
	for _, processes := range []int{10, 50} {
		b.Run(fmt.Sprintf("processes=%d", processes), func(b *testing.B) { benchLimiterCost(b, processes) })
	}
}

func benchLimiterCost(b *testing.B, processes int) {
	const requests = 200
	var reads, writes, conflicts float64
	var span time.Duration
	for range b.N {
		db := &countingDB{DB: openStore(b)}
		rec := &fleettest.Recorder{Latency: 100 * time.Millisecond}
		start := time.Now()
		if errs := run(b, db, fleet.Config{MaxInFlight: 10, MaxPerSecond: 50}, processes, 8, requests, rec); len(errs) > 0 {
			b.Fatal(errs[0])
		}
		span = time.Since(start)
		reads, writes, conflicts = float64(db.reads.Load()), float64(db.writes.Load()), float64(db.conflicts.Load())
		calls := rec.Calls()
		if n := fleettest.MaxInFlight(calls); n > 10 {
			b.Fatalf("%d in flight", n)
		}
		if n := fleettest.MaxPerWindow(calls, time.Second); n > 50 {
			b.Fatalf("%d in a second", n)
		}
	}
	b.ReportMetric(reads/requests, "reads/req")
	b.ReportMetric(writes/requests, "writes/req")
	b.ReportMetric(conflicts/requests, "failed_writes/req")
	b.ReportMetric(span.Seconds(), "run_s")
}
