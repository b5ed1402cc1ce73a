package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/statemachines"
	"github.com/prospectdata/svc/statemachines/asltest"
)

const stepARN = "arn:aws:lambda:local:000000000000:function:pipeline-step"

// TestPipelineStateMachine runs pipelines through the AWS definition
// (statemachines/pipeline.asl.json, interpreted in process) and the real
// step handler, invoked with the JSON payloads Step Functions sends: a
// run to done with one execution whose states carry no rows; signals
// lost, the Await timeout advances anyway; an execution past MaxRounds
// renews itself; a step that keeps failing abandons (fails) its
// pipeline; a cancel ends the execution.
func TestPipelineStateMachine(t *testing.T) {
	m, err := asltest.New(statemachines.Pipeline, map[string]string{statemachines.PipelineStepFunction: stepARN})
	if err != nil {
		t.Fatal(err)
	}
	e := apptest.Start(t, apptest.WithPipelines(m))
	t.Cleanup(m.Close) // before the app's tables close

	// failing: every advance fails; ageNext: the next first advance
	// claims MaxRounds-1 rounds already. The subtests run one after the
	// other, each waiting for its executions to end.
	var mu sync.Mutex
	failing, ageNext := false, false
	step := asltest.Handler(stepARN, e.App.Pipelines.HandleStep)
	var payloads []pipelines.StepEvent
	m.Lambda = func(ctx context.Context, fn string, payload []byte) ([]byte, error) {
		var ev pipelines.StepEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return nil, err
		}
		mu.Lock()
		payloads = append(payloads, ev)
		fail := failing && ev.Action == pipelines.ActionAdvance
		if ageNext && ev.Action == pipelines.ActionAdvance && ev.Generation == 0 && ev.Round == 0 {
			ageNext = false
			ev.Round = pipelines.MaxRounds - 1
			payload, _ = json.Marshal(ev)
		}
		mu.Unlock()
		if fail {
			return nil, fmt.Errorf("injected failure")
		}
		return step(ctx, fn, payload)
	}

	c := e.NewClient()
	c.Signup("machine@example.org", fixturePassword)
	c.Verify("machine@example.org")
	chain := `{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":["boulangerie"],"zones":["Villeurbanne"]}},
		{"id":"f","type":"filter","config":{"rules":{"logic":"AND","conditions":[{"column":"rating","op":">=","value":4}]}}},
		{"id":"o","type":"sort","config":{"sort_by":"rating","direction":"desc","top_n":5}}],
		"edges":[{"from":"s","to":"f"},{"from":"f","to":"o"}]}`
	create := func(body string) string {
		t.Helper()
		return c.Do("POST", "/api/pipelines", body).Must(t, 201).JSON()["id"].(string)
	}
	ended := func(name string) *asltest.Execution {
		t.Helper()
		ex, err := m.Wait(name, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return ex
	}

	t.Run("runs to done", func(t *testing.T) {
		id := create(chain)
		got := waitPipeline(t, c, id)
		if got["status"] != "done" || got["output_job"].(map[string]any)["job_type"] != "sort" {
			t.Fatalf("pipeline %v", got)
		}
		ex := ended(id)
		if ex.Status != "SUCCEEDED" || ex.States[len(ex.States)-1] != "Finished" || ex.Timeouts != 0 {
			t.Fatalf("execution %s, %d timeouts: %v", ex.Status, ex.Timeouts, ex.States)
		}
		// A stage's end hands the token back: a few rounds, no timeout.
		if n := strings.Count(strings.Join(ex.States, ","), "Advance"); n < 2 || n > 12 {
			t.Errorf("%d advances: %v", n, ex.States)
		}
		// The states carry ids and counters: no row ever rides along.
		if ex.MaxPayload > 1024 {
			t.Errorf("largest payload %d bytes", ex.MaxPayload)
		}
		mu.Lock()
		defer mu.Unlock()
		var awaits int
		for _, p := range payloads {
			if p.PipelineID == id && p.Action == pipelines.ActionAwait {
				awaits++
				if p.TaskToken == "" {
					t.Errorf("await without its token: %+v", p)
				}
			}
		}
		if awaits == 0 {
			t.Error("the execution never awaited a signal")
		}
	})

	t.Run("lost signals", func(t *testing.T) {
		m.Drop(1 << 20) // every Resume lost: only the 900 s (here 0.9 s) timeouts move it
		m.SetTimeScale(1e-3)
		defer func() { m.Drop(0); m.SetTimeScale(0.1) }()
		id := create(chain)
		if got := waitPipeline(t, c, id); got["status"] != "done" {
			t.Fatalf("pipeline %v", got)
		}
		if ex := ended(id); ex.Status != "SUCCEEDED" || ex.Timeouts == 0 {
			t.Fatalf("execution %s, %d timeouts: %v", ex.Status, ex.Timeouts, ex.States)
		}
	})

	t.Run("renews past MaxRounds", func(t *testing.T) {
		mu.Lock()
		ageNext = true
		mu.Unlock()
		id := create(chain)
		if got := waitPipeline(t, c, id); got["status"] != "done" {
			t.Fatalf("pipeline %v", got)
		}
		first, next := ended(id), ended(id+"-1")
		if first.Status != "SUCCEEDED" || !slices.Contains(first.States, "Renew") || first.States[len(first.States)-1] != "Renewed" {
			t.Errorf("first execution %s: %v", first.Status, first.States)
		}
		if next.Status != "SUCCEEDED" || next.States[len(next.States)-1] != "Finished" {
			t.Errorf("renewed execution %s: %v", next.Status, next.States)
		}
	})

	t.Run("abandons a failing step", func(t *testing.T) {
		mu.Lock()
		failing = true
		mu.Unlock()
		defer func() { mu.Lock(); failing = false; mu.Unlock() }()
		id := create(chain)
		got := waitPipeline(t, c, id)
		if got["status"] != "failed" {
			t.Fatalf("pipeline %v", got)
		}
		ex := ended(id)
		if ex.Status != "FAILED" || ex.Error != "PipelineStepFailed" || !slices.Contains(ex.States, "Abandon") {
			t.Fatalf("execution %s %s: %v", ex.Status, ex.Error, ex.States)
		}
		feed := string(c.Do("GET", "/api/events?types=pipeline.failed", nil).Must(t, 200).Body)
		if !strings.Contains(feed, id) {
			t.Errorf("no pipeline.failed event: %s", feed)
		}
	})

	t.Run("cancel ends the execution", func(t *testing.T) {
		id := create(`{"nodes":[{"id":"s","type":"scrap","config":{"queries":["boulangerie"],"zones":["France"]}},
			{"id":"f","type":"filter","config":{"rules":{"logic":"AND","conditions":[{"column":"rating","op":">=","value":4}]}}}],
			"edges":[{"from":"s","to":"f"}]}`)
		c.Do("POST", "/api/pipelines/"+id+"/cancel", nil).Must(t, 200)
		if ex := ended(id); ex.Status != "SUCCEEDED" || ex.States[len(ex.States)-1] != "Finished" {
			t.Fatalf("execution %s: %v", ex.Status, ex.States)
		}
		got := c.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON()
		for _, j := range got["jobs"].([]any) {
			if st := j.(map[string]any)["status"]; st != "cancelled" {
				t.Errorf("stage %v after the cancel", j)
			}
		}
	})
}
