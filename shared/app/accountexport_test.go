package app_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// TestAccountExportHoldsEveryDoneJob: the data export holds, for every
// done job of the account, whatever its type (a scrape, an item job, a
// pipeline's import, filter and sort stages), its CSV and its JSON under
// jobs/<job_id>/, each with the job's rows (spec: account export).
func TestAccountExportHoldsEveryDoneJob(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("export-all@example.org", fixturePassword)
	c.Verify("export-all@example.org")
	scrape := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Villeurbanne"}}))
	waitJob(t, c, scrape.ID, isDone)
	item := c.Do("POST", "/api/jobs/phone-info", map[string]any{"items": []any{
		map[string]any{"nom": "A", "telephone": "04 72 00 00 01"}, map[string]any{"nom": "B", "telephone": "+33 4 78 00 00 02"}}}).Must(t, 200).JSON()
	waitJob(t, c, item["id"].(string), finished)
	pid := c.Do("POST", "/api/pipelines", `{"nodes":[
		{"id":"i","type":"import","config":{"source":"paste","text":"nom;ville;score\nDurand;Lyon;12\nMartin;Paris;7\nPetit;Lyon;3\n"}},
		{"id":"f","type":"filter","config":{"rules":{"logic":"AND","conditions":[{"column":"ville","op":"in","value":["Lyon"]}]}}},
		{"id":"o","type":"sort","config":{"sort_by":"score","direction":"asc"}}],
		"edges":[{"from":"i","to":"f"},{"from":"f","to":"o"}]}`).Must(t, 201).JSON()["id"].(string)
	if got := waitPipeline(t, c, pid); got["status"] != "done" {
		t.Fatalf("pipeline %v", got)
	}

	var list []map[string]any
	if err := json.Unmarshal(c.Do("GET", "/api/jobs", nil).Must(t, 200).Body, &list); err != nil {
		t.Fatal(err)
	}
	r := c.Do("GET", "/api/auth/me/export", nil).Must(t, 200)
	z, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	types := map[string]bool{}
	for _, j := range list {
		if j["status"] != "done" {
			continue
		}
		id, rows := j["id"].(string), int(j["results_count"].(float64))
		types[j["job_type"].(string)] = true
		var csvRows, jsonRows = -1, -1
		for name, body := range files {
			if !strings.HasPrefix(name, "jobs/"+id+"/") {
				continue
			}
			switch {
			case strings.HasSuffix(name, ".csv"):
				rd := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\uFEFF"))))
				rd.Comma = ';'
				recs, err := rd.ReadAll()
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
				csvRows = len(recs) - 1
			case strings.HasSuffix(name, ".json"):
				var arr []map[string]any
				if err := json.Unmarshal(body, &arr); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				jsonRows = len(arr)
			}
		}
		if csvRows != rows || jsonRows != rows {
			t.Errorf("job %s (%s, %d rows): CSV of %d rows, JSON of %d in the archive (-1: none)", id, j["job_type"], rows, csvRows, jsonRows)
		}
	}
	for _, want := range []string{"scrap", "phone_info", "import", "filter", "sort"} {
		if !types[want] {
			t.Errorf("no done %s job: %v", want, types)
		}
	}
	var manifest = string(files["manifest.txt"])
	if !strings.Contains(manifest, "Jobs : 5") {
		t.Errorf("manifest:\n%s", manifest)
	}
}
