package lambdatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// Config is a function's configuration, as the stack sets it.
type Config struct {
	Name string
	// Timeout is the function timeout (1 s to MaxFunctionTimeout on
	// Lambda; any positive duration here, so tests can scale it down).
	Timeout time.Duration
	// Concurrency caps the invocations running at once: the function's
	// reserved concurrency (default AccountConcurrency, the Region's
	// quota). A synchronous invocation beyond it is throttled.
	Concurrency int
	// MaxRequest caps the event (default MaxSyncPayload).
	MaxRequest int
}

// Environment is one execution environment: it runs one invocation at a
// time. Invoke returns the response payload or a function error; it may
// return late, and the Function treats anything after ctx's deadline as
// a timeout. Close ends the environment (a process is killed).
type Environment interface {
	Invoke(ctx context.Context, payload []byte) ([]byte, *FunctionError)
	Close() error
}

// Starter starts a new execution environment (a cold start).
type Starter func(ctx context.Context, cfg Config) (Environment, error)

// Function is a Lambda function: invocations run in its environments, at
// most Concurrency at once, each cut at the timeout; an environment whose
// invocation timed out or crashed is discarded, as Lambda does.
type Function struct {
	cfg   Config
	start Starter
	slots chan struct{}

	mu    sync.Mutex
	idle  []Environment
	all   map[Environment]bool
	stats Stats
	// late counts in-process invocations still running past their
	// deadline (Close waits for them).
	late sync.WaitGroup
}

// Stats count a function's invocations.
type Stats struct {
	Invocations int // invocations that ran (throttled and refused ones excluded)
	Errors      int // function errors of any kind, timeouts included
	Timeouts    int
	TooLarge    int // responses over MaxSyncPayload
	Throttles   int
	Refused     int // events over the request cap
	ColdStarts  int
	// MaxConcurrent is the most invocations seen running at once.
	MaxConcurrent int
	// MaxResponse and MaxRequest are the largest payloads in bytes, the
	// refused ones included.
	MaxResponse, MaxRequest int
	// MaxDuration and TotalDuration are over invocations that ran.
	MaxDuration, TotalDuration time.Duration
	active                     int
}

// InvokeResult is one invocation's outcome as its caller sees it.
type InvokeResult struct {
	// Payload is the response, or Lambda's error document when Err is set.
	Payload  []byte
	Err      *FunctionError
	Duration time.Duration
	// Size is the size of the response the function produced (above the
	// cap when Err is Function.ResponseSizeTooLarge).
	Size int
}

// New returns a function whose environments start does.
func New(cfg Config, start Starter) *Function {
	if cfg.Timeout <= 0 {
		panic("lambdatest: a function needs a timeout") // a test's mistake
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = AccountConcurrency
	}
	if cfg.MaxRequest <= 0 {
		cfg.MaxRequest = MaxSyncPayload
	}
	return &Function{cfg: cfg, start: start, slots: make(chan struct{}, cfg.Concurrency), all: map[Environment]bool{}}
}

// Config returns the function's configuration.
func (f *Function) Config() Config { return f.cfg }

// Stats returns the counts so far.
func (f *Function) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// Invoke is a synchronous invocation (RequestResponse), as API Gateway
// makes: throttled (ErrThrottled) when Concurrency invocations already
// run.
func (f *Function) Invoke(ctx context.Context, payload []byte) (InvokeResult, error) {
	select {
	case f.slots <- struct{}{}:
	default:
		f.mu.Lock()
		f.stats.Throttles++
		f.mu.Unlock()
		return InvokeResult{}, ErrThrottled
	}
	return f.run(ctx, payload)
}

// InvokeWhenFree waits for a free slot, then invokes: an event source
// mapping polls only as many messages as it may run.
func (f *Function) InvokeWhenFree(ctx context.Context, payload []byte) (InvokeResult, error) {
	select {
	case f.slots <- struct{}{}:
	case <-ctx.Done():
		return InvokeResult{}, ctx.Err()
	}
	return f.run(ctx, payload)
}

func (f *Function) run(ctx context.Context, payload []byte) (InvokeResult, error) {
	defer func() { <-f.slots }()
	env, err := f.admit(payload)
	if err != nil {
		return InvokeResult{}, err
	}
	defer func() {
		f.mu.Lock()
		f.stats.active--
		f.mu.Unlock()
	}()
	if env == nil {
		if env, err = f.coldStart(ctx); err != nil {
			return InvokeResult{}, err
		}
	}
	res, discard := f.call(ctx, env, payload)
	f.settle(env, res, discard)
	return res, nil
}

// admit refuses an event over the request cap, else counts the
// invocation as running and hands it an idle environment, nil when none
// is left (a cold start follows).
func (f *Function) admit(payload []byte) (Environment, error) {
	f.mu.Lock()
	f.stats.MaxRequest = max(f.stats.MaxRequest, len(payload))
	if len(payload) > f.cfg.MaxRequest {
		f.stats.Refused++
		f.mu.Unlock()
		return nil, fmt.Errorf("%w: %s got %d bytes, cap %d", ErrRequestTooLarge, f.cfg.Name, len(payload), f.cfg.MaxRequest)
	}
	var env Environment
	var dead []Environment
	for n := len(f.idle); n > 0 && env == nil; n = len(f.idle) {
		env, f.idle = f.idle[n-1], f.idle[:n-1]
		if a, ok := env.(interface{ Alive() bool }); ok && !a.Alive() {
			// Lambda notices a runtime that exited between
			// invocations and starts a new environment.
			delete(f.all, env)
			dead, env = append(dead, env), nil
		}
	}
	f.stats.active++
	f.stats.MaxConcurrent = max(f.stats.MaxConcurrent, f.stats.active)
	f.mu.Unlock()
	for _, d := range dead {
		d.Close()
	}
	return env, nil
}

// coldStart starts a new environment and registers it.
func (f *Function) coldStart(ctx context.Context) (Environment, error) {
	// Init has its own budget on Lambda (10 s), not the
	// invocation's timeout.
	env, err := f.start(ctx, f.cfg)
	if err != nil {
		return nil, fmt.Errorf("lambdatest: init of %s: %w", f.cfg.Name, err)
	}
	f.mu.Lock()
	f.stats.ColdStarts++
	f.all[env] = true
	f.mu.Unlock()
	return env, nil
}

// answer is what an environment's Invoke returned.
type answer struct {
	body []byte
	ferr *FunctionError
}

// call runs one invocation in env, cut at the timeout, and reports its
// result as the caller sees it and whether env must be discarded.
func (f *Function) call(ctx context.Context, env Environment, payload []byte) (InvokeResult, bool) {
	// The invocation does not inherit the caller's cancellation: Lambda
	// runs it to its end or its deadline whatever the caller does.
	began := time.Now()
	ictx, cancel := context.WithDeadline(context.WithoutCancel(ctx), began.Add(f.cfg.Timeout))
	done := make(chan answer, 1)
	f.late.Add(1)
	go func() {
		defer f.late.Done()
		b, e := env.Invoke(ictx, payload)
		done <- answer{b, e}
	}()
	var ans answer
	timedOut := false
	select {
	case ans = <-done:
		// An answer that arrives after the deadline is a timeout all the
		// same: Lambda would have stopped the environment first.
		timedOut = time.Since(began) > f.cfg.Timeout
	case <-ictx.Done():
		timedOut = true
	}
	cancel()
	return f.outcome(ans, timedOut, began)
}

// outcome turns an answer into the caller's result: a timeout or an
// oversized response replaces it with Lambda's error, and an environment
// that timed out or exited is not reused.
func (f *Function) outcome(ans answer, timedOut bool, began time.Time) (InvokeResult, bool) {
	res := InvokeResult{Payload: ans.body, Err: ans.ferr, Duration: min(time.Since(began), f.cfg.Timeout), Size: len(ans.body)}
	if ans.ferr != nil && ans.ferr.size > 0 {
		res.Size = ans.ferr.size
	}
	discard := false
	switch {
	case timedOut:
		res = InvokeResult{Err: timeoutError(f.cfg.Timeout), Duration: f.cfg.Timeout}
		discard = true
	case ans.ferr == nil && len(ans.body) > MaxSyncPayload:
		res.Err, res.Payload = tooLargeError(len(ans.body)), nil
	case ans.ferr != nil && ans.ferr.Type == ErrorExit:
		discard = true
	}
	if res.Err != nil && res.Payload == nil {
		res.Payload = res.Err.payload()
	}
	return res, discard
}

// settle counts a finished invocation and returns env to the idle pool,
// or closes it when discard says it may not be reused.
func (f *Function) settle(env Environment, res InvokeResult, discard bool) {
	f.mu.Lock()
	f.stats.Invocations++
	f.stats.TotalDuration += res.Duration
	f.stats.MaxDuration = max(f.stats.MaxDuration, res.Duration)
	f.stats.MaxResponse = max(f.stats.MaxResponse, res.Size)
	if res.Err != nil {
		f.stats.Errors++
		switch res.Err.Type {
		case ErrorTimeout:
			f.stats.Timeouts++
		case ErrorResponseTooLarge:
			f.stats.TooLarge++
		}
	}
	if discard {
		delete(f.all, env)
	} else {
		f.idle = append(f.idle, env)
	}
	f.mu.Unlock()
	if discard {
		env.Close()
	}
}

// Close ends every environment and waits for in-process invocations
// that ran past their deadline to return (their context is cancelled).
func (f *Function) Close() error {
	f.mu.Lock()
	envs := make([]Environment, 0, len(f.all))
	for e := range f.all {
		envs = append(envs, e)
	}
	f.all, f.idle = map[Environment]bool{}, nil
	f.mu.Unlock()
	var errs []error
	for _, e := range envs {
		errs = append(errs, e.Close())
	}
	f.late.Wait()
	return errors.Join(errs...)
}

// Handler is an in-process function: the serialized event in, the
// serialized response out, as the Lambda runtime client sees them.
type Handler func(ctx context.Context, payload []byte) ([]byte, error)

// Typed adapts a typed handler (the shape aws-lambda-go's lambda.Start
// takes) to a Handler: the event decoded from JSON, the response encoded
// to JSON, so payload sizes are the bytes Lambda would count.
func Typed[In, Out any](h func(context.Context, In) (Out, error)) Handler {
	return func(ctx context.Context, payload []byte) ([]byte, error) {
		var in In
		if err := json.Unmarshal(payload, &in); err != nil {
			return nil, err
		}
		out, err := h(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}
}

// InProcess starts environments that run handlers in this process: init
// builds an environment's handler (once per cold start). A handler cannot
// be stopped like a process: at the deadline its context is cancelled,
// and whatever it returns afterwards is discarded as a timeout.
func InProcess(init func(ctx context.Context) (Handler, error)) Starter {
	var seq int
	var mu sync.Mutex
	return func(ctx context.Context, cfg Config) (Environment, error) {
		h, err := init(ctx)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		seq++
		n := seq
		mu.Unlock()
		return &inProcess{h: h, name: cfg.Name, n: n}, nil
	}
}

// Static starts environments that all share h.
func Static(h Handler) Starter {
	return InProcess(func(context.Context) (Handler, error) { return h, nil })
}

type inProcess struct {
	h    Handler
	name string
	n    int
	seq  int
}

func (e *inProcess) Invoke(ctx context.Context, payload []byte) (body []byte, ferr *FunctionError) {
	e.seq++
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{
		AwsRequestID:       fmt.Sprintf("%s-%d-%d", e.name, e.n, e.seq),
		InvokedFunctionArn: "arn:aws:lambda:eu-west-3:000000000000:function:" + e.name,
	})
	defer func() {
		// The Go runtime client reports a panic as the invocation's
		// error and the process exits: the environment is not reused.
		if p := recover(); p != nil {
			body, ferr = nil, &FunctionError{Type: ErrorExit, Message: fmt.Sprint("panic: ", p)}
		}
	}()
	b, err := e.h(ctx, payload)
	if err != nil {
		return nil, &FunctionError{Type: errorType(err), Message: err.Error()}
	}
	return b, nil
}

func (e *inProcess) Close() error { return nil }

// errorType names an error as the Go runtime client does: its type's
// name.
func errorType(err error) string {
	t := reflect.TypeOf(err)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
