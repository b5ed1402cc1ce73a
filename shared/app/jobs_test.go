package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

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
	// Whole-country jobs: they are still running when the sixth arrives.
	body := map[string]any{"queries": []string{"q"}, "zones": []string{"France"}}
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

	q := apptest.Start(t, apptest.WithConfig(func(cfg *config.Config) { v := 10.0; cfg.EFQuota = &v }))
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
	got = waitJob(t, c, j.ID, func(g map[string]any) bool { return g["status"] == "done" || g["status"] == "failed" })
	if got["status"] != "done" || got["results_count"].(float64) < 50 || got["processed_points"] != got["grid_points_count"] ||
		got["download_available"] != true || got["completed_at"] == nil || got["started_at"] == nil {
		t.Fatalf("job after the run: %v", got)
	}
	// The event follows the state change (the spec: within a few seconds).
	var feed map[string]any
	var evs []any
	for end := time.Now().Add(10 * time.Second); len(evs) == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		feed = c.Do("GET", "/api/events?types=job.completed", nil).Must(t, 200).JSON()
		evs = feed["events"].([]any)
	}
	if len(evs) != 1 || evs[0].(map[string]any)["data"].(map[string]any)["id"] != j.ID {
		t.Errorf("feed %v", feed)
	}
	checkOutputs(t, e, c, j.ID, int(got["results_count"].(float64)))
}

// checkOutputs downloads a done job's output in the three formats and
// parses each back, and reads its items and columns.
func checkOutputs(t *testing.T, e *apptest.Env, c *apptest.Client, id string, rows int) {
	t.Helper()
	csvResp := c.Do("GET", "/api/jobs/"+id+"/download", nil).Must(t, 200)
	if ct := csvResp.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("csv content type %q", ct)
	}
	if cd := csvResp.Header.Get("Content-Disposition"); !strings.Contains(cd, ".csv") {
		t.Errorf("csv disposition %q", cd)
	}
	if !bytes.HasPrefix(csvResp.Body, []byte("\uFEFF")) {
		t.Fatal("csv without BOM")
	}
	rd := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(csvResp.Body, []byte("\uFEFF"))))
	rd.Comma = ';'
	records, err := rd.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"nom", "site_web", "telephone", "adresse", "rating", "reviews_count", "category", "lien_maps", "aggregator_flag"}
	if len(records) != rows+1 || !slices.Equal(records[0][:len(want)], want) {
		t.Fatalf("csv: %d records, header %v", len(records), records[0])
	}
	for _, rec := range records[1:] {
		for _, cell := range rec {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Fatalf("formula-like cell not neutralised: %q", cell)
			}
		}
	}

	var items []map[string]any
	if err := json.Unmarshal(c.Do("GET", "/api/jobs/"+id+"/download?format=json", nil).Must(t, 200).Body, &items); err != nil || len(items) != rows {
		t.Fatalf("json: %d items, %v", len(items), err)
	}
	x := c.Do("GET", "/api/jobs/"+id+"/download?format=xlsx", nil).Must(t, 200)
	f, err := excelize.OpenReader(bytes.NewReader(x.Body))
	if err != nil {
		t.Fatal(err)
	}
	sheet := f.GetSheetName(0)
	xr, err := f.GetRows(sheet)
	if err != nil || len(xr) != rows+1 || xr[0][0] != "nom" {
		t.Fatalf("xlsx: %d rows, %v", len(xr), err)
	}
	c.Do("GET", "/api/jobs/"+id+"/download?format=pdf", nil).Must(t, 400)

	page := c.Do("GET", "/api/jobs/"+id+"/items?offset=1&limit=2", nil).Must(t, 200).JSON()
	if page["count"] != 2.0 || page["total"] != float64(rows) || page["offset"] != 1.0 || len(page["items"].([]any)) != 2 {
		t.Errorf("items page: %v", page)
	}
	c.Do("GET", "/api/jobs/"+id+"/items?limit=0", nil).Must(t, 422)
	bd := c.Do("GET", "/api/jobs/"+id+"/breakdown", nil).Must(t, 200).JSON()
	if bd["results_count"] != float64(rows) || len(bd["by_zone"].(map[string]any)) == 0 || len(bd["query_stats"].(map[string]any)) == 0 {
		t.Errorf("breakdown: %v", bd)
	}
	m := c.Do("GET", "/api/jobs/"+id+"/map", nil).Must(t, 200).JSON()
	if m["processed_ratio"] != 1.0 || len(m["tiles"].([]any)) == 0 {
		t.Errorf("map: ratio %v, %d tiles", m["processed_ratio"], len(m["tiles"].([]any)))
	}
	cols := c.Do("GET", "/api/jobs/"+id+"/output-columns", nil).Must(t, 200).JSON()
	if cols["row_count"] != float64(rows) || len(cols["columns"].([]any)) < len(want) {
		t.Errorf("columns: %v", cols)
	}
	o := e.NewClient()
	o.Signup("nosy-"+id+"@example.org", fixturePassword)
	for _, p := range []string{"/download", "/download?format=xlsx", "/items", "/output-columns", "/breakdown", "/stream", "/map"} {
		o.Do("GET", "/api/jobs/"+id+p, nil).Must(t, 404)
	}
}

// TestJobCancelAndDelete: cancel while it runs, 400 once it has ended,
// delete with its output, and job.cancelled in the feed.
func TestJobCancelAndDelete(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("cancel@example.org", fixturePassword)
	c.Verify("cancel@example.org")
	big := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"restaurant"}, "zones": []string{"France"}}))
	got := c.Do("POST", "/api/jobs/"+big.ID+"/cancel", nil).Must(t, 200).JSON()
	if got["ok"] != true || got["pipeline_cancelled"] != false {
		t.Errorf("cancel: %v", got)
	}
	if s := c.Do("GET", "/api/jobs/"+big.ID, nil).Must(t, 200).JSON()["status"]; s != "cancelled" {
		t.Errorf("status after cancel: %v", s)
	}
	c.Do("POST", "/api/jobs/"+big.ID+"/cancel", nil).Must(t, 400)
	c.Do("GET", "/api/jobs/"+big.ID+"/download", nil).Must(t, 410)
	if m := c.Do("GET", "/api/jobs/"+big.ID+"/map", nil).Must(t, 200).JSON(); m["processed_ratio"].(float64) >= 1 || len(m["tiles"].([]any)) != big.GridPointsCount {
		t.Errorf("map of a cancelled France job: ratio %v, %d tiles of %d", m["processed_ratio"], len(m["tiles"].([]any)), big.GridPointsCount)
	}
	feed := c.Do("GET", "/api/events?types=job.cancelled", nil).Must(t, 200).JSON()
	if evs := feed["events"].([]any); len(evs) != 1 {
		t.Errorf("feed %v", feed)
	}

	small := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}}))
	waitJob(t, c, small.ID, isDone)
	c.Do("POST", "/api/jobs/"+small.ID+"/cancel", nil).Must(t, 400)
	c.Do("GET", "/api/jobs/"+small.ID+"/download", nil).Must(t, 200)
	o := e.NewClient()
	o.Signup("other-cancel@example.org", fixturePassword)
	o.Do("DELETE", "/api/jobs/"+small.ID, nil).Must(t, 404)
	o.Do("POST", "/api/jobs/"+small.ID+"/cancel", nil).Must(t, 404)
	c.Do("DELETE", "/api/jobs/"+small.ID, nil).Must(t, 204)
	c.Do("GET", "/api/jobs/"+small.ID, nil).Must(t, 404)
	c.Do("DELETE", "/api/jobs/"+big.ID, nil).Must(t, 204)
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	ID   string
	Name string
	Data string
}

func parseSSE(body string) []sseEvent {
	var out []sseEvent
	for _, block := range strings.Split(body, "\n\n") {
		var ev sseEvent
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.Data = strings.TrimPrefix(line, "data: ")
			}
		}
		if ev.Name != "" {
			out = append(out, ev)
		}
	}
	return out
}

// TestJobStream: the progress stream of a finished job replays its status,
// log and progress and ends with done; Last-Event-ID resumes after a log
// line; tail keeps the last lines.
func TestJobStream(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("stream@example.org", fixturePassword)
	c.Verify("stream@example.org")
	j := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}, "scrap_mode": "normal"}))
	waitJob(t, c, j.ID, isDone)
	// The end's log line is written just after the done status: read the
	// stream once it is there.
	var r *apptest.Response
	for end := time.Now().Add(10 * time.Second); ; {
		r = c.Do("GET", "/api/jobs/"+j.ID+"/stream", nil).Must(t, 200)
		if b := string(r.Body); strings.Contains(b, "Done: ") || strings.Contains(b, "Terminé") || time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r.Header.Get("Content-Type") != "text/event-stream" || r.Header.Get("Cache-Control") != "no-cache" || r.Header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("headers %v", r.Header)
	}
	evs := parseSSE(string(r.Body))
	var names []string
	var logIDs []string
	for _, ev := range evs {
		names = append(names, ev.Name)
		if ev.Name == "log" {
			logIDs = append(logIDs, ev.ID)
		}
	}
	if len(evs) < 4 || evs[0].Name != "status" || evs[len(evs)-1].Name != "done" || len(logIDs) < 2 || !slices.Contains(names, "progress") {
		t.Fatalf("events %v", names)
	}
	c.Header = http.Header{"Last-Event-ID": {logIDs[0]}}
	resumed := parseSSE(string(c.Do("GET", "/api/jobs/"+j.ID+"/stream", nil).Must(t, 200).Body))
	c.Header = nil
	var again []string
	for _, ev := range resumed {
		if ev.Name == "log" {
			again = append(again, ev.ID)
		}
	}
	if !slices.Equal(again, logIDs[1:]) {
		t.Errorf("resumed after %s: logs %v, want %v", logIDs[0], again, logIDs[1:])
	}
	tailed := parseSSE(string(c.Do("GET", "/api/jobs/"+j.ID+"/stream?tail=1", nil).Must(t, 200).Body))
	var last []string
	for _, ev := range tailed {
		if ev.Name == "log" {
			last = append(last, ev.ID)
		}
	}
	if !slices.Equal(last, logIDs[len(logIDs)-1:]) {
		t.Errorf("tail=1: logs %v, want %v", last, logIDs[len(logIDs)-1:])
	}
	o := e.NewClient()
	o.Signup("nosy-stream@example.org", fixturePassword)
	o.Do("GET", "/api/jobs/"+j.ID+"/stream", nil).Must(t, 404)
}

// TestJobsInAccountExportAndDeletion: the data export holds the jobs and
// their outputs; deleting the account deletes them with their files.
func TestJobsInAccountExportAndDeletion(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("owner@example.org", fixturePassword)
	c.Verify("owner@example.org")
	j := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}}))
	var done map[string]any
	done = waitJob(t, c, j.ID, isDone)
	r := c.Do("GET", "/api/auth/me/export", nil).Must(t, 200)
	z, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
	if err != nil {
		t.Fatal(err)
	}
	var jobsJSON []byte
	var output bool
	for _, f := range z.File {
		switch {
		case f.Name == "jobs.json":
			rc, _ := f.Open()
			jobsJSON, _ = io.ReadAll(rc)
			rc.Close()
		case f.Name == "jobs/"+j.ID+"/"+done["output_filename"].(string):
			output = f.UncompressedSize64 > 0
		}
	}
	if !strings.Contains(string(jobsJSON), j.ID) || !output {
		t.Fatalf("export: jobs.json %q, output file %v", jobsJSON, output)
	}
	files := filepath.Join(e.Dir, "files", "jobs", j.ID)
	if _, err := os.Stat(files); err != nil {
		t.Fatalf("no output files before deletion: %v", err)
	}
	c.Do("DELETE", "/api/auth/me", map[string]any{"confirm_email": "owner@example.org"}).Must(t, 204)
	if _, err := os.Stat(files); !os.IsNotExist(err) {
		t.Errorf("job files after the account's deletion: %v", err)
	}
}

// TestJobExpiry: past its expires_at a finished job is expired and its
// output answers 410.
func TestJobExpiry(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("expiry@example.org", fixturePassword)
	c.Verify("expiry@example.org")
	j := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}}))
	waitJob(t, c, j.ID, isDone)
	c.Do("GET", "/api/jobs/"+j.ID+"/download", nil).Must(t, 200)
	// The JSON and XLSX are made by a worker after the job is done: wait
	// for them, so that no file is being written when the job expires.
	for _, f := range []string{"json", "xlsx"} {
		for end := time.Now().Add(20 * time.Second); ; {
			if c.Do("GET", "/api/jobs/"+j.ID+"/download?format="+f, nil).Status == 200 {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("no %s download", f)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// A key outlives the 7-day session.
	k := e.NewClient()
	k.Key = c.CreateKey("expiry")
	c = k
	e.Clock.Advance(31 * 24 * time.Hour)
	got := c.Do("GET", "/api/jobs/"+j.ID, nil).Must(t, 200).JSON()
	if got["status"] != "expired" || got["download_available"] != false {
		t.Fatalf("after 31 days: %v", got)
	}
	c.Do("GET", "/api/jobs/"+j.ID+"/download", nil).Must(t, 410)
	c.Do("GET", "/api/jobs/"+j.ID+"/items", nil).Must(t, 410)
	// A derive still running when the job expired deletes its file as it
	// ends (engine.handleDerive): the directory goes within moments.
	dir := filepath.Join(e.Dir, "files", "jobs", j.ID)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, err := os.Stat(dir)
		if os.IsNotExist(err) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("output files of an expired job: %v", err)
		}
	}
}

// TestJobResume: a cancelled scrape resumes over the tiles it left, once
// at a time, with EF for those only; a finished one does not resume.
func TestJobResume(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("resume@example.org", fixturePassword)
	c.Verify("resume@example.org")
	src := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"restaurant"}, "zones": []string{"France"}}))
	c.Do("POST", "/api/jobs/"+src.ID+"/cancel", nil).Must(t, 200)
	res := c.Do("POST", "/api/jobs/"+src.ID+"/resume", nil).Must(t, 200).JSON()
	if res["source_job_id"] != src.ID || res["status"] != "pending" || res["grid_points_count"].(float64) > float64(src.GridPointsCount) ||
		res["grid_points_count"].(float64) < 1 || res["ef_cost"].(float64) > src.EFCost {
		t.Fatalf("resume %v of %+v", res, src)
	}
	c.Do("POST", "/api/jobs/"+src.ID+"/resume", nil).Must(t, 400) // one resume at a time
	id := res["id"].(string)
	c.Do("POST", "/api/jobs/"+id+"/cancel", nil).Must(t, 200)
	again := c.Do("POST", "/api/jobs/"+src.ID+"/resume", nil).Must(t, 200).JSON()
	c.Do("POST", "/api/jobs/"+again["id"].(string)+"/cancel", nil).Must(t, 200)

	small := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Lyon"}}))
	waitJob(t, c, small.ID, isDone)
	c.Do("POST", "/api/jobs/"+small.ID+"/resume", nil).Must(t, 400)
	o := e.NewClient()
	o.Signup("other-resume@example.org", fixturePassword)
	o.Verify("other-resume@example.org")
	o.Do("POST", "/api/jobs/"+src.ID+"/resume", nil).Must(t, 404)
}

// TestResumeFinishesWhatWasLeft: a resume of a cancelled Lyon scrape runs
// to done over the remaining tiles only.
func TestResumeFinishesWhatWasLeft(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("resume2@example.org", fixturePassword)
	c.Verify("resume2@example.org")
	src := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"restaurant"}, "zones": []string{"Rhône"}, "scrap_mode": "ultra"}))
	c.Do("POST", "/api/jobs/"+src.ID+"/cancel", nil).Must(t, 200)
	res := c.Do("POST", "/api/jobs/"+src.ID+"/resume", nil).Must(t, 200).JSON()
	id := res["id"].(string)
	var got map[string]any
	got = waitJob(t, c, id, isDone)
	if got["status"] != "done" || got["processed_points"] != res["grid_points_count"] || got["results_count"].(float64) < 1 {
		t.Fatalf("resume after its run: %v", got)
	}
}

// TestJobStreamWhileRunning: a stream opened on a running job sends events
// as the job moves, before it ends (read for three seconds).
func TestJobStreamWhileRunning(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("live@example.org", fixturePassword)
	c.Verify("live@example.org")
	j := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{
		"queries": []string{"restaurant", "coiffeur"}, "zones": []string{"France"}, "scrap_mode": "ultra",
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.Server.URL+"/api/jobs/"+j.ID+"/stream", nil)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body) // ends with the context's deadline
	evs := parseSSE(string(body))
	progress := 0
	for _, ev := range evs {
		if ev.Name == "progress" {
			progress++
		}
		if ev.Name == "done" {
			t.Fatal("a whole-country job done in three seconds: the test needs a longer job")
		}
	}
	if len(evs) == 0 || evs[0].Name != "status" || progress < 2 {
		t.Errorf("live events %v", evs)
	}
	c.Do("POST", "/api/jobs/"+j.ID+"/cancel", nil).Must(t, 200)
}

// TestJobMaxRunTime: past 24 hours of running, a scrape stops and a resume
// over its unfinished tiles takes over, with no call and no new charge.
func TestJobMaxRunTime(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("long@example.org", fixturePassword)
	c.Verify("long@example.org")
	src := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"restaurant", "coiffeur"}, "zones": []string{"France"}, "scrap_mode": "ultra"}))
	// Wait for a first find, not a number of tiles: the tiles a pool takes
	// first may lie where the world has no restaurant and no hairdresser.
	waitJob(t, c, src.ID, func(g map[string]any) bool { return g["results_count"].(float64) >= 1 })
	spent := c.Do("GET", "/api/ef/usage", nil).Must(t, 200).JSON()["spent"]
	k := e.NewClient()
	k.Key = c.CreateKey("long")
	e.Clock.Advance(25 * time.Hour)
	var got map[string]any
	got = waitJob(t, k, src.ID, func(g map[string]any) bool { return g["status"] != "running" })
	got = waitJob(t, k, src.ID, isDone)
	if got["status"] != "done" || got["download_available"] != true || got["results_count"].(float64) < 1 {
		t.Fatalf("after 25 hours the job ends with what it found: %v", got)
	}
	var list []map[string]any
	if err := json.Unmarshal(k.Do("GET", "/api/jobs", nil).Must(t, 200).Body, &list); err != nil {
		t.Fatal(err)
	}
	var next map[string]any
	for _, j := range list {
		if j["source_job_id"] == src.ID {
			next = j
		}
	}
	if next == nil || next["ef_cost"] != 0.0 || next["grid_points_count"].(float64) >= float64(src.GridPointsCount) {
		t.Fatalf("continuation %v", next)
	}
	if now := k.Do("GET", "/api/ef/usage", nil).Must(t, 200).JSON()["spent"]; now != spent {
		t.Errorf("EF spent %v after the automatic resume, %v before", now, spent)
	}
	k.Do("POST", "/api/jobs/"+next["id"].(string)+"/cancel", nil).Must(t, 200)
}

// waitJob reads the job until until says so, for at most two minutes, and
// returns its last state (the caller checks it).
func waitJob(t *testing.T, c *apptest.Client, id string, until func(map[string]any) bool) map[string]any {
	t.Helper()
	var got map[string]any
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = c.Do("GET", "/api/jobs/"+id, nil).Must(t, 200).JSON(); until(got) {
			break
		}
	}
	return got
}

func isDone(g map[string]any) bool { return g["status"] == "done" }
