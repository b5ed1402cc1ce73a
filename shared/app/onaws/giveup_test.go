package onaws_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
	"github.com/prospectdata/svc/shared/engine"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/dynamo"
)

// faultyPlaces answers Places API (New) Text Search as Google does, one
// place at the centre of each rectangle, except as its mode says:
// "stall" holds every request for the first rectangle it is asked until
// the caller gives up (a provider that blocks past the worker's deadline),
// "refuse" answers every request 403 PERMISSION_DENIED (the API disabled
// for the key's project).
type faultyPlaces struct {
	srv    *httptest.Server
	mode   string
	mu     sync.Mutex
	target string
	stalls atomic.Int64
	calls  atomic.Int64
}

func newFaultyPlaces(t *testing.T, mode string) *faultyPlaces {
	p := &faultyPlaces{mode: mode}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *faultyPlaces) serve(w http.ResponseWriter, r *http.Request) {
	p.calls.Add(1)
	var req struct {
		TextQuery           string `json:"textQuery"`
		LocationRestriction struct {
			Rectangle struct {
				Low  struct{ Latitude, Longitude float64 } `json:"low"`
				High struct{ Latitude, Longitude float64 } `json:"high"`
			} `json:"rectangle"`
		} `json:"locationRestriction"`
	}
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/places:searchText" || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"code":404,"status":"NOT_FOUND","message":"not here"}}`, 404)
		return
	}
	rect := req.LocationRestriction.Rectangle
	key := fmt.Sprintf("%v", rect)
	switch p.mode {
	case "refuse":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(403)
		fmt.Fprint(w, `{"error":{"code":403,"message":"Places API (New) has not been used in project 123456789012 before or it is disabled.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","domain":"googleapis.com"}]}}`)
		return
	case "stall":
		p.mu.Lock()
		if p.target == "" {
			p.target = key
		}
		stall := p.target == key
		p.mu.Unlock()
		if stall {
			p.stalls.Add(1)
			<-r.Context().Done() // past the worker's deadline: the caller gives up
			return
		}
	}
	lat, lon := (rect.Low.Latitude+rect.High.Latitude)/2, (rect.Low.Longitude+rect.High.Longitude)/2
	id := fmt.Sprintf("ChIJ%x", key)
	if len(id) > 40 {
		id = id[:40]
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"places": []any{map[string]any{
		"id": id, "displayName": map[string]string{"text": req.TextQuery + " " + id[len(id)-6:], "languageCode": "fr"},
		"formattedAddress": "1 rue de la République, 69100 Villeurbanne, France",
		"location":         map[string]float64{"latitude": lat, "longitude": lon},
		"googleMapsUri":    "https://maps.google.com/?cid=" + strconv.Itoa(len(key)),
	}}})
}

// awsWork feeds the work queues to their workers' handlers the way the
// SQS event source does: one record per invocation, with its receive
// count, under the function's deadline; a record reported failed comes
// back with its count plus one once its visibility lapses (made to lapse
// at once here), and one whose invocation dies (die) is not answered at
// all. It returns once done says so.
type awsWork struct {
	rt       *awsRuntime
	workers  map[string]onaws.SQSHandler // by queue
	deadline time.Duration
	die      func(body string, count int) bool
}

func newAWSWork(t *testing.T, rt *awsRuntime, deadline time.Duration) *awsWork {
	w := &awsWork{rt: rt, workers: map[string]onaws.SQSHandler{}, deadline: deadline,
		die: func(string, int) bool { return false }}
	for _, k := range app.Workers() {
		if k.Queue != app.QueueTasks && k.Queue != app.QueueFinalize {
			continue
		}
		h, err := onaws.WorkerHandler(rt.ctx, k.Name, rt.getenv)
		if err != nil {
			t.Fatal(err)
		}
		w.workers[k.Queue] = h
	}
	return w
}

func (w *awsWork) lapse(q string, receipt *string) {
	w.rt.sqs.ChangeMessageVisibility(w.rt.ctx, &awssqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(w.rt.queues[q]), ReceiptHandle: receipt, VisibilityTimeout: 0})
}

func (w *awsWork) until(t *testing.T, what string, done func() bool) {
	t.Helper()
	var wg sync.WaitGroup
	defer wg.Wait()
	for end := time.Now().Add(120 * time.Second); !done(); {
		if time.Now().After(end) {
			t.Fatalf("%s: not after 120 s", what)
		}
		for q, h := range w.workers {
			for _, m := range w.rt.receive(q) {
				count, _ := strconv.Atoi(m.Attributes["ApproximateReceiveCount"])
				if w.die(aws.ToString(m.Body), count) {
					w.lapse(q, m.ReceiptHandle)
					continue
				}
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(w.rt.ctx, w.deadline)
					defer cancel()
					res, err := h(ctx, sqsEvent(m))
					if err != nil || len(res.BatchItemFailures) > 0 {
						w.lapse(q, m.ReceiptHandle)
						return
					}
					w.rt.sqs.DeleteMessage(w.rt.ctx, &awssqs.DeleteMessageInput{QueueUrl: aws.String(w.rt.queues[q]), ReceiptHandle: m.ReceiptHandle})
				})
			}
		}
	}
}

// db opens the runtime's tables as the functions do.
func (rt *awsRuntime) tablesDB() store.DB {
	client := dynamodb.New(dynamodb.Options{Region: "eu-west-3", BaseEndpoint: aws.String(rt.dynamo),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	return dynamo.New(client, app.Schemas(), rt.tables)
}

// jobState is what the tests read of a job through the API.
type jobState struct {
	ID, Status   string
	ErrorCount   int     `json:"error_count"`
	ErrorMessage *string `json:"error_message"`
	EFCost       float64 `json:"ef_cost"`
	GridPoints   int     `json:"grid_points_count"`
}

func (rt *awsRuntime) jobState(h onaws.HTTPHandler, bearer map[string]string, id string) jobState {
	rt.t.Helper()
	var j jobState
	if err := json.Unmarshal([]byte(rt.call(h, "GET", "/api/jobs/"+id, "", bearer).Body), &j); err != nil {
		rt.t.Fatal(err)
	}
	return j
}

func (rt *awsRuntime) createJob(h onaws.HTTPHandler, bearer map[string]string, body string) jobState {
	rt.t.Helper()
	r := rt.call(h, "POST", "/api/jobs", body, bearer)
	var j jobState
	if err := json.Unmarshal([]byte(r.Body), &j); err != nil || r.StatusCode != 200 {
		rt.t.Fatalf("create: %d %s", r.StatusCode, r.Body)
	}
	return j
}

func logLines(t *testing.T, db store.DB, id string) string {
	t.Helper()
	var out []string
	if err := store.ForEach(context.Background(), db.Table(jobs.Table), store.Query{PK: jobs.Key(id).PK, SK: store.BeginsWith("LOG#")},
		func(it store.Item) error { out = append(out, it.String("en")); return nil }); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "\n")
}

// googleEnv points the functions at the Places stand-in.
func googleEnv(rt *awsRuntime, p *faultyPlaces) {
	rt.env["SVC_MAP_PROVIDER"] = "google"
	rt.env["SVC_GOOGLE_PLACES_KEY"] = "test-key"
	rt.env["SVC_GOOGLE_PLACES_URL"] = p.srv.URL
}

const villeurbanne = `{"queries":["boulangerie"],"zones":["Villeurbanne"],"scrap_mode":"fast"}`

// TestGiveUpOnAWS: a task whose every invocation runs into its deadline
// (the provider blocks past it), or dies on every delivery (a poisoned
// message crashing its process), still ends: the last allowed delivery
// records the give-up of its tile within the reserve, or the delivery
// after it at once, before SQS would move it to the dead-letter queue; the
// job ends done without the tile, counted failed and named in its log.
func TestGiveUpOnAWS(t *testing.T) {
	for _, tt := range []struct {
		name  string
		crash bool
		why   string
	}{
		{"times out on every delivery", false, "it did not finish within the worker's time limit (4 attempts)"},
		{"crashes on every delivery", true, "the worker stopped before finishing it (5 attempts)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rt := newAWSRuntime(t)
			places := newFaultyPlaces(t, "stall")
			if tt.crash {
				places.mode = ""
			}
			googleEnv(rt, places)
			jobsFn := rt.handler("api-jobs")
			bearer := rt.signup("giveup@example.org")
			work := newAWSWork(t, rt, 3*time.Second)
			var deliveries atomic.Int64
			if tt.crash {
				work.die = func(body string, count int) bool {
					if !strings.Contains(body, `"task":"r1"`) {
						return false
					}
					deliveries.Add(1)
					return count < app.GiveUpAfter+1
				}
			}
			job := rt.createJob(jobsFn, bearer, villeurbanne)
			work.until(t, "the job", func() bool {
				s := rt.jobState(jobsFn, bearer, job.ID).Status
				return s == "done" || s == "failed"
			})
			j := rt.jobState(jobsFn, bearer, job.ID)
			if j.Status != "done" || j.ErrorCount != 1 {
				t.Fatalf("job %+v", j)
			}
			if tt.crash && deliveries.Load() != app.GiveUpAfter+1 {
				t.Errorf("r1 delivered %d times", deliveries.Load())
			}
			if !tt.crash && places.stalls.Load() != app.GiveUpAfter {
				t.Errorf("the stalled tile was searched %d times", places.stalls.Load())
			}
			logs := logLines(t, rt.tablesDB(), job.ID)
			if !strings.Contains(logs, ") given up: "+tt.why+"; its 1 searches count as failed.") ||
				!strings.Contains(logs, "1 of ") {
				t.Errorf("logs:\n%s", logs)
			}
			for _, q := range []string{app.QueueTasksDLQ, app.QueueFinalizeDLQ} {
				if ms := rt.receive(q); len(ms) > 0 {
					t.Errorf("%d messages in %s", len(ms), q)
				}
			}
		})
	}
}

// TestRefusedOnAWS: the Places API refusing the key (403, API disabled)
// fails the job at once with Google's reason, sends job.failed, and
// refunds its EF: nothing was answered.
func TestRefusedOnAWS(t *testing.T) {
	rt := newAWSRuntime(t)
	places := newFaultyPlaces(t, "refuse")
	googleEnv(rt, places)
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("refused@example.org")
	work := newAWSWork(t, rt, 10*time.Second)
	job := rt.createJob(jobsFn, bearer, `{"queries":["boulangerie","boucherie"],"zones":["Lyon"],"scrap_mode":"fast"}`)
	var usage struct{ Spent float64 }
	if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/ef/usage", "", bearer).Body), &usage); err != nil || usage.Spent != job.EFCost {
		t.Fatalf("spent %v for a job of %v (%v)", usage.Spent, job.EFCost, err)
	}
	work.until(t, "the job", func() bool { return rt.jobState(jobsFn, bearer, job.ID).Status == "failed" })
	j := rt.jobState(jobsFn, bearer, job.ID)
	if j.ErrorMessage == nil || !strings.HasPrefix(*j.ErrorMessage, "The map provider refused the job's searches (") ||
		!strings.Contains(*j.ErrorMessage, "PERMISSION_DENIED") {
		t.Errorf("error_message %v", j.ErrorMessage)
	}
	// Failed fast: the searches in flight when the first refusal came
	// back (how many depends on the machine's load), fewer than the root
	// searches a job that went on would make (one per tile and query).
	if n, roots := places.calls.Load(), int64(2*j.GridPoints); roots == 0 || n >= roots {
		t.Errorf("%d requests to a provider refusing the key, for %d root searches", n, roots)
	}
	if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/ef/usage", "", bearer).Body), &usage); err != nil || usage.Spent != 0 {
		t.Errorf("spent %v after the refund of %v (%v)", usage.Spent, job.EFCost, err)
	}
	ev := rt.call(rt.handler("api-events"), "GET", "/api/events?types=job.failed", "", bearer)
	if ev.StatusCode != 200 || !strings.Contains(ev.Body, job.ID) {
		t.Errorf("events: %d %s", ev.StatusCode, ev.Body)
	}
}

// TestDeadHolderOnAWS: the scrape holding the proxy pool loses its worker
// (its tasks never come back). The sweep, delivered by the schedule to
// the tasks queue, fails it once it made no progress for its bound (the
// stamp aged here, as time would), releases the pool and starts the
// queued job, which runs to its end.
func TestDeadHolderOnAWS(t *testing.T) {
	rt := newAWSRuntime(t)
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("holder@example.org")
	work := newAWSWork(t, rt, 30*time.Second)
	holder := rt.createJob(jobsFn, bearer, villeurbanne)
	waiting := rt.createJob(jobsFn, bearer, `{"queries":["plombier"],"zones":["Villeurbanne"],"scrap_mode":"fast"}`)

	// The holder starts; then its worker vanishes with every task.
	started := false
	work.die = func(body string, _ int) bool {
		if strings.Contains(body, `"kind":"start"`) && !started {
			started = true
			return false
		}
		return true
	}
	work.until(t, "the holder's start", func() bool { return rt.jobState(jobsFn, bearer, holder.ID).Status == "running" })
	purge := func(q string) {
		for {
			ms := rt.receive(q)
			if len(ms) == 0 {
				return
			}
			for _, m := range ms {
				rt.sqs.DeleteMessage(rt.ctx, &awssqs.DeleteMessageInput{QueueUrl: aws.String(rt.queues[q]), ReceiptHandle: m.ReceiptHandle})
			}
		}
	}
	purge(app.QueueTasks)

	// An hour and a half without progress, sweeps running all along.
	db := rt.tablesDB()
	ctx := context.Background()
	old := time.Now().Add(-90 * time.Minute)
	if _, err := db.Table(jobs.Table).Update(ctx, jobs.Key(holder.ID),
		store.Update{}.Set("gsi3sk", jobs.ProgressSK(holder.ID, old)), store.Exists("gsi3pk")); err != nil {
		t.Fatal(err)
	}
	if err := db.Table(jobs.Table).Put(ctx, store.Item{"pk": "SWEEP#jobs", "sk": "SWEEP",
		"since_ms": old.UnixMilli(), "last_ms": time.Now().UnixMilli()}, nil); err != nil {
		t.Fatal(err)
	}
	sweep := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "sweep-1", Body: engine.SweepMessage,
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}, EventSource: "aws:sqs"}}}
	if res, err := work.workers[app.QueueTasks](ctx, sweep); err != nil || len(res.BatchItemFailures) > 0 {
		t.Fatalf("sweep: %v %v", res, err)
	}
	h := rt.jobState(jobsFn, bearer, holder.ID)
	if h.Status != "failed" || h.ErrorMessage == nil || !strings.HasPrefix(*h.ErrorMessage, "The job made no progress for 90 minutes") {
		t.Fatalf("holder %+v", h)
	}
	work.die = func(string, int) bool { return false }
	work.until(t, "the waiting job", func() bool { return rt.jobState(jobsFn, bearer, waiting.ID).Status == "done" })

	// Refunded: the holder's searches were never answered.
	var usage struct{ Spent float64 }
	rt.call(jobsFn, "GET", "/api/ef/usage", "", bearer)
	if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/ef/usage", "", bearer).Body), &usage); err != nil ||
		pricing.FormatEF(usage.Spent) != pricing.FormatEF(waiting.EFCost) {
		t.Errorf("spent %v, the waiting job cost %v (%v)", usage.Spent, waiting.EFCost, err)
	}
	ev := rt.call(rt.handler("api-events"), "GET", "/api/events?types=job.failed", "", bearer)
	if !strings.Contains(ev.Body, holder.ID) {
		t.Errorf("no job.failed for the holder: %s", ev.Body)
	}
}
