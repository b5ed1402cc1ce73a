package app_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"os"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
)

// TestPhonePlanSeeding: with the real sources, phone_info's operator
// columns come from ARCEP's numbering plan an admin seeds
// (POST /api/admin/phone-plan); before the seeding they are empty, never
// invented.
func TestPhonePlanSeeding(t *testing.T) {
	e := apptest.Start(t, apptest.WithConfig(func(c *config.Config) { c.Sources.Mode = "real" }))
	c := e.NewClient()
	c.Signup("plan@example.org", fixturePassword)
	c.Verify("plan@example.org")
	run := func() map[string]any {
		t.Helper()
		j := c.Do("POST", "/api/jobs/phone-info", map[string]any{"items": []any{map[string]any{"telephone": "01 48 16 23 45"}}}).Must(t, 200).JSON()
		if j["source"] == "sim" {
			t.Fatalf("source %v under real sources", j["source"])
		}
		if got := waitJob(t, c, j["id"].(string), finished); got["status"] != "done" {
			t.Fatalf("phone_info: %v", got)
		}
		var rows []map[string]any
		if err := json.Unmarshal(c.Do("GET", "/api/jobs/"+j["id"].(string)+"/download?format=json", nil).Must(t, 200).Body, &rows); err != nil {
			t.Fatal(err)
		}
		return rows[0]
	}
	// An empty cell is null in the JSON download.
	if r := run(); r["phone_line_type"] != "fixed_line" || r["phone_carrier_original"] != nil || r["phone_operator_siret"] != nil {
		t.Fatalf("before the seeding: %v", r)
	}

	form := func(files map[string]string) (*bytes.Buffer, string) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for field, path := range files {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := mw.CreateFormFile(field, field+".csv")
			w.Write(b)
		}
		mw.Close()
		return &body, mw.FormDataContentType()
	}
	files := map[string]string{"blocks": "../phoneinfo/testdata/MAJNUM_sample.csv", "operators": "../phoneinfo/testdata/identifiants_CE_sample.csv"}
	body, ct := form(files)
	c.Header = map[string][]string{"Content-Type": {ct}}
	c.Do("POST", "/api/admin/phone-plan", body.Bytes()).Must(t, 403) // not an admin
	admin := e.NewClient()
	admin.Signup(apptest.AdminEmail, fixturePassword)
	admin.Header = map[string][]string{"Content-Type": {ct}}
	bad, badCT := form(map[string]string{"blocks": "../phoneinfo/testdata/identifiants_CE_sample.csv", "operators": "../phoneinfo/testdata/MAJNUM_sample.csv"})
	admin.Header = map[string][]string{"Content-Type": {badCT}}
	admin.Do("POST", "/api/admin/phone-plan", bad.Bytes()).Must(t, 400)
	admin.Header = map[string][]string{"Content-Type": {ct}}
	if got := admin.Do("POST", "/api/admin/phone-plan", body.Bytes()).Must(t, 200).JSON(); got["blocks"].(float64) < 10 {
		t.Fatalf("seeded: %v", got)
	}
	c.Header = nil
	// Running workers read the new plan within a minute.
	e.Clock.Advance(2 * time.Minute)
	r := run()
	if r["phone_carrier_original"] == nil || r["phone_operator_siret"] == nil || r["phone_operator_address"] == nil {
		t.Errorf("after the seeding: %v", r)
	}
	t.Logf("seeded plan: %v", r)
}
