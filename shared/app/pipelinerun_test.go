package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
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
	feed := string(c.Do("GET", "/api/events?types=pipeline.completed", nil).Must(t, 200).Body)
	if !strings.Contains(feed, id) {
		t.Errorf("no pipeline.completed event: %s", feed)
	}

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
	other.Do("GET", "/api/pipelines/"+id, nil).Must(t, 404)
}
