// Package lambdatest is a loopback stand-in for the Lambda Runtime API
// (2018-06-01), so tests and benchmarks can run a real bootstrap binary the
// way the Lambda service does: the binary long-polls for the next event and
// posts its response back.
package lambdatest

import (
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

// Runtime serves the Runtime API on a loopback port.
type Runtime struct {
	Addr string

	srv    *http.Server
	events chan invocation
	mu     sync.Mutex
	wait   map[string]chan Result
	seq    int
	initEr chan string
}

type invocation struct {
	id   string
	body []byte
}

// Result is what the function answered to one invocation.
type Result struct {
	Body  []byte
	Error bool
	At    time.Time
}

// Start listens on 127.0.0.1.
func Start() (*Runtime, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Runtime{Addr: ln.Addr().String(), events: make(chan invocation, 16), wait: map[string]chan Result{}, initEr: make(chan string, 1)}
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

func (r *Runtime) next(w http.ResponseWriter, req *http.Request) {
	select {
	case inv := <-r.events:
		h := w.Header()
		h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
		h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(15*time.Second).UnixMilli(), 10))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:eu-west-3:000000000000:function:test")
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000")
		h.Set("Content-Type", "application/json")
		w.Write(inv.body)
	case <-req.Context().Done():
	}
}

func (r *Runtime) result(isErr bool) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		at := time.Now()
		r.mu.Lock()
		ch := r.wait[req.PathValue("id")]
		delete(r.wait, req.PathValue("id"))
		r.mu.Unlock()
		if ch != nil {
			ch <- Result{Body: b, Error: isErr, At: at}
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

// Invoke queues an event and waits for the function's answer.
func (r *Runtime) Invoke(event any, timeout time.Duration) (Result, error) {
	body, err := json.Marshal(event)
	if err != nil {
		return Result{}, err
	}
	ch := make(chan Result, 1)
	r.mu.Lock()
	r.seq++
	id := fmt.Sprintf("req-%d", r.seq)
	r.wait[id] = ch
	r.mu.Unlock()
	r.events <- invocation{id: id, body: body}
	select {
	case res := <-ch:
		return res, nil
	case msg := <-r.initEr:
		return Result{}, fmt.Errorf("init error: %s", msg)
	case <-time.After(timeout):
		return Result{}, fmt.Errorf("no answer to %s within %v", id, timeout)
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
