package engine

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/store"
)

// TestSweepStuckJob: a scrape holding the proxy pool whose worker
// vanished (its task messages lost) is failed by the sweep once it made no
// progress for its redelivery chain plus the margin, and not before; the
// lease goes to the next queued job, whose start is sent. A gap in the
// sweeps (the service stopped) does not count as time without progress.
func TestSweepStuckJob(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixMilli())
	now := func() time.Time { return time.UnixMilli(clock.Load()) }
	advance := func(d time.Duration) { clock.Add(d.Milliseconds()) }
	var e *env
	e = newEnv(t, newWorld(), envOpts{noRun: true, deps: func(d *Deps) {
		d.Now = now
		d.Redelivery = map[string]time.Duration{"tasks": 20 * time.Minute}
		d.StuckMargin = 5 * time.Minute
		d.OnTerminal = func(ctx context.Context, j *jobs.Job) {
			e.jobs.Ended(ctx, j) // the pool released, the next job promoted
			e.signal(j.ID)
		}
	}})
	ctx := context.Background()
	drain := func() (starts []string) {
		for {
			ds, err := e.q.Receive(ctx, "tasks", 10, 0, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) == 0 {
				return starts
			}
			for _, d := range ds {
				if m, _ := decode(d.Body); m.Kind == kindStart {
					starts = append(starts, m.Job)
				}
				if err := e.q.Delete(ctx, "tasks", d.Receipt); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	sweep := func() {
		t.Helper()
		if err := e.eng.HandleDelivery(ctx, []byte(SweepMessage), 1); err != nil {
			t.Fatal(err)
		}
	}

	holder := e.create(lyon("fast", "plombier"))
	waiting := e.create(lyon("fast", "boulangerie"))
	if got := drain(); len(got) != 1 || got[0] != holder.ID {
		t.Fatalf("starts sent %v, want the holder's", got)
	}
	start, _ := json.Marshal(message{Kind: kindStart, Job: holder.ID})
	if err := e.eng.HandleDelivery(ctx, start, 1); err != nil {
		t.Fatal(err)
	}
	drain() // the worker vanishes: its tasks are lost
	if j := e.job(holder.ID); j.Status != jobs.Running {
		t.Fatalf("holder %s", j.Status)
	}

	status := func() jobs.Status { return e.job(holder.ID).Status }
	sweep()
	advance(2 * time.Hour) // the service stopped for two hours
	sweep()
	if s := status(); s != jobs.Running {
		t.Fatalf("a sweep after a gap failed the job: %s", s)
	}
	for range 5 { // 20 minutes of sweeps: within the bound
		advance(4 * time.Minute)
		sweep()
	}
	if s := status(); s != jobs.Running {
		t.Fatalf("failed within its bound: %s", s)
	}
	for range 2 { // 28 minutes
		advance(4 * time.Minute)
		sweep()
	}
	j := e.job(holder.ID)
	if j.Status != jobs.Failed || j.ErrorMessage == nil ||
		!strings.HasPrefix(*j.ErrorMessage, "The job made no progress for ") {
		t.Fatalf("holder %s %v", j.Status, j.ErrorMessage)
	}
	if it := e.item(jobs.Key(holder.ID)); it.String("gsi3pk") != "" {
		t.Error("the failed job is still on the active index")
	}
	lease := e.item(store.Key{PK: "LEASE#multi_proxy", SK: "LEASE"})
	if lease.String("job") != waiting.ID {
		t.Errorf("lease %v, want the waiting job's", lease)
	}
	if got := drain(); len(got) != 1 || got[0] != waiting.ID {
		t.Errorf("starts sent %v, want the waiting job's", got)
	}
	if refund := e.record(holder.ID).RefundCents(); refund != int64(holder.EFCost*100+0.5) {
		t.Errorf("refund %d cents of a charge of %v (no search was answered)", refund, holder.EFCost)
	}
}
