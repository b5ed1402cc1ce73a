package pipelines_test

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
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/scrape"
)

// TestCheckReasons: the creation checks in the spec's order, each refusal
// with its reason: the definition, the zones, the worst-case cost, the
// room among the 5 concurrent jobs.
func TestCheckReasons(t *testing.T) {
	scrap := func(zones string) string {
		return `{"nodes":[{"id":"s","type":"scrap","config":{"queries":["plombier"],"zones":[` + zones + `]}}],"edges":[]}`
	}
	tests := []struct {
		name      string
		def       string
		threshold float64
		busy      int // jobs of the account running before the check
		reason    string
		msg       string // part of the French message
	}{
		{"a valid scrape", scrap(`"Villeurbanne"`), 0, 0, "", ""},
		{"a valid import then emails", importThen, 0, 0, "", ""},
		{"not JSON", `[1,2]`, 0, 0, pipelines.ReasonDefinition, "Définition illisible"},
		{"a broken structure", `{"nodes":[],"edges":[]}`, 0, 0, pipelines.ReasonDefinition, "Pipeline vide"},
		{"a scrape's bad field", `{"nodes":[{"id":"s","type":"scrap","config":{"queries":["a"],"zones":["Lyon"],"max_per_phone":11}}],"edges":[]}`,
			0, 0, pipelines.ReasonDefinition, "Node 's'"},
		{"an unknown zone", scrap(`"Atlantide"`), 0, 0, pipelines.ReasonZones, "Node 's'"},
		{"a sirene radius", `{"nodes":[{"id":"r","type":"sirene","config":{"activites":["boulangerie"],"zones":["Lyon 5km"]}}],"edges":[]}`,
			0, 0, pipelines.ReasonZones, "Node 'r'"},
		{"a sirene bad date, before its zones", `{"nodes":[{"id":"r","type":"sirene","config":{"activites":["boulangerie"],"zones":["Atlantide"],"cree_apres":"hier"}}],"edges":[]}`,
			0, 0, pipelines.ReasonDefinition, "cree_apres"},
		{"an import of another account's job", `{"nodes":[{"id":"i","type":"import","config":{"source":"from_job","from_job_id":"nosuchjobatall"}}],"edges":[]}`,
			0, 0, pipelines.ReasonDefinition, "from_job_id"},
		{"an import without rows", `{"nodes":[{"id":"i","type":"import","config":{"source":"paste","text":""}}],"edges":[]}`,
			0, 0, pipelines.ReasonDefinition, "Node 'i'"},
		{"over the cost threshold", scrap(`"Lyon"`), 0.5, 0, pipelines.ReasonCost, "au-dessus du seuil de 0.5 EF"},
		{"no room for the roots", importThen, 0, jobs.MaxActive, pipelines.ReasonBusy, "Trop de jobs en cours : 5"},
		{"room for one root, not two", `{"nodes":[` + importNode + `,{"id":"j","type":"import","config":{"source":"paste","text":"nom\nA"}}],"edges":[]}`,
			0, jobs.MaxActive - 1, pipelines.ReasonBusy, "ce pipeline en lance 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newPipelines(t, tt.threshold)
			u := e.user()
			for range tt.busy {
				if _, err := e.jobs.CreateSingle(context.Background(), u, jobs.TypeImport, map[string]string{}, 0); err != nil {
					t.Fatal(err)
				}
			}
			checked, err := e.svc.Check(context.Background(), u, json.RawMessage(tt.def), false)
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(checked.Roots) == 0 {
					t.Fatal("no root")
				}
				return
			}
			var ref *pipelines.Refusal
			if !errors.As(err, &ref) || ref.Reason != tt.reason || ref.Err.Code != apperr.Invalid || !strings.Contains(ref.Err.FR, tt.msg) {
				t.Fatalf("err %v, want %s refusal containing %q", err, tt.reason, tt.msg)
			}
			// The creation refuses as the check does, with nothing written.
			_, err = e.svc.Create(context.Background(), u, pipelines.CreateRequest{Definition: json.RawMessage(tt.def)})
			if code(err) != apperr.Invalid {
				t.Fatalf("create: %v, want 400", err)
			}
			if ps, _ := e.svc.List(context.Background(), u.ID); len(ps) != 0 {
				t.Fatalf("%d pipelines after a refusal", len(ps))
			}
			if n, _ := e.jobs.Active(context.Background(), u.ID); n != tt.busy {
				t.Fatalf("%d jobs active, want %d", n, tt.busy)
			}
		})
	}
}

// TestCheckStructureOnly: validate's structure_only stops after the
// definition's own checks: the zones are not resolved.
func TestCheckStructureOnly(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	def := json.RawMessage(`{"nodes":[{"id":"s","type":"scrap","config":{"queries":["plombier"],"zones":["Atlantide"]}}],"edges":[]}`)
	if _, err := e.svc.Check(context.Background(), u, def, true); err != nil {
		t.Fatalf("structure only: %v", err)
	}
	if _, err := e.svc.Check(context.Background(), u, def, false); err == nil {
		t.Fatal("the full check accepted an unknown zone")
	}
}

// TestCheckCountsValidation: validation counts in the limit the estimate
// counts in, every attempt, refused ones included.
func TestCheckCountsValidation(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	for range ratelimit.Validate.Max {
		if _, err := e.svc.Check(context.Background(), u, json.RawMessage(`{}`), true); code(err) == apperr.TooMany {
			t.Fatal("limited too early")
		}
	}
	_, err := e.svc.Check(context.Background(), u, json.RawMessage(importThen), true)
	if code(err) != apperr.TooMany {
		t.Fatalf("err %v, want 429", err)
	}
}

// TestCreate: a created pipeline runs, with one job per root carrying the
// pipeline and its node, and is handed to its driver.
func TestCreate(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	def := `{"nodes":[` + importNode + `,{"id":"j","type":"import","config":{"source":"paste","text":"nom\nC"}},{"id":"e","type":"emails"}],
		"edges":[{"from":"i","to":"e"}]}`
	c := e.create(u, def)
	if c.Status != pipelines.Running || len(c.InitialJobs) != 2 {
		t.Fatalf("created %+v", c)
	}
	if !slices.Equal(e.exec.started, []string{c.ID}) {
		t.Fatalf("executions started %v", e.exec.started)
	}
	nodes := map[string]bool{}
	for _, id := range c.InitialJobs {
		j, err := e.jobs.Get(ctx, u.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.PipelineID == nil || *j.PipelineID != c.ID || j.JobType != jobs.TypeImport || j.Status != jobs.Pending {
			t.Fatalf("root job %+v", j)
		}
		nodes[j.PipelineNodeID] = true
	}
	if !nodes["i"] || !nodes["j"] {
		t.Fatalf("root nodes %v", nodes)
	}
	d := e.detail(u, c.ID)
	if d.Status != pipelines.Running || d.Name != "Pipeline" || len(d.Jobs) != 2 || d.OutputJob != nil || d.ProgressPct != 0 {
		t.Fatalf("detail %+v", d)
	}
	if len(d.Definition.Edges) != 1 || d.Definition.Edges[0].ID == "" {
		t.Fatalf("definition stored without its normalised edge ids: %+v", d.Definition.Edges)
	}
}

// TestCreateAdmission: an unverified account is refused (403).
func TestCreateAdmission(t *testing.T) {
	e := newPipelines(t, 0)
	_, err := e.svc.Create(context.Background(), &accounts.User{ID: 99}, pipelines.CreateRequest{Definition: json.RawMessage(importThen)})
	if code(err) != apperr.Forbidden {
		t.Fatalf("err %v, want 403", err)
	}
}

// TestCreateName: the request's name, else the envelope's, else
// "Pipeline"; trimmed; over 120 characters refused (not cut) naming the
// field.
func TestCreateName(t *testing.T) {
	envelope := func(name string) string {
		return `{"schema_version":1,"name":` + strconvQuote(name) + `,"definition":` + importThen + `,"meta":{"kind":"pipeline"}}`
	}
	tests := []struct {
		name, reqName, def, want string
		ok                       bool
	}{
		{"the request's", "  Plombiers  ", importThen, "Plombiers", true},
		{"the envelope's", "", envelope("Depuis l'export"), "Depuis l'export", true},
		{"the request's over the envelope's", "Mine", envelope("Theirs"), "Mine", true},
		{"the default", "", importThen, "Pipeline", true},
		{"120 characters", strings.Repeat("é", 120), importThen, strings.Repeat("é", 120), true},
		{"121 characters", strings.Repeat("é", 121), importThen, "", false},
		{"121 characters in the envelope", "", envelope(strings.Repeat("x", 121)), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newPipelines(t, 0)
			u := e.user()
			c, err := e.svc.Create(context.Background(), u, pipelines.CreateRequest{Name: tt.reqName, Definition: json.RawMessage(tt.def)})
			if !tt.ok {
				var ae *apperr.Error
				if !errors.As(err, &ae) || ae.Code != apperr.Invalid || len(ae.Fields) != 1 || ae.Fields[0].Field != "name" {
					t.Fatalf("err %v, want 400 naming name", err)
				}
				if n, _ := e.jobs.Active(context.Background(), u.ID); n != 0 {
					t.Fatal("a refused pipeline started a job")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.detail(u, c.ID).Name; got != tt.want {
				t.Fatalf("name %q, want %q", got, tt.want)
			}
		})
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestOwnership: another account's pipeline is a 403 ("not owner"), an
// unknown id a 404 (docs/pipelines.md).
func TestOwnership(t *testing.T) {
	e := newPipelines(t, 0)
	owner, other := e.user(), e.user()
	c := e.create(owner, importThen)
	ctx := context.Background()
	calls := map[string]func(u *accounts.User, id string) error{
		"get":           func(u *accounts.User, id string) error { _, err := e.svc.Get(ctx, u.ID, id); return err },
		"cancel":        func(u *accounts.User, id string) error { return e.svc.Cancel(ctx, u.ID, id) },
		"continue":      func(u *accounts.User, id string) error { return e.svc.Continue(ctx, u.ID, id, "i") },
		"input-columns": func(u *accounts.User, id string) error { _, err := e.svc.InputColumns(ctx, u.ID, id, "e"); return err },
		"replay":        func(u *accounts.User, id string) error { _, err := e.svc.Replay(ctx, u, id); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if got := code(call(other, c.ID)); got != apperr.Forbidden {
				t.Fatalf("another account: %s, want 403", got)
			}
			if got := code(call(owner, "nosuchpipeline")); got != apperr.NotFound {
				t.Fatalf("unknown id: %s, want 404", got)
			}
		})
	}
	if ps, _ := e.svc.List(ctx, other.ID); len(ps) != 0 {
		t.Fatalf("another account lists %d pipelines", len(ps))
	}
	if d := e.detail(owner, c.ID); d.Status != pipelines.Running {
		t.Fatalf("owner's pipeline is %s", d.Status)
	}
}

// TestStages: a stage's successors start once it is done with rows, over
// every row, as stages of the pipeline, once; the pipeline is done when
// every stage is, and says so on the feed.
func TestStages(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	def := `{"nodes":[` + importNode + `,{"id":"e","type":"emails","config":{"mode":"deep"}},{"id":"o","type":"sort","config":{"sort_by":"nom"}}],
		"edges":[{"from":"i","to":"e"},{"from":"e","to":"o"}]}`
	c := e.create(u, def)
	root := c.InitialJobs[0]
	if r := e.step(c.ID); r.Status != pipelines.Running || r.Blocked {
		t.Fatalf("step with the root pending: %+v", r)
	}
	if e.stage(u, c.ID, "e") != nil {
		t.Fatal("a successor started before its predecessor ended")
	}
	e.finish(root, []string{"nom", "site_web"}, sites...)
	e.step(c.ID)
	e.step(c.ID) // a second step starts nothing more
	d := e.detail(u, c.ID)
	if len(d.Jobs) != 2 || d.OutputJob == nil || d.OutputJob.ID != root {
		t.Fatalf("after the root: %d jobs, output %+v", len(d.Jobs), d.OutputJob)
	}
	mid := d.ProgressPct
	if mid <= 0 || mid >= 100 {
		t.Fatalf("progress %d with the root done", mid)
	}
	st := e.stage(u, c.ID, "e")
	j, err := e.jobs.Get(ctx, u.ID, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.JobType != "emails" || j.GridPointsCount != 2 || j.SourceJobID == nil || *j.SourceJobID != root ||
		j.PipelineID == nil || *j.PipelineID != c.ID || j.EmailMode == nil || *j.EmailMode != "deep" {
		t.Fatalf("emails stage %+v", j)
	}

	e.finish(st.ID, []string{"nom", "site_web", "email"}, []string{"B", "https://b.example", "b@b.example"})
	e.step(c.ID)
	so := e.stage(u, c.ID, "o")
	if so == nil || so.JobType != "sort" || so.Status != string(jobs.Pending) {
		t.Fatalf("sort stage %+v", so)
	}
	if r := e.step(c.ID); r.Status != pipelines.Running {
		t.Fatalf("done before its last stage: %+v", r)
	}
	e.finish(so.ID, []string{"nom", "site_web", "email"}, []string{"B", "https://b.example", "b@b.example"})
	if r := e.step(c.ID); r.Status != pipelines.Done {
		t.Fatalf("after every stage: %+v", r)
	}
	d = e.detail(u, c.ID)
	if d.Status != pipelines.Done || d.CompletedAt == nil || d.ProgressPct != 100 || d.OutputJob == nil || d.OutputJob.ID != so.ID {
		t.Fatalf("done detail: %s, %d%%, output %+v", d.Status, d.ProgressPct, d.OutputJob)
	}
	if got := e.eventTypes(u.ID); !slices.Contains(got, events.PipelineCompleted) {
		t.Fatalf("events %v", got)
	}
	ps, err := e.svc.List(ctx, u.ID)
	if err != nil || len(ps) != 1 || ps[0].DoneCount != 3 || ps[0].NodesCount != 3 || ps[0].Status != pipelines.Done {
		t.Fatalf("list %+v, %v", ps, err)
	}
}

// TestStepOutcomes: what a step makes of a stage's end.
func TestStepOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		act    func(e *penv, u *accounts.User, root string)
		status string
		event  string
	}{
		{"a root done without rows short-circuits its branch: done", func(e *penv, _ *accounts.User, root string) {
			e.finish(root, []string{"nom", "site_web"})
		}, pipelines.Done, events.PipelineCompleted},
		{"a root cancelled before it started: cancelled, and the cancel says so", func(e *penv, u *accounts.User, root string) {
			if closed, err := e.jobs.Cancel(context.Background(), u.ID, root); err != nil || !closed {
				e.t.Fatalf("cancel: pipeline_cancelled %v, err %v", closed, err)
			}
		}, pipelines.Cancelled, events.PipelineCancelled},
		{"a root cancelled while it ran: paused, still running", func(e *penv, u *accounts.User, root string) {
			e.begin(root)
			if closed, err := e.jobs.Cancel(context.Background(), u.ID, root); err != nil || closed {
				e.t.Fatalf("cancel: pipeline_cancelled %v, err %v", closed, err)
			}
		}, pipelines.Running, ""},
		{"a root failed: paused, still running", func(e *penv, _ *accounts.User, root string) {
			e.fail(root)
		}, pipelines.Running, ""},
		{"a stage's output expired: failed", func(e *penv, _ *accounts.User, root string) {
			e.finish(root, []string{"nom", "site_web"}, sites...)
			e.clock.Advance(jobs.Retention)
		}, pipelines.Failed, events.PipelineFailed},
		{"a successor refused for good (rows without its column): failed", func(e *penv, _ *accounts.User, root string) {
			e.finish(root, []string{"nom"}, []string{"A"})
		}, pipelines.Failed, events.PipelineFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newPipelines(t, 0)
			u := e.user()
			c := e.create(u, importThen)
			tt.act(e, u, c.InitialJobs[0])
			if r := e.step(c.ID); r.Status != tt.status {
				t.Fatalf("step: %+v, want %s", r, tt.status)
			}
			if d := e.detail(u, c.ID); d.Status != tt.status || (tt.status != pipelines.Running) != (d.CompletedAt != nil) {
				t.Fatalf("detail %s, completed_at %v", d.Status, d.CompletedAt)
			}
			got := e.eventTypes(u.ID)
			if tt.event != "" && !slices.Contains(got, tt.event) {
				t.Fatalf("events %v, want %s", got, tt.event)
			}
			if tt.status != pipelines.Running {
				// A closed pipeline stays closed.
				if r := e.step(c.ID); r.Status != tt.status {
					t.Fatalf("second step: %+v", r)
				}
			}
		})
	}
}

// TestContinue: a failed or cancelled stage of a running pipeline is
// continued once, from its partial rows (none: its branch is
// short-circuited); anything else is a 400, an unknown node a 404.
func TestContinue(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	c := e.create(u, importThen)
	root := c.InitialJobs[0]
	if err := e.svc.Continue(ctx, u.ID, c.ID, "i"); code(err) != apperr.Invalid {
		t.Fatalf("continue a pending stage: %v, want 400", err)
	}
	if err := e.svc.Continue(ctx, u.ID, c.ID, "e"); code(err) != apperr.Invalid {
		t.Fatalf("continue a stage without a job: %v, want 400", err)
	}
	if err := e.svc.Continue(ctx, u.ID, c.ID, "ghost"); code(err) != apperr.NotFound {
		t.Fatalf("continue an unknown node: %v, want 404", err)
	}
	e.fail(root)
	e.step(c.ID)
	if err := e.svc.Continue(ctx, u.ID, c.ID, "i"); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Continue(ctx, u.ID, c.ID, "i"); code(err) != apperr.Invalid {
		t.Fatalf("continue twice: %v, want 400", err)
	}
	if r := e.step(c.ID); r.Status != pipelines.Done {
		t.Fatalf("after continuing a stage without rows: %+v, want done", r)
	}
	if err := e.svc.Continue(ctx, u.ID, c.ID, "i"); code(err) != apperr.Invalid {
		t.Fatalf("continue a finished pipeline: %v, want 400", err)
	}
}

// TestCancel: a running pipeline's active stages are cancelled and
// nothing more starts; a finished pipeline cannot be cancelled.
func TestCancel(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	c := e.create(u, importThen)
	root := c.InitialJobs[0]
	e.begin(root)
	if err := e.svc.Cancel(ctx, u.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	j, err := e.jobs.Get(ctx, u.ID, root)
	if err != nil || j.Status != jobs.Cancelled {
		t.Fatalf("root %v, %v", j.Status, err)
	}
	if d := e.detail(u, c.ID); d.Status != pipelines.Cancelled || d.CompletedAt == nil {
		t.Fatalf("pipeline %s", d.Status)
	}
	if err := e.svc.Cancel(ctx, u.ID, c.ID); code(err) != apperr.Invalid {
		t.Fatalf("second cancel: %v, want 400", err)
	}
	if n, _ := e.jobs.Active(ctx, u.ID); n != 0 {
		t.Fatalf("%d jobs active after the cancel", n)
	}
	if got := e.eventTypes(u.ID); !slices.Contains(got, events.PipelineCancelled) {
		t.Fatalf("events %v", got)
	}
}

// TestBlockedStage: a successor refused for now (the account's 5 jobs are
// taken) waits: the step says so, and a later step starts it.
func TestBlockedStage(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	c := e.create(u, importThen)
	var others []string
	for range jobs.MaxActive {
		j, err := e.jobs.CreateSingle(ctx, u, jobs.TypeImport, map[string]string{}, 0)
		if err != nil {
			if code(err) == apperr.TooMany {
				break
			}
			t.Fatal(err)
		}
		others = append(others, j.ID)
	}
	e.finish(c.InitialJobs[0], []string{"nom", "site_web"}, sites...)
	if _, err := e.jobs.CreateSingle(ctx, u, jobs.TypeImport, map[string]string{}, 0); err != nil {
		t.Fatal(err)
	}
	if r := e.step(c.ID); !r.Blocked || r.Status != pipelines.Running {
		t.Fatalf("step with no room: %+v", r)
	}
	if e.stage(u, c.ID, "e") != nil {
		t.Fatal("a stage started past the limit")
	}
	if _, err := e.jobs.Cancel(ctx, u.ID, others[0]); err != nil {
		t.Fatal(err)
	}
	if r := e.step(c.ID); r.Blocked {
		t.Fatalf("step with room: %+v", r)
	}
	if e.stage(u, c.ID, "e") == nil {
		t.Fatal("the waiting stage did not start")
	}
}

// TestHandleStep: the state machine's tasks.
func TestHandleStep(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	c := e.create(u, importThen)

	out, err := e.svc.HandleStep(ctx, pipelines.StepEvent{Action: pipelines.ActionAdvance, PipelineID: c.ID, Round: 3, Generation: 1})
	if err != nil || out.Status != pipelines.Running || out.Round != 4 || out.Generation != 1 || out.Wait != pipelines.IdleWait || out.Renew {
		t.Fatalf("advance: %+v, %v", out, err)
	}
	out, err = e.svc.HandleStep(ctx, pipelines.StepEvent{Action: pipelines.ActionAdvance, PipelineID: c.ID, Round: pipelines.MaxRounds - 1})
	if err != nil || !out.Renew || out.Generation != 1 {
		t.Fatalf("advance at the round limit: %+v, %v; want a renewal", out, err)
	}
	for _, bad := range []pipelines.StepEvent{
		{Action: pipelines.ActionAdvance},
		{Action: pipelines.ActionAwait, PipelineID: c.ID},
		{Action: "dance", PipelineID: c.ID},
	} {
		if _, err := e.svc.HandleStep(ctx, bad); err == nil {
			t.Fatalf("%+v accepted", bad)
		}
	}
	out, err = e.svc.HandleStep(ctx, pipelines.StepEvent{Action: pipelines.ActionAbandon, PipelineID: c.ID, Error: json.RawMessage(`"x"`)})
	if err != nil || out.Status != pipelines.Failed {
		t.Fatalf("abandon: %+v, %v", out, err)
	}
	if d := e.detail(u, c.ID); d.Status != pipelines.Failed {
		t.Fatalf("abandoned pipeline is %s", d.Status)
	}
	out, err = e.svc.HandleStep(ctx, pipelines.StepEvent{Action: pipelines.ActionAdvance, PipelineID: "gonepipeline"})
	if err != nil || out.Status != pipelines.Gone {
		t.Fatalf("advance of a pipeline that does not exist: %+v, %v", out, err)
	}
}

// TestAwaitAndSignal: an execution waiting for a signal parks its token;
// a change hands it back; a change that came since the advance read the
// pipeline hands it back at once.
func TestAwaitAndSignal(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	c := e.create(u, importThen)
	r := e.step(c.ID)
	if err := e.svc.Await(ctx, c.ID, r.Seen, "token-1"); err != nil {
		t.Fatal(err)
	}
	if got := e.exec.tokens(); len(got) != 0 {
		t.Fatalf("resumed %v with nothing new", got)
	}
	e.finish(c.InitialJobs[0], []string{"nom", "site_web"}, sites...) // the stage's end signals
	if got := e.exec.tokens(); !slices.Equal(got, []string{"token-1"}) {
		t.Fatalf("resumed %v, want token-1", got)
	}
	// A signal between the advance and the await: the execution goes on.
	r = e.step(c.ID)
	st := e.stage(u, c.ID, "e")
	e.fail(st.ID) // signals
	if err := e.svc.Await(ctx, c.ID, r.Seen, "token-2"); err != nil {
		t.Fatal(err)
	}
	if got := e.exec.tokens(); !slices.Equal(got, []string{"token-1", "token-2"}) {
		t.Fatalf("resumed %v, want token-2 at once", got)
	}
}

// TestInputColumns: what a node receives, or why nothing yet.
func TestInputColumns(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	c := e.create(u, importThen)
	check := func(node, reason string, cols []string) {
		t.Helper()
		b, err := e.svc.InputColumns(ctx, u.ID, c.ID, node)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ci := range b.Columns {
			names = append(names, ci.Name)
		}
		if b.Reason != reason || !slices.Equal(names, cols) {
			t.Fatalf("node %s: reason %q, columns %v; want %q, %v", node, b.Reason, names, reason, cols)
		}
	}
	check("i", pipelines.NoPredecessor, nil)
	check("e", pipelines.NoDataYet, nil)
	e.finish(c.InitialJobs[0], []string{"nom", "site_web"}, sites...)
	check("e", "", []string{"nom", "site_web"})
	if _, err := e.svc.InputColumns(ctx, u.ID, c.ID, "ghost"); code(err) != apperr.NotFound {
		t.Fatalf("unknown node: %v", err)
	}
	if _, err := e.svc.FilterPreview(ctx, u.ID, c.ID, "e", pipelines.Group{}); code(err) != apperr.Invalid {
		t.Fatalf("filter preview of an emails node: %v, want 400", err)
	}
}

// TestReplay: a veille's run replays the pipeline's definition, name and
// priority as a new pipeline, past the creation quota.
func TestReplay(t *testing.T) {
	e := newPipelines(t, 0)
	u := e.user()
	ctx := context.Background()
	src, err := e.svc.Create(ctx, u, pipelines.CreateRequest{Name: "Sites", Definition: json.RawMessage(importThen), LowPriority: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Cancel(ctx, u.ID, src.ID); err != nil {
		t.Fatal(err)
	}
	for range ratelimit.JobCreate.Max {
		_, _ = e.jobs.Create(ctx, u, scrape.Request{}) // refused attempts count
	}
	r, err := e.svc.Replay(ctx, u, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	d := e.detail(u, r.ID)
	if r.ID == src.ID || d.Name != "Sites" || len(d.Definition.Nodes) != 2 || d.Status != pipelines.Running {
		t.Fatalf("replay %+v", d)
	}
	j, err := e.jobs.Get(ctx, u.ID, r.InitialJobs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !j.LowPriority {
		t.Fatal("the replay lost the pipeline's low priority")
	}
}

// TestExportAndPurge: the export lists the account's pipelines; the purge
// deletes them and nothing of another account.
func TestExportAndPurge(t *testing.T) {
	e := newPipelines(t, 0)
	u, other := e.user(), e.user()
	ctx := context.Background()
	e.create(u, importThen)
	e.clock.Advance(time.Second)
	e.create(u, importThen)
	kept := e.create(other, importThen)
	sec, err := e.svc.Export(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ps, ok := sec.Data.([]*pipelines.Pipeline); !ok || len(ps) != 2 || sec.Entry != "pipelines" {
		t.Fatalf("export %s %#v", sec.Entry, sec.Data)
	}
	if err := e.svc.Purge(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if ps, _ := e.svc.List(ctx, u.ID); len(ps) != 0 {
		t.Fatalf("%d pipelines after purge", len(ps))
	}
	if d := e.detail(other, kept.ID); d.Status != pipelines.Running {
		t.Fatal("another account's pipeline touched")
	}
}
