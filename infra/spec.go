package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/store"
)

// spec is what the stack is built from: the service's own tables of route
// groups, schemas and queues. It is a value (not read inside the
// constructors) so that the checks below can be tested on broken inputs.
type spec struct {
	Groups    []api.Group
	Schemas   []store.Schema
	Queues    []queue.Config
	Schedules []app.Schedule
	Workers   []app.Worker
	// WorkQueues are the queues whose messages the engine gives up on at
	// delivery GiveUpAfter: their MaxReceives must be GiveUpAfter+1, or
	// SQS moves a message to its dead-letter queue before the give-up is
	// recorded and its job never ends.
	WorkQueues  []string
	GiveUpAfter int
	// VisibilityFactor: a consumed queue's visibility timeout is at least
	// this many times its worker's timeout.
	VisibilityFactor int
	// StreamDeadLetter is the queue noting the stream records a worker
	// failed past its retries (a dead-letter queue no queue redrives to).
	StreamDeadLetter string
}

// serviceSpec is the spec of the service as it is.
func serviceSpec() spec {
	return spec{Groups: api.Groups(), Schemas: app.Schemas(), Queues: app.Queues(), Schedules: app.Schedules(),
		Workers:     app.Workers(),
		WorkQueues:  []string{app.QueueTasks, app.QueueEnrich, app.QueueSources, app.QueueFinalize},
		GiveUpAfter: app.GiveUpAfter, VisibilityFactor: app.VisibilityFactor, StreamDeadLetter: app.QueueStreamDLQ,
	}
}

// lambdaMaxTimeoutS is Lambda's longest function timeout.
const lambdaMaxTimeoutS = 900

// check rejects what CloudFormation would reject late (or accept wrongly):
// a group using a table no schema defines, a route claimed twice, a
// dead-letter queue that does not exist. Failing at synth keeps a typo in
// shared/ from becoming a half-deployed stack.
func (s spec) check() error {
	var errs []error
	schemas := map[string]bool{}
	for _, sc := range s.Schemas {
		if sc.Name == "" || sc.PK == "" || sc.SK == "" {
			errs = append(errs, fmt.Errorf("schema %q: name, PK and SK are required", sc.Name))
		}
		if schemas[sc.Name] {
			errs = append(errs, fmt.Errorf("schema %q defined twice", sc.Name))
		}
		schemas[sc.Name] = true
		for _, ix := range sc.Indexes {
			if ix.Name == "" || ix.PK == "" {
				errs = append(errs, fmt.Errorf("schema %q: index %q needs a name and a PK", sc.Name, ix.Name))
			}
		}
	}
	groups := map[string]bool{}
	prefixes := map[string]string{}
	defaults := 0
	for _, g := range s.Groups {
		if g.Name == "" || groups[g.Name] {
			errs = append(errs, fmt.Errorf("group %q: empty or duplicate name", g.Name))
		}
		groups[g.Name] = true
		if g.Default {
			defaults++
		}
		for _, p := range g.Prefixes {
			if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.ContainsAny(p, "{}") {
				errs = append(errs, fmt.Errorf("group %q: prefix %q must start with / and not end with / or hold a {param}", g.Name, p))
			}
			if other, ok := prefixes[p]; ok {
				errs = append(errs, fmt.Errorf("prefix %q claimed by %q and %q", p, other, g.Name))
			}
			prefixes[p] = g.Name
		}
		for _, t := range g.Tables {
			if !schemas[t] {
				errs = append(errs, fmt.Errorf("group %q uses table %q, which no schema defines", g.Name, t))
			}
		}
	}
	if defaults > 1 {
		errs = append(errs, fmt.Errorf("%d groups claim the default route; at most one may", defaults))
	}
	queues := map[string]bool{}
	for _, q := range s.Queues {
		if q.Name == "" || queues[q.Name] {
			errs = append(errs, fmt.Errorf("queue %q: empty or duplicate name", q.Name))
		}
		queues[q.Name] = true
		// SQS takes whole seconds, at most 12 hours.
		if q.VisibilityTimeout < 0 || q.VisibilityTimeout > 12*time.Hour || q.VisibilityTimeout%time.Second != 0 {
			errs = append(errs, fmt.Errorf("queue %q: visibility timeout %v is not whole seconds within 12h", q.Name, q.VisibilityTimeout))
		}
	}
	next := map[string]string{}
	for _, q := range s.Queues {
		next[q.Name] = q.DeadLetter
	}
	for _, q := range s.Queues {
		if q.DeadLetter == "" {
			continue
		}
		if !queues[q.DeadLetter] || q.DeadLetter == q.Name {
			errs = append(errs, fmt.Errorf("queue %q: dead-letter queue %q is not another configured queue", q.Name, q.DeadLetter))
		}
		if q.MaxReceives < 1 || q.MaxReceives > 1000 {
			errs = append(errs, fmt.Errorf("queue %q: MaxReceives %d is outside SQS's 1..1000", q.Name, q.MaxReceives))
		}
		// Follow the redrive chain: a cycle would leave no queue to create
		// first.
		n := q.Name
		for range len(s.Queues) {
			n = next[n]
		}
		if n != "" {
			errs = append(errs, fmt.Errorf("queue %q: its dead-letter chain loops", q.Name))
		}
	}
	byName := map[string]queue.Config{}
	for _, q := range s.Queues {
		byName[q.Name] = q
	}
	for _, name := range s.WorkQueues {
		q, ok := byName[name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("work queue %q is not a configured queue", name))
		case q.DeadLetter == "" || q.MaxReceives != s.GiveUpAfter+1:
			errs = append(errs, fmt.Errorf("work queue %q: MaxReceives %d (dead-letter queue %q), want GiveUpAfter+1 = %d with a dead-letter queue",
				name, q.MaxReceives, q.DeadLetter, s.GiveUpAfter+1))
		}
	}
	if s.StreamDeadLetter != "" && !queues[s.StreamDeadLetter] {
		errs = append(errs, fmt.Errorf("stream dead-letter queue %q is not a configured queue", s.StreamDeadLetter))
	}
	workers := map[string]bool{}
	consumed := map[string]string{}
	for _, w := range s.Workers {
		if w.Name == "" || workers[w.Name] || groups[w.Name] {
			errs = append(errs, fmt.Errorf("worker %q: empty name, or a name another function has", w.Name))
		}
		workers[w.Name] = true
		if w.TimeoutS < 1 || w.TimeoutS > lambdaMaxTimeoutS {
			errs = append(errs, fmt.Errorf("worker %q: timeout %d s is outside Lambda's 1..%d", w.Name, w.TimeoutS, lambdaMaxTimeoutS))
		}
		for _, t := range w.Tables {
			if !schemas[t] {
				errs = append(errs, fmt.Errorf("worker %q uses table %q, which no schema defines", w.Name, t))
			}
		}
		if w.Stream != "" && !slices.Contains(w.Tables, w.Stream) {
			errs = append(errs, fmt.Errorf("worker %q reads the stream of %q, not one of its tables", w.Name, w.Stream))
		}
		for _, q := range w.SendsTo {
			if !queues[q] {
				errs = append(errs, fmt.Errorf("worker %q sends to %q, which is not a configured queue", w.Name, q))
			}
		}
		if w.Queue == "" {
			continue
		}
		q, ok := byName[w.Queue]
		if !ok {
			errs = append(errs, fmt.Errorf("worker %q consumes %q, which is not a configured queue", w.Name, w.Queue))
			continue
		}
		if other, ok := consumed[w.Queue]; ok {
			errs = append(errs, fmt.Errorf("queue %q consumed by %q and %q", w.Queue, other, w.Name))
		}
		consumed[w.Queue] = w.Name
		// AWS advises a visibility of 6x the function's timeout for an
		// SQS event source: a message a killed invocation held comes back
		// only after it, and the event source's own retries fit in it.
		if want := time.Duration(s.VisibilityFactor*w.TimeoutS) * time.Second; q.VisibilityTimeout < want {
			errs = append(errs, fmt.Errorf("queue %q: visibility %v is under %d x its worker %s's timeout (%v)",
				w.Queue, q.VisibilityTimeout, s.VisibilityFactor, w.Name, want))
		}
	}
	for _, g := range s.Groups {
		for _, q := range g.SendsTo {
			if !queues[q] {
				errs = append(errs, fmt.Errorf("group %q sends to %q, which is not a configured queue", g.Name, q))
			}
		}
	}
	for _, sc := range s.Schedules {
		if !queues[sc.Queue] {
			errs = append(errs, fmt.Errorf("schedule %q: queue %q is not a configured queue", sc.Name, sc.Queue))
		}
		// EventBridge rates are whole minutes.
		if sc.Every < time.Minute || sc.Every%time.Minute != 0 {
			errs = append(errs, fmt.Errorf("schedule %q: rate %v is not whole minutes", sc.Name, sc.Every))
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(sc.Body), &body); err != nil {
			errs = append(errs, fmt.Errorf("schedule %q: body is not a JSON object: %w", sc.Name, err))
		}
	}
	return errors.Join(errs...)
}

// deadLetterQueues are the names of the queues some queue redrives to,
// and the stream's dead-letter queue.
func (s spec) deadLetterQueues() map[string]bool {
	dlq := map[string]bool{}
	if s.StreamDeadLetter != "" {
		dlq[s.StreamDeadLetter] = true
	}
	for _, q := range s.Queues {
		if q.DeadLetter != "" {
			dlq[q.DeadLetter] = true
		}
	}
	return dlq
}

// upperSnake is the rule of shared/app/onaws.EnvName ("tasks-dlq" ->
// "TASKS_DLQ"). It is restated rather than imported so that the CDK app
// does not link the AWS SDK and Lambda runtime onaws depends on; the
// environment test pins the resulting names.
func upperSnake(name string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name))
}

// tableEnv is the variable carrying the physical name of a table.
func tableEnv(schema string) string { return "SVC_TABLE_" + upperSnake(schema) }

// queueEnv is the variable holding a queue's URL (onaws.EnvName's rule).
func queueEnv(queue string) string { return "SVC_QUEUE_" + upperSnake(queue) + "_URL" }

// pascal turns "api-auth" into "ApiAuth", for readable logical ids.
func pascal(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// wholeDaysUp rounds a duration up to whole days, the unit of S3 lifecycle
// expirations.
func wholeDaysUp(d time.Duration) int {
	const day = 24 * time.Hour
	return int((d + day - 1) / day)
}

// jobsExpirationDays is when S3 deletes a job output: a day past
// OutputRetention, so that no output disappears before the expires_at the
// API announced (S3 runs lifecycle once a day, rounding to midnight UTC).
func jobsExpirationDays() int { return wholeDaysUp(app.OutputRetention) + 1 }
