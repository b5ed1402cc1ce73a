package onaws_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
)

// drain plays the SQS event sources of the job queues until done
// says stop: each record is handed to its worker's handler, one per
// invocation, and deleted unless reported failed.
func (rt *awsRuntime) drain(done func() bool) int {
	rt.t.Helper()
	workers := map[string]onaws.SQSHandler{}
	for _, w := range app.Workers() {
		if w.Queue == "" || w.Queue == app.QueueDeliveries {
			continue // the state machine's and the webhooks' own
		}
		// Each worker sees only the queues the stack gives it (its own
		// and its SendsTo): a send elsewhere fails here as on AWS.
		allowed := append([]string{w.Queue}, w.SendsTo...)
		getenv := func(k string) string {
			for name := range rt.queues {
				if k == onaws.EnvName("QUEUE", name) && !slices.Contains(allowed, name) {
					return ""
				}
			}
			return rt.getenv(k)
		}
		h, err := onaws.WorkerHandler(rt.ctx, w.Name, getenv)
		if err != nil {
			rt.t.Fatal(err)
		}
		workers[w.Queue] = h
	}
	invocations := 0
	for end := time.Now().Add(2 * time.Minute); !done(); {
		if time.Now().After(end) {
			rt.t.Fatalf("not done after %d invocations", invocations)
		}
		for q, h := range workers {
			for _, m := range rt.receive(q) {
				invocations++
				res, err := h(rt.ctx, sqsEvent(m))
				if err != nil {
					rt.t.Fatal(err)
				}
				if len(res.BatchItemFailures) > 0 {
					rt.t.Errorf("%s: record %.200s reported failed", q, aws.ToString(m.Body))
					continue
				}
				rt.sqs.DeleteMessage(rt.ctx, &awssqs.DeleteMessageInput{QueueUrl: aws.String(rt.queues[q]), ReceiptHandle: m.ReceiptHandle})
			}
		}
	}
	return invocations
}

// TestItemJobOnAWSRuntime runs a brand_assets job the way the stack does:
// api-jobs creates it from a sim scrape's rows, worker-tasks starts it and
// sends its batches to the enrich queue, worker-enrich fetches the fixture
// sites and re-hosts their logos in the bucket, and the finalize back on
// the tasks queue writes the CSV; the logos are then served by api-jobs to
// their owner only.
func TestItemJobOnAWSRuntime(t *testing.T) {
	rt := newAWSRuntime(t)
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("enrich-aws@example.org")
	status := func(id string) map[string]any {
		var j map[string]any
		if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/jobs/"+id, "", bearer).Body), &j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	terminal := func(id string) func() bool {
		return func() bool { s := status(id)["status"]; return s != "pending" && s != "running" }
	}

	cr := rt.call(jobsFn, "POST", "/api/jobs", `{"queries":["boulangerie"],"zones":["Villeurbanne"]}`, bearer)
	var scrape struct{ ID string }
	if err := json.Unmarshal([]byte(cr.Body), &scrape); err != nil || cr.StatusCode != 200 {
		t.Fatalf("scrape: %d %s", cr.StatusCode, cr.Body)
	}
	rt.drain(terminal(scrape.ID))
	ir := rt.call(jobsFn, "GET", "/api/jobs/"+scrape.ID+"/items?limit=25", "", bearer)
	var page struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(ir.Body), &page); err != nil || len(page.Items) == 0 {
		t.Fatalf("items: %d %.300s", ir.StatusCode, ir.Body)
	}
	body, _ := json.Marshal(map[string]any{"items": page.Items, "source_job_id": scrape.ID})
	br := rt.call(jobsFn, "POST", "/api/jobs/brand-assets", string(body), bearer)
	var created map[string]any
	if err := json.Unmarshal([]byte(br.Body), &created); err != nil || br.StatusCode != 200 || created["job_type"] != "brand_assets" {
		t.Fatalf("brand-assets: %d %s", br.StatusCode, br.Body)
	}
	id := created["id"].(string)
	n := rt.drain(terminal(id))
	got := status(id)
	if got["status"] != "done" || got["results_count"] != float64(len(page.Items)) {
		t.Fatalf("after %d invocations: %v", n, got)
	}

	dl := rt.call(jobsFn, "GET", "/api/jobs/"+id+"/download", "", bearer)
	res, err := http.Get(dl.Headers["Location"])
	if err != nil {
		t.Fatal(err)
	}
	csvBody, _ := io.ReadAll(res.Body)
	res.Body.Close()
	lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(string(csvBody), "\ufeff")), "\n")
	if len(lines) != len(page.Items)+1 || !strings.HasSuffix(strings.TrimSpace(lines[0]),
		"logo_url;logo_local_url;logo_variants_local_urls;favicon_url;favicon_local_url;brand_color;brand_palette;screenshot_local_url") {
		t.Fatalf("output: %d lines, header %q", len(lines), lines[0])
	}
	// A re-hosted logo, through the route of api-jobs: a session reads
	// it (the route is not in an API key's scope).
	var asset string
	for _, l := range lines[1:] {
		if i := strings.Index(l, "https://api.example.test/api/brand-assets/"); i >= 0 {
			asset = strings.TrimPrefix(strings.SplitN(l[i:], ";", 2)[0], "https://api.example.test")
			break
		}
	}
	if asset == "" {
		t.Fatal("no logo re-hosted")
	}
	if r := rt.call(jobsFn, "GET", asset, "", bearer); r.StatusCode != 403 {
		t.Errorf("asset with a key: %d", r.StatusCode)
	}
	login := rt.call(rt.handler("api-auth"), "POST", "/api/auth/login", `{"email":"enrich-aws@example.org","password":"pass-w0rd!"}`, map[string]string{})
	if login.StatusCode != 200 || len(login.Cookies) != 1 {
		t.Fatalf("login: %d %s", login.StatusCode, login.Body)
	}
	session := map[string]string{"Cookie": strings.SplitN(login.Cookies[0], ";", 2)[0]}
	// Served from the bucket: a redirect to a presigned address (a
	// screenshot may pass a Lambda's 6 MB response).
	r := rt.call(jobsFn, "GET", asset, "", session)
	if r.StatusCode != http.StatusFound || !strings.HasPrefix(r.Headers["Location"], rt.s3) {
		t.Fatalf("asset for its owner: %d %v", r.StatusCode, r.Headers)
	}
	img, err := http.Get(r.Headers["Location"])
	if err != nil {
		t.Fatal(err)
	}
	png, _ := io.ReadAll(img.Body)
	img.Body.Close()
	if img.StatusCode != 200 || img.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("asset from the bucket: %d %v %.8q", img.StatusCode, img.Header, png)
	}
}

// TestDataSourceJobsOnAWSRuntime: the data-source modules on the stack's
// functions: a legal_data job over a sim scrape's rows and a viewport_test
// job (a single-run job) run by worker-enrich from the enrich queue; the
// viewport's result is read from the bucket by api-jobs, and the company
// lookup answers from api-registry.
func TestDataSourceJobsOnAWSRuntime(t *testing.T) {
	rt := newAWSRuntime(t)
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("sources-aws@example.org")
	status := func(id string) map[string]any {
		var j map[string]any
		if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/jobs/"+id, "", bearer).Body), &j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	terminal := func(id string) func() bool {
		return func() bool { s := status(id)["status"]; return s != "pending" && s != "running" }
	}
	create := func(path, body string) string {
		r := rt.call(jobsFn, "POST", path, body, bearer)
		var j struct{ ID, Source string }
		if err := json.Unmarshal([]byte(r.Body), &j); err != nil || r.StatusCode != 200 || j.Source != "sim" {
			t.Fatalf("%s: %d %s", path, r.StatusCode, r.Body)
		}
		return j.ID
	}
	scrape := create("/api/jobs", `{"queries":["boulangerie"],"zones":["Villeurbanne"]}`)
	rt.drain(terminal(scrape))
	ir := rt.call(jobsFn, "GET", "/api/jobs/"+scrape+"/items?limit=10", "", bearer)
	var page struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(ir.Body), &page); err != nil || len(page.Items) == 0 {
		t.Fatalf("items: %d %.300s", ir.StatusCode, ir.Body)
	}
	body, _ := json.Marshal(map[string]any{"items": page.Items})
	legal := create("/api/jobs/legal-data", string(body))
	rt.drain(terminal(legal))
	if got := status(legal); got["status"] != "done" || got["results_count"] != float64(len(page.Items)) {
		t.Fatalf("legal_data: %v", got)
	}
	vp := create("/api/jobs/viewport-test", `{"query":"boulangerie","bounds":{"south":45.76,"west":4.86,"north":45.78,"east":4.90}}`)
	rt.drain(terminal(vp))
	res := rt.call(jobsFn, "GET", "/api/jobs/"+vp+"/viewport-result", "", bearer)
	var rep map[string]any
	if err := json.Unmarshal([]byte(res.Body), &rep); err != nil || res.StatusCode != 200 || rep["results"].(float64) < 1 {
		t.Fatalf("viewport-result: %d %.300s", res.StatusCode, res.Body)
	}
	if r := rt.call(jobsFn, "GET", "/api/jobs/"+vp+"/items", "", bearer); r.StatusCode != 400 {
		t.Errorf("viewport items: %d", r.StatusCode)
	}
	nom, _ := page.Items[0]["nom"].(string)
	adresse, _ := page.Items[0]["adresse"].(string)
	q := "/api/company/search?" + url.Values{"name": {nom}, "address": {adresse},
		"postcode": {regexp.MustCompile(`\b\d{5}\b`).FindString(adresse)}}.Encode()
	if r := rt.call(rt.handler("api-registry"), "GET", q, "", bearer); r.StatusCode != 200 || !strings.Contains(r.Body, `"siren"`) {
		t.Errorf("company lookup on api-registry: %d %.300s", r.StatusCode, r.Body)
	}
}
