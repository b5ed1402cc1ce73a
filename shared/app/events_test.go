package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/store"
)

// eventLog returns the event log over the app's tables. The feed is part of
// the contract (spec: Events), so an app without its table or its route
// fails the test instead of skipping it.
func eventLog(t *testing.T, e *apptest.Env) *events.Service {
	t.Helper()
	if !slices.ContainsFunc(app.Schemas(), func(s store.Schema) bool { return s.Name == events.Table }) {
		t.Fatal("the events table is not among the app's schemas")
	}
	if !slices.ContainsFunc(e.App.Server.Routes(), func(r api.Route) bool { return r.Method == http.MethodGet && r.Path == "/api/events" }) {
		t.Fatal("GET /api/events is not mounted")
	}
	return events.New(e.Adapters.DB, e.Clock.Now)
}

// feedPage is the decoded body of GET /api/events.
type feedPage struct {
	Events []struct {
		ID        int64          `json:"id"`
		Type      string         `json:"type"`
		CreatedAt string         `json:"created_at"`
		Data      map[string]any `json:"data"`
	} `json:"events"`
	LastID int64 `json:"last_id"`
	HeadID int64 `json:"head_id"`
}

func decodeFeed(t *testing.T, r *apptest.Response) feedPage {
	t.Helper()
	r.Must(t, 200)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &raw); err != nil || len(raw) != 3 || raw["last_id"] == nil || raw["head_id"] == nil ||
		!bytes.HasPrefix(raw["events"], []byte("[")) {
		t.Fatalf("feed body %s", r.Body)
	}
	var p feedPage
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p feedPage) ids() []int64 {
	out := []int64{}
	for _, e := range p.Events {
		out = append(out, e.ID)
	}
	return out
}

var feedTime = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`)

// TestEventFeed: GET /api/events with a session and with an API key, its
// cursors, filters and strict query parameters, tenant isolation, and the
// log's part in the data export and the account deletion.
func TestEventFeed(t *testing.T) {
	e := apptest.Start(t)
	log := eventLog(t, e)
	ctx := context.Background()
	c := e.NewClient()
	uid := c.Signup("feed@example.org", fixturePassword)
	key := e.NewClient()
	key.Key = c.CreateKey("feed")
	other := e.NewClient()
	otherID := other.Signup("feed-other@example.org", fixturePassword)

	msg := "provider unavailable"
	appends := []struct {
		typ  string
		data any
	}{
		{events.JobCompleted, events.JobData{ID: "j1", JobType: "scrap", Status: "done", Queries: []string{"plombier"},
			Zones: []string{"Lyon"}, ResultsCount: 42, EFCost: 3.5, CreatedAt: "2026-01-01T10:00:00Z",
			DownloadURL: events.DownloadURL(e.Config.BaseURL, "j1")}},
		{events.JobFailed, events.JobData{ID: "j2", JobType: "scrap", Status: "failed", ErrorMessage: &msg}},
		{events.PipelineCompleted, events.PipelineData{ID: "p1", Name: "Pipeline", Status: "done", CreatedAt: "2026-01-01 10:00:00"}},
		{events.VeilleRunCompleted, events.VeilleRunData{RunID: 1, VeilleID: 3, VeilleName: "Lyon", JobID: "j1", IsBaseline: true}},
	}
	for _, a := range appends {
		e.Clock.Advance(time.Second)
		if _, err := log.Append(ctx, uid, a.typ, a.data); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := log.Append(ctx, otherID, events.PipelineFailed, events.PipelineData{ID: "p9"}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		path       string
		want       []int64
		last, head int64
	}{
		{"/api/events", []int64{1, 2, 3, 4}, 4, 4},
		{"/api/events?limit=1", []int64{1}, 1, 4},
		{"/api/events?since_id=2&limit=100", []int64{3, 4}, 4, 4},
		{"/api/events?since_id=4", []int64{}, 4, 4},
		{"/api/events?types=job.completed,pipeline.completed", []int64{1, 3}, 3, 3},
		{"/api/events?types=job.failed&types=+veille.run_completed,", []int64{2, 4}, 4, 4},
		{"/api/events?types=job.cancelled", []int64{}, 0, 0},
		{"/api/events?order=desc&limit=2", []int64{4, 3}, 3, 4},
		{"/api/events?order=asc&since_id=0&limit=50", []int64{1, 2, 3, 4}, 4, 4},
	}
	for name, cl := range map[string]*apptest.Client{"session": c, "key": key} {
		for _, tt := range tests {
			t.Run(name+" "+tt.path, func(t *testing.T) {
				p := decodeFeed(t, cl.Do("GET", tt.path, nil))
				if !slices.Equal(p.ids(), tt.want) || p.LastID != tt.last || p.HeadID != tt.head {
					t.Errorf("%v last %d head %d, want %v last %d head %d", p.ids(), p.LastID, p.HeadID, tt.want, tt.last, tt.head)
				}
				for _, ev := range p.Events {
					if ev.Type != appends[ev.ID-1].typ || !feedTime.MatchString(ev.CreatedAt) || ev.Data == nil {
						t.Errorf("event %+v", ev)
					}
				}
			})
		}
	}

	t.Run("job data carries every field", func(t *testing.T) {
		p := decodeFeed(t, key.Do("GET", "/api/events?limit=2", nil))
		d := p.Events[0].Data
		for _, k := range []string{"id", "job_type", "status", "queries", "zones", "results_count", "error_count", "ef_cost",
			"created_at", "completed_at", "error_message", "pipeline_id", "source_job_id", "download_url"} {
			if _, ok := d[k]; !ok {
				t.Errorf("data lacks %s: %v", k, d)
			}
		}
		if d["download_url"] != e.Server.URL+"/api/jobs/j1/download" || d["completed_at"] != nil {
			t.Errorf("data %v", d)
		}
		if f := p.Events[1].Data; f["error_message"] != msg || f["download_url"] != nil || f["queries"] != nil {
			t.Errorf("failed job data %v", f)
		}
	})

	bad := []struct {
		query  string
		fields []string
	}{
		{"since_id=-1", []string{"since_id"}},
		{"since_id=abc", []string{"since_id"}},
		{"since_id=1.5", []string{"since_id"}},
		{"since_id=", []string{"since_id"}},
		{"since_id=+3", []string{"since_id"}},
		{"since_id=99999999999999999999", []string{"since_id"}},
		{"since_id=1&since_id=2", []string{"since_id"}},
		{"limit=0", []string{"limit"}},
		{"limit=101", []string{"limit"}},
		{"limit=ten", []string{"limit"}},
		{"order=up", []string{"order"}},
		{"order=DESC", []string{"order"}},
		{"types=job.done", []string{"types"}},
		{"types=job.completed,webhook.sent", []string{"types"}},
		{"limit=0&order=x&types=a,b", []string{"limit", "order", "types", "types"}},
	}
	for _, tt := range bad {
		t.Run("422 "+tt.query, func(t *testing.T) {
			r := key.Do("GET", "/api/events?"+tt.query, nil).Must(t, 422)
			var body struct {
				Detail string `json:"detail"`
				Errors []struct {
					Field   string `json:"field"`
					Message string `json:"message"`
				} `json:"errors"`
			}
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, f := range body.Errors {
				fields = append(fields, f.Field)
			}
			if !slices.Equal(fields, tt.fields) || body.Detail == "" {
				t.Errorf("body %s, want fields %v", r.Body, tt.fields)
			}
		})
	}
	t.Run("an unknown type is named", func(t *testing.T) {
		r := key.Do("GET", "/api/events?types=job.completed,job.done", nil).Must(t, 422)
		if d := detail(t, r); d != `types: unknown event type "job.done"` {
			t.Errorf("detail %q", d)
		}
		r = c.Do("GET", "/api/events?types=job.done", nil).Must(t, 422)
		if d := detail(t, r); !strings.Contains(d, "job.done") || !strings.Contains(d, "inconnu") {
			t.Errorf("detail %q", d)
		}
	})

	t.Run("no credentials", func(t *testing.T) {
		e.NewClient().Do("GET", "/api/events", nil).Must(t, 401)
	})
	t.Run("another account sees its own log only", func(t *testing.T) {
		p := decodeFeed(t, other.Do("GET", "/api/events", nil))
		if !slices.Equal(p.ids(), []int64{1}) || p.Events[0].Type != events.PipelineFailed || p.HeadID != 1 {
			t.Errorf("%+v", p)
		}
	})
	t.Run("in the OpenAPI document", func(t *testing.T) {
		r := e.NewClient().Do("GET", "/api/openapi.json", nil).Must(t, 200)
		var doc struct {
			Paths map[string]map[string]any `json:"paths"`
		}
		json.Unmarshal(r.Body, &doc)
		if _, ok := doc.Paths["/api/events"]["get"]; !ok {
			t.Error("GET /api/events missing from the document")
		}
	})

	t.Run("export has events.json", func(t *testing.T) {
		r := c.Do("GET", "/api/auth/me/export", nil).Must(t, 200)
		zr, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, f := range zr.File {
			rc, _ := f.Open()
			files[f.Name], _ = io.ReadAll(rc)
			rc.Close()
		}
		var exported []struct {
			ID   int64  `json:"id"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(files["events.json"], &exported); err != nil || len(exported) != 4 || exported[2].Type != events.PipelineCompleted {
			t.Errorf("events.json %s: %v", files["events.json"], err)
		}
		if !strings.Contains(string(files["manifest.txt"]), "Événements") {
			t.Errorf("manifest.txt %s", files["manifest.txt"])
		}
	})

	t.Run("account deletion purges the log", func(t *testing.T) {
		c.Do("DELETE", "/api/auth/me", map[string]any{"confirm_email": "feed@example.org"}).Must(t, 204)
		p, err := e.Adapters.DB.Table(events.Table).Query(ctx, store.Query{PK: "USER#" + itoa(uid)})
		if err != nil || len(p.Items) != 0 {
			t.Errorf("left after deletion: %v %v", p.Items, err)
		}
		if h, _ := log.Head(ctx, otherID); h != 1 {
			t.Errorf("the other account's head %d", h)
		}
	})
}

// TestEventFeedWindow: events older than 7 days leave the feed (and head_id)
// even before the store deletes them; ids go on.
func TestEventFeedWindow(t *testing.T) {
	e := apptest.Start(t)
	log := eventLog(t, e)
	ctx := context.Background()
	c := e.NewClient()
	uid := c.Signup("window@example.org", fixturePassword)
	key := e.NewClient()
	key.Key = c.CreateKey("window")
	for range 2 {
		if _, err := log.Append(ctx, uid, events.JobCancelled, events.JobData{ID: "j", Status: "cancelled"}); err != nil {
			t.Fatal(err)
		}
	}
	e.Clock.Advance(7*24*time.Hour - time.Second)
	if p := decodeFeed(t, key.Do("GET", "/api/events", nil)); len(p.Events) != 2 || p.HeadID != 2 {
		t.Fatalf("before the end of the window: %+v", p)
	}
	e.Clock.Advance(time.Second)
	if p := decodeFeed(t, key.Do("GET", "/api/events", nil)); len(p.Events) != 0 || p.HeadID != 0 || p.LastID != 0 {
		t.Fatalf("after the window: %+v", p)
	}
	if ev, err := log.Append(ctx, uid, events.JobCompleted, events.JobData{ID: "k"}); err != nil || ev.ID != 3 {
		t.Fatalf("%+v %v", ev, err)
	}
	if p := decodeFeed(t, key.Do("GET", "/api/events?since_id=2", nil)); !slices.Equal(p.ids(), []int64{3}) || p.HeadID != 3 {
		t.Fatalf("new event: %+v", p)
	}
}
