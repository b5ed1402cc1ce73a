package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/store"
)

// These tests need no jsii runtime.

// TestServiceSpecAgrees pins the one source of truth: the work queues are
// the engine's, redriven one delivery after GiveUpAfter.
func TestServiceSpecAgrees(t *testing.T) {
	sv := serviceSpec()
	for _, q := range sv.Queues {
		if slices.Contains(sv.WorkQueues, q.Name) && q.MaxReceives != app.GiveUpAfter+1 {
			t.Errorf("queue %s: MaxReceives %d, GiveUpAfter %d", q.Name, q.MaxReceives, app.GiveUpAfter)
		}
	}
	for _, w := range sv.Workers {
		if w.Queue != "" && w.Queue != app.QueueDeliveries && !slices.Contains(sv.WorkQueues, w.Queue) {
			t.Errorf("worker %s consumes %s, which is not a work queue: should the engine's give-up apply to it?", w.Name, w.Queue)
		}
	}
}

func TestServiceSpecIsValid(t *testing.T) {
	if err := serviceSpec().check(); err != nil {
		t.Fatal(err)
	}
}

func TestSpecCheck(t *testing.T) {
	good := func() spec {
		return spec{
			Groups: []api.Group{
				{Name: "a", Prefixes: []string{"/a"}, Tables: []string{"t"}, Default: true},
				{Name: "b", Prefixes: []string{"/b"}, Tables: []string{"t"}},
			},
			Schemas: []store.Schema{{Name: "t", PK: "pk", SK: "sk", Indexes: []store.Index{{Name: "gsi1", PK: "g", SK: "h"}}}},
			Queues: []queue.Config{
				{Name: "q", VisibilityTimeout: time.Minute, MaxReceives: 3, DeadLetter: "dlq"},
				{Name: "dlq", VisibilityTimeout: time.Minute},
				{Name: "sdlq", VisibilityTimeout: time.Minute},
			},
			Schedules: []app.Schedule{{Name: "tick", Queue: "q", Every: time.Minute, Body: `{"kind":"tick"}`}},
			Workers: []app.Worker{
				{Name: "w", Queue: "q", Stream: "t", Tables: []string{"t"}, SendsTo: []string{"q"}, TimeoutS: 10},
				{Name: "tick", Tables: []string{"t"}, TimeoutS: 900, Every: time.Minute},
			},
			WorkQueues: []string{"q"}, GiveUpAfter: 2, VisibilityFactor: 6, StreamDeadLetter: "sdlq",
		}
	}
	if err := good().check(); err != nil {
		t.Fatalf("valid spec rejected: %v", err)
	}
	for _, tt := range []struct {
		name   string
		mutate func(*spec)
		want   string
	}{
		{"unknown table", func(s *spec) { s.Groups[1].Tables = []string{"nope"} }, `uses table "nope"`},
		{"prefix twice", func(s *spec) { s.Groups[1].Prefixes = []string{"/a"} }, `prefix "/a" claimed`},
		{"prefix without slash", func(s *spec) { s.Groups[1].Prefixes = []string{"b"} }, `prefix "b"`},
		{"prefix with trailing slash", func(s *spec) { s.Groups[1].Prefixes = []string{"/b/"} }, `prefix "/b/"`},
		{"two defaults", func(s *spec) { s.Groups[1].Default = true }, "default route"},
		{"duplicate group", func(s *spec) { s.Groups[1].Name = "a" }, `group "a"`},
		{"schema without SK", func(s *spec) { s.Schemas[0].SK = "" }, "PK and SK"},
		{"index without PK", func(s *spec) { s.Schemas[0].Indexes[0].PK = "" }, `index "gsi1"`},
		{"missing dead-letter queue", func(s *spec) { s.Queues[0].DeadLetter = "gone" }, `dead-letter queue "gone"`},
		{"no max receives", func(s *spec) { s.Queues[0].MaxReceives = 0 }, "MaxReceives 0"},
		{"redrive cycle", func(s *spec) { s.Queues[1].DeadLetter, s.Queues[1].MaxReceives = "q", 1 }, "loops"},
		{"sub-second visibility", func(s *spec) { s.Queues[1].VisibilityTimeout = 1500 * time.Millisecond }, "whole seconds"},
		{"schedule to no queue", func(s *spec) { s.Schedules[0].Queue = "gone" }, `queue "gone"`},
		{"schedule of seconds", func(s *spec) { s.Schedules[0].Every = 90 * time.Second }, "whole minutes"},
		{"schedule body not an object", func(s *spec) { s.Schedules[0].Body = "sweep" }, "JSON object"},
		{"visibility over 12h", func(s *spec) { s.Queues[1].VisibilityTimeout = 13 * time.Hour }, "whole seconds"},
		// A work queue must redrive one delivery after the give-up.
		{"work queue redrives before the give-up", func(s *spec) { s.Queues[0].MaxReceives = 2 }, "want GiveUpAfter+1 = 3"},
		{"work queue redrives late", func(s *spec) { s.Queues[0].MaxReceives = 5 }, "want GiveUpAfter+1 = 3"},
		{"work queue without dead-letter queue", func(s *spec) { s.Queues[0].DeadLetter = "" }, "want GiveUpAfter+1"},
		{"unknown work queue", func(s *spec) { s.WorkQueues = append(s.WorkQueues, "gone") }, `work queue "gone"`},
		{"visibility under 6x the timeout", func(s *spec) { s.Workers[0].TimeoutS = 11 }, "under 6 x"},
		{"worker timeout over 15 min", func(s *spec) { s.Workers[1].TimeoutS = 901 }, "timeout 901"},
		{"worker on an unknown queue", func(s *spec) { s.Workers[0].Queue = "gone" }, `consumes "gone"`},
		{"queue consumed twice", func(s *spec) { s.Workers[1].Queue, s.Workers[1].TimeoutS = "q", 10 }, "consumed by"},
		{"worker on an unknown table", func(s *spec) { s.Workers[1].Tables = []string{"gone"} }, `table "gone"`},
		{"stream of another table", func(s *spec) { s.Workers[0].Tables = nil }, "not one of its tables"},
		{"worker sends to an unknown queue", func(s *spec) { s.Workers[0].SendsTo = []string{"gone"} }, `sends to "gone"`},
		{"group sends to an unknown queue", func(s *spec) { s.Groups[0].SendsTo = []string{"gone"} }, `sends to "gone"`},
		{"worker named as a group", func(s *spec) { s.Workers[1].Name = "a" }, `worker "a"`},
		{"unknown stream dead-letter queue", func(s *spec) { s.StreamDeadLetter = "gone" }, `stream dead-letter queue "gone"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			tt.mutate(&s)
			err := s.check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// The variable names are a contract with shared/app/onaws, which reads them
// (onaws.EnvName); pinning them here catches a change of rule on either side.
func TestEnvNames(t *testing.T) {
	for _, tt := range []struct{ schema, want string }{
		{"accounts", "SVC_TABLE_ACCOUNTS"},
		{"limits", "SVC_TABLE_LIMITS"},
		{"job-events", "SVC_TABLE_JOB_EVENTS"},
		{"a.b", "SVC_TABLE_A_B"},
	} {
		if got := tableEnv(tt.schema); got != tt.want || got != onaws.EnvName("TABLE", tt.schema) {
			t.Errorf("tableEnv(%q) = %s, want %s (onaws: %s)", tt.schema, got, tt.want, onaws.EnvName("TABLE", tt.schema))
		}
	}
	for _, q := range []string{"tasks", "tasks-dlq", "deliveries"} {
		if got, want := queueEnv(q), onaws.EnvName("QUEUE", q); got != want {
			t.Errorf("queueEnv(%q) = %s, onaws reads %s", q, got, want)
		}
	}
}

func TestNaming(t *testing.T) {
	for in, want := range map[string]string{"api-auth": "ApiAuth", "tasks-dlq": "TasksDlq", "accounts": "Accounts", "a.b_c": "ABC"} {
		if got := pascal(in); got != want {
			t.Errorf("pascal(%q) = %s, want %s", in, got, want)
		}
	}
	for _, tt := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {time.Second, 1}, {24 * time.Hour, 1}, {24*time.Hour + time.Second, 2}, {30 * 24 * time.Hour, 30},
	} {
		if got := wholeDaysUp(tt.d); got != tt.want {
			t.Errorf("wholeDaysUp(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

// TestCDKJSON keeps cdk.json in step with the app: it runs this module, and
// the context defaults it shows are the ones the code applies.
func TestCDKJSON(t *testing.T) {
	b, err := os.ReadFile("../cdk.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		App     string         `json:"app"`
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("cdk.json: %v", err)
	}
	if c.App != "cd infra && GOFLAGS=-mod=mod go run ." {
		t.Errorf("app = %q", c.App)
	}
	defaults := contextDefaults()
	for k, want := range defaults {
		v, ok := c.Context[k]
		if !ok {
			t.Errorf("cdk.json does not show context %s (default %q)", k, want)
			continue
		}
		if got, err := contextString(k, v); err != nil || got != want {
			t.Errorf("cdk.json context %s = %v (%v), the code's default is %q", k, v, err, want)
		}
	}
	for k := range c.Context {
		if _, ok := defaults[k]; !ok && !strings.HasPrefix(k, "@aws-cdk/") && !strings.HasPrefix(k, "aws:") {
			t.Errorf("cdk.json context %s is read by nothing", k)
		}
	}
}
