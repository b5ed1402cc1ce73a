// Package asltest runs the service's Amazon States Language definitions
// in process for tests: a small interpreter of the subset they use (Task
// over Lambda, the task-token callback and startExecution; Choice;
// Succeed; Fail; Parameters, OutputPath, ResultPath, Retry, Catch,
// TimeoutSeconds, the States.Format intrinsic). It implements
// pipelines.Executor, so a test app runs its pipelines through the real
// definition and the real step handler, invoked with the JSON payloads
// Step Functions would send. It is a test double of the workflow
// service, never used outside tests; `make asl-check` validates the same
// files with a real ASL validator.
package asltest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
)

// Machine runs executions of one definition.
type Machine struct {
	// ARN is the machine's ($$.StateMachine.Id).
	ARN string
	// Lambda invokes a function with a payload, as the Lambda runtime
	// would: the raw JSON in, the raw JSON out.
	Lambda func(ctx context.Context, function string, payload []byte) ([]byte, error)

	def definition
	mu  sync.Mutex
	// drop is how many Resume calls to lose (Drop).
	drop int
	// scale shrinks TimeoutSeconds (SetTimeScale).
	scale float64
	// waiting maps the task tokens of waiting tasks to their wake-up.
	waiting map[string]chan struct{}
	runs    map[string]*Execution
	order   []string
	wg      sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc
}

type definition struct {
	StartAt string           `json:"StartAt"`
	States  map[string]state `json:"States"`
}

type state struct {
	Type           string          `json:"Type"`
	Resource       string          `json:"Resource"`
	Parameters     map[string]any  `json:"Parameters"`
	OutputPath     *string         `json:"OutputPath"`
	ResultPath     json.RawMessage `json:"ResultPath"`
	TimeoutSeconds float64         `json:"TimeoutSeconds"`
	TimeoutPath    string          `json:"TimeoutSecondsPath"`
	Retry          []retrier       `json:"Retry"`
	Catch          []catcher       `json:"Catch"`
	Choices        []choice        `json:"Choices"`
	Default        string          `json:"Default"`
	Next           string          `json:"Next"`
	Error          string          `json:"Error"`
}

type retrier struct {
	ErrorEquals []string `json:"ErrorEquals"`
	MaxAttempts *int     `json:"MaxAttempts"`
}

type catcher struct {
	ErrorEquals []string        `json:"ErrorEquals"`
	ResultPath  json.RawMessage `json:"ResultPath"`
	Next        string          `json:"Next"`
}

type choice struct {
	And           []choice `json:"And"`
	Variable      string   `json:"Variable"`
	StringEquals  *string  `json:"StringEquals"`
	BooleanEquals *bool    `json:"BooleanEquals"`
	Next          string   `json:"Next"`
}

// Execution is one run of the machine.
type Execution struct {
	Name  string
	Input []byte
	// Status is RUNNING, SUCCEEDED or FAILED; Error names the failure.
	Status string
	Error  string
	// States lists the states entered, in order; MaxPayload is the
	// largest state input or task payload seen, in bytes.
	States     []string
	MaxPayload int
	// Timeouts counts the tasks that timed out (States.Timeout).
	Timeouts int
	done     chan struct{}
}

// New parses a definition; substitutions replace ${name} as the CDK's
// DefinitionSubstitutions do.
func New(asl []byte, subs map[string]string) (*Machine, error) {
	s := string(asl)
	for k, v := range subs {
		s = strings.ReplaceAll(s, "${"+k+"}", v)
	}
	m := &Machine{ARN: "arn:aws:states:local:000000000000:stateMachine:test", scale: 0.1,
		waiting: map[string]chan struct{}{}, runs: map[string]*Execution{}}
	if err := json.Unmarshal([]byte(s), &m.def); err != nil {
		return nil, err
	}
	if _, ok := m.def.States[m.def.StartAt]; !ok {
		return nil, fmt.Errorf("StartAt %q is no state", m.def.StartAt)
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m, nil
}

// Handler is the function arn running a typed Lambda handler, called the
// way the Lambda runtime calls it (JSON decoding of the event, encoding
// of the answer); any other function does not exist.
func Handler(arn string, h any) func(ctx context.Context, function string, payload []byte) ([]byte, error) {
	invoke := lambda.NewHandler(h).Invoke
	return func(ctx context.Context, function string, payload []byte) ([]byte, error) {
		if function != arn {
			return nil, fmt.Errorf("ResourceNotFoundException: function %s", function)
		}
		return invoke(ctx, payload)
	}
}

// Start starts an execution (pipelines.Executor). A name already used is
// refused, as Step Functions refuses ExecutionAlreadyExists.
func (m *Machine) Start(_ context.Context, name string, input []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[name]; ok {
		return fmt.Errorf("ExecutionAlreadyExists: %s", name)
	}
	ex := &Execution{Name: name, Input: input, Status: "RUNNING", done: make(chan struct{})}
	m.runs[name] = ex
	m.order = append(m.order, name)
	m.wg.Add(1)
	go m.run(ex)
	return nil
}

// Resume completes the waiting task of token (pipelines.Executor); a
// token no task waits on is no error, as the executor treats
// TaskDoesNotExist.
func (m *Machine) Resume(_ context.Context, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.drop > 0 {
		m.drop--
		return nil
	}
	if ch, ok := m.waiting[token]; ok {
		delete(m.waiting, token)
		close(ch)
	}
	return nil
}

// SetTimeScale shrinks the TimeoutSeconds of the tasks that start after
// (0.1, the default: 900 s become 90 s, longer than a test's stage, so a
// timeout means a lost signal; 1e-3 for a test that wants them).
func (m *Machine) SetTimeScale(f float64) {
	m.mu.Lock()
	m.scale = f
	m.mu.Unlock()
}

// Drop makes the next n Resume calls vanish (lost signals), so that a
// test sees the Await timeout advance the execution anyway.
func (m *Machine) Drop(n int) {
	m.mu.Lock()
	m.drop = n
	m.mu.Unlock()
}

// Executions returns the executions started so far, in order.
func (m *Machine) Executions() []*Execution {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Execution, 0, len(m.order))
	for _, n := range m.order {
		ex := *m.runs[n]
		ex.States = append([]string(nil), ex.States...)
		out = append(out, &ex)
	}
	return out
}

// Wait returns when the named execution has ended, or after d.
func (m *Machine) Wait(name string, d time.Duration) (*Execution, error) {
	m.mu.Lock()
	ex, ok := m.runs[name]
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no execution %s", name)
	}
	select {
	case <-ex.done:
	case <-time.After(d):
		return nil, fmt.Errorf("execution %s still running after %s", name, d)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *ex
	return &cp, nil
}

// Close stops every execution and waits for them.
func (m *Machine) Close() {
	m.cancel()
	m.wg.Wait()
}

// taskError is a task's failure, with the name Retry and Catch match.
type taskError struct{ name, cause string }

func (e *taskError) Error() string { return e.name + ": " + e.cause }

func (m *Machine) run(ex *Execution) {
	defer m.wg.Done()
	defer close(ex.done)
	var input any
	if err := json.Unmarshal(ex.Input, &input); err != nil {
		m.end(ex, "FAILED", "States.Runtime")
		return
	}
	for name := m.def.StartAt; ; {
		if m.ctx.Err() != nil {
			m.end(ex, "ABORTED", "")
			return
		}
		st := m.def.States[name]
		m.mu.Lock()
		ex.States = append(ex.States, name)
		b, _ := json.Marshal(input)
		ex.MaxPayload = max(ex.MaxPayload, len(b))
		m.mu.Unlock()
		switch st.Type {
		case "Succeed":
			m.end(ex, "SUCCEEDED", "")
			return
		case "Fail":
			m.end(ex, "FAILED", st.Error)
			return
		case "Choice":
			next := st.Default
			for _, c := range st.Choices {
				if matches(c, input) {
					next = c.Next
					break
				}
			}
			if next == "" {
				m.end(ex, "FAILED", "States.NoChoiceMatched")
				return
			}
			name = next
		case "Task":
			out, err := m.task(ex, st, input)
			if err != nil {
				var te *taskError
				errors.As(err, &te)
				c, ok := catches(st.Catch, te.name)
				if !ok {
					m.end(ex, "FAILED", te.name)
					return
				}
				input = place(input, c.ResultPath, map[string]any{"Error": te.name, "Cause": te.cause})
				name = c.Next
				continue
			}
			input = place(input, st.ResultPath, out)
			if st.OutputPath != nil {
				input = get(input, nil, *st.OutputPath)
			}
			name = st.Next
		default:
			m.end(ex, "FAILED", "unsupported state type "+st.Type)
			return
		}
	}
}

func (m *Machine) end(ex *Execution, status, errName string) {
	m.mu.Lock()
	ex.Status, ex.Error = status, errName
	m.mu.Unlock()
}

// task runs a Task state with its retriers.
func (m *Machine) task(ex *Execution, st state, input any) (any, error) {
	attempts := map[int]int{}
	for {
		out, err := m.attempt(ex, st, input)
		if err == nil {
			return out, nil
		}
		var te *taskError
		if !errors.As(err, &te) {
			te = &taskError{"States.TaskFailed", err.Error()}
		}
		retried := false
		for i, r := range st.Retry {
			if !matchesError(r.ErrorEquals, te.name) {
				continue
			}
			limit := 3
			if r.MaxAttempts != nil {
				limit = *r.MaxAttempts
			}
			if attempts[i] < limit {
				attempts[i]++
				retried = true
			}
			break
		}
		if !retried {
			return nil, te
		}
		time.Sleep(time.Millisecond)
	}
}

func (m *Machine) attempt(ex *Execution, st state, input any) (any, error) {
	token := ""
	if strings.HasSuffix(st.Resource, ".waitForTaskToken") {
		var b [16]byte
		_, _ = rand.Read(b[:])
		token = hex.EncodeToString(b[:])
	}
	ctxObj := map[string]any{"Task": map[string]any{"Token": token}, "StateMachine": map[string]any{"Id": m.ARN},
		"Execution": map[string]any{"Name": ex.Name}}
	params, err := render(st.Parameters, input, ctxObj)
	if err != nil {
		return nil, &taskError{"States.Runtime", err.Error()}
	}
	p := params.(map[string]any)
	switch st.Resource {
	case "arn:aws:states:::lambda:invoke", "arn:aws:states:::lambda:invoke.waitForTaskToken":
		payload, _ := json.Marshal(p["Payload"])
		m.mu.Lock()
		ex.MaxPayload = max(ex.MaxPayload, len(payload))
		scale := m.scale
		var wake chan struct{}
		if token != "" {
			wake = make(chan struct{})
			m.waiting[token] = wake
		}
		m.mu.Unlock()
		out, err := m.Lambda(m.ctx, fmt.Sprint(p["FunctionName"]), payload)
		if err != nil {
			m.forget(token)
			return nil, &taskError{lambdaErrorName(err), err.Error()}
		}
		if token == "" {
			var v any
			if err := json.Unmarshal(out, &v); err != nil {
				return nil, &taskError{"States.Runtime", err.Error()}
			}
			return map[string]any{"Payload": v, "StatusCode": 200.0}, nil
		}
		secs := st.TimeoutSeconds
		if st.TimeoutPath != "" {
			v, ok := get(input, nil, st.TimeoutPath).(float64)
			if !ok || v <= 0 {
				m.forget(token)
				return nil, &taskError{"States.Runtime", "TimeoutSecondsPath " + st.TimeoutPath + " is not a positive number"}
			}
			secs = v
		}
		var timeout <-chan time.Time
		if secs > 0 {
			timeout = time.After(time.Duration(secs * scale * float64(time.Second)))
		}
		select {
		case <-wake:
			return map[string]any{}, nil
		case <-timeout:
			m.forget(token)
			m.mu.Lock()
			ex.Timeouts++
			m.mu.Unlock()
			return nil, &taskError{"States.Timeout", "no task success within the timeout"}
		case <-m.ctx.Done():
			return nil, &taskError{"States.Runtime", "machine closed"}
		}
	case "arn:aws:states:::states:startExecution":
		in, _ := json.Marshal(p["Input"])
		if p["StateMachineArn"] != m.ARN {
			return nil, &taskError{"StateMachineDoesNotExist", fmt.Sprint(p["StateMachineArn"])}
		}
		if err := m.Start(m.ctx, fmt.Sprint(p["Name"]), in); err != nil {
			return nil, &taskError{"SFN.ExecutionAlreadyExistsException", err.Error()}
		}
		return map[string]any{"ExecutionArn": m.ARN + ":" + fmt.Sprint(p["Name"])}, nil
	}
	return nil, &taskError{"States.Runtime", "unsupported resource " + st.Resource}
}

func (m *Machine) forget(token string) {
	if token == "" {
		return
	}
	m.mu.Lock()
	delete(m.waiting, token)
	m.mu.Unlock()
}

// lambdaErrorName is the error name a function error surfaces as: its
// type, as the Lambda runtime reports it in errorType.
func lambdaErrorName(err error) string { return strings.TrimPrefix(fmt.Sprintf("%T", err), "*") }

func catches(cs []catcher, name string) (catcher, bool) {
	for _, c := range cs {
		if matchesError(c.ErrorEquals, name) {
			return c, true
		}
	}
	return catcher{}, false
}

// matchesError tells whether a retrier's or catcher's ErrorEquals
// matches; States.ALL matches every error but States.Runtime and
// States.DataLimitExceeded, which end the execution.
func matchesError(names []string, name string) bool {
	for _, n := range names {
		if n == name || (n == "States.ALL" && name != "States.Runtime" && name != "States.DataLimitExceeded") {
			return true
		}
	}
	return false
}

func matches(c choice, input any) bool {
	if len(c.And) > 0 {
		for _, a := range c.And {
			if !matches(a, input) {
				return false
			}
		}
		return true
	}
	v := get(input, nil, c.Variable)
	switch {
	case c.StringEquals != nil:
		s, ok := v.(string)
		return ok && s == *c.StringEquals
	case c.BooleanEquals != nil:
		b, ok := v.(bool)
		return ok && b == *c.BooleanEquals
	}
	return false
}

// render applies a Parameters template: keys ending in .$ take the value
// of their path (or intrinsic) and lose the suffix.
func render(tmpl any, input any, ctxObj map[string]any) (any, error) {
	switch t := tmpl.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, v := range t {
			if strings.HasSuffix(k, ".$") {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("%s: not a path", k)
				}
				val, err := evaluate(s, input, ctxObj)
				if err != nil {
					return nil, err
				}
				out[strings.TrimSuffix(k, ".$")] = val
				continue
			}
			r, err := render(v, input, ctxObj)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			r, err := render(v, input, ctxObj)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return tmpl, nil
}

func evaluate(expr string, input any, ctxObj map[string]any) (any, error) {
	if rest, ok := strings.CutPrefix(expr, "States.Format("); ok {
		args := splitArgs(strings.TrimSuffix(rest, ")"))
		if len(args) == 0 {
			return nil, fmt.Errorf("States.Format without a template")
		}
		tpl := strings.Trim(args[0], "'")
		for _, a := range args[1:] {
			v, err := evaluate(a, input, ctxObj)
			if err != nil {
				return nil, err
			}
			tpl = strings.Replace(tpl, "{}", fmt.Sprint(v), 1)
		}
		return tpl, nil
	}
	if !strings.HasPrefix(expr, "$") {
		return nil, fmt.Errorf("unsupported expression %q", expr)
	}
	v := get(input, ctxObj, expr)
	if v == nil {
		return nil, fmt.Errorf("path %s matches nothing", expr)
	}
	return v, nil
}

func splitArgs(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i, r := range s {
		switch {
		case r == '\'':
			quoted = !quoted
		case quoted:
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// get reads a simple path ($, $.a.b, $$.a.b).
func get(input any, ctxObj map[string]any, path string) any {
	var cur any = input
	rest := strings.TrimPrefix(path, "$")
	if r, ok := strings.CutPrefix(path, "$$"); ok {
		cur, rest = ctxObj, r
	}
	for _, part := range strings.Split(strings.TrimPrefix(rest, "."), ".") {
		if part == "" {
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

// place applies a ResultPath: absent keeps the result alone, null keeps
// the input, $.x puts the result there.
func place(input any, resultPath json.RawMessage, result any) any {
	if len(resultPath) == 0 {
		return result
	}
	if string(resultPath) == "null" {
		return input
	}
	var p string
	_ = json.Unmarshal(resultPath, &p)
	if p == "$" {
		return result
	}
	m, ok := input.(map[string]any)
	if !ok {
		return input
	}
	cp := make(map[string]any, len(m)+1)
	for k, v := range m {
		cp[k] = v
	}
	cp[strings.TrimPrefix(p, "$.")] = result
	return cp
}

// ServeHTTP answers the two Step Functions calls the service makes
// (StartExecution, SendTaskSuccess) in the service's JSON protocol, so
// that the AWS SDK client of shared/stepfn drives this machine on
// loopback (AWS_ENDPOINT_URL_SFN).
func (m *Machine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		StateMachineArn string `json:"stateMachineArn"`
		Name            string `json:"name"`
		Input           string `json:"input"`
		TaskToken       string `json:"taskToken"`
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	fail := func(typ, msg string) {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
	}
	if err := json.Unmarshal(b, &in); err != nil {
		fail("SerializationException", err.Error())
		return
	}
	switch strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AWSStepFunctions.") {
	case "StartExecution":
		if in.StateMachineArn != m.ARN {
			fail("StateMachineDoesNotExist", in.StateMachineArn)
			return
		}
		if err := m.Start(r.Context(), in.Name, []byte(in.Input)); err != nil {
			fail("ExecutionAlreadyExists", err.Error())
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"executionArn": m.ARN + ":" + in.Name, "startDate": float64(time.Now().Unix())})
	case "SendTaskSuccess":
		m.mu.Lock()
		_, ok := m.waiting[in.TaskToken]
		m.mu.Unlock()
		if !ok {
			fail("TaskDoesNotExist", "no task waits on this token")
			return
		}
		_ = m.Resume(r.Context(), in.TaskToken)
		_, _ = io.WriteString(w, "{}")
	default:
		fail("UnknownOperationException", r.Header.Get("X-Amz-Target"))
	}
}
