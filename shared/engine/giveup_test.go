package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider"
)

// stall is the test world but for the searches of one tile, which block
// until their context ends (a worker killed at its deadline) or panic (a
// poisoned message), as mode says.
type stall struct {
	*world
	tile  orb.Bound
	mode  string // "block" or "panic"
	calls atomic.Int64
}

func (s *stall) Search(ctx context.Context, r provider.Request) (provider.Page, error) {
	if r.Bound != s.tile {
		return s.world.Search(ctx, r)
	}
	s.calls.Add(1)
	if s.mode == "panic" {
		panic("poisoned tile")
	}
	<-ctx.Done()
	return provider.Page{}, fmt.Errorf("search: %w", ctx.Err())
}

// source feeds the engine the tasks queue as the SQS event source feeds a
// Lambda: each delivery in its own invocation, with its receive count and
// a deadline; a delivery not handled (an error) is left to come back when
// its visibility timeout (1 s) lapses, with its count plus one. die tells
// which deliveries the process dies on, before answering. It returns when
// the job has ended.
func (e *env) source(id string, deadline time.Duration, die func(m message, count int) bool) *jobs.Job {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-e.terminalChan(id):
			return e.job(id)
		case <-ctx.Done():
			e.t.Fatalf("job %s not finished: %+v", id, e.job(id))
		default:
		}
		ds, err := e.q.Receive(ctx, "tasks", 10, 100*time.Millisecond, time.Second)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, d := range ds {
			m, _ := decode(d.Body)
			if die(m, d.ReceiveCount) {
				continue
			}
			wg.Go(func() {
				hctx, hcancel := context.WithTimeout(context.Background(), deadline)
				defer hcancel()
				if err := e.eng.HandleDelivery(hctx, d.Body, d.ReceiveCount); err == nil {
					_ = e.q.Delete(context.Background(), "tasks", d.Receipt)
				}
			})
		}
	}
}

// TestGiveUpTile: a tile whose every delivery times out, dies, or
// panics ends in a recorded give-up on the last allowed delivery; the job
// ends done without it, the tile counted failed and named in the log.
func TestGiveUpTile(t *testing.T) {
	p, err := planner().Plan(mustClean(t, lyon("fast", "plombier")))
	if err != nil {
		t.Fatal(err)
	}
	target := p.Grid.Tiles()[0]
	for _, tt := range []struct {
		name string
		mode string
		// die: the process dies on the target's first deliveries.
		die bool
		// searches of the target's tile the provider sees.
		calls int64
		why   string
	}{
		{"timed out on every delivery", "block", false, 4, "it did not finish within the worker's time limit (4 attempts)"},
		{"killed on every delivery", "block", true, 0, "the worker stopped before finishing it (5 attempts)"},
		{"poisoned: panics on every delivery", "panic", false, 4, "it kept failing (4 attempts)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prov := &stall{world: newWorld(), tile: target.Bound(), mode: tt.mode}
			e := newEnv(t, prov, envOpts{noRun: true, deps: func(d *Deps) { d.Reserve = 300 * time.Millisecond }})
			id := e.create(lyon("fast", "plombier")).ID
			j := e.source(id, 1200*time.Millisecond, func(m message, count int) bool {
				return tt.die && m.Kind == kindTask && m.Task == "r1" && count <= 4
			})
			if j.Status != jobs.Done || j.ErrorCount != 1 || j.ProcessedPoints != j.GridPointsCount {
				t.Fatalf("job %s, error_count %d, %d/%d points (%v)", j.Status, j.ErrorCount, j.ProcessedPoints, j.GridPointsCount, j.ErrorMessage)
			}
			if n := prov.calls.Load(); n != tt.calls {
				t.Errorf("the tile was searched %d times, want %d", n, tt.calls)
			}
			if r1 := e.task(id, "r1"); r1.State != jobs.TaskDone || !r1.GaveUp {
				t.Errorf("ledger r1: %+v", r1)
			}
			want := fmt.Sprintf("Tile %s (task r1) given up: %s; its 1 searches count as failed.", tileString(target), tt.why)
			logs := e.logs(id)
			if !slices.Contains(logs, want) {
				t.Errorf("no %q in the logs:\n%s", want, strings.Join(logs, "\n"))
			}
			if !slices.ContainsFunc(logs, func(s string) bool {
				return strings.HasPrefix(s, "1 of ") && strings.Contains(s, " searches failed: r1: ")
			}) {
				t.Errorf("no count of the failed searches in the logs:\n%s", strings.Join(logs, "\n"))
			}
			if it := e.item(jobs.ActiveKey(j.UserID)); it.Int("n") != 0 {
				t.Errorf("active jobs %d", it.Int("n"))
			}
			if it := e.item(jobs.Key(id)); it.String("gsi3pk") != "" {
				t.Errorf("a done job is still on the active index: %v", it["gsi3sk"])
			}
		})
	}
}

// TestGiveUpDelivery drives HandleDelivery by hand: a failure before the
// last allowed delivery is retried and records nothing; the last one
// records the give-up and acks; a later one records it without working;
// a delivery of a tile already given up (or done) changes nothing.
func TestGiveUpDelivery(t *testing.T) {
	p, err := planner().Plan(mustClean(t, lyon("fast", "plombier")))
	if err != nil {
		t.Fatal(err)
	}
	target := p.Grid.Tiles()[0]
	prov := &stall{world: newWorld(), tile: target.Bound(), mode: "block"}
	e := newEnv(t, prov, envOpts{noRun: true, deps: func(d *Deps) { d.Reserve = 200 * time.Millisecond }})
	ctx := context.Background()
	j := e.create(lyon("fast", "plombier"))
	start, _ := json.Marshal(message{Kind: kindStart, Job: j.ID})
	if err := e.eng.HandleDelivery(ctx, start, 1); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(taskMessage(j.ID, "r1", target, []int{0}))
	deliver := func(count int) error {
		hctx, cancel := context.WithTimeout(ctx, 800*time.Millisecond)
		defer cancel()
		return e.eng.HandleDelivery(hctx, body, count)
	}
	for _, tt := range []struct {
		count   int
		ok      bool // acked
		gaveUp  bool // recorded after it
		calls   int64
		openDec int64 // open_tasks lower by this after it
	}{
		{1, false, false, 1, 0},
		{3, false, false, 2, 0},
		{4, true, true, 3, 1},
		{5, true, true, 3, 1}, // found closed: nothing more
	} {
		open := e.record(j.ID).OpenTasks()
		err := deliver(tt.count)
		if (err == nil) != tt.ok {
			t.Errorf("delivery %d: %v", tt.count, err)
		}
		if got := e.task(j.ID, "r1").GaveUp; got != tt.gaveUp {
			t.Errorf("delivery %d: gave_up %v", tt.count, got)
		}
		if n := prov.calls.Load(); n != tt.calls {
			t.Errorf("delivery %d: %d searches of the tile", tt.count, n)
		}
		if tt.count == 4 && open-e.record(j.ID).OpenTasks() != tt.openDec {
			t.Errorf("delivery %d: open_tasks %d → %d", tt.count, open, e.record(j.ID).OpenTasks())
		}
	}

	// A second tile dies on its last try: the next delivery records the
	// give-up at once, without searching.
	second := p.Grid.Tiles()[1]
	prov2 := prov.calls.Load()
	body2, _ := json.Marshal(taskMessage(j.ID, "r2", second, []int{0}))
	prov.tile = second.Bound()
	if err := e.eng.HandleDelivery(ctx, body2, 5); err != nil {
		t.Fatal(err)
	}
	if r2 := e.task(j.ID, "r2"); !r2.GaveUp || prov.calls.Load() != prov2 {
		t.Errorf("r2: %+v, %d searches", r2, prov.calls.Load()-prov2)
	}
	if rec := e.record(j.ID); rec.Failed() != 2 || rec.Errors() != 2 || rec.Points() != 2 {
		t.Errorf("counters: %d failed, %d errors, %d points", rec.Failed(), rec.Errors(), rec.Points())
	}
}

// TestGiveUpBatch: an item batch failing on every delivery is given up:
// its rows stay in the output with their input cells, counted in
// error_count, and the job ends done.
func TestGiveUpBatch(t *testing.T) {
	m := &fakeSocials{}
	m.failures.Store(1 << 30)
	e := itemEnv(t, m)
	var raw []string
	for i := range 45 {
		site := fmt.Sprintf("site%d.fr", i)
		if i == 25 {
			site = "fail.fr" // in the second batch
		}
		raw = append(raw, fmt.Sprintf(`{"nom":"Place %d","site_web":%q,"social_facebook":"old%d"}`, i, site, i))
	}
	j := e.wait(e.createItems(raw).ID)
	if j.Status != jobs.Done || j.ResultsCount != 45 || j.ErrorCount != 20 || j.ProcessedPoints != 45 {
		t.Fatalf("job %s %v: %d rows, %d errors, %d processed", j.Status, j.ErrorMessage, j.ResultsCount, j.ErrorCount, j.ProcessedPoints)
	}
	out := parseCSV(t, e.output(j.ID))
	for i, r := range out.rows {
		want := fmt.Sprintf("https://www.facebook.com/site%d", i)
		if i >= 20 && i < 40 {
			want = fmt.Sprintf("old%d", i) // the batch given up: the input's cells
		}
		if r["nom"] != fmt.Sprintf("Place %d", i) || r["social_facebook"] != want {
			t.Errorf("row %d: %v", i, r)
		}
	}
	logs := strings.Join(e.logs(j.ID), "\n")
	for _, want := range []string{"Batch b2 given up: it kept failing (4 attempts); its 20 items are kept without enrichment.",
		"20 of 45 items failed: b2: it kept failing (4 attempts)."} {
		if !strings.Contains(logs, want) {
			t.Errorf("no %q in the logs:\n%s", want, logs)
		}
	}
}

// TestGiveUpSteps: a start, a single run and a finalize that cannot
// finish fail their job with a message saying which, on the last allowed
// delivery.
func TestGiveUpSteps(t *testing.T) {
	for _, tt := range []struct {
		kind string
		want string
	}{
		{kindStart, "The job could not be started: it kept failing (4 attempts)."},
		{kindFinalize, "The output could not be built: it did not finish within the worker's time limit (4 attempts)."},
		{kindSingle, "The job could not be completed: the worker stopped before finishing it (5 attempts)."},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			e := newEnv(t, newWorld(), envOpts{noRun: true})
			j := e.create(lyon("fast", "plombier"))
			if tt.kind != kindStart {
				// Running, so that a finalize or a single run has a job to fail.
				op, err := jobs.Start(j, time.Now(), 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := e.db.Transact(context.Background(), op); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			body, _ := json.Marshal(message{Kind: tt.kind, Job: j.ID})
			switch tt.kind {
			case kindStart:
				err = e.eng.giveUp(context.Background(), message{Kind: tt.kind, Job: j.ID}, 4, fmt.Errorf("settings: %w", errKeptFailing))
			case kindFinalize:
				err = e.eng.giveUp(context.Background(), message{Kind: tt.kind, Job: j.ID}, 4, context.DeadlineExceeded)
			default:
				err = e.eng.HandleDelivery(context.Background(), body, 5)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := e.job(j.ID)
			if got.Status != jobs.Failed || got.ErrorMessage == nil || *got.ErrorMessage != tt.want {
				t.Errorf("job %s %v", got.Status, got.ErrorMessage)
			}
			if it := e.item(jobs.Key(j.ID)); it.String("gsi3pk") != "" {
				t.Error("a failed job is still on the active index")
			}
		})
	}
}

var errKeptFailing = fmt.Errorf("store down")
