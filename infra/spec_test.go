package main

import (
	"encoding/json"
	"os"
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
			},
			Schedules: []app.Schedule{{Name: "tick", Queue: "q", Every: time.Minute, Body: `{"kind":"tick"}`}},
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
		got, ok := c.Context[k]
		if !ok {
			t.Errorf("cdk.json does not show context %s (default %q)", k, want)
			continue
		}
		if got != want {
			t.Errorf("cdk.json context %s = %v, the code's default is %q", k, got, want)
		}
	}
	for k := range c.Context {
		if _, ok := defaults[k]; !ok && !strings.HasPrefix(k, "@aws-cdk/") && !strings.HasPrefix(k, "aws:") {
			t.Errorf("cdk.json context %s is read by nothing", k)
		}
	}
}
