// Package lambdatest is a loopback stand-in for the Lambda service, so
// tests and benchmarks meet the platform's documented limits (limits.go)
// rather than only what an emulator tolerates:
//
//   - Runtime serves the Lambda Runtime API (2018-06-01) to a real
//     bootstrap binary: the binary long-polls for the next event and
//     posts its response back. Each invocation gets the configured
//     deadline; a response over the payload cap is refused with 413 and
//     the caller gets Function.ResponseSizeTooLarge; no response by the
//     deadline is a timeout.
//   - Function is a function with its timeout and concurrency cap, over
//     execution environments that are either in-process handlers or
//     bootstrap processes (a timed-out environment is discarded: a
//     process is killed, the next invocation starts a new one).
//   - Gateway is the HTTP API in front of a function (30 s integration
//     timeout, 500 on a function error, 503 when the function is too
//     slow).
//   - SQSSource is the SQS event source mapping: batches of one record,
//     a maximum concurrency, deletes only what succeeded in time, and a
//     message whose invocation failed or timed out reappears after the
//     queue's visibility timeout, then goes to the dead-letter queue past
//     its maximum receives.
//
// docs/aws-limits.md describes the harness and its limits.
package lambdatest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout is the deadline Start gives every invocation: the API
// functions' timeout (infra/stack.go's functionTimeoutS).
const DefaultTimeout = 15 * time.Second

// Options configure a Runtime.
type Options struct {
	// Timeout is the function's configured timeout: each invocation's
	// Lambda-Runtime-Deadline-Ms is the moment /next hands it over plus
	// Timeout (default DefaultTimeout).
	Timeout time.Duration
	// FunctionName names the function in its ARN (default "test").
	FunctionName string
}

// Runtime serves the Runtime API on a loopback port, for one execution
// environment (one process): Lambda runs one invocation at a time in an
// environment.
type Runtime struct {
	Addr string

	opts   Options
	srv    *http.Server
	events chan *invocation
	mu     sync.Mutex
	wait   map[string]*invocation
	seq    int
	initEr chan string
	// broken: the runtime client was refused an answer (413), which the
	// Go runtime client treats as fatal: its process is exiting.
	broken bool
}

type invocation struct {
	id      string
	body    []byte
	started chan time.Time // the deadline, once /next handed the event over
	done    chan Result    // buffered: the one answer
}

// Result is what the function answered to one invocation.
type Result struct {
	// Body is the response payload, or Lambda's error document
	// {"errorType","errorMessage"} when Error is set.
	Body  []byte
	Error bool
	At    time.Time
	// TimedOut: no answer by the deadline (Body is Sandbox.Timedout).
	TimedOut bool
	// TooLarge: the answer exceeded MaxSyncPayload and was refused (Body
	// is Function.ResponseSizeTooLarge); Size is what the function sent.
	TooLarge bool
	Size     int
}

// Start listens on 127.0.0.1 with the default options.
func Start() (*Runtime, error) { return StartWith(Options{}) }

// StartWith listens on 127.0.0.1.
func StartWith(o Options) (*Runtime, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.FunctionName == "" {
		o.FunctionName = "test"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Runtime{Addr: ln.Addr().String(), opts: o, events: make(chan *invocation, 16), wait: map[string]*invocation{}, initEr: make(chan string, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", r.next)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", r.result(false))
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", r.result(true))
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		select {
		case r.initEr <- string(b):
		default:
		}
		w.WriteHeader(http.StatusAccepted)
	})
	r.srv = &http.Server{Handler: mux}
	go r.srv.Serve(ln)
	return r, nil
}

// Close stops the server.
func (r *Runtime) Close() error { return r.srv.Close() }

// Broken reports whether the runtime client was refused an answer over
// the cap: aws-lambda-go exits on it, and Lambda starts a new
// environment for the next invocation.
func (r *Runtime) Broken() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.broken
}

// Timeout is the function timeout each invocation gets.
func (r *Runtime) Timeout() time.Duration { return r.opts.Timeout }

func (r *Runtime) next(w http.ResponseWriter, req *http.Request) {
	select {
	case inv := <-r.events:
		deadline := time.Now().Add(r.opts.Timeout)
		h := w.Header()
		h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
		h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(deadline.UnixMilli(), 10))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:eu-west-3:000000000000:function:"+r.opts.FunctionName)
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000")
		h.Set("Content-Type", "application/json")
		inv.started <- deadline
		w.Write(inv.body)
	case <-req.Context().Done():
	}
}

func (r *Runtime) result(isErr bool) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		// Read one byte past the cap: enough to know it is exceeded
		// without holding an unbounded answer.
		b, _ := io.ReadAll(io.LimitReader(req.Body, MaxSyncPayload+1))
		n := len(b)
		if n > MaxSyncPayload {
			m, _ := io.Copy(io.Discard, req.Body)
			n += int(m)
		}
		at := time.Now()
		id := req.PathValue("id")
		r.mu.Lock()
		inv := r.wait[id]
		delete(r.wait, id)
		r.mu.Unlock()
		if inv == nil {
			// Answered after its deadline, or twice: Lambda no longer
			// knows the request.
			http.Error(w, `{"errorType":"InvalidRequestID","errorMessage":"Invalid request ID"}`, http.StatusBadRequest)
			return
		}
		res := Result{Body: b, Error: isErr, At: at, Size: n}
		if n > MaxSyncPayload {
			// The runtime is told 413, the caller gets the error.
			res = Result{Body: tooLargeError(n).payload(), Error: true, At: at, TooLarge: true, Size: n}
			r.mu.Lock()
			r.broken = true
			r.mu.Unlock()
			inv.done <- res
			http.Error(w, fmt.Sprintf(`{"errorType":"RequestEntityTooLarge","errorMessage":"Exceeded maximum allowed payload size (%d bytes)."}`, MaxSyncPayload),
				http.StatusRequestEntityTooLarge)
			return
		}
		inv.done <- res
		w.WriteHeader(http.StatusAccepted)
	}
}

// Invoke queues an event and waits for the function's answer, at most
// wait for the function to take the event and then until its deadline.
func (r *Runtime) Invoke(event any, wait time.Duration) (Result, error) {
	body, err := json.Marshal(event)
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return r.InvokePayload(ctx, body)
}

// InvokePayload is Invoke of a serialized event. The function has until
// its deadline (handover plus Timeout) to answer: past it the result is a
// timeout and a late answer is refused. ctx bounds the wait for the
// handover and the answer.
func (r *Runtime) InvokePayload(ctx context.Context, body []byte) (Result, error) {
	if len(body) > MaxSyncPayload {
		return Result{}, fmt.Errorf("%w (%d bytes, cap %d)", ErrRequestTooLarge, len(body), MaxSyncPayload)
	}
	inv := &invocation{body: body, started: make(chan time.Time, 1), done: make(chan Result, 1)}
	r.mu.Lock()
	r.seq++
	inv.id = fmt.Sprintf("req-%d", r.seq)
	r.wait[inv.id] = inv
	r.mu.Unlock()
	forget := func() {
		r.mu.Lock()
		delete(r.wait, inv.id)
		r.mu.Unlock()
	}
	select {
	case r.events <- inv:
	case <-ctx.Done():
		forget()
		return Result{}, fmt.Errorf("event %s not queued: %w", inv.id, ctx.Err())
	}
	var deadline time.Time
	select {
	case deadline = <-inv.started:
	case msg := <-r.initEr:
		forget()
		return Result{}, fmt.Errorf("init error: %s", msg)
	case <-ctx.Done():
		forget()
		return Result{}, fmt.Errorf("no runtime took %s: %w", inv.id, ctx.Err())
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case res := <-inv.done:
		return res, nil
	case <-timer.C:
		forget()
		// A response posted in the same instant may have won the race.
		select {
		case res := <-inv.done:
			return res, nil
		default:
		}
		return Result{Body: timeoutError(r.opts.Timeout).payload(), Error: true, At: time.Now(), TimedOut: true}, nil
	case <-ctx.Done():
		forget()
		return Result{}, fmt.Errorf("no answer to %s: %w", inv.id, ctx.Err())
	}
}

// HTTPEvent builds an HTTP API (payload v2) event for a request.
func HTTPEvent(method, rawPath, rawQuery string, headers map[string]string, cookies []string, body string) map[string]any {
	h := map[string]any{}
	for k, v := range headers {
		h[strings.ToLower(k)] = v
	}
	return map[string]any{
		"version":         "2.0",
		"routeKey":        "$default",
		"rawPath":         rawPath,
		"rawQueryString":  rawQuery,
		"cookies":         cookies,
		"headers":         h,
		"body":            body,
		"isBase64Encoded": false,
		"requestContext": map[string]any{
			"accountId":  "000000000000",
			"apiId":      "test",
			"domainName": "test.execute-api.eu-west-3.amazonaws.com",
			"requestId":  "r1",
			"routeKey":   "$default",
			"stage":      "$default",
			"timeEpoch":  time.Now().UnixMilli(),
			"http": map[string]any{
				"method":    method,
				"path":      rawPath,
				"protocol":  "HTTP/1.1",
				"sourceIp":  "198.51.100.10",
				"userAgent": "lambdatest",
			},
		},
	}
}
