package onaws_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
	"github.com/prospectdata/svc/shared/app/onaws/lambdatest"
	"github.com/prospectdata/svc/shared/provider/fleet"
	"github.com/prospectdata/svc/shared/provider/fleet/fleettest"
)

// placesStandIn is a loopback stand-in of the Places API (New): every Text
// Search answers an empty page after latency, the request of index
// throttle (from 0; -1 for none) a 429 of the per-minute quota. It
// records every request's start and end.
type placesStandIn struct {
	*httptest.Server
	latency  time.Duration
	throttle int

	mu        sync.Mutex
	calls     []fleettest.Call
	throttled time.Time // when the 429 was answered
}

const quota429 = `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED",` +
	`"message":"Quota exceeded for quota metric 'SearchTextRequest' and limit 'SearchTextRequest per minute' of service 'places.googleapis.com' for consumer 'project_number:123456789012'.",` +
	`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com",` +
	`"metadata":{"quota_limit":"SearchTextRequestPerMinutePerProject","service":"places.googleapis.com"}}]}}`

func newPlacesStandIn(t testing.TB, latency time.Duration, throttle int) *placesStandIn {
	s := &placesStandIn{latency: latency, throttle: throttle}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		i := len(s.calls)
		s.calls = append(s.calls, fleettest.Call{Start: time.Now()})
		s.mu.Unlock()
		time.Sleep(s.latency)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v1/places:searchText" || r.Header.Get("X-Goog-Api-Key") == "" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"unexpected request"}}`))
		} else if i == s.throttle {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(quota429))
		} else {
			w.Write([]byte(`{}`))
		}
		s.mu.Lock()
		s.calls[i].End = time.Now()
		if i == s.throttle {
			s.throttled = s.calls[i].End
		}
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *placesStandIn) recorded() ([]fleettest.Call, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]fleettest.Call(nil), s.calls...), s.throttled
}

// departures records when each request to host leaves a worker's client
// and when its answer comes back: the Google client sends through the
// process's default transport, and the fleet limit governs when requests
// leave. Where they arrive, the stand-in dates them later by each worker
// process's first connection and by the machine's load.
type departures struct {
	next http.RoundTripper
	host string

	mu    sync.Mutex
	calls []fleettest.Call
	// failed counts the requests that ended in a transport error (an
	// invocation's context ended under load, a connection reset): they
	// left, and may or may not have reached the stand-in.
	failed int
}

func (d *departures) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != d.host {
		return d.next.RoundTrip(r)
	}
	c := fleettest.Call{Start: time.Now()}
	resp, err := d.next.RoundTrip(r)
	c.End = time.Now()
	d.mu.Lock()
	d.calls = append(d.calls, c)
	if err != nil {
		d.failed++
	}
	d.mu.Unlock()
	return resp, err
}

// loadRun is one scrape run on the AWS path with the Google provider
// pointed at a stand-in, under the provider limits inFlight and
// perSecond, by up to invocations concurrent worker-tasks Lambdas.
type loadRun struct {
	requests      int
	inFlight      int // most requests under way at the stand-in
	perSecond     int // most sent within one second, sliding
	arrivals      int // most arrived at the stand-in within one second
	span          time.Duration
	job           string // final status
	coldStarts    int    // worker-tasks environments (processes)
	maxConcurrent int    // most worker-tasks invocations at once
	calls         []fleettest.Call
	throttled     time.Time
}

func runProviderLoad(t testing.TB, rt *awsRuntime, places *placesStandIn, invocations, inFlight, perSecond int, queries, zone string) loadRun {
	t.Helper()
	for k, v := range map[string]string{
		"SVC_MAP_PROVIDER": "google", "SVC_GOOGLE_PLACES_KEY": "AIzaSy-stand-in-key", "SVC_GOOGLE_PLACES_URL": places.URL,
		"SVC_PROVIDER_MAX_IN_FLIGHT": fmt.Sprint(inFlight), "SVC_PROVIDER_MAX_PER_SECOND": fmt.Sprint(perSecond),
	} {
		rt.env[k] = v
	}
	ctx := rt.ctx
	dep := &departures{next: http.DefaultTransport, host: mustURL(t, places.URL).Host}
	http.DefaultTransport = dep
	defer func() { http.DefaultTransport = dep.next }()
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup(fmt.Sprintf("load%d@example.org", time.Now().UnixNano()))
	cr := rt.call(jobsFn, "POST", "/api/jobs", `{"queries":`+queries+`,"zones":["`+zone+`"],"scrap_mode":"fast"}`, bearer)
	var job struct{ ID, Status string }
	if err := json.Unmarshal([]byte(cr.Body), &job); err != nil || cr.StatusCode != 200 {
		t.Fatalf("create: %d %s", cr.StatusCode, cr.Body)
	}

	// Each cold start builds its handler from the environment, as the
	// Lambda's init does: one process, one limiter, each drawing on the
	// budget in the limits table.
	worker := func(name string) lambdatest.Starter {
		return lambdatest.InProcess(func(ctx context.Context) (lambdatest.Handler, error) {
			h, err := onaws.WorkerHandler(ctx, name, rt.getenv)
			if err != nil {
				return nil, err
			}
			return lambdatest.Typed(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) { return h(ctx, ev) }), nil
		})
	}
	tasks := lambdatest.New(lambdatest.Config{Name: "worker-tasks", Timeout: 120 * time.Second, Concurrency: invocations}, worker("worker-tasks"))
	finalizer := lambdatest.New(lambdatest.Config{Name: "job-finalizer", Timeout: 900 * time.Second, Concurrency: 2}, worker("job-finalizer"))
	defer tasks.Close()
	defer finalizer.Close()
	srcCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, src := range []*lambdatest.SQSSource{
		{Client: rt.sqs, QueueURL: rt.queues[app.QueueTasks], Function: tasks, MaxConcurrency: invocations},
		{Client: rt.sqs, QueueURL: rt.queues[app.QueueFinalize], Function: finalizer},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := src.Run(srcCtx); err != nil {
				t.Error(err)
			}
		}()
	}
	start := time.Now()
	for end := start.Add(3 * time.Minute); job.Status != "done" && job.Status != "failed"; time.Sleep(250 * time.Millisecond) {
		if time.Now().After(end) {
			stop()
			wg.Wait()
			t.Fatalf("job still %s after %v", job.Status, time.Since(start))
		}
		gr := rt.call(jobsFn, "GET", "/api/jobs/"+job.ID, "", bearer)
		if err := json.Unmarshal([]byte(gr.Body), &job); err != nil {
			t.Fatal(err)
		}
	}
	span := time.Since(start)
	stop()
	wg.Wait()
	calls, throttled := places.recorded()
	dep.mu.Lock()
	sent, failed := dep.calls, dep.failed
	dep.mu.Unlock()
	// Every request that arrived left through the limiter; one that left
	// and did not arrive ended in a transport error.
	if len(calls) > len(sent) || len(sent)-len(calls) > failed {
		t.Errorf("%d requests sent (%d ended in a transport error), %d received", len(sent), failed, len(calls))
	}
	st := tasks.Stats()
	return loadRun{
		requests: len(calls), inFlight: fleettest.MaxInFlight(calls), perSecond: fleettest.MaxPerWindow(sent, time.Second),
		arrivals: fleettest.MaxPerWindow(calls, time.Second),
		span:     span, job: job.Status, coldStarts: st.ColdStarts, maxConcurrent: st.MaxConcurrent, calls: calls, throttled: throttled,
	}
}

// TestProviderLoadOnAWS runs a scrape on the AWS path with the Google
// provider (a loopback stand-in of the Places API) and the provider limits
// of 10 requests in flight and 50 per second: up to 50 worker-tasks
// Lambdas at once, each built from the environment as its init does, over
// the tables of DynamoDB Local and the queues of the SQS emulator. The
// stand-in never sees more than 10 requests under way, the workers never
// send more than 50 in any second; the 429 it answers midway pauses every
// worker for the fleet's pause, not only the one that met it.
func TestProviderLoadOnAWS(t *testing.T) {
	rt := newAWSRuntime(t)
	places := newPlacesStandIn(t, 60*time.Millisecond, 60)
	r := runProviderLoad(t, rt, places, 50, 10, 50, `["boulangerie","pharmacie","coiffeur","fleuriste"]`, "Lyon")
	t.Logf("%d requests in %v by %d worker processes (at most %d invocations at once): at most %d in flight, %d sent in a second (%d arrived)",
		r.requests, r.span.Round(time.Millisecond), r.coldStarts, r.maxConcurrent, r.inFlight, r.perSecond, r.arrivals)
	if r.job != "done" {
		t.Errorf("job %s", r.job)
	}
	if r.requests < 100 {
		t.Fatalf("%d provider requests: too few to load the limits", r.requests)
	}
	if r.maxConcurrent <= 10 {
		t.Errorf("at most %d worker invocations at once: the limits were never what bounded the load", r.maxConcurrent)
	}
	if r.inFlight > 10 {
		t.Errorf("%d provider requests in flight at once, limit 10", r.inFlight)
	}
	if r.perSecond > 50 {
		t.Errorf("%d provider requests sent within one second, limit 50", r.perSecond)
	}
	if r.throttled.IsZero() {
		t.Fatal("the stand-in never answered its 429")
	}
	// Requests admitted before the pause was recorded may start just
	// after the 429; none after that until the pause ends.
	from, to := r.throttled.Add(250*time.Millisecond), r.throttled.Add(fleet.DefaultPause-100*time.Millisecond)
	for _, c := range r.calls {
		if c.Start.After(from) && c.Start.Before(to) {
			t.Errorf("a request started %v after the 429, within the fleet's pause (%v)", c.Start.Sub(r.throttled).Round(time.Millisecond), fleet.DefaultPause)
		}
	}
}

// BenchmarkProviderLoad is the measure of docs/benchmarks.md: a scrape of
// the Rhône (two queries, 253 Text Search requests) on the AWS path by up
// to 50 concurrent worker-tasks invocations under the limits of 10
// requests in flight and 50 per second, the stand-in answering each in
// 100 ms. It reports the most requests seen in flight, sent in a second
// and arrived in a second, and the job's time against the ideal
// (requests ÷ 50 per second).
func BenchmarkProviderLoad(b *testing.B) {
	const perSecond = 50
	var r loadRun
	for range b.N {
		rt := newAWSRuntime(b)
		r = runProviderLoad(b, rt, newPlacesStandIn(b, 100*time.Millisecond, -1), 50, 10, perSecond, `["boulangerie","pharmacie"]`, "Rhône")
		if r.job != "done" || r.inFlight > 10 || r.perSecond > perSecond {
			b.Fatalf("job %s, %d in flight, %d in a second", r.job, r.inFlight, r.perSecond)
		}
	}
	ideal := time.Duration(r.requests) * time.Second / perSecond
	first, last := r.calls[0].Start, r.calls[0].End
	for _, c := range r.calls {
		last = later(last, c.End)
	}
	b.ReportMetric(float64(r.requests), "requests")
	b.ReportMetric(float64(r.inFlight), "max_in_flight")
	b.ReportMetric(float64(r.perSecond), "max_per_s")
	b.ReportMetric(float64(r.arrivals), "max_arrived_per_s")
	b.ReportMetric(float64(r.maxConcurrent), "max_invocations")
	b.ReportMetric(last.Sub(first).Seconds(), "requests_s")
	b.ReportMetric(r.span.Seconds(), "job_s")
	b.ReportMetric(ideal.Seconds(), "ideal_s")
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
