package app_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// alpha3Code is the form of the spec's country: ISO 3166 alpha-3.
var alpha3Code = regexp.MustCompile(`^[A-Z]{3}$`)

// checkJobDomains fails unless the job's country and scrap_mode are inside
// the domains the spec gives every job (JobPublic is one shape).
func checkJobDomains(t *testing.T, j map[string]any) {
	t.Helper()
	if c, _ := j["country"].(string); !alpha3Code.MatchString(c) {
		t.Errorf("job %v (%v): country %q is not an ISO alpha-3 code", j["id"], j["job_type"], j["country"])
	}
	switch j["scrap_mode"] {
	case "fast", "normal", "ultra":
	default:
		t.Errorf("job %v (%v): scrap_mode %q is not fast, normal or ultra", j["id"], j["job_type"], j["scrap_mode"])
	}
}

// TestContract21JobDomains: a job of any type carries a country and a
// scrap_mode inside their domains: the default mode where it has no scrape
// settings, its parameters' or its source's country where it has one,
// else FRA; at creation, on reading and in the list.
func TestContract21JobDomains(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("domains@example.org", fixturePassword)
	c.Verify("domains@example.org")
	lyon := map[string]any{"south": 45.74, "west": 4.82, "north": 45.78, "east": 4.87}

	vp := c.Do("POST", "/api/jobs/viewport-test", map[string]any{"query": "boulangerie", "bounds": lyon, "country": "bel"}).Must(t, 200).JSON()
	items := []any{map[string]any{"nom": "Boulangerie du Parc", "adresse": "3 rue de la République, 69001 Lyon"}}
	plain := c.Do("POST", "/api/jobs/legal-data", map[string]any{"items": items}).Must(t, 200).JSON()
	sourced := c.Do("POST", "/api/jobs/legal-data", map[string]any{"items": items, "source_job_id": vp["id"]}).Must(t, 200).JSON()
	for _, tt := range []struct {
		name          string
		job           map[string]any
		country, mode string
	}{
		{"viewport_test: its parameters' country", vp, "BEL", "fast"},
		{"an item job without a source: the default", plain, "FRA", "fast"},
		{"an item job: its source's country", sourced, "BEL", "fast"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			read := c.Do("GET", "/api/jobs/"+tt.job["id"].(string), nil).Must(t, 200).JSON()
			for _, j := range []map[string]any{tt.job, read} {
				checkJobDomains(t, j)
				if j["country"] != tt.country || j["scrap_mode"] != tt.mode {
					t.Errorf("country %v, scrap_mode %v; want %s, %s", j["country"], j["scrap_mode"], tt.country, tt.mode)
				}
			}
		})
	}
	var list []map[string]any
	r := c.Do("GET", "/api/jobs", nil).Must(t, 200)
	if err := json.Unmarshal(r.Body, &list); err != nil || len(list) != 3 {
		t.Fatalf("list: %v, %d jobs", err, len(list))
	}
	for _, j := range list {
		checkJobDomains(t, j)
	}
}

// TestContract21JobsOffset: the list's offset is at least 0; a negative one
// is a 400 with {detail}, a bad limit or offset never a silent first page.
func TestContract21JobsOffset(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("offset@example.org", fixturePassword)
	for _, tt := range []struct {
		query  string
		status int
	}{
		{"offset=-1", 400},
		{"offset=-100&limit=5", 400},
		{"offset=0", 200},
		{"offset=7", 200},
		{"offset=abc", 422},
	} {
		t.Run(tt.query, func(t *testing.T) {
			r := c.Do("GET", "/api/jobs?"+tt.query, nil)
			if r.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tt.status, r.Body)
			}
			if tt.status == 400 && !strings.Contains(detail(t, r), "offset") {
				t.Errorf("detail does not name offset: %s", r.Body)
			}
		})
	}
}

// TestContract21PipelineOwnerAndName: another user's pipeline is a 403 on
// every pipeline route (an unknown one a 404), and a name over 120
// characters is refused with a 400 naming name, not cut.
func TestContract21PipelineOwnerAndName(t *testing.T) {
	e := apptest.Start(t)
	owner := e.NewClient()
	owner.Signup("owner@example.org", fixturePassword)
	owner.Verify("owner@example.org")
	other := e.NewClient()
	other.Signup("other@example.org", fixturePassword)
	other.Verify("other@example.org")

	def := func(name string) map[string]any {
		return map[string]any{"name": name, "definition": map[string]any{"nodes": []any{
			map[string]any{"id": "i", "type": "import", "config": map[string]any{"source": "paste", "text": "nom,adresse\nBoulangerie du Parc,3 rue de la République 69001 Lyon\n"}},
			map[string]any{"id": "f", "type": "filter", "config": map[string]any{"rules": map[string]any{"logic": "AND",
				"conditions": []any{map[string]any{"column": "nom", "op": "contains", "value": "Parc"}}}}},
		}, "edges": []any{map[string]any{"from": "i", "to": "f"}}}}
	}
	for _, tt := range []struct {
		name   string
		runes  int
		status int
	}{
		{"120 characters", 120, 201},
		{"121 characters", 121, 400},
		{"500 characters", 500, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := strings.Repeat("é", tt.runes)
			r := owner.Do("POST", "/api/pipelines", def(name))
			if r.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tt.status, r.Body)
			}
			if tt.status != 201 {
				if !strings.Contains(string(r.Body), `"field":"name"`) {
					t.Errorf("the refusal does not name the field name: %s", r.Body)
				}
				return
			}
			id := r.JSON()["id"].(string)
			if got := owner.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON()["name"]; got != name {
				t.Errorf("name stored as %q", got)
			}
		})
	}
	id := owner.Do("POST", "/api/pipelines", def("mine")).Must(t, 201).JSON()["id"].(string)
	waitPipeline(t, owner, id)
	rules := map[string]any{"rules": map[string]any{"logic": "AND", "conditions": []any{}}}
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/pipelines/%s"},
		{"POST", "/api/pipelines/%s/cancel"},
		{"POST", "/api/pipelines/%s/nodes/f/continue"},
		{"GET", "/api/pipelines/%s/nodes/f/input-columns"},
		{"POST", "/api/pipelines/%s/nodes/f/filter-preview"},
	} {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			var body any
			if strings.HasSuffix(rt.path, "filter-preview") {
				body = rules
			}
			if r := other.Do(rt.method, fmt.Sprintf(rt.path, id), body); r.Status != 403 || detail(t, r) == "" {
				t.Errorf("another user's pipeline: %d %s, want 403 with a detail", r.Status, r.Body)
			}
			if r := other.Do(rt.method, fmt.Sprintf(rt.path, "nosuchpipeline"), body); r.Status != 404 {
				t.Errorf("an unknown pipeline: %d %s, want 404", r.Status, r.Body)
			}
		})
	}
	// The owner still reads it: the 403 is the other account's only.
	owner.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200)
}

// TestContract21ValidateLimit: pipeline validation counts in the
// 120-per-10-minutes limit it shares with the estimate: 100 estimates and
// 20 validations exhaust it, and the next of either is a 429.
func TestContract21ValidateLimit(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("validate@example.org", fixturePassword)
	body := map[string]any{"definition": jsonRaw(`{"nodes":[{"id":"s","type":"scrap","config":{"queries":["plombier"],"zones":["Lyon"]}}],"edges":[]}`),
		"structure_only": true}
	estimate := map[string]any{"queries": []string{}, "zones": []string{}}
	for i := 0; i < 100; i++ {
		c.Do("POST", "/api/estimate", estimate).Must(t, 200)
	}
	for i := 0; i < 20; i++ {
		c.Do("POST", "/api/pipelines/validate", body).Must(t, 200)
	}
	c.Do("POST", "/api/pipelines/validate", body).Must(t, 429)
	c.Do("POST", "/api/estimate", estimate).Must(t, 429)
	// The limit is the account's: another account validates freely.
	d := e.NewClient()
	d.Signup("validate2@example.org", fixturePassword)
	d.Do("POST", "/api/pipelines/validate", body).Must(t, 200)
}

// TestContract21ContinueMidStage: a stage after the root (emails, fed by
// the scrape) cancelled while it runs pauses its pipeline; continue starts
// its successor from the stage's rows and the pipeline runs on to done,
// never to cancelled.
func TestContract21ContinueMidStage(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("midstage@example.org", fixturePassword)
	c.Verify("midstage@example.org")
	id := c.Do("POST", "/api/pipelines", `{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":["boulangerie","plombier","coiffeur"],"zones":["Lyon"]}},
		{"id":"e","type":"emails"},
		{"id":"o","type":"sort","config":{"sort_by":"rating","direction":"desc","top_n":5}}],
		"edges":[{"from":"s","to":"e"},{"from":"e","to":"o"}]}`).Must(t, 201).JSON()["id"].(string)
	var stage string
	for end := time.Now().Add(2 * time.Minute); stage == ""; time.Sleep(10 * time.Millisecond) {
		got := c.Do("GET", "/api/pipelines/"+id, nil).Must(t, 200).JSON()
		for _, x := range got["jobs"].([]any) {
			j := x.(map[string]any)
			if j["job_type"] != "emails" {
				continue
			}
			// Cancel once it has made some rows.
			if full := c.Do("GET", "/api/jobs/"+j["id"].(string), nil).Must(t, 200).JSON(); full["status"] == "running" && full["processed_points"].(float64) > 0 {
				stage = j["id"].(string)
			}
		}
		if got["status"] != "running" || time.Now().After(end) {
			t.Fatalf("no running emails stage: %v", got)
		}
	}
	if r := c.Do("POST", "/api/jobs/"+stage+"/cancel", nil).Must(t, 200).JSON(); r["pipeline_cancelled"] != false {
		t.Fatalf("cancel of a running stage: %v", r)
	}
	// Continued at once, as a user would, while the stage's partial rows
	// are still being written: the successor starts when they are there.
	c.Do("POST", "/api/pipelines/"+id+"/nodes/e/continue", nil).Must(t, 200)
	got := waitPipeline(t, c, id)
	j := c.Do("GET", "/api/jobs/"+stage, nil).Must(t, 200).JSON()
	if got["status"] != "done" || j["status"] != "cancelled" || j["download_available"] != true {
		t.Fatalf("after continue: %v (stage %v)", got, j)
	}
	if n := j["results_count"].(float64); n > 0 {
		if out, _ := got["output_job"].(map[string]any); out["job_type"] != "sort" || out["results_count"] != min(5, n) {
			t.Fatalf("output after continue: %v", got)
		}
	}
}
