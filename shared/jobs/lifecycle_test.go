package jobs_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/jobs"
)

// TestStatus: the spec's states, which are terminal and which count
// toward the concurrent limit.
func TestStatus(t *testing.T) {
	for _, tt := range []struct {
		s                jobs.Status
		terminal, active bool
	}{
		{jobs.Pending, false, true},
		{jobs.Running, false, true},
		{jobs.Done, true, false},
		{jobs.Failed, true, false},
		{jobs.Cancelled, true, false},
		{jobs.Expired, true, false},
	} {
		t.Run(string(tt.s), func(t *testing.T) {
			if tt.s.Terminal() != tt.terminal || tt.s.Active() != tt.active {
				t.Fatalf("terminal %v, active %v", tt.s.Terminal(), tt.s.Active())
			}
		})
	}
}

// TestOwnership: another account's job is a 404 on every route, as an
// unknown id is.
func TestOwnership(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	j := e.create(user(1), scrapeOf())
	done := e.create(user(1), scrapeOf())
	e.finish(done.ID, sampleCSV(t))
	calls := map[string]func(uid int64, id string) error{
		"get":    func(uid int64, id string) error { _, err := e.svc.Get(ctx, uid, id); return err },
		"cancel": func(uid int64, id string) error { _, err := e.svc.Cancel(ctx, uid, id); return err },
		"delete": func(uid int64, id string) error { return e.svc.Delete(ctx, uid, id) },
		"resume": func(uid int64, id string) error { _, err := e.svc.Resume(ctx, user(uid), id); return err },
		"download": func(uid int64, id string) error {
			_, err := e.svc.Download(ctx, uid, id, "csv")
			return err
		},
		"output": func(uid int64, id string) error { _, _, err := e.svc.OpenOutput(ctx, uid, id); return err },
		"columns": func(uid int64, id string) error {
			_, err := e.svc.OutputColumns(ctx, uid, id)
			return err
		},
		"places": func(uid int64, id string) error { _, err := e.svc.Places(ctx, uid, id); return err },
	}
	for name, call := range calls {
		for _, tt := range []struct {
			what string
			uid  int64
			id   string
		}{
			{"another account's pending job", 2, j.ID},
			{"another account's done job", 2, done.ID},
			{"an unknown id", 1, "nosuchjobnosuchjob"},
			{"an empty id", 1, ""},
			{"an id over 64 characters", 1, strings.Repeat("a", 65)},
		} {
			t.Run(name+": "+tt.what, func(t *testing.T) {
				wantCode(t, call(tt.uid, tt.id), apperr.NotFound)
			})
		}
	}
	// None of the refused calls touched the owner's jobs.
	if got := e.get(1, j.ID); got.Status != jobs.Pending {
		t.Fatalf("owner's job is %s", got.Status)
	}
	if got := e.get(1, done.ID); got.Status != jobs.Done || !got.DownloadAvailable {
		t.Fatalf("owner's done job is %s (download %v)", got.Status, got.DownloadAvailable)
	}
}

// TestList: the account's jobs only, most recent first, with the limit
// clamped to 1..500 and the offset at least 0.
func TestList(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var ids []string
	for i := range 4 {
		j := e.create(user(1), scrapeOf())
		ids = append(ids, j.ID)
		if _, err := e.svc.Cancel(ctx, 1, j.ID); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Second)
		if i == 1 {
			e.create(user(2), scrapeOf())
		}
	}
	slices.Reverse(ids)
	for _, tt := range []struct {
		name          string
		limit, offset int
		want          []string
	}{
		{"every job, newest first", 100, 0, ids},
		{"a page", 2, 1, ids[1:3]},
		{"past the end", 10, 4, nil},
		{"a limit under 1 reads as 1", 0, 0, ids[:1]},
		{"a negative offset reads as 0", 2, -3, ids[:2]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			js, err := e.svc.List(ctx, 1, tt.limit, tt.offset)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range js {
				got = append(got, j.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("listed %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCancel: pending or running → cancelled, with completed_at and the
// slot back, listeners told once; an ended job is a 400 that names its
// state; a running job's partial output is asked of the engine.
func TestCancel(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(e *env, id string)
		ok      bool
		salvage bool
	}{
		{"pending", func(*env, string) {}, true, false},
		{"running", func(e *env, id string) { e.begin(id, 1) }, true, true},
		{"done", func(e *env, id string) { e.finish(id, sampleCSV(e.t)) }, false, false},
		{"failed", func(e *env, id string) { e.fail(id, "boom") }, false, false},
		{"cancelled", func(e *env, id string) {
			if _, err := e.svc.Cancel(context.Background(), 1, id); err != nil {
				e.t.Fatal(err)
			}
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withRunner())
			ctx := context.Background()
			// A parallel module: it starts at once, whatever holds the pool.
			j := e.items(user(1), "brand_assets", `{"site_web":"https://a.example"}`)
			tt.prepare(e, j.ID)
			endedBefore := len(e.ended.got())
			activeBefore := e.active(1)
			e.clock.Advance(time.Minute)
			closed, err := e.svc.Cancel(ctx, 1, j.ID)
			if !tt.ok {
				ae := wantCode(t, err, apperr.Invalid)
				if !strings.Contains(ae.EN, "already ended") {
					t.Fatalf("message %q", ae.EN)
				}
				if len(e.ended.got()) != endedBefore || e.active(1) != activeBefore {
					t.Fatal("a refused cancel changed something")
				}
				return
			}
			if err != nil || closed {
				t.Fatalf("cancel: pipeline_cancelled %v, err %v", closed, err)
			}
			got := e.get(1, j.ID)
			if got.Status != jobs.Cancelled || got.CompletedAt == nil || *got.CompletedAt != "2026-11-24T10:01:00Z" {
				t.Fatalf("after cancel: %s, completed_at %s", got.Status, str(got.CompletedAt))
			}
			if e.active(1) != 0 {
				t.Fatalf("active %d after cancel", e.active(1))
			}
			if ended := e.ended.got(); len(ended) != endedBefore+1 || ended[len(ended)-1] != j.ID+":cancelled" {
				t.Fatalf("listeners told %v", ended)
			}
			if salvaged := slices.Contains(e.runner.salvaged, j.ID); salvaged != tt.salvage {
				t.Fatalf("salvage asked %v, want %v", salvaged, tt.salvage)
			}
		})
	}
}

// items creates an item job of the module over the raw items.
func (e *env) items(u *accounts.User, module string, raws ...string) *jobs.Job {
	e.t.Helper()
	j, err := e.svc.CreateItems(context.Background(), u, module, itemRequest(raws...))
	if err != nil {
		e.t.Fatalf("create %s: %v", module, err)
	}
	return j
}

// TestDelete: a job and its files go, except while it runs; a pending job
// gives its slot back.
func TestDelete(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(e *env, id string)
		ok      bool
	}{
		{"pending", func(*env, string) {}, true},
		{"running: 400", func(e *env, id string) { e.begin(id, 1) }, false},
		{"done", func(e *env, id string) { e.finish(id, sampleCSV(e.t)) }, true},
		{"failed", func(e *env, id string) { e.fail(id, "boom") }, true},
		{"cancelled", func(e *env, id string) {
			if _, err := e.svc.Cancel(context.Background(), 1, id); err != nil {
				e.t.Fatal(err)
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			j := e.items(user(1), "socials", `{"site_web":"https://a.example"}`)
			tt.prepare(e, j.ID)
			err := e.svc.Delete(ctx, 1, j.ID)
			if !tt.ok {
				ae := wantCode(t, err, apperr.Invalid)
				if !strings.Contains(ae.EN, "cancel it before deleting it") {
					t.Fatalf("message %q", ae.EN)
				}
				if e.get(1, j.ID).Status != jobs.Running {
					t.Fatal("a refused delete changed the job")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantCode(t, func() error { _, err := e.svc.Get(ctx, 1, j.ID); return err }(), apperr.NotFound)
			for _, key := range []string{jobs.InputKey(j.ID), jobs.OutputKey(j.ID)} {
				if _, err := e.files.Stat(ctx, key); !errors.Is(err, blob.ErrNotFound) {
					t.Fatalf("%s still there after delete (%v)", key, err)
				}
			}
			if e.active(1) != 0 {
				t.Fatalf("active %d after delete", e.active(1))
			}
		})
	}
}

// TestResumeRefusals: only an interrupted scrape of the caller with tiles
// left is resumed, once at a time, by a verified account.
func TestResumeRefusals(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(e *env) string
		user    *accounts.User
		code    apperr.Code
		msg     string
	}{
		{"pending", func(e *env) string { return e.create(user(1), scrapeOf()).ID }, user(1), apperr.Invalid, "not interrupted"},
		{"running", func(e *env) string { j := e.create(user(1), scrapeOf()); e.begin(j.ID, 1); return j.ID }, user(1),
			apperr.Invalid, "not interrupted"},
		{"done", func(e *env) string { j := e.create(user(1), scrapeOf()); e.finish(j.ID, sampleCSV(e.t)); return j.ID }, user(1),
			apperr.Invalid, "not interrupted"},
		{"not a scrape", func(e *env) string {
			j := e.items(user(1), "socials", `{"site_web":"https://a.example"}`)
			e.fail(j.ID, "boom")
			return j.ID
		}, user(1), apperr.Invalid, "only scrapes"},
		{"unverified email", func(e *env) string { return e.cancelled() }, &accounts.User{ID: 1}, apperr.Forbidden, "Verify"},
		{"another account's", func(e *env) string { return e.cancelled() }, user(2), apperr.NotFound, ""},
		{"a resume already pending", func(e *env) string {
			id := e.cancelled()
			if _, err := e.svc.Resume(context.Background(), user(1), id); err != nil {
				e.t.Fatal(err)
			}
			return id
		}, user(1), apperr.Invalid, "already pending or running"},
		{"every tile processed", func(e *env) string {
			j := e.create(user(1), scrapeOf())
			e.begin(j.ID, j.GridPointsCount)
			for n := 1; n <= j.GridPointsCount; n++ {
				e.closeTask(j.ID, "r"+strconv.Itoa(n))
			}
			e.fail(j.ID, "boom")
			return j.ID
		}, user(1), apperr.Invalid, "every tile was already processed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := tt.prepare(e)
			before, _ := e.svc.List(context.Background(), 1, 100, 0)
			_, err := e.svc.Resume(context.Background(), tt.user, id)
			ae := wantCode(t, err, tt.code)
			if !strings.Contains(ae.EN, tt.msg) {
				t.Fatalf("message %q, want %q", ae.EN, tt.msg)
			}
			if after, _ := e.svc.List(context.Background(), 1, 100, 0); len(after) != len(before) {
				t.Fatal("a refused resume created a job")
			}
		})
	}
}

// cancelled creates a scrape of user 1 over Lyon and cancels it before it
// started.
func (e *env) cancelled() string {
	e.t.Helper()
	j := e.create(user(1), scrapeOf("Lyon"))
	if _, err := e.svc.Cancel(context.Background(), 1, j.ID); err != nil {
		e.t.Fatal(err)
	}
	return j.ID
}

// TestResumeTilesLeft: a resume searches only the base tiles whose root
// task did not finish, or whose subdivision was cut off, and is charged
// for them; it keeps the source's settings and names it; its own resume
// covers what it left of those.
func TestResumeTilesLeft(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	src := e.create(user(1), scrapeOf("Lyon"))
	tiles := src.GridPointsCount
	if tiles < 4 {
		t.Fatalf("Lyon has %d tiles; the test needs 4", tiles)
	}
	e.begin(src.ID, tiles)
	e.closeTask(src.ID, "r1")         // done
	e.closeTask(src.ID, "r2", "r2.1") // done, but split: r2.1 still pending
	e.closeTask(src.ID, "r3")         // done
	e.clock.Advance(time.Minute)
	if _, err := e.svc.Cancel(ctx, 1, src.ID); err != nil {
		t.Fatal(err)
	}
	spent := e.spent(1)

	r, err := e.svc.Resume(ctx, user(1), src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != jobs.Pending || r.SourceJobID == nil || *r.SourceJobID != src.ID || r.JobType != jobs.TypeScrap {
		t.Fatalf("resume %+v", r)
	}
	// Tiles 1 and 3 are done; tile 2 is searched again (its split was cut off).
	if r.GridPointsCount != tiles-2 {
		t.Fatalf("resume over %d tiles, want %d of %d", r.GridPointsCount, tiles-2, tiles)
	}
	if r.EFCost <= 0 || r.EFCost >= src.EFCost {
		t.Fatalf("resume EF %v, source %v: want less, for the tiles left", r.EFCost, src.EFCost)
	}
	if got := e.spent(1); got-spent-r.EFCost > 0.001 || spent+r.EFCost-got > 0.001 {
		t.Fatalf("spent %v, want %v + %v", got, spent, r.EFCost)
	}
	if strings.Join(r.Queries, ",") != strings.Join(src.Queries, ",") || strings.Join(r.Zones, ",") != "Lyon" || r.ScrapMode != src.ScrapMode {
		t.Fatalf("resume settings %+v", r)
	}

	// The resume of the resume covers only the resume's tiles less those
	// it did. Root tasks are named by the tile's place in the whole grid:
	// r2 is tile 2, the one whose split was cut off, and r1, a tile the
	// source did, is not the resume's to do.
	e.begin(r.ID, r.GridPointsCount)
	e.closeTask(r.ID, "r2")
	e.closeTask(r.ID, "r1")
	e.fail(r.ID, "provider down")
	rr, err := e.svc.Resume(ctx, user(1), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rr.GridPointsCount != r.GridPointsCount-1 || *rr.SourceJobID != r.ID {
		t.Fatalf("second resume over %d tiles, want %d", rr.GridPointsCount, r.GridPointsCount-1)
	}

	// The source may be resumed again once its resume has ended.
	if _, err := e.svc.Resume(ctx, user(1), src.ID); err != nil {
		t.Fatalf("a resume after the first one ended: %v", err)
	}
}

// TestOverdue: a job runs at most 24 hours.
func TestOverdue(t *testing.T) {
	started := "2026-11-24T10:00:00Z"
	for _, tt := range []struct {
		name   string
		status jobs.Status
		start  *string
		now    time.Time
		want   bool
	}{
		{"running 23h59", jobs.Running, &started, start.Add(24*time.Hour - time.Minute), false},
		{"running 24h", jobs.Running, &started, start.Add(24 * time.Hour), true},
		{"pending for days", jobs.Pending, nil, start.Add(72 * time.Hour), false},
		{"done long after", jobs.Done, &started, start.Add(72 * time.Hour), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := &jobs.Job{Status: tt.status, StartedAt: tt.start}
			if got := jobs.Overdue(j, tt.now); got != tt.want {
				t.Fatalf("Overdue %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOvertime: a scrape past 24 hours is continued once by a resume over
// its tiles left, charged nothing, taking one more slot.
func TestOvertime(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	src := e.create(user(1), scrapeOf("Lyon"))
	e.begin(src.ID, src.GridPointsCount)
	e.closeTask(src.ID, "r1")
	spent := e.spent(1)
	running := e.get(1, src.ID)

	if stopped, first, err := e.svc.Overtime(ctx, running); err != nil || stopped || first {
		t.Fatalf("before 24 h: stopped %v, first %v, err %v", stopped, first, err)
	}
	e.clock.Advance(jobs.MaxRunTime)
	stopped, first, err := e.svc.Overtime(ctx, running)
	if err != nil || !stopped || !first {
		t.Fatalf("at 24 h: stopped %v, first %v, err %v", stopped, first, err)
	}
	stopped, first, err = e.svc.Overtime(ctx, running)
	if err != nil || !stopped || first {
		t.Fatalf("again: stopped %v, first %v, err %v; want stopped, not first", stopped, first, err)
	}
	js, err := e.svc.List(ctx, 1, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 2 {
		t.Fatalf("%d jobs, want the source and one continuation", len(js))
	}
	c := js[0]
	if c.SourceJobID == nil || *c.SourceJobID != src.ID || c.EFCost != 0 || c.Status != jobs.Pending ||
		c.GridPointsCount != src.GridPointsCount-1 {
		t.Fatalf("continuation %+v", c)
	}
	if e.spent(1) != spent {
		t.Fatalf("continuation charged: spent %v, was %v", e.spent(1), spent)
	}
	if e.active(1) != 2 {
		t.Fatalf("active %d, want 2 (the source until it is merged, and its continuation)", e.active(1))
	}
}
