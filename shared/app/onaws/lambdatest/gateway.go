package lambdatest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Gateway is the HTTP API in front of Lambda functions (payload format
// 2.0), as a client sees it:
//
//   - a function that has not answered within IntegrationTimeout: 503
//     {"message":"Service Unavailable"} (the HTTP API's answer to an
//     integration timeout; a REST API would answer 504). The function
//     itself runs on to its own timeout, holding its slot;
//   - a function error (its timeout, an answer over the 6 MB cap, a crash,
//     a returned error), a throttle, a refused event or an answer that is
//     not a valid response: 500 {"message":"Internal Server Error"};
//   - a request body over MaxHTTPAPIPayload: 413.
type Gateway struct {
	// IntegrationTimeout defaults to the HTTP API's 30 s, which AWS does
	// not let an HTTP API raise; tests may scale it down.
	IntegrationTimeout time.Duration

	mu    sync.Mutex
	stats GatewayStats
	// inflight counts the invocations Serve started, including those it
	// stopped waiting for at the integration timeout (the function runs
	// on, as behind API Gateway): Wait waits for them.
	inflight sync.WaitGroup
}

// Wait returns once every invocation Serve started has ended, so that a
// test closes a function only after the calls its gateway gave up on.
func (g *Gateway) Wait() { g.inflight.Wait() }

// GatewayStats count what clients saw.
type GatewayStats struct {
	Requests int
	Status   map[int]int // responses by status code
	// MaxResponse is the largest function response payload that reached
	// a client, in bytes.
	MaxResponse int
	// Violations are the requests a client got a gateway error for (the
	// function's fault, not a status the service chose): 500, 503.
	Violations []string
}

// NewGateway returns a gateway with the HTTP API's integration timeout.
func NewGateway() *Gateway { return &Gateway{IntegrationTimeout: IntegrationTimeout} }

// Stats returns the counts so far.
func (g *Gateway) Stats() GatewayStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.stats
	s.Status = map[int]int{}
	for k, v := range g.stats.Status {
		s.Status[k] = v
	}
	s.Violations = append([]string(nil), g.stats.Violations...)
	return s
}

// Serve passes one request (an events.APIGatewayV2HTTPRequest, or the
// map HTTPEvent builds) to f and returns what the client receives.
func (g *Gateway) Serve(ctx context.Context, f *Function, req any) events.APIGatewayV2HTTPResponse {
	payload, err := json.Marshal(req)
	if err != nil {
		return g.fail(http.StatusBadRequest, "Bad Request", "unencodable request: "+err.Error())
	}
	var parsed struct {
		RawPath string `json:"rawPath"`
		Body    string `json:"body"`
	}
	json.Unmarshal(payload, &parsed)
	what := f.Config().Name + " " + parsed.RawPath
	if len(parsed.Body) > MaxHTTPAPIPayload {
		return g.fail(http.StatusRequestEntityTooLarge, "Request Entity Too Large", what+": request body over the HTTP API's 10 MB")
	}
	timeout := g.IntegrationTimeout
	if timeout <= 0 {
		timeout = IntegrationTimeout
	}
	type out struct {
		res InvokeResult
		err error
	}
	ch := make(chan out, 1)
	g.inflight.Add(1)
	go func() {
		defer g.inflight.Done()
		r, err := f.Invoke(ctx, payload)
		ch <- out{r, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var o out
	select {
	case o = <-ch:
	case <-timer.C:
		return g.fail(http.StatusServiceUnavailable, "Service Unavailable", what+": no answer within the integration timeout "+timeout.String())
	}
	switch {
	case errors.Is(o.err, ErrThrottled):
		return g.fail(http.StatusInternalServerError, "Internal Server Error", what+": throttled")
	case o.err != nil:
		return g.fail(http.StatusInternalServerError, "Internal Server Error", what+": "+o.err.Error())
	case o.res.Err != nil:
		return g.fail(http.StatusInternalServerError, "Internal Server Error", what+": "+o.res.Err.Error())
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(o.res.Payload, &resp); err != nil || resp.StatusCode == 0 {
		return g.fail(http.StatusInternalServerError, "Internal Server Error", what+": malformed Lambda proxy response")
	}
	g.mu.Lock()
	g.count(resp.StatusCode)
	g.stats.MaxResponse = max(g.stats.MaxResponse, len(o.res.Payload))
	g.mu.Unlock()
	return resp
}

func (g *Gateway) fail(status int, message, why string) events.APIGatewayV2HTTPResponse {
	g.mu.Lock()
	g.count(status)
	g.stats.Violations = append(g.stats.Violations, why)
	g.mu.Unlock()
	b, _ := json.Marshal(map[string]string{"message": message})
	return events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(b)}
}

// count records a status; g.mu is held.
func (g *Gateway) count(status int) {
	g.stats.Requests++
	if g.stats.Status == nil {
		g.stats.Status = map[int]int{}
	}
	g.stats.Status[status]++
}
