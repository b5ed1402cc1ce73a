package onaws_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/prospectdata/svc/shared/app/onaws"
)

// TestVeilleOnAWSRuntime runs a veille the way the stack does: api-jobs
// creates it over a scrape, an admin's session on api-auth forces a run,
// the veille-tick handler (built from the environment like its Lambda,
// invoked with EventBridge's event) starts the replay, the workers run it
// from the SQS emulator, and the next tick computes the run; two ticks at
// once start a due veille once, on DynamoDB's conditional writes.
func TestVeilleOnAWSRuntime(t *testing.T) {
	rt := newAWSRuntime(t)
	rt.env["SVC_ADMIN_EMAILS"] = "veille-admin@example.org"
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("veille-aws@example.org")
	get := func(path string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", path, "", bearer).Body), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	terminal := func(id string) func() bool {
		return func() bool { s := get("/api/jobs/" + id)["status"]; return s != "pending" && s != "running" }
	}
	cr := rt.call(jobsFn, "POST", "/api/jobs", `{"queries":["boulangerie"],"zones":["Villeurbanne"]}`, bearer)
	var src struct{ ID string }
	if err := json.Unmarshal([]byte(cr.Body), &src); err != nil || cr.StatusCode != 200 {
		t.Fatalf("scrape: %d %s", cr.StatusCode, cr.Body)
	}
	rt.drain(terminal(src.ID))
	vr := rt.call(jobsFn, "POST", "/api/veille", `{"name":"Villeurbanne","source_job_id":"`+src.ID+`","frequency_days":7}`, bearer)
	var v struct{ ID int64 }
	if err := json.Unmarshal([]byte(vr.Body), &v); err != nil || vr.StatusCode != 200 {
		t.Fatalf("veille: %d %s", vr.StatusCode, vr.Body)
	}
	id := strconv.FormatInt(v.ID, 10)

	rt.signup("veille-admin@example.org")
	auth := rt.handler("api-auth")
	login := rt.call(auth, "POST", "/api/auth/login", `{"email":"veille-admin@example.org","password":"pass-w0rd!"}`, map[string]string{})
	if login.StatusCode != 200 || len(login.Cookies) != 1 {
		t.Fatalf("admin login: %d %s", login.StatusCode, login.Body)
	}
	admin := map[string]string{"Cookie": strings.SplitN(login.Cookies[0], ";", 2)[0]}
	force := func() {
		t.Helper()
		if r := rt.call(auth, "POST", "/api/admin/veille/"+id+"/run", "", admin); r.StatusCode != 200 {
			t.Fatalf("forced run: %d %s", r.StatusCode, r.Body)
		}
	}
	force()

	tick, err := onaws.VeilleTickHandler(rt.ctx, rt.getenv)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tick(rt.ctx, events.CloudWatchEvent{DetailType: "Scheduled Event", Source: "aws.events"})
	if err != nil || res.Started != 1 {
		t.Fatalf("first tick: %+v %v", res, err)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/jobs?limit=1", "", bearer).Body), &list); err != nil || len(list) != 1 {
		t.Fatalf("jobs: %v", err)
	}
	replay := list[0]["id"].(string)
	if replay == src.ID {
		t.Fatal("no replay job")
	}
	rt.drain(terminal(replay))
	if res, err := tick(rt.ctx, events.CloudWatchEvent{}); err != nil || res.Computed != 1 {
		t.Fatalf("second tick: %+v %v", res, err)
	}
	runs := get("/api/veille/" + id + "/runs")["items"].([]any)
	run := runs[0].(map[string]any)
	if len(runs) != 2 || run["is_baseline"] != false || run["job_id"] != replay || run["prev_job_id"] != src.ID ||
		run["total_count"] != run["prev_total_count"] || run["unchanged_count"] != run["total_count"] {
		t.Fatalf("runs: %v", runs)
	}

	// Due again: two ticks at once start it once.
	force()
	var wg sync.WaitGroup
	started := make([]int, 2)
	for i := range started {
		wg.Go(func() {
			res, err := tick(rt.ctx, events.CloudWatchEvent{})
			if err != nil {
				t.Error(err)
			}
			started[i] = res.Started
		})
	}
	wg.Wait()
	if started[0]+started[1] != 1 {
		t.Errorf("two ticks started %v", started)
	}
}
