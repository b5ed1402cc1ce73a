package veille_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/veille"
)

// baseline is the watched scrape's output.
var baseline = [][]string{
	{"id1", "Plomberie A", "1 rue A", "4.5", "10"},
	{"id2", "Plomberie B", "2 rue B", "4.0", "20"},
	{"gone3", "Plomberie C", "3 rue C", "3.0", "5"},
	{"id4", "Plomberie D", "4 rue D", "4.2", "8"},
	{"id6", "Plomberie F", "6 rue F", "3.5", "1"},
}

// wantInvalid fails unless err is a 400 whose English message contains
// msg.
func wantInvalid(t *testing.T, err error, msg string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.Invalid || !strings.Contains(ae.EN, msg) {
		t.Fatalf("err %v, want 400 with %q", err, msg)
	}
}

// TestCreateRules: the spec's rules on a veille's creation, each a 400.
func TestCreateRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, other := e.user(), e.user()
	done := e.scrapeJob(u, baseline...)
	running, err := e.jobs.Create(ctx, u, scrapeRequest())
	if err != nil {
		t.Fatal(err)
	}
	theirs := e.scrapeJob(other, baseline...)
	items, err := e.jobs.CreateItems(ctx, u, "socials", jobs.ItemRequest{Items: []json.RawMessage{json.RawMessage(`{"site_web":"a"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	e.finish(items.ID, baseline...)
	noOutput, err := e.jobs.Create(ctx, u, scrapeRequest())
	if err != nil {
		t.Fatal(err)
	}
	e.fail(noOutput.ID)
	pipe, err := e.pipes.Create(ctx, u, pipelines.CreateRequest{Definition: json.RawMessage(importDef)})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		req  veille.CreateRequest
		msg  string // "" when accepted
	}{
		{"a done scrape", veille.CreateRequest{Name: "Plombiers", SourceJobID: &done.ID, FrequencyDays: ptr(7)}, ""},
		{"frequency 1", veille.CreateRequest{Name: "Pl", SourceJobID: &done.ID, FrequencyDays: ptr(1)}, ""},
		{"frequency 365", veille.CreateRequest{Name: strings.Repeat("é", 200), SourceJobID: &done.ID, FrequencyDays: ptr(365)}, ""},
		{"a one-character name", veille.CreateRequest{Name: " P ", SourceJobID: &done.ID, FrequencyDays: ptr(7)}, "name: 2 to 200"},
		{"a 201-character name", veille.CreateRequest{Name: strings.Repeat("é", 201), SourceJobID: &done.ID, FrequencyDays: ptr(7)}, "name: 2 to 200"},
		{"no frequency", veille.CreateRequest{Name: "Plombiers", SourceJobID: &done.ID}, "frequency_days"},
		{"frequency 0", veille.CreateRequest{Name: "Plombiers", SourceJobID: &done.ID, FrequencyDays: ptr(0)}, "frequency_days"},
		{"frequency 366", veille.CreateRequest{Name: "Plombiers", SourceJobID: &done.ID, FrequencyDays: ptr(366)}, "frequency_days"},
		{"no source", veille.CreateRequest{Name: "Plombiers", FrequencyDays: ptr(7)}, "exactly one source"},
		{"both sources", veille.CreateRequest{Name: "Plombiers", SourceJobID: &done.ID, SourcePipelineID: &pipe.ID, FrequencyDays: ptr(7)},
			"exactly one source"},
		{"a 7-character source id", veille.CreateRequest{Name: "Plombiers", SourceJobID: ptr("abcdefg"), FrequencyDays: ptr(7)}, "8 to 64"},
		{"a 65-character source id", veille.CreateRequest{Name: "Plombiers", SourceJobID: ptr(strings.Repeat("a", 65)), FrequencyDays: ptr(7)}, "8 to 64"},
		{"an unknown job", veille.CreateRequest{Name: "Plombiers", SourceJobID: ptr("nosuchjobatall"), FrequencyDays: ptr(7)}, "Source not found"},
		{"another account's job", veille.CreateRequest{Name: "Plombiers", SourceJobID: &theirs.ID, FrequencyDays: ptr(7)}, "Source not found"},
		{"a job still running", veille.CreateRequest{Name: "Plombiers", SourceJobID: &running.ID, FrequencyDays: ptr(7)}, "not completed"},
		{"a failed job", veille.CreateRequest{Name: "Plombiers", SourceJobID: &noOutput.ID, FrequencyDays: ptr(7)}, "not completed"},
		{"a job that is not a scrape", veille.CreateRequest{Name: "Plombiers", SourceJobID: &items.ID, FrequencyDays: ptr(7)}, "Only a scrape"},
		{"a pipeline still running", veille.CreateRequest{Name: "Plombiers", SourcePipelineID: &pipe.ID, FrequencyDays: ptr(7)}, "not completed"},
		{"an unknown pipeline", veille.CreateRequest{Name: "Plombiers", SourcePipelineID: ptr("nosuchpipeline"), FrequencyDays: ptr(7)},
			"Source not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := e.svc.List(ctx, u.ID)
			v, err := e.svc.Create(ctx, u, tt.req)
			if tt.msg != "" {
				wantInvalid(t, err, tt.msg)
				if after, _ := e.svc.List(ctx, u.ID); len(after) != len(before) {
					t.Fatal("a refused creation made a veille")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != veille.Active || v.RunCount != 1 || v.FrequencyDays != *tt.req.FrequencyDays {
				t.Fatalf("veille %+v", v)
			}
		})
	}
	// Another account's pipeline is not found either (not a 403).
	_, err = e.svc.Create(ctx, other, veille.CreateRequest{Name: "Theirs", SourcePipelineID: &pipe.ID, FrequencyDays: ptr(7)})
	wantInvalid(t, err, "Source not found")
}

func scrapeRequest() scrape.Request {
	return scrape.Request{Queries: []string{"plombier"}, Zones: []string{"Villeurbanne"}}
}

// importDef is a one-node pipeline: an import of two rows.
const importDef = `{"nodes":[{"id":"i","type":"import","config":{"source":"paste","text":"place_id;nom\nid1;A\nid2;B"}}],"edges":[]}`

// TestBaseline: the source's output is the first run, a baseline with no
// counters, copied so that it outlives the source; the first replay is
// frequency_days later; the feed hears of the baseline.
func TestBaseline(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.user()
	src := e.scrapeJob(u, baseline...)
	e.clock.Advance(90 * time.Minute)
	v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "  Plombiers  ", SourceJobID: &src.ID, FrequencyDays: ptr(7)})
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "Plombiers" || v.CreatedAt != "2026-11-24T11:30:00Z" || v.NextRunAt != "2026-12-01T11:30:00Z" ||
		v.LastRunJobID == nil || *v.LastRunJobID != src.ID || v.LastRunAt == nil || v.SourcePipelineID != nil {
		t.Fatalf("veille %+v", v)
	}
	rs := e.runs(u, v.ID)
	if len(rs) != 1 || !rs[0].IsBaseline || rs[0].TotalCount != len(baseline) || rs[0].JobID != src.ID ||
		rs[0].NewCount != nil || rs[0].RemovedCount != nil || rs[0].Samples != nil {
		t.Fatalf("runs %+v", rs)
	}
	if sig, err := e.svc.Signals(ctx, u.ID, v.ID, rs[0].ID); err != nil || sig.Total != 0 || len(sig.Items) != 0 {
		t.Fatalf("baseline signals %+v, %v", sig, err)
	}
	evs := e.eventsOf(u.ID)
	if len(evs) != 1 || evs[0]["is_baseline"] != true || evs[0]["total_count"] != float64(len(baseline)) || evs[0]["new_count"] != nil {
		t.Fatalf("events %v", evs)
	}
}

// TestUpdate: each field changes alone; a new frequency reschedules from
// now; a bad value is a 400 that changes nothing.
func TestUpdate(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.user()
	src := e.scrapeJob(u, baseline...)
	v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "Plombiers", SourceJobID: &src.ID, FrequencyDays: ptr(7)})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(24 * time.Hour)
	steps := []struct {
		name  string
		req   veille.UpdateRequest
		msg   string // a 400's message part
		check func(t *testing.T, got *veille.Veille)
	}{
		{"rename", veille.UpdateRequest{Name: ptr(" Plombiers Lyon ")}, "", func(t *testing.T, got *veille.Veille) {
			if got.Name != "Plombiers Lyon" || got.NextRunAt != v.NextRunAt || got.FrequencyDays != 7 {
				t.Fatalf("%+v", got)
			}
		}},
		{"a new frequency reschedules from now", veille.UpdateRequest{FrequencyDays: ptr(3)}, "", func(t *testing.T, got *veille.Veille) {
			if got.FrequencyDays != 3 || got.NextRunAt != "2026-11-28T10:00:00Z" {
				t.Fatalf("%+v", got)
			}
		}},
		{"pause", veille.UpdateRequest{Status: ptr(veille.Paused)}, "", func(t *testing.T, got *veille.Veille) {
			if got.Status != veille.Paused || got.Name != "Plombiers Lyon" {
				t.Fatalf("%+v", got)
			}
		}},
		{"resume", veille.UpdateRequest{Status: ptr(veille.Active)}, "", func(t *testing.T, got *veille.Veille) {
			if got.Status != veille.Active {
				t.Fatalf("%+v", got)
			}
		}},
		{"a short name", veille.UpdateRequest{Name: ptr("x")}, "name", nil},
		{"frequency 0", veille.UpdateRequest{FrequencyDays: ptr(0)}, "frequency_days", nil},
		{"an unknown status", veille.UpdateRequest{Status: ptr("archived")}, "status is active, paused or deleted", nil},
		{"a bad field with a good one", veille.UpdateRequest{Name: ptr("Nouveau"), FrequencyDays: ptr(400)}, "frequency_days", nil},
	}
	for _, st := range steps {
		got, err := e.svc.Update(ctx, u.ID, v.ID, st.req)
		if st.msg != "" {
			wantInvalid(t, err, st.msg)
			cur, err := e.svc.Get(ctx, u.ID, v.ID)
			if err != nil || cur.Name != "Plombiers Lyon" || cur.FrequencyDays != 3 {
				t.Fatalf("%s: a refused update changed the veille: %+v", st.name, cur)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		st.check(t, got)
	}
}

// TestDeleteAndOwnership: a deleted veille is gone for every route but
// kept for audit in the export; another account's veille is a 404.
func TestDeleteAndOwnership(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, other := e.user(), e.user()
	src := e.scrapeJob(u, baseline...)
	v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "Plombiers", SourceJobID: &src.ID, FrequencyDays: ptr(7)})
	if err != nil {
		t.Fatal(err)
	}
	paused, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "En pause", SourceJobID: &src.ID, FrequencyDays: ptr(7)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Update(ctx, u.ID, paused.ID, veille.UpdateRequest{Status: ptr(veille.Paused)}); err != nil {
		t.Fatal(err)
	}
	routes := map[string]func(uid int64) error{
		"get": func(uid int64) error { _, err := e.svc.Get(ctx, uid, v.ID); return err },
		"update": func(uid int64) error {
			_, err := e.svc.Update(ctx, uid, v.ID, veille.UpdateRequest{Name: ptr("Autre")})
			return err
		},
		"runs":   func(uid int64) error { _, err := e.svc.Runs(ctx, uid, v.ID); return err },
		"run":    func(uid int64) error { _, err := e.svc.Run(ctx, uid, v.ID, 1); return err },
		"delete": func(uid int64) error { return e.svc.Delete(ctx, uid, v.ID) },
	}
	for name, call := range routes {
		if err := call(other.ID); !apperr.Is(err, apperr.NotFound) {
			t.Fatalf("%s by another account: %v, want 404", name, err)
		}
	}
	if ls, _ := e.svc.List(ctx, u.ID); len(ls) != 2 {
		t.Fatalf("listed %d, want the active and the paused one", len(ls))
	}
	if err := e.svc.Delete(ctx, u.ID, v.ID); err != nil {
		t.Fatal(err)
	}
	for name, call := range routes {
		if err := call(u.ID); !apperr.Is(err, apperr.NotFound) {
			t.Fatalf("%s of a deleted veille: %v, want 404", name, err)
		}
	}
	if _, err := e.svc.Update(ctx, u.ID, v.ID, veille.UpdateRequest{Status: ptr(veille.Active)}); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("a deleted veille came back: %v", err)
	}
	ls, _ := e.svc.List(ctx, u.ID)
	if len(ls) != 1 || ls[0].ID != paused.ID {
		t.Fatalf("listed %+v, want the paused one only", ls)
	}
	sec, err := e.svc.Export(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sec.Data)
	if !strings.Contains(string(b), `"deleted_at":"2026-11-24T10:00:00Z"`) || strings.Count(string(b), `"is_baseline":true`) != 2 {
		t.Fatalf("export %s", b)
	}
	// A deleted veille is never scheduled again.
	e.clock.Advance(8 * 24 * time.Hour)
	if r := e.tick(); r.Started != 0 {
		t.Fatalf("tick started %d: the deleted and the paused veilles are not due", r.Started)
	}
}

// TestRun: the replay at its date, once however many ticks; its diff
// against the previous run once the replay is done, with the churn check:
// a removed place found open again rejoins (and may be modified), one the
// provider no longer knows is removed, one whose lookup failed stays as
// it was; lookups are billed; signals ranked; the next run is scheduled.
func TestRun(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.user()
	src := e.scrapeJob(u, baseline...)
	v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "Plombiers", SourceJobID: &src.ID, FrequencyDays: ptr(7)})
	if err != nil {
		t.Fatal(err)
	}
	if r := e.tick(); r.Started != 0 {
		t.Fatalf("a tick before the date started %d", r.Started)
	}
	e.clock.Advance(7*24*time.Hour - time.Second)
	if r := e.tick(); r.Started != 0 {
		t.Fatal("started a second early")
	}
	e.clock.Advance(time.Second)
	if r := e.tick(); r.Started != 1 {
		t.Fatalf("tick at the date: %+v", r)
	}
	if r := e.tick(); r.Started != 0 || r.Computed != 0 {
		t.Fatalf("second tick: %+v, want nothing while the replay runs", r)
	}
	if _, err := e.svc.RunNow(ctx, v.ID); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("run now with a run in flight: %v, want 400", err)
	}
	replay := e.latestJob(u)
	if replay.ID == src.ID || replay.JobType != jobs.TypeScrap || strings.Join(replay.Zones, ",") != "Villeurbanne" {
		t.Fatalf("replay %+v", replay)
	}
	cur, _ := e.svc.Get(ctx, u.ID, v.ID)
	if cur.NextRunAt != "2026-12-08T10:00:00Z" || cur.RunCount != 1 {
		t.Fatalf("during the replay: %+v", cur)
	}

	e.places.open["id4"] = provider.Place{ID: "id4", Name: "Plomberie D", Address: "4 rue D", Rating: 3.9, ReviewCount: 8}
	e.finish(replay.ID,
		[]string{"id1", "Plomberie A", "1 rue A", "4.2", "10"}, // rating drop 0.3: modified, a signal
		[]string{"id2", "Plomberie B", "2 rue B", "4.0", "20"}, // unchanged
		[]string{"id5", "Plomberie E", "5 rue E", "4.8", "3"},  // new
	)
	spent, _ := e.ledger.Spent(ctx, u.ID)
	if r := e.tick(); r.Computed != 1 {
		t.Fatalf("tick after the replay: %+v", r)
	}
	if r := e.tick(); r.Computed != 0 {
		t.Fatalf("a run computed twice: %+v", r)
	}
	rs := e.runs(u, v.ID)
	if len(rs) != 2 || rs[1].IsBaseline == rs[0].IsBaseline || !rs[1].IsBaseline {
		t.Fatalf("runs %+v: want the new run first, then the baseline", rs)
	}
	run := rs[0]
	counts := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	got := []int{run.TotalCount, counts(run.PrevTotalCount), counts(run.NewCount), counts(run.RemovedCount),
		counts(run.ModifiedCount), counts(run.UnchangedCount)}
	// total 5: 3 listed + id4 rejoined + id6 kept; modified: id1 and id4
	// (3.9 now); removed: gone3; unchanged: id2 and id6.
	if want := []int{5, 5, 1, 1, 2, 2}; !slices.Equal(got, want) {
		t.Fatalf("total, prev, new, removed, modified, unchanged = %v, want %v", got, want)
	}
	if run.JobID != replay.ID || run.PrevJobID == nil || *run.PrevJobID != src.ID || run.Samples != nil {
		t.Fatalf("run %+v", run)
	}
	looked := slices.Clone(e.places.looked)
	slices.Sort(looked)
	if !slices.Equal(looked, []string{"gone3", "id4", "id6"}) {
		t.Fatalf("looked up %v, want the three places the replay did not list", looked)
	}
	if after, _ := e.ledger.Spent(ctx, u.ID); after-spent < 3*pricing.EFPerLookup-0.001 || after-spent > 3*pricing.EFPerLookup+0.001 {
		t.Fatalf("lookups billed %v EF, want %v", after-spent, 3*pricing.EFPerLookup)
	}
	full, err := e.svc.Run(ctx, u.ID, v.ID, run.ID)
	if err != nil || full.Samples == nil {
		t.Fatalf("run with samples: %+v, %v", full, err)
	}
	sig, err := e.svc.Signals(ctx, u.ID, v.ID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sig.Total != 2 || len(sig.Items) != 2 || sig.Items[0].Score < sig.Items[1].Score {
		t.Fatalf("signals %+v", sig)
	}
	for _, s := range sig.Items {
		if s.DeltaNote > -0.29 || s.DeltaNote < -0.31 {
			t.Fatalf("signal %+v: want a drop of 0.3", s)
		}
	}
	cur, _ = e.svc.Get(ctx, u.ID, v.ID)
	if cur.RunCount != 2 || cur.LastRunJobID == nil || *cur.LastRunJobID != replay.ID || cur.NextRunAt != "2026-12-08T10:00:00Z" {
		t.Fatalf("after the run: %+v", cur)
	}
	// The baseline's event is past the feed's 7-day window by now: the
	// run's is the last.
	evs := e.eventsOf(u.ID)
	if len(evs) == 0 {
		t.Fatal("no event of the run")
	}
	last := evs[len(evs)-1]
	if last["is_baseline"] != false || last["new_count"] != float64(1) || last["removed_count"] != float64(1) ||
		last["modified_count"] != float64(2) || last["run_id"] != float64(run.ID) {
		t.Fatalf("events %v", evs)
	}

	// The next run diffs against this run's rows (the rejoined places
	// included): the same rows again are all unchanged.
	e.clock.Advance(7 * 24 * time.Hour)
	if r := e.tick(); r.Started != 1 {
		t.Fatalf("second replay: %+v", r)
	}
	e.finish(e.latestJob(u).ID,
		[]string{"id1", "Plomberie A", "1 rue A", "4.2", "10"},
		[]string{"id2", "Plomberie B", "2 rue B", "4.0", "20"},
		[]string{"id5", "Plomberie E", "5 rue E", "4.8", "3"},
		[]string{"id4", "Plomberie D", "4 rue D", "3.9", "8"},
		[]string{"id6", "Plomberie F", "6 rue F", "3.5", "1"},
	)
	e.tick()
	rs = e.runs(u, v.ID)
	if len(rs) != 3 || counts(rs[0].UnchangedCount) != 5 || counts(rs[0].NewCount) != 0 || counts(rs[0].RemovedCount) != 0 {
		t.Fatalf("third run %+v", rs[0])
	}
}

// TestFailedRuns: a replay that ends without output, or cannot start,
// fails its run; the veille is free for its next run, on schedule.
func TestFailedRuns(t *testing.T) {
	tests := []struct {
		name string
		// act runs after the veille is due; it may start the replay.
		act func(e *env, u *accounts.User)
	}{
		{"the replay failed", func(e *env, u *accounts.User) {
			e.tick()
			e.fail(e.latestJob(u).ID)
		}},
		{"the replay was cancelled", func(e *env, u *accounts.User) {
			e.tick()
			if _, err := e.jobs.Cancel(context.Background(), u.ID, e.latestJob(u).ID); err != nil {
				e.t.Fatal(err)
			}
		}},
		{"the account is deactivated", func(e *env, u *accounts.User) {
			if _, err := e.acc.SetActive(context.Background(), u.ID, false); err != nil {
				e.t.Fatal(err)
			}
			e.tick()
		}},
		{"the replay's job was deleted", func(e *env, u *accounts.User) {
			e.tick()
			j := e.latestJob(u)
			if err := e.jobs.Delete(context.Background(), u.ID, j.ID); err != nil {
				e.t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			u := e.user()
			src := e.scrapeJob(u, baseline...)
			v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "Plombiers", SourceJobID: &src.ID, FrequencyDays: ptr(2)})
			if err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(2 * 24 * time.Hour)
			tt.act(e, u)
			e.tick()
			if rs := e.runs(u, v.ID); len(rs) != 1 || !rs[0].IsBaseline {
				t.Fatalf("runs %+v: a failed run is not listed", rs)
			}
			cur, err := e.svc.Get(ctx, u.ID, v.ID)
			if err != nil || cur.RunCount != 1 || cur.NextRunAt != "2026-11-28T10:00:00Z" {
				t.Fatalf("veille %+v, %v", cur, err)
			}
			if _, err := e.svc.RunNow(ctx, v.ID); err != nil {
				t.Fatalf("the veille is not free for a run: %v", err)
			}
		})
	}
}

// TestRunNow: the admin's run makes an active veille due at once; a
// paused one is refused.
func TestRunNow(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.user()
	src := e.scrapeJob(u, baseline...)
	v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "Plombiers", SourceJobID: &src.ID, FrequencyDays: ptr(30)})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Hour)
	got, err := e.svc.RunNow(ctx, v.ID)
	if err != nil || got.NextRunAt != "2026-11-24T11:00:00Z" {
		t.Fatalf("run now: %+v, %v", got, err)
	}
	if r := e.tick(); r.Started != 1 {
		t.Fatalf("tick after run now: %+v", r)
	}
	if _, err := e.svc.Update(ctx, u.ID, v.ID, veille.UpdateRequest{Status: ptr(veille.Paused)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RunNow(ctx, v.ID); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("run now of a paused veille: %v, want 400", err)
	}
	if _, err := e.svc.RunNow(ctx, 999); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("run now of an unknown veille: %v, want 404", err)
	}
}

// TestPausedNotDue: a paused veille is not replayed at its date; resumed,
// it is.
func TestPausedNotDue(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.user()
	src := e.scrapeJob(u, baseline...)
	v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "Plombiers", SourceJobID: &src.ID, FrequencyDays: ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Update(ctx, u.ID, v.ID, veille.UpdateRequest{Status: ptr(veille.Paused)}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(48 * time.Hour)
	if r := e.tick(); r.Started != 0 {
		t.Fatalf("a paused veille started: %+v", r)
	}
	if _, err := e.svc.Update(ctx, u.ID, v.ID, veille.UpdateRequest{Status: ptr(veille.Active)}); err != nil {
		t.Fatal(err)
	}
	if r := e.tick(); r.Started != 1 {
		t.Fatalf("a resumed veille past its date: %+v", r)
	}
}

// TestPipelineSource: a veille of a pipeline watches its output job and
// replays the pipeline; the run is computed once the replayed pipeline is
// done.
func TestPipelineSource(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.user()
	c, err := e.pipes.Create(ctx, u, pipelines.CreateRequest{Name: "Import", Definition: json.RawMessage(importDef)})
	if err != nil {
		t.Fatal(err)
	}
	e.finish(c.InitialJobs[0], baseline...)
	if r, err := e.pipes.Step(ctx, c.ID); err != nil || r.Status != pipelines.Done {
		t.Fatalf("source pipeline: %+v, %v", r, err)
	}
	v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "Import", SourcePipelineID: &c.ID, FrequencyDays: ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	if v.SourcePipelineID == nil || *v.SourcePipelineID != c.ID || v.LastRunJobID == nil || *v.LastRunJobID != c.InitialJobs[0] {
		t.Fatalf("veille %+v", v)
	}
	e.clock.Advance(24 * time.Hour)
	if r := e.tick(); r.Started != 1 {
		t.Fatalf("tick: %+v", r)
	}
	ps, err := e.pipes.List(ctx, u.ID)
	if err != nil || len(ps) != 2 || ps[0].ID == c.ID || ps[0].Name != "Import" {
		t.Fatalf("pipelines %+v, %v: want the replay first", ps, err)
	}
	replay := ps[0].ID
	if r := e.tick(); r.Computed != 0 {
		t.Fatal("computed while the replayed pipeline runs")
	}
	d, err := e.pipes.Get(ctx, u.ID, replay)
	if err != nil {
		t.Fatal(err)
	}
	e.places.closed["gone3"], e.places.closed["id4"], e.places.closed["id6"] = true, true, true
	e.finish(d.Jobs[0].ID, baseline[:2]...)
	if _, err := e.pipes.Step(ctx, replay); err != nil {
		t.Fatal(err)
	}
	if r := e.tick(); r.Computed != 1 {
		t.Fatalf("tick after the replayed pipeline: %+v", r)
	}
	rs := e.runs(u, v.ID)
	if len(rs) != 2 || rs[0].JobID != d.Jobs[0].ID || rs[0].RemovedCount == nil || *rs[0].RemovedCount != 3 {
		t.Fatalf("runs %+v: want 3 removed (closed places)", rs)
	}
}

// TestPurge: the purge deletes the account's veilles, runs and files.
func TestPurge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, other := e.user(), e.user()
	v, err := e.svc.Create(ctx, u, veille.CreateRequest{Name: "Mine", SourceJobID: ptr(e.scrapeJob(u, baseline...).ID), FrequencyDays: ptr(7)})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := e.svc.Create(ctx, other, veille.CreateRequest{Name: "Theirs", SourceJobID: ptr(e.scrapeJob(other, baseline...).ID),
		FrequencyDays: ptr(7)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Purge(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Get(ctx, u.ID, v.ID); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("purged veille: %v", err)
	}
	if sec, _ := e.svc.Export(ctx, u.ID); !strings.Contains(mustJSON(t, sec.Data), "[]") {
		t.Fatalf("export after purge: %v", sec.Data)
	}
	if _, err := e.svc.Get(ctx, other.ID, kept.ID); err != nil {
		t.Fatalf("another account's veille: %v", err)
	}
	e.clock.Advance(8 * 24 * time.Hour)
	if r := e.tick(); r.Started != 1 {
		t.Fatalf("tick after purge: %+v, want the other account's veille only", r)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
