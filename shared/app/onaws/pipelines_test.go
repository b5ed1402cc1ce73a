package onaws_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/onaws"
	"github.com/prospectdata/svc/statemachines"
	"github.com/prospectdata/svc/statemachines/asltest"
)

// TestPipelineOnAWSRuntime runs a pipeline the way the stack does:
// api-jobs creates it and starts its execution through the Step Functions
// SDK client (a loopback stand-in running statemachines/pipeline.asl.json),
// whose tasks invoke the pipeline-step handler built from the environment
// like its Lambda; the workers run the stages from the SQS emulator and
// hand the execution its task token back as each stage ends; the
// pipeline's record (signals, token) is in DynamoDB.
// withStateMachine gives rt the pipeline state machine's loopback
// stand-in, its tasks invoking the pipeline-step handler.
func withStateMachine(t *testing.T, rt *awsRuntime) *asltest.Machine {
	t.Helper()
	const stepARN = "arn:aws:lambda:eu-west-3:000000000000:function:pipeline-step"
	m, err := asltest.New(statemachines.Pipeline, map[string]string{statemachines.PipelineStepFunction: stepARN})
	if err != nil {
		t.Fatal(err)
	}
	m.ARN = "arn:aws:states:eu-west-3:000000000000:stateMachine:Svc-pipelines"
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	t.Cleanup(m.Close)
	t.Setenv("AWS_ENDPOINT_URL_SFN", srv.URL)
	rt.env[onaws.StateMachineEnv] = m.ARN
	step, err := onaws.PipelineStepHandler(rt.ctx, rt.getenv)
	if err != nil {
		t.Fatal(err)
	}
	m.Lambda = asltest.Handler(stepARN, step)

	return m
}

func TestPipelineOnAWSRuntime(t *testing.T) {
	rt := newAWSRuntime(t)
	m := withStateMachine(t, rt)
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("pipeline-aws@example.org")
	cr := rt.call(jobsFn, "POST", "/api/pipelines", `{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":["boulangerie"],"zones":["Villeurbanne"]}},
		{"id":"f","type":"filter","config":{"rules":{"logic":"AND","conditions":[{"column":"rating","op":">=","value":4}]}}},
		{"id":"o","type":"sort","config":{"sort_by":"rating","direction":"desc","top_n":5}}],
		"edges":[{"from":"s","to":"f"},{"from":"f","to":"o"}]}`, bearer)
	var created struct {
		ID          string
		InitialJobs []string `json:"initial_jobs"`
	}
	if err := json.Unmarshal([]byte(cr.Body), &created); err != nil || cr.StatusCode != 201 || len(created.InitialJobs) != 1 {
		t.Fatalf("create: %d %s", cr.StatusCode, cr.Body)
	}
	get := func() map[string]any {
		var p map[string]any
		if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/pipelines/"+created.ID, "", bearer).Body), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	n := rt.drain(func() bool { return get()["status"] != "running" })
	p := get()
	out, _ := p["output_job"].(map[string]any)
	if p["status"] != "done" || out["job_type"] != "sort" || out["results_count"].(float64) > 5 || len(p["jobs"].([]any)) != 3 {
		t.Fatalf("after %d invocations: %v", n, p)
	}
	ex, err := m.Wait(created.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != "SUCCEEDED" || ex.States[len(ex.States)-1] != "Finished" || ex.Timeouts != 0 {
		t.Fatalf("execution %s, %d timeouts: %v", ex.Status, ex.Timeouts, ex.States)
	}
	if got := strings.Count(strings.Join(ex.States, ","), "Await"); got < 2 {
		t.Errorf("%d awaits: the stages' ends did not go through the token: %v", got, ex.States)
	}
	// The same name again is refused: one execution per pipeline.
	if len(m.Executions()) != 1 {
		t.Errorf("%d executions", len(m.Executions()))
	}
}

// TestPipelineContinueOnAWSRuntime: on the stack's path (state machine,
// pipeline-step, workers on SQS), a stage cancelled while it runs keeps
// its rows and pauses the pipeline; continue starts the successor from
// them and the execution runs on to done.
func TestPipelineContinueOnAWSRuntime(t *testing.T) {
	rt := newAWSRuntime(t)
	m := withStateMachine(t, rt)
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("continue-aws@example.org")
	cr := rt.call(jobsFn, "POST", "/api/pipelines", `{"definition":{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":["boulangerie","plombier","coiffeur"],"zones":["Lyon"]}},
		{"id":"o","type":"sort","config":{"sort_by":"rating","direction":"desc","top_n":5}}],
		"edges":[{"from":"s","to":"o"}]}}`, bearer)
	var created struct {
		ID          string
		InitialJobs []string `json:"initial_jobs"`
	}
	if err := json.Unmarshal([]byte(cr.Body), &created); err != nil || cr.StatusCode != 201 || len(created.InitialJobs) != 1 {
		t.Fatalf("create: %d %s", cr.StatusCode, cr.Body)
	}
	read := func(path string) map[string]any {
		var v map[string]any
		if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", path, "", bearer).Body), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	root := "/api/jobs/" + created.InitialJobs[0]
	rt.drain(func() bool { return read(root)["results_count"].(float64) > 0 })
	if j := read(root); j["status"] != "running" {
		t.Fatalf("the scrape ended before the cancel: %v", j["status"])
	}
	if r := rt.call(jobsFn, "POST", root+"/cancel", "", bearer); r.StatusCode != 200 || !strings.Contains(r.Body, `"pipeline_cancelled":false`) {
		t.Fatalf("cancel: %d %s", r.StatusCode, r.Body)
	}
	rt.drain(func() bool { return read(root)["download_available"] == true })
	stage := read(root)
	if p := read("/api/pipelines/" + created.ID); p["status"] != "running" || len(p["jobs"].([]any)) != 1 {
		t.Fatalf("paused: %v", p)
	}
	if r := rt.call(jobsFn, "POST", "/api/pipelines/"+created.ID+"/nodes/s/continue", "", bearer); r.StatusCode != 200 {
		t.Fatalf("continue: %d %s", r.StatusCode, r.Body)
	}
	rt.drain(func() bool { return read("/api/pipelines/" + created.ID)["status"] != "running" })
	p := read("/api/pipelines/" + created.ID)
	out, _ := p["output_job"].(map[string]any)
	if p["status"] != "done" || out["job_type"] != "sort" || out["results_count"] != min(5, stage["results_count"].(float64)) {
		t.Fatalf("after continue: %v (stage %v)", p, stage)
	}
	ex, err := m.Wait(created.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != "SUCCEEDED" || ex.States[len(ex.States)-1] != "Finished" {
		t.Fatalf("execution %s: %v", ex.Status, ex.States)
	}
}
