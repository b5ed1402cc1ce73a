package app_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/engine"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/store"
)

type queueView struct {
	Pool    string       `json:"pool"`
	Running *queueEntry  `json:"running"`
	Queued  []queueEntry `json:"queued"`
	More    bool         `json:"more"`
	Mine    []int        `json:"my_positions"`
}

type queueEntry struct {
	Position int     `json:"position"`
	JobType  string  `json:"job_type"`
	Status   string  `json:"status"`
	Mine     bool    `json:"mine"`
	ID       *string `json:"id"`
}

func getQueue(t *testing.T, c *apptest.Client) queueView {
	t.Helper()
	var v queueView
	if err := json.Unmarshal(c.Do("GET", "/api/jobs/queue", nil).Must(t, 200).Body, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// busyPool has a France-wide job of a first account hold the proxy pool,
// and returns that account's client and job id once it runs.
func busyPool(t *testing.T, e *apptest.Env, email string) (*apptest.Client, string) {
	t.Helper()
	a := e.NewClient()
	a.Signup(email, fixturePassword)
	a.Verify(email)
	big := decodeJob(t, a.Do("POST", "/api/jobs", map[string]any{"queries": []string{"restaurant"}, "zones": []string{"France"}}))
	if g := waitJob(t, a, big.ID, func(g map[string]any) bool { return g["status"] != "pending" }); g["status"] != "running" {
		t.Fatalf("the first job is %v, not running", g["status"])
	}
	return a, big.ID
}

// TestProxyPoolQueue: scrapes share the proxy pool, one running at a time
// platform-wide; the others wait in a queue that GET /api/jobs/queue shows
// without revealing other accounts' jobs, and run in order once the pool
// is free.
func TestProxyPoolQueue(t *testing.T) {
	e := apptest.Start(t)
	a, bigID := busyPool(t, e, "holder@example.org")
	b := e.NewClient()
	b.Signup("waiter@example.org", fixturePassword)
	b.Verify("waiter@example.org")
	lyon := map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}}
	first := decodeJob(t, b.Do("POST", "/api/jobs", lyon))
	e.Clock.Advance(time.Millisecond) // the queue's order is the creation time's
	second := decodeJob(t, b.Do("POST", "/api/jobs", lyon))

	v := getQueue(t, b)
	if v.Pool != "multi_proxy" || v.Running == nil || v.Running.Mine || v.Running.ID != nil ||
		v.Running.Status != "running" || v.Running.JobType != "scrap" {
		t.Fatalf("queue seen by the waiter: running %+v", v.Running)
	}
	if len(v.Queued) != 2 || *v.Queued[0].ID != first.ID || *v.Queued[1].ID != second.ID ||
		v.Queued[0].Position != 1 || !slices.Equal(v.Mine, []int{1, 2}) || v.More {
		t.Fatalf("queue seen by the waiter: %+v", v)
	}
	if s := b.Do("GET", "/api/jobs/"+first.ID, nil).Must(t, 200).JSON()["status"]; s != "pending" {
		t.Fatalf("a queued job is %v", s)
	}
	v = getQueue(t, a)
	if v.Running == nil || !v.Running.Mine || v.Running.ID == nil || *v.Running.ID != bigID ||
		len(v.Queued) != 2 || v.Queued[0].Mine || v.Queued[0].ID != nil || len(v.Mine) != 0 {
		t.Fatalf("queue seen by the holder: %+v", v)
	}

	// A cancelled waiting job leaves the queue; the next moves up.
	b.Do("POST", "/api/jobs/"+first.ID+"/cancel", nil).Must(t, 200)
	if v = getQueue(t, b); len(v.Queued) != 1 || *v.Queued[0].ID != second.ID || v.Queued[0].Position != 1 {
		t.Fatalf("after the cancel: %+v", v)
	}
	// The pool's holder ends: the next waiting job runs to its end.
	a.Do("POST", "/api/jobs/"+bigID+"/cancel", nil).Must(t, 200)
	if g := waitJob(t, b, second.ID, isDone); g["status"] != "done" {
		t.Fatalf("the queued job after the pool was freed: %v", g["status"])
	}
	if v = getQueue(t, b); v.Running != nil || len(v.Queued) != 0 {
		t.Errorf("idle queue: %+v", v)
	}
	// A job created with the pool free starts at once.
	third := decodeJob(t, b.Do("POST", "/api/jobs", lyon))
	if g := waitJob(t, b, third.ID, isDone); g["status"] != "done" {
		t.Fatalf("a job created on a free pool: %v", g["status"])
	}
	e.NewClient().Do("GET", "/api/jobs/queue", nil).Must(t, 401)
}

// TestProxyPoolSweep: a lease whose holder vanished without releasing it (a
// process that died between the two) is freed by the periodic sweep, and a
// holder whose start message was lost is started again once startGrace
// has passed.
func TestProxyPoolSweep(t *testing.T) {
	e := apptest.Start(t)
	ctx := context.Background()
	db := e.Adapters.DB
	sweep := func() {
		t.Helper()
		if _, err := e.Adapters.Queue.Send(ctx, app.QueueTasks, queue.Message{Body: []byte(engine.SweepMessage)}); err != nil {
			t.Fatal(err)
		}
	}
	_, bigID := busyPool(t, e, "holder@example.org")
	b := e.NewClient()
	b.Signup("swept@example.org", fixturePassword)
	b.Verify("swept@example.org")
	lyon := map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}}
	waiting := decodeJob(t, b.Do("POST", "/api/jobs", lyon))

	// The holder's record disappears without a release.
	if err := db.Table(jobs.Table).Delete(ctx, jobs.Key(bigID), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if s := b.Do("GET", "/api/jobs/"+waiting.ID, nil).Must(t, 200).JSON()["status"]; s != "pending" {
		t.Fatalf("the waiting job started with no sweep: %v", s)
	}
	sweep()
	if g := waitJob(t, b, waiting.ID, isDone); g["status"] != "done" {
		t.Fatalf("after the sweep: %v", g["status"])
	}

	// A holder given the lease whose start was lost stays pending until
	// the grace has passed, then a sweep starts it.
	_, bigID = busyPool(t, e, "holder2@example.org")
	lost := decodeJob(t, b.Do("POST", "/api/jobs", lyon))
	if err := db.Transact(ctx,
		store.DeleteOp(jobs.Table, jobs.Key(bigID), nil),
		store.PutOp(jobs.Table, store.Item{"pk": "LEASE#multi_proxy", "sk": "LEASE", "job": lost.ID,
			"since_ms": e.Clock.Now().UnixMilli()}, nil),
		store.UpdateOp(jobs.Table, jobs.Key(lost.ID), store.Update{}.Remove("gsi2pk").Remove("gsi2sk"), nil),
	); err != nil {
		t.Fatal(err)
	}
	sweep()
	time.Sleep(200 * time.Millisecond)
	if s := b.Do("GET", "/api/jobs/"+lost.ID, nil).Must(t, 200).JSON()["status"]; s != "pending" {
		t.Fatalf("the holder was started again within the grace: %v", s)
	}
	e.Clock.Advance(3 * time.Minute)
	sweep()
	if g := waitJob(t, b, lost.ID, isDone); g["status"] != "done" {
		t.Fatalf("after the grace and a sweep: %v", g["status"])
	}
}
