package app_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/phoneinfo/phoneinfosim"
)

// TestPhoneLineSim: under the sim sources phone_info's live columns come
// from the line lookup's twin, through the real client: each mobile row
// says what the twin says of its number, a fixed line is not looked up,
// the twin's failed lookups are the job's error_count, and a second job
// over the same numbers gives the same cells (from the cache).
func TestPhoneLineSim(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("line@example.org", fixturePassword)
	c.Verify("line@example.org")
	var items []any
	var numbers []string
	// 120 made-up mobiles, and on to two that the twin fails (its
	// lookups' error path).
	wantErrors := 0
	for i := 0; len(numbers) < 120 || wantErrors < 2; i++ {
		n := fmt.Sprintf("+336000%05d", i*7+1)
		if phoneinfosim.LineAnswer(n).ProcessingStatus == "FAILED" {
			wantErrors++
		} else if len(numbers) >= 120 {
			continue
		}
		numbers = append(numbers, n)
		items = append(items, map[string]any{"telephone": n})
	}
	items = append(items, map[string]any{"telephone": "04 78 00 00 00"})
	run := func() ([]map[string]any, map[string]any) {
		t.Helper()
		j := c.Do("POST", "/api/jobs/phone-info", map[string]any{"items": items}).Must(t, 200).JSON()
		if j["source"] != "sim" {
			t.Fatalf("source %v", j["source"])
		}
		got := waitJob(t, c, j["id"].(string), finished)
		if got["status"] != "done" {
			t.Fatalf("job %v", got)
		}
		return readJSONRows(t, c, j["id"].(string)), got
	}
	rows, job := run()
	if len(rows) != len(items) {
		t.Fatalf("%d rows", len(rows))
	}
	t.Logf("%d of %d lookups failed in the twin", wantErrors, len(numbers))
	if job["error_count"] != float64(wantErrors) {
		t.Errorf("error_count %v, want the twin's %d failed lookups", job["error_count"], wantErrors)
	}
	var ported, unreachable, filled int
	for i, n := range numbers {
		r := rows[i]
		if r["phone_e164"] != n {
			t.Fatalf("row %d: %v", i, r)
		}
		a := phoneinfosim.LineAnswer(n)
		want := a.Status()
		if a.ProcessingStatus == "FAILED" {
			want = phoneinfo.Status{}
		}
		if lineCell(r["phone_carrier_current"]) != want.CarrierCurrent || lineCell(r["phone_is_ported"]) != boolText(want.Ported) ||
			lineCell(r["phone_is_reachable"]) != boolText(want.Reachable) {
			t.Errorf("row %d (%s): %v %v %v, the twin says %+v", i, n, r["phone_carrier_current"], r["phone_is_ported"], r["phone_is_reachable"], a)
		}
		if want.CarrierCurrent != "" {
			filled++
		}
		if want.Ported != nil && *want.Ported {
			ported++
		}
		if want.Reachable != nil && !*want.Reachable {
			unreachable++
		}
	}
	if filled < 100 || ported == 0 || unreachable == 0 {
		t.Errorf("%d carriers, %d ported, %d unreachable of %d mobiles", filled, ported, unreachable, len(numbers))
	}
	fixed := rows[len(rows)-1]
	if fixed["phone_line_type"] != "fixed_line" || lineCell(fixed["phone_carrier_current"]) != "" || lineCell(fixed["phone_is_reachable"]) != "" {
		t.Errorf("fixed line: %v", fixed)
	}
	again, _ := run()
	for i := range numbers {
		for _, col := range phoneinfo.LineColumns {
			if fmt.Sprint(again[i][col]) != fmt.Sprint(rows[i][col]) {
				t.Errorf("row %d %s: %v then %v", i, col, rows[i][col], again[i][col])
			}
		}
	}
}

// TestPhoneLineNotConfigured: under real sources without the lookup's key
// the job's log says the live columns are left empty, and they are.
func TestPhoneLineNotConfigured(t *testing.T) {
	e := apptest.Start(t, apptest.WithConfig(func(c *config.Config) {
		c.Sources.Mode = "real"
		c.Sources.PhoneLookupKey, c.Sources.PhoneLookupSecret = "", ""
	}))
	c := e.NewClient()
	c.Signup("noline@example.org", fixturePassword)
	c.Verify("noline@example.org")
	j := c.Do("POST", "/api/jobs/phone-info", map[string]any{"items": []any{map[string]any{"telephone": "06 00 00 00 12"}}}).Must(t, 200).JSON()
	id := j["id"].(string)
	if got := waitJob(t, c, id, finished); got["status"] != "done" || got["error_count"] != 0.0 {
		t.Fatalf("job %v", got)
	}
	var log string
	for end := time.Now().Add(10 * time.Second); ; {
		log = string(c.Do("GET", "/api/jobs/"+id+"/stream", nil).Must(t, 200).Body)
		if strings.Contains(log, "Done: ") || strings.Contains(log, "Terminé") || time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The log speaks the account's language.
	if !strings.Contains(log, phoneinfo.LineNotConfigured) && !strings.Contains(log, phoneinfo.LineNotConfiguredFR) {
		t.Errorf("the log does not say the lookup is not configured:\n%s", log)
	}
	r := readJSONRows(t, c, id)[0]
	if r["phone_e164"] != "+33600000012" || lineCell(r["phone_carrier_current"]) != "" || lineCell(r["phone_is_ported"]) != "" {
		t.Errorf("row %v", r)
	}
}

func readJSONRows(t *testing.T, c *apptest.Client, id string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(c.Do("GET", "/api/jobs/"+id+"/download?format=json", nil).Must(t, 200).Body, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// cell is a JSON download's value as the CSV would say it: null and
// absent are empty, booleans "true"/"false".
func lineCell(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func boolText(b *bool) string {
	if b == nil {
		return ""
	}
	return fmt.Sprint(*b)
}
