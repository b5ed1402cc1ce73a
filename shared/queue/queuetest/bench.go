package queuetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/queue"
)

// Benchmarks shared by the drivers, so that their figures compare. Each
// works on the queue name of a queue opened with Configs (any prefix), with a
// visibility timeout long enough that nothing is redelivered during a run.
// The body is a task of the size the service sends (a tile batch reference,
// 185 bytes of JSON).

var benchBody = []byte(`{"job":"job_01HZX3Y8K2","kind":"tiles","batch":17,"z":14,"tiles":[[8192,5446],[8193,5446],[8194,5446],[8192,5447],[8193,5447],[8194,5447]],"attempt":1,"deadline":"2026-11-23T10:00:00Z"}`)

// Bench runs every benchmark as a sub-benchmark.
func Bench(b *testing.B, q queue.Queue, name string) {
	b.Run("SendReceiveDelete1", func(b *testing.B) { BenchRoundTrip(b, q, name, 1) })
	b.Run("SendReceiveDelete10", func(b *testing.B) { BenchRoundTrip(b, q, name, queue.MaxBatch) })
	b.Run("SendReceiveDelete1Parallel", func(b *testing.B) { BenchRoundTripParallel(b, q, name) })
}

// BenchRoundTrip is a producer and a consumer in turn: each iteration sends
// batch messages in one call, receives them (batch at a time) and deletes
// each, as a worker does. It reports messages per second.
func BenchRoundTrip(b *testing.B, q queue.Queue, name string, batch int) {
	ctx := context.Background()
	msgs := make([]queue.Message, batch)
	for i := range msgs {
		msgs[i] = queue.Message{Body: benchBody}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := q.Send(ctx, name, msgs...); err != nil {
			b.Fatal(err)
		}
		for got := 0; got < batch; {
			ds, err := q.Receive(ctx, name, batch-got, time.Second, time.Minute)
			if err != nil {
				b.Fatal(err)
			}
			if len(ds) == 0 {
				b.Fatal("sent messages not received within a second")
			}
			for _, d := range ds {
				if err := q.Delete(ctx, name, d.Receipt); err != nil {
					b.Fatal(err)
				}
			}
			got += len(ds)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "msg/s")
}

// BenchRoundTripParallel is BenchRoundTrip with one message per call from
// GOMAXPROCS goroutines on one queue: a goroutine may take another's message,
// which is what competing workers do, so the count is of messages sent and
// the run drains the queue at the end.
func BenchRoundTripParallel(b *testing.B, q queue.Queue, name string) {
	ctx := context.Background()
	var sent, done atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := q.Send(ctx, name, queue.Message{Body: benchBody}); err != nil {
				b.Error(err)
				return
			}
			sent.Add(1)
			ds, err := q.Receive(ctx, name, 1, time.Second, time.Minute)
			if err != nil {
				b.Error(err)
				return
			}
			for _, d := range ds {
				if err := q.Delete(ctx, name, d.Receipt); err != nil {
					b.Error(err)
					return
				}
				done.Add(1)
			}
		}
	})
	b.StopTimer()
	if err := drain(ctx, q, name, sent.Load()-done.Load()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(sent.Load())/b.Elapsed().Seconds(), "msg/s")
}

// drain receives and deletes n messages, so that the next benchmark starts
// on an empty queue.
func drain(ctx context.Context, q queue.Queue, name string, n int64) error {
	for n > 0 {
		ds, err := q.Receive(ctx, name, queue.MaxBatch, time.Second, time.Minute)
		if err != nil {
			return err
		}
		if len(ds) == 0 {
			return fmt.Errorf("drain: %d messages missing", n)
		}
		for _, d := range ds {
			if err := q.Delete(ctx, name, d.Receipt); err != nil {
				return err
			}
		}
		n -= int64(len(ds))
	}
	return nil
}
