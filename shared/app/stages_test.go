package app_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pipelines"
)

// TestPipelineStages: the stages a pipeline runs itself are jobs whose
// output is a CSV: an import of pasted rows (custom columns kept), a
// filter and a sort over a scrape's output.
func TestPipelineStages(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("stages@example.org", fixturePassword)
	c.Verify("stages@example.org")
	me := c.Do("GET", "/api/auth/me", nil).Must(t, 200).JSON()
	u, err := e.App.Accounts.User(context.Background(), int64(me["id"].(float64)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(typ string, p pipelines.StageParams) [][]string {
		t.Helper()
		j, err := e.App.Jobs.CreateSingle(ctx, u, typ, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := waitJob(t, c, j.ID, finished); got["status"] != "done" {
			t.Fatalf("%s: %v", typ, got)
		}
		return readCSV(t, c, j.ID)
	}
	imp := run(jobs.TypeImport, pipelines.StageParams{Config: map[string]any{"source": "paste",
		"text": "nom;zz_interne;email\nDurand;A1;d@durand.fr\nMartin;B2;\n"}})
	if len(imp) != 3 || imp[0][1] != "zz_interne" || imp[2][1] != "B2" {
		t.Fatalf("import: %q", imp)
	}

	src, _ := scrapeRows(t, c, "boulangerie", "Lyon", 1)
	all := readCSV(t, c, src)
	rating := 0
	for i, h := range all[0] {
		if h == "rating" {
			rating = i
		}
	}
	filtered := run(jobs.TypeFilter, pipelines.StageParams{SourceJobID: src, Config: map[string]any{"rules": map[string]any{
		"logic": "AND", "conditions": []any{map[string]any{"column": "rating", "op": ">=", "value": 4.5}}}}})
	if len(filtered) < 2 || len(filtered) >= len(all) || len(filtered[0]) != len(all[0]) {
		t.Fatalf("filter kept %d of %d rows", len(filtered)-1, len(all)-1)
	}
	for _, r := range filtered[1:] {
		if v, _ := strconv.ParseFloat(r[rating], 64); v < 4.5 {
			t.Errorf("kept a rating of %s", r[rating])
		}
	}
	sorted := run(jobs.TypeSort, pipelines.StageParams{SourceJobID: src, Config: map[string]any{"sort_by": "rating", "direction": "desc", "top_n": 10}})
	if len(sorted) != 11 {
		t.Fatalf("sort: %d rows", len(sorted)-1)
	}
	for i := 2; i < len(sorted); i++ {
		a, _ := strconv.ParseFloat(sorted[i-1][rating], 64)
		b, _ := strconv.ParseFloat(sorted[i][rating], 64)
		if b > a {
			t.Errorf("row %d: %v after %v", i, b, a)
		}
	}
	// A stage over another account's job fails, as any other access.
	other := e.NewClient()
	other.Signup("stages-other@example.org", fixturePassword)
	other.Verify("stages-other@example.org")
	om := other.Do("GET", "/api/auth/me", nil).Must(t, 200).JSON()
	ou, _ := e.App.Accounts.User(ctx, int64(om["id"].(float64)))
	j, err := e.App.Jobs.CreateSingle(ctx, ou, jobs.TypeFilter, pipelines.StageParams{SourceJobID: src, Config: map[string]any{}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := waitJob(t, other, j.ID, finished); got["status"] != "failed" {
		t.Errorf("a filter over another's job: %v", got)
	}
}
