package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/queue"
	qbolt "github.com/prospectdata/svc/shared/queue/bolt"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
	"github.com/prospectdata/svc/shared/webhooks"
)

// benchEnv is the local runtime's webhook path as `make run` has it:
// bbolt tables and queue (synced to disk unless noSync), the events
// table's change feed followed by Run, Senders posting signed deliveries
// over TLS to a loopback receiver that checks each signature.
type benchEnv struct {
	events *events.Service
	uid    int64

	mu       sync.Mutex
	appended map[string]time.Time // delivery id -> when its event was appended
	delays   []time.Duration
	bad      int
	got      chan struct{}
	hook     int64
}

func newBenchEnv(b *testing.B, noSync bool) *benchEnv {
	b.Helper()
	dir := b.TempDir()
	var dbOpts []bolt.Option
	var qOpts []qbolt.Option
	if noSync {
		dbOpts, qOpts = append(dbOpts, bolt.WithNoSync()), append(qOpts, qbolt.WithNoSync())
	}
	db, err := bolt.Open(filepath.Join(dir, "tables.db"), []store.Schema{events.Schema(), webhooks.Schema()}, dbOpts...)
	if err != nil {
		b.Fatal(err)
	}
	q, err := qbolt.Open(filepath.Join(dir, "queue.db"), []queue.Config{{Name: webhooks.QueueName, VisibilityTimeout: time.Minute}}, qOpts...)
	if err != nil {
		b.Fatal(err)
	}
	e := &benchEnv{events: events.New(db, time.Now), uid: 1, appended: map[string]time.Time{}, got: make(chan struct{}, 1<<16)}
	secret := "bench-secret-of-sufficient-length"
	recv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		at := time.Now()
		ok := verified(secret, body, r.Header.Get("X-Svc-Signature"))
		e.mu.Lock()
		if t0, seen := e.appended[r.Header.Get("X-Svc-Delivery")]; seen && ok {
			e.delays = append(e.delays, at.Sub(t0))
		} else {
			e.bad++
		}
		e.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		e.got <- struct{}{}
	}))
	recv.EnableHTTP2 = true
	recv.StartTLS()
	pool := recv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	guard := netguard.New(netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")), netguard.WithRootCAs(pool))
	var ids int64
	svc := webhooks.New(webhooks.Deps{
		DB: db, Queue: q, Events: e.events, Check: guard, Client: guard.Client(webhooks.Timeout), Now: time.Now,
		IDs: func(context.Context, string) (int64, error) { ids++; return ids, nil },
	})
	ep, err := svc.Create(context.Background(), e.uid, recv.URL+"/hook", []string{"job.completed"}, &secret)
	if err != nil {
		b.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Run(ctx, db)
	}()
	b.Cleanup(func() {
		stop()
		<-done
		recv.Close()
		q.Close()
		db.Close()
	})
	e.hook = ep.ID
	return e
}

// emit appends a job.completed event, noting when, under the delivery id
// the receiver will see.
func (e *benchEnv) emit(b *testing.B) {
	data := events.JobData{ID: "job1", JobType: "scrap", Status: "done"}
	e.mu.Lock() // held across the append: the delivery may arrive first
	defer e.mu.Unlock()
	t0 := time.Now()
	ev, err := e.events.Append(context.Background(), e.uid, "job.completed", data)
	if err != nil {
		b.Fatal(err)
	}
	e.appended[webhooks.DeliveryID(e.hook, ev.ID)] = t0
}

func (e *benchEnv) wait(b *testing.B, n int) {
	timeout := time.After(time.Minute)
	for range n {
		select {
		case <-e.got:
		case <-timeout:
			b.Fatal("deliveries still missing after a minute")
		}
	}
}

func (e *benchEnv) report(b *testing.B) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bad > 0 {
		b.Fatalf("%d deliveries with a bad signature or an unknown id", e.bad)
	}
	slices.Sort(e.delays)
	pct := func(p float64) float64 {
		return float64(e.delays[int(p*float64(len(e.delays)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.5), "p50-delay-ms")
	b.ReportMetric(pct(0.99), "p99-delay-ms")
}

// BenchmarkDeliveries: b.N events appended at once, each delivered signed
// to a TLS receiver on loopback through the change feed, the deliveries
// queue and the senders. deliveries/s is the path's throughput; the delays
// are from an event's append to its arrival, so under this burst they
// include the wait in the queue.
func BenchmarkDeliveries(b *testing.B) {
	for _, mode := range []struct {
		name   string
		noSync bool
	}{{"fsync", false}, {"nosync", true}} {
		b.Run(mode.name, func(b *testing.B) {
			e := newBenchEnv(b, mode.noSync)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				e.emit(b)
			}
			e.wait(b, b.N)
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
			e.report(b)
		})
	}
}

// BenchmarkDeliveryDelay: one event at a time, each waited for before the
// next: the delay from an event to its delivery on an idle service (the
// feed's wake-up, the fan-out, the queue, the signed POST).
func BenchmarkDeliveryDelay(b *testing.B) {
	e := newBenchEnv(b, false)
	b.ResetTimer()
	for range b.N {
		e.emit(b)
		e.wait(b, 1)
	}
	e.report(b)
}
