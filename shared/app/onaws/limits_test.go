package onaws_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/app/onaws"
	"github.com/prospectdata/svc/shared/app/onaws/lambdatest"
)

type sqsAttr = sqstypes.QueueAttributeName

// apiTimeout is the API functions' timeout: infra/stack.go's
// functionTimeoutS (the infra module is not importable from here).
const apiTimeout = 15 * time.Second

// stackOptions size the harness. Payload caps are never scaled: only
// time budgets are.
type stackOptions struct {
	// Scale multiplies every worker's timeout (app.Workers' TimeoutS),
	// and so its queue's visibility timeout (app.VisibilityFactor times
	// the scaled timeout). 1 is the stack's own.
	Scale float64
	// IntegrationTimeout is the gateway's (default the HTTP API's 30 s).
	IntegrationTimeout time.Duration
	// Workers are the queue-fed workers to run, with the maximum
	// concurrency of their event source (also their function's cap).
	Workers map[string]int
}

// limitedStack is the stack over the emulators with every function under
// the platform's limits: the API groups behind the HTTP API gateway, the
// workers fed by their SQS event source mappings. Each function sees only
// the tables, queues and bucket the stack gives it.
type limitedStack struct {
	rt      *awsRuntime
	ctx     context.Context
	gw      *lambdatest.Gateway
	mu      sync.Mutex
	apis    map[string]*lambdatest.Function
	workers map[string]*lambdatest.Function
	sources map[string]*lambdatest.SQSSource
	kinds   map[string]kindStat // worker invocations by message kind
	stop    func()
	// The served OpenAPI document (doc).
	docOnce sync.Once
	openapi *apptest.Doc
	docErr  error
}

// kindStat times the invocations of one kind of message.
type kindStat struct {
	n          int
	max, total time.Duration
}

func (k kindStat) String() string {
	return fmt.Sprintf("%d, longest %v, mean %v", k.n, k.max.Round(time.Millisecond), (k.total / time.Duration(max(k.n, 1))).Round(time.Millisecond))
}

// timeKind records how long an invocation of a worker took, by the kind
// of its message (start, task, finalize, derive...).
func (s *limitedStack) timeKind(ev events.SQSEvent, d time.Duration) {
	var m struct{ Kind string }
	if len(ev.Records) > 0 {
		json.Unmarshal([]byte(ev.Records[0].Body), &m)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.kinds[m.Kind]
	k.n++
	k.max = max(k.max, d)
	k.total += d
	s.kinds[m.Kind] = k
}

// kindStats returns the timings by message kind.
func (s *limitedStack) kindStats() map[string]kindStat {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]kindStat{}
	for k, v := range s.kinds {
		out[k] = v
	}
	return out
}

func newLimitedStack(t testing.TB, o stackOptions) *limitedStack {
	t.Helper()
	if o.Scale <= 0 {
		o.Scale = 1
	}
	rt := newAWSRuntime(t)
	t.Setenv("AWS_ENDPOINT_URL_S3", mendS3Emulator(t, rt.s3))
	s := &limitedStack{rt: rt, ctx: rt.ctx, gw: lambdatest.NewGateway(), apis: map[string]*lambdatest.Function{},
		workers: map[string]*lambdatest.Function{}, sources: map[string]*lambdatest.SQSSource{}, kinds: map[string]kindStat{}}
	if o.IntegrationTimeout > 0 {
		s.gw.IntegrationTimeout = o.IntegrationTimeout
	}
	queues := map[string]struct {
		max  int
		dead string
	}{}
	for _, q := range app.Queues() {
		queues[q.Name] = struct {
			max  int
			dead string
		}{q.MaxReceives, q.DeadLetter}
	}
	ctx, cancel := context.WithCancel(rt.ctx)
	var wg sync.WaitGroup
	for _, w := range app.Workers() {
		conc, ok := o.Workers[w.Name]
		if !ok {
			continue
		}
		timeout := time.Duration(float64(w.TimeoutS) * o.Scale * float64(time.Second)).Round(100 * time.Millisecond)
		getenv := s.scoped(w.Tables, append([]string{w.Queue}, w.SendsTo...), w.Files)
		name := w.Name
		f := lambdatest.New(lambdatest.Config{Name: name, Timeout: timeout, Concurrency: conc},
			lambdatest.InProcess(func(ctx context.Context) (lambdatest.Handler, error) {
				h, err := onaws.WorkerHandler(ctx, name, getenv)
				if err != nil {
					return nil, err
				}
				return lambdatest.Typed(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
					began := time.Now()
					out, err := h(ctx, ev)
					s.timeKind(ev, time.Since(began))
					return out, err
				}), nil
			}))
		q := queues[w.Queue]
		src := &lambdatest.SQSSource{Client: rt.sqs, QueueURL: rt.queues[w.Queue], Function: f, MaxConcurrency: conc,
			Visibility: app.VisibilityFactor * timeout, MaxReceives: q.max, DeadLetterURL: rt.queues[q.dead]}
		s.workers[name], s.sources[name] = f, src
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := src.Run(ctx); err != nil {
				t.Errorf("event source of %s: %v", name, err)
			}
		}()
	}
	s.stop = sync.OnceFunc(func() {
		cancel()
		wg.Wait()
		for _, f := range s.workers {
			f.Close()
		}
		s.gw.Wait() // the calls it gave up on, if any, end first
		for _, f := range s.apis {
			f.Close()
		}
	})
	t.Cleanup(s.stop)
	return s
}

// mendS3Emulator returns the address of a loopback proxy in front of the
// S3 emulator at target that mends the one emulator bug the service's
// own client does not work around (docs/files.md): fauxqs reads the part
// ETags of CompleteMultipartUpload with a pattern that decodes "&quot;"
// but not "&#34;", the escape encoding/xml writes, so every multipart
// upload (any output of 5 MiB or more) fails with InvalidPart there and
// not on S3. The proxy rewrites the escape; it changes nothing else.
func mendS3Emulator(t testing.TB, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Query().Has("uploadId") {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			b = bytes.ReplaceAll(b, []byte("&#34;"), []byte("&quot;"))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// scoped is the environment the stack gives a function: only its tables,
// its queues and, with files, the bucket.
func (s *limitedStack) scoped(tables, queues []string, files bool) func(string) string {
	return func(k string) string {
		for name := range s.rt.tables {
			if k == onaws.EnvName("TABLE", name) && !slices.Contains(tables, name) {
				return ""
			}
		}
		for name := range s.rt.queues {
			if k == onaws.EnvName("QUEUE", name) && !slices.Contains(queues, name) {
				return ""
			}
		}
		if k == "SVC_BUCKET" && !files {
			return ""
		}
		return s.rt.getenv(k)
	}
}

// api returns the function of a route group, behind the gateway.
func (s *limitedStack) api(group string) *lambdatest.Function {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.apis[group]; f != nil {
		return f
	}
	var g api.Group
	for _, x := range api.Groups() {
		if x.Name == group {
			g = x
		}
	}
	getenv := s.scoped(g.Tables, g.SendsTo, g.Files)
	f := lambdatest.New(lambdatest.Config{Name: group, Timeout: apiTimeout, Concurrency: 10},
		lambdatest.InProcess(func(ctx context.Context) (lambdatest.Handler, error) {
			h, err := onaws.Handler(ctx, group, getenv, s.rt.opts...)
			if err != nil {
				return nil, err
			}
			return lambdatest.Typed[events.APIGatewayV2HTTPRequest, events.APIGatewayV2HTTPResponse](h), nil
		}))
	s.apis[group] = f
	return f
}

// call sends a request through the gateway to the group serving path.
func (s *limitedStack) call(method, path, query, body string, headers map[string]string) events.APIGatewayV2HTTPResponse {
	h := map[string]string{}
	for k, v := range headers {
		h[k] = v
	}
	if body != "" {
		h["Content-Type"] = "application/json"
	}
	resp := s.gw.Serve(s.ctx, s.api(api.GroupOf(path)), lambdatest.HTTPEvent(method, path, query, h, nil, body))
	if d := s.doc(); d != nil && path != "/api/openapi.json" {
		apptest.ValidateGateway(s.rt.t, d, method, path, query, h, body, resp)
	}
	return resp
}

// doc is the OpenAPI document the stack serves, fetched through the
// gateway once: every exchange of call is checked against it.
func (s *limitedStack) doc() *apptest.Doc {
	s.docOnce.Do(func() {
		r := s.gw.Serve(s.ctx, s.api(api.GroupOf("/api/openapi.json")), lambdatest.HTTPEvent("GET", "/api/openapi.json", "", map[string]string{}, nil, ""))
		s.openapi, s.docErr = apptest.LoadDoc([]byte(r.Body))
	})
	if s.docErr != nil {
		s.rt.t.Errorf("the served OpenAPI document: %v", s.docErr) // call may run off the test's goroutine
		return nil
	}
	return s.openapi
}

// idle reports whether every event source is idle and its queue empty
// (nothing visible, in flight or delayed).
func (s *limitedStack) idle() bool {
	for name, src := range s.sources {
		if !src.Idle() {
			return false
		}
		out, err := s.rt.sqs.GetQueueAttributes(s.ctx, &awssqs.GetQueueAttributesInput{QueueUrl: aws.String(src.QueueURL),
			AttributeNames: []sqsAttr{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"}})
		if err != nil {
			s.rt.t.Errorf("%s's queue: %v", name, err)
			return false
		}
		for _, v := range out.Attributes {
			if v != "0" {
				return false
			}
		}
	}
	return true
}

// checkLimits fails the test on anything a client or the platform would
// have refused: a gateway error, an answer over the cap, a refused event,
// an oversized message, a dead letter; it logs what the functions did.
func (s *limitedStack) checkLimits(t testing.TB) {
	t.Helper()
	gs := s.gw.Stats()
	if len(gs.Violations) > 0 {
		t.Errorf("the gateway answered %d errors: %.5q", len(gs.Violations), gs.Violations)
	}
	if gs.MaxResponse > lambdatest.MaxSyncPayload {
		t.Errorf("a response of %d bytes reached a client", gs.MaxResponse)
	}
	t.Logf("gateway: %d requests %v, largest response %d bytes", gs.Requests, gs.Status, gs.MaxResponse)
	for name, f := range s.apis {
		st := f.Stats()
		if st.TooLarge+st.Refused+st.Timeouts > 0 {
			t.Errorf("%s: %d answers over the cap, %d events refused, %d timeouts", name, st.TooLarge, st.Refused, st.Timeouts)
		}
		t.Logf("%s: %d invocations, largest response %d bytes, longest %v", name, st.Invocations, st.MaxResponse, st.MaxDuration)
	}
	for name, f := range s.workers {
		st, ss := f.Stats(), s.sources[name].Stats()
		cfg := f.Config()
		if st.TooLarge+st.Refused > 0 || ss.Oversized > 0 {
			t.Errorf("%s: %d answers over the cap, %d events refused, %d messages over %d bytes", name, st.TooLarge, st.Refused, ss.Oversized, lambdatest.MaxSQSMessage)
		}
		if st.MaxConcurrent > cfg.Concurrency || ss.MaxActive > s.sources[name].MaxConcurrency {
			t.Errorf("%s ran %d at once, cap %d", name, st.MaxConcurrent, cfg.Concurrency)
		}
		if ss.DeadLettered > 0 {
			t.Errorf("%s: %d messages moved to the dead-letter queue", name, ss.DeadLettered)
		}
		t.Logf("%s (timeout %v, concurrency %d): %d invocations (%d cold), %d failed, %d timed out, longest %v (%.0f%% of the timeout), at most %d at once, highest receive count %d",
			name, cfg.Timeout, cfg.Concurrency, st.Invocations, st.ColdStarts, ss.Failed, ss.TimedOut, st.MaxDuration,
			100*st.MaxDuration.Seconds()/cfg.Timeout.Seconds(), st.MaxConcurrent, ss.MaxReceiveCount)
	}
	for _, q := range app.Queues() {
		if q.DeadLetter == "" {
			continue
		}
		out, err := s.rt.sqs.GetQueueAttributes(s.ctx, &awssqs.GetQueueAttributesInput{QueueUrl: aws.String(s.rt.queues[q.DeadLetter]),
			AttributeNames: []sqsAttr{"ApproximateNumberOfMessages"}})
		if err == nil && out.Attributes["ApproximateNumberOfMessages"] != "0" {
			t.Errorf("%s holds %s messages", q.DeadLetter, out.Attributes["ApproximateNumberOfMessages"])
		}
	}
}

// jobView is the part of a job the tests read.
type jobView struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	ResultsCount      int    `json:"results_count"`
	DownloadAvailable bool   `json:"download_available"`
	ErrorMessage      string `json:"error_message"`
}

// runJob creates a scrape through the API function and waits for its
// end, the workers fed by their event sources meanwhile.
func (s *limitedStack) runJob(t testing.TB, bearer map[string]string, request string, within time.Duration) (jobView, time.Duration) {
	t.Helper()
	began := time.Now()
	cr := s.call("POST", "/api/jobs", "", request, bearer)
	var job jobView
	if err := json.Unmarshal([]byte(cr.Body), &job); err != nil || cr.StatusCode != 200 || job.Status != "pending" {
		t.Fatalf("create: %d %s", cr.StatusCode, cr.Body)
	}
	for end := time.Now().Add(within); job.Status != "done" && job.Status != "failed"; {
		if time.Now().After(end) {
			t.Fatalf("job still %s after %v", job.Status, within)
		}
		time.Sleep(500 * time.Millisecond)
		gr := s.call("GET", "/api/jobs/"+job.ID, "", "", bearer)
		if err := json.Unmarshal([]byte(gr.Body), &job); err != nil || gr.StatusCode != 200 {
			t.Fatalf("get: %d %s", gr.StatusCode, gr.Body)
		}
	}
	return job, time.Since(began)
}

// download asks the API for a job's output in format, waiting while the
// API answers that a worker is making it (400 with Retry-After), and
// follows the presigned redirect. It returns the file and the API
// function's answer.
func (s *limitedStack) download(t testing.TB, bearer map[string]string, id, format string, within time.Duration) ([]byte, events.APIGatewayV2HTTPResponse) {
	t.Helper()
	var r events.APIGatewayV2HTTPResponse
	for end := time.Now().Add(within); ; {
		r = s.call("GET", "/api/jobs/"+id+"/download", "format="+format, "", bearer)
		if r.StatusCode != http.StatusBadRequest || r.Headers["Retry-After"] == "" || time.Now().After(end) {
			break
		}
		time.Sleep(time.Second)
	}
	switch {
	case r.StatusCode == http.StatusFound:
		res, err := http.Get(r.Headers["Location"])
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("%s from the bucket: %d %v", format, res.StatusCode, err)
		}
		return b, r
	case r.StatusCode == http.StatusOK:
		// Served by the function itself: within the cap, or the
		// gateway would have answered 500.
		return []byte(r.Body), r
	}
	t.Errorf("download %s: %d %v %.300s", format, r.StatusCode, r.Headers, r.Body)
	return nil, r
}

// items pages through a job's items as a client does (offset, no limit:
// the API bounds a page), and returns the rows read and the pages.
func (s *limitedStack) items(t testing.TB, bearer map[string]string, id string) (rows, pages, largest int) {
	t.Helper()
	for offset := 0; ; {
		r := s.call("GET", "/api/jobs/"+id+"/items", fmt.Sprintf("offset=%d", offset), "", bearer)
		if r.StatusCode != 200 {
			t.Fatalf("items at %d: %d %.300s", offset, r.StatusCode, r.Body)
		}
		var page struct {
			Count, Total int
			Items        []json.RawMessage
		}
		if err := json.Unmarshal([]byte(r.Body), &page); err != nil || page.Count != len(page.Items) {
			t.Fatalf("items page at %d: %v, count %d for %d items", offset, err, page.Count, len(page.Items))
		}
		pages++
		rows += page.Count
		largest = max(largest, len(r.Body))
		offset += page.Count
		if offset >= page.Total || page.Count == 0 {
			if offset != page.Total {
				t.Errorf("items: read %d of %d", offset, page.Total)
			}
			return rows, pages, largest
		}
	}
}

// TestAWSPathUnderLimits drives a scrape through the whole AWS path with
// Lambda's and API Gateway's limits enforced: api-jobs behind the HTTP
// API creates it on the simulated provider; the tasks and finalize
// queues feed worker-tasks and job-finalizer through event source
// mappings with capped concurrency and timeouts (scaled to a quarter, so
// a stuck invocation shows within the test); then the downloads in every
// format and the items pages go through api-jobs with the 6 MB response
// cap. The job must end done, and no response may break a limit.
func TestAWSPathUnderLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a whole job over the emulators")
	}
	s := newLimitedStack(t, stackOptions{Scale: 0.25, Workers: map[string]int{"worker-tasks": 4, "job-finalizer": 2}})
	bearer := s.rt.signup("limits@example.org")
	// Five dense categories over Paris: about 17,000 rows, whose items
	// and JSON download exceed 6 MB: an unbounded page or a JSON served by
	// the function would break the cap.
	job, took := s.runJob(t, bearer, `{"queries":["restaurant","coiffeur","bar","kine","medecin","boulangerie","pharmacie"],"zones":["Paris"],"scrap_mode":"normal"}`, 10*time.Minute)
	if job.Status != "done" || job.ResultsCount == 0 || !job.DownloadAvailable {
		t.Fatalf("job %+v", job)
	}
	t.Logf("job of %d rows done in %v", job.ResultsCount, took)

	csvBody, _ := s.download(t, bearer, job.ID, "csv", time.Minute)
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(csvBody), "\ufeff")))
	r.Comma = ';'
	if rows, err := r.ReadAll(); err != nil || len(rows) != job.ResultsCount+1 {
		t.Errorf("csv: %d rows for %d results (%v)", len(rows), job.ResultsCount, err)
	}
	jsonBody, _ := s.download(t, bearer, job.ID, "json", 2*time.Minute)
	var objs []map[string]any
	if err := json.Unmarshal(jsonBody, &objs); err != nil || len(objs) != job.ResultsCount {
		t.Errorf("json: %d objects for %d results (%v)", len(objs), job.ResultsCount, err)
	}
	xlsxBody, _ := s.download(t, bearer, job.ID, "xlsx", 2*time.Minute)
	if !strings.HasPrefix(string(xlsxBody), "PK") {
		t.Errorf("xlsx: %.20q", xlsxBody)
	}
	t.Logf("outputs: csv %d bytes, json %d bytes, xlsx %d bytes", len(csvBody), len(jsonBody), len(xlsxBody))

	rows, pages, largest := s.items(t, bearer, job.ID)
	if rows != job.ResultsCount {
		t.Errorf("items: %d rows for %d results", rows, job.ResultsCount)
	}
	if len(jsonBody) <= lambdatest.MaxSyncPayload {
		t.Errorf("the job's JSON is %d bytes: too small to prove the downloads and pages stay under the cap", len(jsonBody))
	}
	if pages < 2 {
		t.Errorf("items of %d JSON bytes in one page", len(jsonBody))
	}
	t.Logf("items: %d rows in %d pages, largest %d bytes", rows, pages, largest)

	for end := time.Now().Add(time.Minute); !s.idle() && time.Now().Before(end); {
		time.Sleep(500 * time.Millisecond)
	}
	s.stop()
	s.checkLimits(t)
}
