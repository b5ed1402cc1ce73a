package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/export"
)

// scrapeDone runs a sim scrape to done and returns its id.
func scrapeDone(t *testing.T, c *apptest.Client, zone string) string {
	t.Helper()
	id := c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{zone}}).Must(t, 200).JSON()["id"].(string)
	if j := waitJob(t, c, id, isDone); j["status"] != "done" {
		t.Fatalf("scrape %s: %v", zone, j)
	}
	return id
}

// TestVeilleRoutes: validation of every field, PATCH semantics, soft
// delete, cross-account 404, the baseline run.
func TestVeilleRoutes(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("veille@example.org", fixturePassword)
	c.Verify("veille@example.org")
	src := scrapeDone(t, c, "Villeurbanne")
	running := c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"plombier"}, "zones": []string{"France"}}).Must(t, 200).JSON()["id"].(string)
	other := e.NewClient()
	other.Signup("veille-other@example.org", fixturePassword)
	other.Verify("veille-other@example.org")

	for _, tt := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"name too short", map[string]any{"name": "x", "source_job_id": src, "frequency_days": 7}, "name"},
		{"name too long", map[string]any{"name": strings.Repeat("n", 201), "source_job_id": src, "frequency_days": 7}, "name"},
		{"no source", map[string]any{"name": "Veille", "frequency_days": 7}, "exactly one source"},
		{"both sources", map[string]any{"name": "Veille", "source_job_id": src, "source_pipeline_id": "abcdefgh", "frequency_days": 7}, "exactly one source"},
		{"source id too short", map[string]any{"name": "Veille", "source_job_id": "abc", "frequency_days": 7}, "8 to 64"},
		{"not owned", map[string]any{"name": "Veille", "source_job_id": "zzzzzzzzzzzz", "frequency_days": 7}, "Source not found"},
		{"not completed", map[string]any{"name": "Veille", "source_job_id": running, "frequency_days": 7}, "not completed"},
		{"frequency 0", map[string]any{"name": "Veille", "source_job_id": src, "frequency_days": 0}, "frequency_days"},
		{"frequency 366", map[string]any{"name": "Veille", "source_job_id": src, "frequency_days": 366}, "frequency_days"},
		{"frequency missing", map[string]any{"name": "Veille", "source_job_id": src}, "frequency_days"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := e.NewClient()
			k.Key = keyOf(t, c)
			r := k.Do("POST", "/api/veille", tt.body)
			if r.Status != 400 || !strings.Contains(detail(t, r), tt.want) {
				t.Errorf("%d %s, want 400 naming %q", r.Status, r.Body, tt.want)
			}
		})
	}
	other.Do("POST", "/api/veille", map[string]any{"name": "Veille", "source_job_id": src, "frequency_days": 7}).Must(t, 400)
	if list := c.Do("GET", "/api/veille", nil).Must(t, 200).JSON()["items"].([]any); len(list) != 0 {
		t.Fatalf("a refusal wrote a veille: %v", list)
	}

	v := c.Do("POST", "/api/veille", map[string]any{"name": "  Boulangeries  ", "source_job_id": src, "frequency_days": 7}).Must(t, 200).JSON()
	id := fmt.Sprint(v["id"])
	created, _ := time.Parse(time.RFC3339, v["created_at"].(string))
	next, _ := time.Parse(time.RFC3339, v["next_run_at"].(string))
	if v["name"] != "Boulangeries" || v["status"] != "active" || v["run_count"] != 1.0 || v["last_run_job_id"] != src ||
		v["source_pipeline_id"] != nil || next.Sub(created) != 7*24*time.Hour {
		t.Fatalf("created: %v", v)
	}
	runs := c.Do("GET", "/api/veille/"+id+"/runs", nil).Must(t, 200).JSON()["items"].([]any)
	base := runs[0].(map[string]any)
	if len(runs) != 1 || base["is_baseline"] != true || base["job_id"] != src || base["total_count"].(float64) < 1 ||
		base["job_status"] != "done" || base["samples"] != nil || base["prev_job_id"] != nil || base["new_count"] != nil ||
		base["prev_total_count"] != nil {
		t.Fatalf("baseline: %v", runs)
	}
	rid := fmt.Sprint(base["id"])
	if sig := c.Do("GET", "/api/veille/"+id+"/runs/"+rid+"/signals", nil).Must(t, 200).JSON(); sig["total"] != 0.0 {
		t.Errorf("baseline signals: %v", sig)
	}

	// PATCH: omitted fields stay; a new frequency reschedules from now.
	e.Clock.Advance(time.Hour)
	p := c.Do("PATCH", "/api/veille/"+id, map[string]any{"name": "Renamed"}).Must(t, 200).JSON()
	if p["name"] != "Renamed" || p["frequency_days"] != 7.0 || p["next_run_at"] != v["next_run_at"] {
		t.Errorf("rename: %v", p)
	}
	p = c.Do("PATCH", "/api/veille/"+id, map[string]any{"frequency_days": 2}).Must(t, 200).JSON()
	if want := e.Clock.Now().UTC().Add(48 * time.Hour).Truncate(time.Second).Format(time.RFC3339); p["next_run_at"] != want {
		t.Errorf("reschedule: %v, want next_run_at %s", p["next_run_at"], want)
	}
	p = c.Do("PATCH", "/api/veille/"+id, map[string]any{"status": "paused"}).Must(t, 200).JSON()
	if p["status"] != "paused" || p["name"] != "Renamed" {
		t.Errorf("pause: %v", p)
	}
	for _, bad := range []map[string]any{{"status": "stopped"}, {"frequency_days": 400}, {"name": "x"}} {
		c.Do("PATCH", "/api/veille/"+id, bad).Must(t, 400)
	}
	other.Do("GET", "/api/veille/"+id, nil).Must(t, 404)
	other.Do("PATCH", "/api/veille/"+id, map[string]any{"name": "Mine now"}).Must(t, 404)
	other.Do("DELETE", "/api/veille/"+id, nil).Must(t, 404)
	other.Do("GET", "/api/veille/"+id+"/runs", nil).Must(t, 404)

	// Soft delete: 404 everywhere, off the list, still in the export.
	c.Do("DELETE", "/api/veille/"+id, nil).Must(t, 200)
	c.Do("GET", "/api/veille/"+id, nil).Must(t, 404)
	c.Do("GET", "/api/veille/"+id+"/runs", nil).Must(t, 404)
	c.Do("PATCH", "/api/veille/"+id, map[string]any{"status": "active"}).Must(t, 404)
	if list := c.Do("GET", "/api/veille", nil).Must(t, 200).JSON()["items"].([]any); len(list) != 0 {
		t.Errorf("a deleted veille is listed: %v", list)
	}
	c.Do("GET", "/api/veille/nope", nil).Must(t, 404)
}

// keyOf creates an API key for c's account.
func keyOf(t *testing.T, c *apptest.Client) string {
	t.Helper()
	return c.Do("POST", "/api/keys", map[string]any{"name": fmt.Sprint("k", time.Now().UnixNano())}).Must(t, 201).JSON()["key"].(string)
}

// TestVeilleRunsAndSignals: a sim scrape watched daily; the world moves a
// month on and an admin forces a run: the tick starts the replay, then
// computes it: every row in one bucket, capped samples, signals by
// score, the event, the three downloads parsed back. A place of the
// previous run the replay did not list, still open, rejoins the run
// instead of counting removed.
func TestVeilleRunsAndSignals(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("runs-veille@example.org", fixturePassword)
	c.Verify("runs-veille@example.org")
	admin := e.NewClient()
	admin.Signup(apptest.AdminEmail, fixturePassword)
	src := scrapeDone(t, c, "Villeurbanne")
	v := c.Do("POST", "/api/veille", map[string]any{"name": "Villeurbanne", "source_job_id": src, "frequency_days": 1}).Must(t, 200).JSON()
	id := fmt.Sprint(v["id"])

	// A place open in the world but out of the replay's zone, planted in
	// the previous rows: the replay cannot list it, the lookup finds it.
	lyon := readCSV(t, c, scrapeDone(t, c, "Lyon 2e Arrondissement"))
	plantRow(t, e, c, id, lyon)

	admin.Do("POST", "/api/admin/sim/advance", map[string]any{"days": 30}).Must(t, 200)
	c.Do("POST", "/api/admin/veille/"+id+"/run", nil).Must(t, 403)
	forced := admin.Do("POST", "/api/admin/veille/"+id+"/run", nil).Must(t, 200).JSON()
	if forced["next_run_at"].(string) > time.Now().UTC().Add(time.Minute).Format(time.RFC3339) {
		t.Fatalf("forced: %v", forced)
	}
	run := tickUntilRun(t, e, c, id)
	n := func(k string) int { return int(run[k].(float64)) }
	if n("new_count")+n("modified_count")+n("unchanged_count") != n("total_count") ||
		n("removed_count")+n("modified_count")+n("unchanged_count") != n("prev_total_count") {
		t.Fatalf("buckets do not add up: %v", run)
	}
	if n("new_count") == 0 || n("removed_count") == 0 || n("modified_count") == 0 || run["prev_job_id"] != src {
		t.Errorf("a month of the sim world changed nothing: %v", run)
	}
	rid := fmt.Sprint(run["id"])
	detailRun := c.Do("GET", "/api/veille/"+id+"/runs/"+rid, nil).Must(t, 200).JSON()
	samples := detailRun["samples"].(map[string]any)
	for _, b := range []string{"new", "removed", "modified"} {
		if l := samples[b].([]any); len(l) == 0 || len(l) > 20 {
			t.Errorf("samples %s: %d", b, len(l))
		}
	}
	m := samples["modified"].([]any)[0].(map[string]any)
	if m["key"] == "" || m["before"] == nil || m["after"] == nil || len(m["changed_fields"].([]any)) == 0 {
		t.Errorf("a modified sample: %v", m)
	}
	// The planted place was looked up and found open: not removed.
	planted := lyon[1][indexOf(lyon[0], "place_id")]
	for _, r := range samples["removed"].([]any) {
		if strings.Contains(fmt.Sprint(r), planted) {
			t.Errorf("a place still open reported removed: %v", r)
		}
	}
	rows := readVeilleRows(t, e, id, rid)
	if !strings.Contains(rows, planted) {
		t.Errorf("the place still open did not join the run's rows")
	}

	sig := c.Do("GET", "/api/veille/"+id+"/runs/"+rid+"/signals", nil).Must(t, 200).JSON()
	items := sig["items"].([]any)
	if int(sig["total"].(float64)) != len(items) || len(items) == 0 {
		t.Fatalf("signals: %v", sig)
	}
	for i := 1; i < len(items); i++ {
		if items[i-1].(map[string]any)["score"].(float64) < items[i].(map[string]any)["score"].(float64) {
			t.Fatalf("signals not by score descending at %d", i)
		}
	}
	for _, it := range items {
		s := it.(map[string]any)
		if s["delta_note"].(float64) > -0.2+1e-9 && s["delta_avis"].(float64) < 3 {
			t.Errorf("a signal under both thresholds: %v", s)
		}
	}
	base := "/api/veille/" + id + "/runs/" + rid + "/signals."
	name := "signaux-reputation-veille-" + id + "-run-" + rid
	csvResp := c.Do("GET", base+"csv", nil).Must(t, 200)
	if csvResp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.Contains(csvResp.Header.Get("Content-Disposition"), name+".csv") {
		t.Errorf("csv headers %v", csvResp.Header)
	}
	rd, err := export.ReadCSV(bytes.NewReader(csvResp.Body))
	if err != nil || !bytes.HasPrefix(csvResp.Body, []byte("\ufeff")) {
		t.Fatalf("csv: %v", err)
	}
	if h := strings.Join(rd.Header(), ";"); !strings.HasPrefix(h, "nom;adresse;telephone;site_web;email;lien_maps;note_avant") {
		t.Errorf("csv header %s", h)
	}
	jsonResp := c.Do("GET", base+"json", nil).Must(t, 200)
	var parsed []map[string]any
	if err := json.Unmarshal(jsonResp.Body, &parsed); err != nil || len(parsed) != len(items) ||
		jsonResp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("json: %v, %d items, %s", err, len(parsed), jsonResp.Header.Get("Content-Type"))
	}
	xlsx := c.Do("GET", base+"xlsx", nil).Must(t, 200)
	if _, err := zip.NewReader(bytes.NewReader(xlsx.Body), int64(len(xlsx.Body))); err != nil ||
		!strings.Contains(xlsx.Header.Get("Content-Disposition"), name+".xlsx") {
		t.Errorf("xlsx: %v", err)
	}
	c.Do("GET", base+"pdf", nil).Must(t, 400)

	feed := c.Do("GET", "/api/events?types=veille.run_completed", nil).Must(t, 200).JSON()["events"].([]any)
	if len(feed) != 2 || feed[1].(map[string]any)["data"].(map[string]any)["is_baseline"] != false {
		t.Errorf("events: %v", feed)
	}
	after := c.Do("GET", "/api/veille/"+id, nil).Must(t, 200).JSON()
	if after["run_count"] != 2.0 || after["last_run_job_id"] != run["job_id"] {
		t.Errorf("after the run: %v", after)
	}
}

// tickUntilRun ticks until the veille has a computed run after its
// baseline, and returns the latest.
func tickUntilRun(t *testing.T, e *apptest.Env, c *apptest.Client, id string) map[string]any {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := e.App.Veille.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
		runs := c.Do("GET", "/api/veille/"+id+"/runs", nil).Must(t, 200).JSON()["items"].([]any)
		if m := runs[0].(map[string]any); m["is_baseline"] == false {
			return m
		}
	}
	t.Fatalf("veille %s: no run computed within 2 minutes", id)
	return nil
}

func indexOf(header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	return -1
}

// TestVeilleTickExactlyOnce: ticks that overlap start a due veille's
// replay once.
func TestVeilleTickExactlyOnce(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("once@example.org", fixturePassword)
	c.Verify("once@example.org")
	src := scrapeDone(t, c, "Villeurbanne")
	c.Do("POST", "/api/veille", map[string]any{"name": "Once", "source_job_id": src, "frequency_days": 1}).Must(t, 200)
	countJobs := func() int {
		var list []any
		if err := json.Unmarshal(c.Do("GET", "/api/jobs", nil).Must(t, 200).Body, &list); err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	jobsBefore := countJobs()
	e.Clock.Advance(25 * time.Hour) // due
	var wg sync.WaitGroup
	started := make([]int, 8)
	for i := range started {
		wg.Go(func() {
			res, err := e.App.Veille.Tick(context.Background())
			if err != nil {
				t.Error(err)
			}
			started[i] = res.Started
		})
	}
	wg.Wait()
	total := 0
	for _, n := range started {
		total += n
	}
	jobsAfter := countJobs()
	if total != 1 || jobsAfter != jobsBefore+1 {
		t.Fatalf("%d replays started by 8 ticks, %d jobs created, want 1", total, jobsAfter-jobsBefore)
	}
	// Not due again until a day later.
	if res, _ := e.App.Veille.Tick(context.Background()); res.Started != 0 {
		t.Errorf("started again: %+v", res)
	}
}

// veilleRowsKey is where a veille keeps a run's rows (shared/veille).
func veilleRowsKey(id, rid string) string { return "veille/" + id + "/runs/" + rid + ".csv" }

// plantRow adds the first row of other (a header and rows, as readCSV
// gives them) to the veille's latest rows.
func plantRow(t *testing.T, e *apptest.Env, c *apptest.Client, id string, other [][]string) {
	t.Helper()
	runs := c.Do("GET", "/api/veille/"+id+"/runs", nil).Must(t, 200).JSON()["items"].([]any)
	key := veilleRowsKey(id, fmt.Sprint(runs[0].(map[string]any)["id"]))
	ctx := context.Background()
	rc, _, err := e.Adapters.Files.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := export.ReadCSV(rc)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := export.NewCSV(&buf, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	for {
		row, err := rd.Read()
		if err != nil {
			break
		}
		for i := range row {
			row[i] = export.Restore(row[i])
		}
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	rc.Close()
	planted := make([]string, len(rd.Header()))
	for i, h := range rd.Header() {
		if k := indexOf(other[0], h); k >= 0 {
			planted[i] = export.Restore(other[1][k])
		}
	}
	if err := w.Write(planted); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Adapters.Files.Put(ctx, key, &buf, "text/csv"); err != nil {
		t.Fatal(err)
	}
}

// readVeilleRows reads a run's stored rows.
func readVeilleRows(t *testing.T, e *apptest.Env, id, rid string) string {
	t.Helper()
	rc, _, err := e.Adapters.Files.Open(context.Background(), veilleRowsKey(id, rid))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(rc); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestVeilleSchedule: a paused or deleted veille is never started; a due
// active one starts once, and its next date moves frequency_days on; a
// veille on a pipeline replays the pipeline and diffs its output job.
func TestVeilleSchedule(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("schedule@example.org", fixturePassword)
	c.Verify("schedule@example.org")
	pid := c.Do("POST", "/api/pipelines", `{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":["boulangerie"],"zones":["Villeurbanne"]}},
		{"id":"o","type":"sort","config":{"sort_by":"rating","direction":"desc"}}],
		"edges":[{"from":"s","to":"o"}]}`).Must(t, 201).JSON()["id"].(string)
	if p := waitPipeline(t, c, pid); p["status"] != "done" {
		t.Fatalf("pipeline: %v", p)
	}
	src := scrapeDone(t, c, "Caluire-et-Cuire")
	mk := func(body map[string]any) string {
		return fmt.Sprint(c.Do("POST", "/api/veille", body).Must(t, 200).JSON()["id"])
	}
	paused := mk(map[string]any{"name": "Paused", "source_job_id": src, "frequency_days": 1})
	deleted := mk(map[string]any{"name": "Deleted", "source_job_id": src, "frequency_days": 1})
	onPipe := mk(map[string]any{"name": "Pipeline", "source_pipeline_id": pid, "frequency_days": 2})
	c.Do("PATCH", "/api/veille/"+paused, map[string]any{"status": "paused"}).Must(t, 200)
	c.Do("DELETE", "/api/veille/"+deleted, nil).Must(t, 200)

	ctx := context.Background()
	e.Clock.Advance(25 * time.Hour) // the daily ones are due, not the pipeline's
	if res, err := e.App.Veille.Tick(ctx); err != nil || res.Started != 0 {
		t.Fatalf("a paused or deleted veille started: %+v %v", res, err)
	}
	e.Clock.Advance(24 * time.Hour)
	if res, err := e.App.Veille.Tick(ctx); err != nil || res.Started != 1 {
		t.Fatalf("the pipeline's veille did not start once: %+v %v", res, err)
	}
	v := c.Do("GET", "/api/veille/"+onPipe, nil).Must(t, 200).JSON()
	if want := e.Clock.Now().UTC().Add(48 * time.Hour).Truncate(time.Second).Format(time.RFC3339); v["next_run_at"] != want {
		t.Errorf("next_run_at %v, want %s", v["next_run_at"], want)
	}
	run := tickUntilRun(t, e, c, onPipe)
	// Same world day: the replay finds what the source found.
	if run["new_count"] != 0.0 || run["removed_count"] != 0.0 || run["modified_count"] != 0.0 || run["job_status"] != "done" {
		t.Errorf("a same-day replay changed: %v", run)
	}
	j := c.Do("GET", "/api/jobs/"+run["job_id"].(string), nil).Must(t, 200).JSON()
	if j["job_type"] != "sort" || j["pipeline_id"] == pid {
		t.Errorf("the run's job is not the replayed pipeline's output: %v", j)
	}
}

// TestVeilleFailedRuns: a deactivated account's due veille starts no
// replay (its run fails, nothing is charged); a run whose previous rows
// are gone fails instead of being retried forever; the veille stays
// scheduled.
func TestVeilleFailedRuns(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	uid := c.Signup("failed-runs@example.org", fixturePassword)
	c.Verify("failed-runs@example.org")
	admin := e.NewClient()
	admin.Signup(apptest.AdminEmail, fixturePassword)
	src := scrapeDone(t, c, "Villeurbanne")
	id := fmt.Sprint(c.Do("POST", "/api/veille", map[string]any{"name": "Runs", "source_job_id": src, "frequency_days": 1}).Must(t, 200).JSON()["id"])
	ctx := context.Background()
	spent := func() float64 { return c.Do("GET", "/api/ef/usage", nil).Must(t, 200).JSON()["spent"].(float64) }

	admin.Do("POST", fmt.Sprintf("/api/admin/users/%d/deactivate", uid), nil).Must(t, 200)
	before := spent()
	e.Clock.Advance(25 * time.Hour)
	if res, err := e.App.Veille.Tick(ctx); err != nil || res.Started != 1 {
		t.Fatalf("tick: %+v %v", res, err)
	}
	admin.Do("POST", fmt.Sprintf("/api/admin/users/%d/activate", uid), nil).Must(t, 200)
	if after := spent(); after != before {
		t.Errorf("a deactivated account was charged %v EF", after-before)
	}
	v := c.Do("GET", "/api/veille/"+id, nil).Must(t, 200).JSON()
	if v["run_count"] != 1.0 || v["status"] != "active" {
		t.Errorf("after a failed run: %v", v)
	}

	// The previous rows gone: the next run fails once computed.
	runs := c.Do("GET", "/api/veille/"+id+"/runs", nil).Must(t, 200).JSON()["items"].([]any)
	if err := e.Adapters.Files.Delete(ctx, veilleRowsKey(id, fmt.Sprint(runs[0].(map[string]any)["id"]))); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(25 * time.Hour)
	var res any
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		r, err := e.App.Veille.Tick(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Failed > 0 {
			res = r
			break
		}
		if time.Now().After(end) {
			t.Fatal("the run without previous rows never failed")
		}
	}
	if v := c.Do("GET", "/api/veille/"+id, nil).Must(t, 200).JSON(); v["run_count"] != 1.0 {
		t.Errorf("after %v: %v", res, v)
	}
}
