package jobs_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
)

// TestPool: the multi_proxy modules share one pool: one of their jobs
// runs platform-wide, the others wait in order, and each end hands the
// pool to the next; a parallel module starts at once.
func TestPool(t *testing.T) {
	e := newEnv(t, withRunner())
	ctx := context.Background()
	first := e.create(user(1), scrapeOf())
	e.clock.Advance(time.Second)
	second := e.items(user(2), "emails", `{"site_web":"https://a.example"}`)
	e.clock.Advance(time.Second)
	third := e.create(user(1), scrapeOf())
	parallel := e.items(user(1), "phone_info", `{"telephone":"+33478000001"}`)

	starts := func(want map[string]int) {
		t.Helper()
		for id, n := range want {
			if got := e.runner.starts(id); got != n {
				t.Fatalf("job %s started %d times, want %d", id, got, n)
			}
		}
	}
	starts(map[string]int{first.ID: 1, second.ID: 0, third.ID: 0, parallel.ID: 1})

	v, err := e.svc.Queue(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.Pool != jobs.PoolMultiProxy || v.Running == nil || v.Running.ID == nil || *v.Running.ID != first.ID || !v.Running.Mine {
		t.Fatalf("running %+v", v.Running)
	}
	if len(v.Queued) != 2 || v.Queued[0].Mine || v.Queued[0].ID != nil || v.Queued[0].JobType != "emails" ||
		!v.Queued[1].Mine || *v.Queued[1].ID != third.ID || !slices.Equal(v.MyPositions, []int{2}) {
		t.Fatalf("queued %+v, my positions %v: another account's job is anonymous", v.Queued, v.MyPositions)
	}

	e.finish(first.ID, sampleCSV(t))
	starts(map[string]int{second.ID: 1, third.ID: 0})
	if _, err := e.svc.Cancel(ctx, 2, second.ID); err != nil {
		t.Fatal(err)
	}
	starts(map[string]int{third.ID: 1})
	v, err = e.svc.Queue(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if v.Running == nil || v.Running.Mine || v.Running.ID != nil || len(v.Queued) != 0 {
		t.Fatalf("queue seen by user 2: %+v", v)
	}
}

// TestPoolLowPriority: a low-priority pipeline's job waits behind the
// normal ones, even those created after it.
func TestPoolLowPriority(t *testing.T) {
	e := newEnv(t, withRunner())
	ctx := context.Background()
	holder := e.create(user(1), scrapeOf())
	e.clock.Advance(time.Second)
	low, err := e.svc.Create(jobs.WithOrigin(ctx, jobs.Origin{PipelineID: "pipe1", NodeID: "s", LowPriority: true}), user(1), scrapeOf())
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	normal := e.create(user(2), scrapeOf())
	v, err := e.svc.Queue(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Queued) != 2 || v.Queued[0].LowPriority || !v.Queued[1].LowPriority {
		t.Fatalf("queue %+v: the normal job goes first", v.Queued)
	}
	e.finish(holder.ID, sampleCSV(t))
	if e.runner.starts(normal.ID) != 1 || e.runner.starts(low.ID) != 0 {
		t.Fatalf("after the holder: normal started %d, low %d", e.runner.starts(normal.ID), e.runner.starts(low.ID))
	}
	e.fail(normal.ID, "boom")
	if e.runner.starts(low.ID) != 1 {
		t.Fatal("the low-priority job did not get the pool")
	}
}

// TestPoolLostStart: a holder still pending after its start had time to
// arrive is started again by a promotion (the sweep's), not before.
func TestPoolLostStart(t *testing.T) {
	e := newEnv(t, withRunner())
	ctx := context.Background()
	j := e.create(user(1), scrapeOf())
	if err := e.svc.Promote(ctx, jobs.PoolMultiProxy); err != nil {
		t.Fatal(err)
	}
	if n := e.runner.starts(j.ID); n != 1 {
		t.Fatalf("started %d times within the grace, want 1", n)
	}
	e.clock.Advance(3 * time.Minute)
	if err := e.svc.Promote(ctx, jobs.PoolMultiProxy); err != nil {
		t.Fatal(err)
	}
	if n := e.runner.starts(j.ID); n != 2 {
		t.Fatalf("started %d times after the grace, want 2", n)
	}
	e.begin(j.ID, 1)
	e.clock.Advance(time.Hour)
	if err := e.svc.Promote(ctx, jobs.PoolMultiProxy); err != nil {
		t.Fatal(err)
	}
	if n := e.runner.starts(j.ID); n != 2 {
		t.Fatalf("a running holder started again (%d)", n)
	}
}

// TestPoolFreedByDelete: a deleted or purged holder frees the pool for
// the next job.
func TestPoolFreedByDelete(t *testing.T) {
	for _, tt := range []struct {
		name string
		free func(e *env, id string) error
	}{
		{"delete", func(e *env, id string) error { return e.svc.Delete(context.Background(), 1, id) }},
		{"purge", func(e *env, _ string) error { return e.svc.Purge(context.Background(), 1) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withRunner())
			holder := e.create(user(1), scrapeOf())
			next := e.create(user(2), scrapeOf())
			if e.runner.starts(next.ID) != 0 {
				t.Fatal("the second job started while the first held the pool")
			}
			if err := tt.free(e, holder.ID); err != nil {
				t.Fatal(err)
			}
			if e.runner.starts(next.ID) != 1 {
				t.Fatal("the next job did not get the pool")
			}
		})
	}
}

// TestNoRunner: a service without a runner (an account function) starts
// nothing; its jobs wait, pending.
func TestNoRunner(t *testing.T) {
	e := newEnv(t)
	j := e.create(user(1), scrapeOf())
	if err := e.svc.Promote(context.Background(), jobs.PoolMultiProxy); err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.Queue(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.Running != nil || len(v.Queued) != 1 || *v.Queued[0].ID != j.ID {
		t.Fatalf("queue %+v", v)
	}
	if _, err := e.svc.Get(context.Background(), 2, j.ID); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another account reads the job: %v", err)
	}
}
