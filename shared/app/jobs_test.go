package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
)

type jobBody struct {
	ID              string   `json:"id"`
	JobType         string   `json:"job_type"`
	Status          string   `json:"status"`
	Queries         []string `json:"queries"`
	Country         string   `json:"country"`
	ScrapMode       string   `json:"scrap_mode"`
	GridPointsCount int      `json:"grid_points_count"`
	EFCost          float64  `json:"ef_cost"`
	ExpiresAt       string   `json:"expires_at"`
	Source          string   `json:"source"`
	ExtraColumns    []string `json:"extra_columns"`
	StopAt          *int64   `json:"stop_at"`
}

func decodeJob(t *testing.T, r *apptest.Response) jobBody {
	t.Helper()
	var j jobBody
	if err := json.Unmarshal(r.Must(t, 200).Body, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// TestJobCreation: POST /api/jobs applies every rule of the scrape request
// and records the job in pending with its EF debited.
func TestJobCreation(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("jobs@example.org", fixturePassword)

	unverified := c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}})
	unverified.Must(t, 403)
	c.Verify("jobs@example.org")

	j := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{
		"queries": []string{" boulangerie ", "Boulangerie", "pâtisserie"}, "zones": []string{"Lyon"},
		"extra_columns": []string{"gps", "colour"}, "stop_at": 500,
	}))
	if j.Status != "pending" || j.JobType != "scrap" || j.Country != "FRA" || j.ScrapMode != "fast" ||
		strings.Join(j.Queries, ",") != "boulangerie,pâtisserie" || j.GridPointsCount == 0 || j.EFCost <= 0 ||
		j.Source != "sim" || strings.Join(j.ExtraColumns, ",") != "gps" || j.StopAt == nil || *j.StopAt != 500 || j.ExpiresAt == "" {
		t.Fatalf("job %+v", j)
	}
	got := decodeJob(t, c.Do("GET", "/api/jobs/"+j.ID, nil))
	if got.ID != j.ID || got.EFCost != j.EFCost {
		t.Errorf("GET: %+v", got)
	}
	usage := c.Do("GET", "/api/ef/usage", nil).Must(t, 200).JSON()
	if usage["spent"] != j.EFCost {
		t.Errorf("EF spent %v, job cost %v", usage["spent"], j.EFCost)
	}

	for _, tt := range []struct {
		name   string
		body   any
		status int
	}{
		{"a type field", map[string]any{"queries": []string{"q"}, "zones": []string{"Lyon"}, "type": "emails"}, 400},
		{"an unknown zone", map[string]any{"queries": []string{"q"}, "zones": []string{"Pari"}}, 400},
		{"no queries", map[string]any{"zones": []string{"Lyon"}}, 422},
		{"bad mode", map[string]any{"queries": []string{"q"}, "zones": []string{"Lyon"}, "scrap_mode": "x"}, 422},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c.Do("POST", "/api/jobs", tt.body).Must(t, tt.status)
		})
	}
	if d := detail(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"q"}, "zones": []string{"Pari"}})); !strings.Contains(d, "Paris") {
		t.Errorf("unknown zone detail %q lacks the suggestion", d)
	}

	t.Run("another account's job is 404", func(t *testing.T) {
		o := e.NewClient()
		o.Signup("other-jobs@example.org", fixturePassword)
		o.Do("GET", "/api/jobs/"+j.ID, nil).Must(t, 404)
		o.Do("GET", "/api/jobs/nope", nil).Must(t, 404)
		var list []jobBody
		json.Unmarshal(o.Do("GET", "/api/jobs", nil).Must(t, 200).Body, &list)
		if len(list) != 0 {
			t.Errorf("another account lists %d jobs", len(list))
		}
	})
}

// TestJobLimits: at most 5 pending or running jobs, and the EF quota.
func TestJobLimits(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("busy@example.org", fixturePassword)
	c.Verify("busy@example.org")
	body := map[string]any{"queries": []string{"q"}, "zones": []string{"Lyon"}}
	var ids []string
	for range 5 {
		ids = append(ids, decodeJob(t, c.Do("POST", "/api/jobs", body)).ID)
		e.Clock.Advance(time.Second) // jobs list by creation time
	}
	r := c.Do("POST", "/api/jobs", body)
	r.Must(t, 429)
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	var list []jobBody
	if err := json.Unmarshal(c.Do("GET", "/api/jobs?limit=2&offset=1", nil).Must(t, 200).Body, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != ids[3] || list[1].ID != ids[2] {
		t.Errorf("page limit=2 offset=1: %+v, want %s then %s", list, ids[3], ids[2])
	}
	c.Do("GET", "/api/jobs?limit=x", nil).Must(t, 422)

	q := apptest.Start(t, func(cfg *config.Config) { v := 10.0; cfg.EFQuota = &v })
	p := q.NewClient()
	p.Signup("poor@example.org", fixturePassword)
	p.Verify("poor@example.org")
	if d := detail(t, p.Do("POST", "/api/jobs", map[string]any{"queries": []string{"q"}, "zones": []string{"France"}}).Must(t, 400)); !strings.Contains(d, "Quota EF") {
		t.Errorf("over quota: %q", d)
	}
}

// TestJobRunsToDone: a scrape created over the API runs on the simulated
// world to done, with its counters, and its owner's feed says so.
func TestJobRunsToDone(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("run@example.org", fixturePassword)
	c.Verify("run@example.org")
	j := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}}))
	var got map[string]any
	deadline := time.Now().Add(60 * time.Second)
	for {
		got = c.Do("GET", "/api/jobs/"+j.ID, nil).Must(t, 200).JSON()
		if s := got["status"]; s == "done" || s == "failed" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got["status"] != "done" || got["results_count"].(float64) < 50 || got["processed_points"] != got["grid_points_count"] ||
		got["download_available"] != true || got["completed_at"] == nil || got["started_at"] == nil {
		t.Fatalf("job after the run: %v", got)
	}
	feed := c.Do("GET", "/api/events?types=job.completed", nil).Must(t, 200).JSON()
	evs := feed["events"].([]any)
	if len(evs) != 1 || evs[0].(map[string]any)["data"].(map[string]any)["id"] != j.ID {
		t.Errorf("feed %v", feed)
	}
}
