package app_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/pricing"
)

// waitPipeline polls a pipeline until it leaves running.
func waitPipeline(t *testing.T, c *apptest.Client, id string) map[string]any {
	t.Helper()
	var got map[string]any
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(30 * time.Millisecond) {
		got = c.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON()
		if got["status"] != "running" {
			return got
		}
	}
	t.Fatalf("pipeline still running: %v", got)
	return nil
}

// waitEvent polls the event feed until an event of the type names id: a
// pipeline's event is appended just after its status is written, so a
// client that saw the status may read the feed a moment before it.
func waitEvent(t *testing.T, c *apptest.Client, typ, id string) {
	t.Helper()
	var feed string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if feed = string(c.Do("GET", "/api/events?types="+typ, nil).Must(t, 200).Body); strings.Contains(feed, id) {
			return
		}
	}
	t.Errorf("no %s event for %s: %s", typ, id, feed)
}

// TestPipelineRuns: a scrape → emails → filter → sort pipeline runs to
// done, each stage a job created from its predecessor's rows; its output
// job is the sort's; a filter keeping nothing short-circuits its branch;
// a refused definition creates nothing; the graph is immutable.
func TestPipelineRuns(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("runs@example.org", fixturePassword)
	c.Verify("runs@example.org")
	body := func(minRating string) string {
		return `{"nodes":[
			{"id":"s","type":"scrap","config":{"queries":["boulangerie"],"zones":["Villeurbanne"]}},
			{"id":"e","type":"emails"},
			{"id":"f","type":"filter","config":{"rules":{"logic":"AND","conditions":[{"column":"rating","op":">=","value":` + minRating + `}]}}},
			{"id":"o","type":"sort","config":{"sort_by":"rating","direction":"desc","top_n":5}}],
			"edges":[{"from":"s","to":"e"},{"from":"e","to":"f"},{"from":"f","to":"o"}]}`
	}
	// A refusal writes nothing.
	r := c.Do("POST", "/api/pipelines", `{"nodes":[{"id":"s","type":"scrap","config":{"queries":["x"],"zones":["Pari"]}}],"edges":[]}`)
	if r.Status != 400 || !strings.Contains(detail(t, r), "Paris") {
		t.Fatalf("refusal: %d %s", r.Status, r.Body)
	}
	if list := strings.TrimSpace(string(c.Do("GET", "/api/pipelines", nil).Must(t, 200).Body)); list != "[]" {
		t.Fatalf("a refusal wrote a pipeline: %s", list)
	}

	created := c.Do("POST", "/api/pipelines", body("4")).Must(t, 201).JSON()
	id := created["id"].(string)
	if created["status"] != "running" || len(created["initial_jobs"].([]any)) != 1 {
		t.Fatalf("created: %v", created)
	}
	got := waitPipeline(t, c, id)
	if got["status"] != "done" || got["progress_pct"] != 100.0 {
		t.Fatalf("after the run: %v", got)
	}
	stages := map[string]map[string]any{}
	for _, j := range got["jobs"].([]any) {
		m := j.(map[string]any)
		stages[m["pipeline_node_id"].(string)] = m
	}
	if len(stages) != 4 || stages["e"]["job_type"] != "emails" || stages["o"]["job_type"] != "sort" {
		t.Fatalf("jobs: %v", got["jobs"])
	}
	out := got["output_job"].(map[string]any)
	if out["id"] != stages["o"]["id"] || out["results_count"].(float64) > 5 || out["download_available"] != true {
		t.Fatalf("output_job %v, sort %v", out, stages["o"])
	}
	recs := readCSV(t, c, out["id"].(string))
	h := strings.Join(recs[0], ",")
	if !strings.HasPrefix(h, "nom,site_web,telephone") || !strings.HasSuffix(h, "email,email_personal") {
		t.Errorf("output columns %q", h)
	}
	if j := c.Do("GET", "/api/jobs/"+stages["e"]["id"].(string), nil).Must(t, 200).JSON(); j["pipeline_id"] != id {
		t.Errorf("stage job's pipeline_id %v", j["pipeline_id"])
	}
	waitEvent(t, c, "pipeline.completed", id)

	// The filter node's input: the emails stage's columns, typed, and
	// a preview of other rules over them.
	cols := c.Do("GET", "/api/pipelines/"+id+"/nodes/f/input-columns", nil).Must(t, 200).JSON()
	if cols["predecessor_job_id"] != stages["e"]["id"] || cols["row_count"].(float64) < 1 {
		t.Fatalf("input-columns: %v", cols)
	}
	types := map[string]string{}
	for _, col := range cols["columns"].([]any) {
		m := col.(map[string]any)
		types[m["name"].(string)] = m["type"].(string)
	}
	if types["telephone"] != "phone" || types["site_web"] != "url" || types["rating"] != "number" || types["email"] != "email" {
		t.Errorf("column types %v", types)
	}
	if r := c.Do("GET", "/api/pipelines/"+id+"/nodes/s/input-columns", nil).Must(t, 200).JSON(); r["reason"] != "no_predecessor" {
		t.Errorf("a root's input: %v", r)
	}
	pv := c.Do("POST", "/api/pipelines/"+id+"/nodes/f/filter-preview", map[string]any{"rules": map[string]any{"logic": "AND",
		"conditions": []any{map[string]any{"column": "email", "op": "is_not_empty"}}}}).Must(t, 200).JSON()
	if pv["total"].(float64) < 1 || pv["matched"].(float64) > pv["total"].(float64) || pv["capped"] != false {
		t.Errorf("filter-preview: %v", pv)
	}
	c.Do("POST", "/api/pipelines/"+id+"/nodes/o/filter-preview", map[string]any{"rules": map[string]any{}}).Must(t, 400) // not a filter
	c.Do("POST", "/api/pipelines/"+id+"/nodes/f/filter-preview", map[string]any{"rules": map[string]any{"conditions": []any{
		map[string]any{"column": "nope", "op": "=", "value": "x"}}}}).Must(t, 400)
	c.Do("GET", "/api/pipelines/"+id+"/nodes/zz/input-columns", nil).Must(t, 404)
	c.Do("POST", "/api/pipelines/"+id+"/nodes/e/continue", nil).Must(t, 400) // a done stage

	// A filter keeping nothing: the sort never starts, the pipeline is
	// done, its output the emails stage.
	short := c.Do("POST", "/api/pipelines", body("9")).Must(t, 201).JSON()
	got = waitPipeline(t, c, short["id"].(string))
	if got["status"] != "done" || len(got["jobs"].([]any)) != 3 || got["output_job"].(map[string]any)["job_type"] != "emails" {
		t.Fatalf("short-circuit: %v", got)
	}

	list := c.Do("GET", "/api/pipelines", nil).Must(t, 200)
	if !strings.Contains(string(list.Body), `"nodes_count":4`) {
		t.Errorf("list: %s", list.Body)
	}
	c.Do("PATCH", "/api/pipelines/"+id, `{}`).Must(t, 405)
	c.Do("DELETE", "/api/pipelines/"+id, nil).Must(t, 405)
	c.Do("POST", "/api/pipelines/"+id+"/run", nil).Must(t, 405)
	c.Do("POST", "/api/pipelines/"+id+"/cancel", nil).Must(t, 400) // already done
	other := e.NewClient()
	other.Signup("runs-other@example.org", fixturePassword)
	other.Do("GET", "/api/pipelines/"+id, nil).Must(t, 403) // spec: 403 not owner, in the pipelines section
}

// TestPipelinePauseContinueCancel: a failed stage pauses its pipeline
// (still running, its successor not started); continue resolves it (no
// rows: the branch ends, the pipeline is done); cancel closes a paused
// one.
func TestPipelinePauseContinueCancel(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("pause@example.org", fixturePassword)
	c.Verify("pause@example.org")
	def := `{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":["fleuriste"],"zones":["Villeurbanne"]}},
		{"id":"f","type":"filter","config":{"rules":{"conditions":[{"column":"no_such_column","op":"=","value":"x"}]}}},
		{"id":"o","type":"sort","config":{"sort_by":"rating"}}],
		"edges":[{"from":"s","to":"f"},{"from":"f","to":"o"}]}`
	paused := func() string {
		t.Helper()
		id := c.Do("POST", "/api/pipelines", def).Must(t, 201).JSON()["id"].(string)
		for end := time.Now().Add(time.Minute); ; time.Sleep(30 * time.Millisecond) {
			got := c.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON()
			for _, j := range got["jobs"].([]any) {
				if m := j.(map[string]any); m["pipeline_node_id"] == "f" && m["status"] == "failed" {
					if got["status"] != "running" || len(got["jobs"].([]any)) != 2 {
						t.Fatalf("paused: %v", got)
					}
					return id
				}
			}
			if time.Now().After(end) {
				t.Fatalf("the filter stage did not fail: %v", got)
			}
		}
	}
	id := paused()
	c.Do("POST", "/api/pipelines/"+id+"/nodes/s/continue", nil).Must(t, 400) // done, not paused
	c.Do("POST", "/api/pipelines/"+id+"/nodes/f/continue", nil).Must(t, 200)
	if got := waitPipeline(t, c, id); got["status"] != "done" || len(got["jobs"].([]any)) != 2 {
		t.Fatalf("after continue: %v", got)
	}
	c.Do("POST", "/api/pipelines/"+id+"/nodes/f/continue", nil).Must(t, 400) // not running any more

	id = paused()
	c.Do("POST", "/api/pipelines/"+id+"/cancel", nil).Must(t, 200)
	if got := c.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON(); got["status"] != "cancelled" || got["completed_at"] == nil {
		t.Fatalf("after cancel: %v", got)
	}
	c.Do("POST", "/api/pipelines/"+id+"/cancel", nil).Must(t, 400)
	if feed := string(c.Do("GET", "/api/events?types=pipeline.cancelled", nil).Must(t, 200).Body); !strings.Contains(feed, id) {
		t.Errorf("no pipeline.cancelled event: %s", feed)
	}
}

// TestPipelineLowPriority: a low-priority pipeline's jobs are charged
// pricing.LowPriorityFactor of their price, and the account's spending
// says so; a normal pipeline's pay the estimate.
func TestPipelineLowPriority(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("low@example.org", fixturePassword)
	c.Verify("low@example.org")
	def := `{"nodes":[{"id":"s","type":"scrap","config":{"queries":["boulangerie"],"zones":["Villeurbanne"]}}],"edges":[]}`
	for _, tc := range []struct {
		low  bool
		want func(price float64) float64
	}{
		{false, func(p float64) float64 { return p }},
		{true, pricing.LowPriority},
	} {
		// Estimated just before: each done scrape teaches the query's
		// density, which prices the next.
		est := c.Do("POST", "/api/estimate", `{"queries":["boulangerie"],"zones":["Villeurbanne"]}`).Must(t, 200).JSON()
		want := tc.want(est["ef_cost"].(float64))
		before := c.Do("GET", "/api/ef/usage", nil).Must(t, 200).JSON()["spent"].(float64)
		body := fmt.Sprintf(`{"definition":%s,"low_priority":%v}`, def, tc.low)
		created := c.Do("POST", "/api/pipelines", body).Must(t, 201).JSON()
		root := created["initial_jobs"].([]any)[0].(string)
		j := c.Do("GET", "/api/jobs/"+root, nil).Must(t, 200).JSON()
		spent := c.Do("GET", "/api/ef/usage", nil).Must(t, 200).JSON()["spent"].(float64)
		if j["ef_cost"] != want || math.Abs(spent-before-want) > 0.005 {
			t.Errorf("low_priority %v: job ef_cost %v, spent %v, want %v", tc.low, j["ef_cost"], spent-before, want)
		}
		waitPipeline(t, c, created["id"].(string))
		if price := est["ef_cost"].(float64); tc.low && want >= price {
			t.Fatalf("no discount: %v of %v", want, price)
		}
	}
}

// TestPipelineLargeImport: an import's paste far over what a job's item
// holds (its parameters go to the file store) runs, as do a filter's
// long `in` list; validate and creation agree.
func TestPipelineLargeImport(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("large@example.org", fixturePassword)
	c.Verify("large@example.org")
	var paste strings.Builder
	paste.WriteString("nom;ville;score\n")
	for i := range 3000 {
		fmt.Fprintf(&paste, "Entreprise numéro %d;Ville %d;%d\n", i, i%40, i%100)
	}
	var in []string
	for i := range 600 {
		in = append(in, fmt.Sprintf("%q", fmt.Sprintf("Ville %d", i)))
	}
	def := fmt.Sprintf(`{"nodes":[
		{"id":"i","type":"import","config":{"source":"paste","text":%q}},
		{"id":"f","type":"filter","config":{"rules":{"logic":"AND","conditions":[
			{"column":"ville","op":"in","value":[%s]},{"column":"score","op":"<","value":10}]}}}],
		"edges":[{"from":"i","to":"f"}]}`, paste.String(), strings.Join(in, ","))
	if len(def) < 64<<10 {
		t.Fatalf("definition of %d bytes: not large", len(def))
	}
	v := c.Do("POST", "/api/pipelines/validate", `{"schema_version":1,"definition":`+def+`}`).Must(t, 200).JSON()
	if v["ok"] != true {
		t.Fatalf("validate: %v", v)
	}
	id := c.Do("POST", "/api/pipelines", def).Must(t, 201).JSON()["id"].(string)
	got := waitPipeline(t, c, id)
	out, _ := got["output_job"].(map[string]any)
	// Scores 0..9 are a tenth of the rows, every town is in the list.
	if got["status"] != "done" || out["job_type"] != "filter" || out["results_count"] != 300.0 {
		t.Fatalf("pipeline %v", got)
	}
}

// TestPipelineContinueFromPartialRows: a stage cancelled while it ran
// keeps the rows it had (downloadable, its status still cancelled), the
// pipeline pauses, and continue starts the successors from those rows.
func TestPipelineContinueFromPartialRows(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("partial@example.org", fixturePassword)
	c.Verify("partial@example.org")
	id := c.Do("POST", "/api/pipelines", `{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":["boulangerie","plombier"],"zones":["France"],"scrap_mode":"ultra"}},
		{"id":"o","type":"sort","config":{"sort_by":"rating","direction":"desc","top_n":10}}],
		"edges":[{"from":"s","to":"o"}]}`).Must(t, 201).JSON()["id"].(string)
	stage := func() map[string]any {
		got := c.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON()
		return got["jobs"].([]any)[0].(map[string]any)
	}
	root := stage()["id"].(string)
	for end := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if j := c.Do("GET", "/api/jobs/"+root, nil).Must(t, 200).JSON(); j["results_count"].(float64) > 0 {
			if j["status"] != "running" {
				t.Fatalf("the scrape ended before the cancel: %v", j["status"])
			}
			break
		}
		if time.Now().After(end) {
			t.Fatal("no row within a minute")
		}
	}
	if r := c.Do("POST", "/api/jobs/"+root+"/cancel", nil).Must(t, 200).JSON(); r["pipeline_cancelled"] != false {
		t.Fatalf("cancel of a started stage: %v", r)
	}
	var j map[string]any
	for end := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		j = c.Do("GET", "/api/jobs/"+root, nil).Must(t, 200).JSON()
		if j["download_available"] == true {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no partial output: %v", j)
		}
	}
	rows := readCSV(t, c, root)
	if j["status"] != "cancelled" || float64(len(rows)-1) != j["results_count"] || len(rows) < 2 {
		t.Fatalf("partial output: %d lines, job %v %v", len(rows), j["status"], j["results_count"])
	}
	if got := c.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON(); got["status"] != "running" || len(got["jobs"].([]any)) != 1 {
		t.Fatalf("paused: %v", got)
	}
	c.Do("POST", "/api/pipelines/"+id+"/nodes/s/continue", nil).Must(t, 200)
	got := waitPipeline(t, c, id)
	out, _ := got["output_job"].(map[string]any)
	want := min(10.0, j["results_count"].(float64))
	if got["status"] != "done" || out["job_type"] != "sort" || out["results_count"] != want {
		t.Fatalf("after continue: %v", got)
	}
}

// TestPipelineCancelPendingStage: cancelling a pipeline's root while it
// waits for the proxy pool (another scrape holds it) closes the pipeline,
// and the cancel says so (pipeline_cancelled), at once.
func TestPipelineCancelPendingStage(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("pending@example.org", fixturePassword)
	c.Verify("pending@example.org")
	blocker := c.Do("POST", "/api/jobs", `{"queries":["restaurant"],"zones":["Rhône"]}`).Must(t, 200).JSON()["id"].(string)
	def := `{"nodes":[{"id":"s","type":"scrap","config":{"queries":["fleuriste"],"zones":["Villeurbanne"]}}],"edges":[]}`
	created := c.Do("POST", "/api/pipelines", def).Must(t, 201).JSON()
	id, root := created["id"].(string), created["initial_jobs"].([]any)[0].(string)
	if j := c.Do("GET", "/api/jobs/"+root, nil).Must(t, 200).JSON(); j["status"] != "pending" {
		t.Fatalf("the root did not wait for the pool: %v", j["status"])
	}
	if r := c.Do("POST", "/api/jobs/"+root+"/cancel", nil).Must(t, 200).JSON(); r["pipeline_cancelled"] != true {
		t.Fatalf("cancel of a pending root: %v", r)
	}
	if got := c.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON(); got["status"] != "cancelled" || got["completed_at"] == nil {
		t.Fatalf("after the cancel: %v", got)
	}
	if feed := string(c.Do("GET", "/api/events?types=pipeline.cancelled", nil).Must(t, 200).Body); !strings.Contains(feed, id) {
		t.Errorf("no pipeline.cancelled event: %s", feed)
	}
	c.Do("POST", "/api/jobs/"+blocker+"/cancel", nil).Must(t, 200)
}
