package app_test

import (
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
)

func finished(g map[string]any) bool { return g["status"] != "pending" && g["status"] != "running" }

// TestViewportTest: a viewport_test job searches one rectangle of the sim
// map, every page, and reports its listings and saturation; it has no
// reusable CSV, and its result is its owner's only.
func TestViewportTest(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("viewport@example.org", fixturePassword)
	c.Verify("viewport@example.org")
	lyon := map[string]any{"south": 45.74, "west": 4.82, "north": 45.78, "east": 4.87}
	for _, tt := range []struct {
		name   string
		body   map[string]any
		detail string
	}{
		{"no query", map[string]any{"bounds": lyon}, "query"},
		{"inverted bounds", map[string]any{"query": "boulangerie", "bounds": map[string]any{"south": 45.78, "west": 4.82, "north": 45.74, "east": 4.87}}, "bounds"},
		{"too large", map[string]any{"query": "boulangerie", "bounds": map[string]any{"south": 44, "west": 4, "north": 46, "east": 5}}, "bounds"},
		{"no bounds", map[string]any{"query": "boulangerie"}, "bounds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Do("POST", "/api/jobs/viewport-test", tt.body)
			if r.Status != 422 || !strings.Contains(detail(t, r), tt.detail) {
				t.Errorf("%d %s", r.Status, r.Body)
			}
		})
	}
	j := c.Do("POST", "/api/jobs/viewport-test", map[string]any{"query": "boulangerie", "bounds": lyon}).Must(t, 200).JSON()
	if j["job_type"] != "viewport_test" || j["source"] != "sim" || j["ef_cost"] != 1.0 {
		t.Fatalf("created: %v", j)
	}
	id := j["id"].(string)
	if got := waitJob(t, c, id, finished); got["status"] != "done" || got["download_available"] != false {
		t.Fatalf("after the run: %v", got)
	}
	rep := c.Do("GET", "/api/jobs/"+id+"/viewport-result", nil).Must(t, 200).JSON()
	results, inside, pages := rep["results"].(float64), rep["inside"].(float64), rep["pages"].(float64)
	if results < 1 || inside < 1 || inside > results || pages < 1 || rep["provider"] != "sim" || rep["cap"].(float64) < 1 {
		t.Fatalf("report: %v", rep)
	}
	if sat := rep["saturated"].(bool); sat != (results >= rep["cap"].(float64)) {
		t.Errorf("saturated %v with %v results of %v", sat, results, rep["cap"])
	}
	if n := len(rep["places"].([]any)); float64(n) != results {
		t.Errorf("%d places for %v results", n, results)
	}
	got := c.Do("GET", "/api/jobs/"+id, nil).Must(t, 200).JSON()
	if got["results_count"] != results {
		t.Errorf("results_count %v, report %v", got["results_count"], results)
	}
	// No reusable CSV: the row routes answer 400 (spec: items route).
	for _, path := range []string{"/items", "/download", "/download?format=json"} {
		if r := c.Do("GET", "/api/jobs/"+id+path, nil); r.Status != 400 || !strings.Contains(detail(t, r), "CSV") {
			t.Errorf("%s: %d %s", path, r.Status, r.Body)
		}
	}
	// The result of another type's route, of a scrape, of another account.
	other := e.NewClient()
	other.Signup("viewport-other@example.org", fixturePassword)
	other.Do("GET", "/api/jobs/"+id+"/viewport-result", nil).Must(t, 404)
	other.Do("GET", "/api/jobs/"+id, nil).Must(t, 404)
	c.Do("DELETE", "/api/jobs/"+id, nil).Must(t, 204)
	c.Do("GET", "/api/jobs/"+id+"/viewport-result", nil).Must(t, 404)
}

// TestDeliveryCheck: a delivery_check job (no items: a domain and a
// subject filter) reads the sim twin's seed mailboxes over IMAP and says
// where the message landed in each; its result has its own route.
func TestDeliveryCheck(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("delivery@example.org", fixturePassword)
	c.Verify("delivery@example.org")
	for _, tt := range []struct {
		name   string
		body   map[string]any
		detail string
	}{
		{"no domain", map[string]any{"subject_filter": "Offre"}, "domain"},
		{"a URL for a domain", map[string]any{"domain": "https://exemple.fr/x", "subject_filter": "Offre"}, "domain"},
		{"no subject filter", map[string]any{"domain": "exemple.fr"}, "subject_filter"},
		{"items", map[string]any{"domain": "exemple.fr", "subject_filter": "Offre", "items": []any{map[string]any{"nom": "x"}}}, "items"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Do("POST", "/api/jobs/delivery-check", tt.body)
			if r.Status != 422 || !strings.Contains(detail(t, r), tt.detail) {
				t.Errorf("%d %s", r.Status, r.Body)
			}
		})
	}
	j := c.Do("POST", "/api/jobs/delivery-check", map[string]any{"domain": "Boulangerie-Durand.fr", "subject_filter": "Nos offres"}).Must(t, 200).JSON()
	if j["job_type"] != "delivery_check" || j["source"] != "sim" {
		t.Fatalf("created: %v", j)
	}
	id := j["id"].(string)
	if got := waitJob(t, c, id, finished); got["status"] != "done" {
		t.Fatalf("after the run: %v", got)
	}
	res := c.Do("GET", "/api/jobs/"+id+"/delivery-result", nil).Must(t, 200).JSON()
	seeds, _ := res["seeds"].([]any)
	sum, _ := res["summary"].(map[string]any)
	if res["domain"] != "boulangerie-durand.fr" || len(seeds) < 2 || sum["total"] != float64(len(seeds)) || res["source"] != "sim" {
		t.Fatalf("result: %v", res)
	}
	for _, s := range seeds {
		p := s.(map[string]any)["placement"].(string)
		if p != "inbox" && p != "promotions" && p != "spam" && !strings.HasPrefix(p, "other:") {
			t.Errorf("seed %v", s)
		}
	}
	for _, path := range []string{"/items", "/download", "/viewport-result"} {
		c.Do("GET", "/api/jobs/"+id+path, nil).Must(t, 400)
	}
}
