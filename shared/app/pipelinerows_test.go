package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/pricing"
)

// numbered is an item source of n rows (nom, telephone).
type numbered struct{ i, n int }

func (s *numbered) Columns() []string { return []string{"nom", "telephone"} }

func (s *numbered) Next() ([]string, error) {
	if s.i == s.n {
		return nil, io.EOF
	}
	s.i++
	return []string{fmt.Sprintf("Entreprise %d", s.i), fmt.Sprintf("04 72 %02d %02d %02d", s.i/10000%100, s.i/100%100, s.i%100)}, nil
}

// TestPipelineStageTakesEveryRow: an enrichment stage works on every row
// of its predecessor, at the item endpoints' limit (jobs.MaxItems) and
// above it, and is charged for every row; the request's limit still
// holds for POST /api/jobs/{type}; the worst-case estimate counts every
// row (docs/pipelines.md, "A stage takes every row").
func TestPipelineStageTakesEveryRow(t *testing.T) {
	quota, threshold := 100000.0, 10000.0
	e := apptest.Start(t, apptest.WithConfig(func(c *config.Config) {
		c.EFQuota, c.EFCostThreshold = &quota, &threshold
	}))
	c := e.NewClient()
	c.Signup("every-row@example.org", fixturePassword)
	c.Verify("every-row@example.org")
	me := c.Do("GET", "/api/auth/me", nil).Must(t, 200).JSON()
	u, err := e.App.Accounts.User(context.Background(), int64(me["id"].(float64)))
	if err != nil {
		t.Fatal(err)
	}
	checkStage := func(t *testing.T, id string, rows int) {
		t.Helper()
		p := waitJob(t, c, id, finished)
		phoneInfo, _ := modules.Lookup(modules.PhoneInfo)
		want, _ := pricing.ItemEF(phoneInfo, rows, nil)
		if p["status"] != "done" || p["results_count"] != float64(rows) || p["grid_points_count"] != float64(rows) ||
			p["ef_cost"] != want {
			t.Fatalf("the stage over %d rows: status %v, %v rows of %v items, %v EF (want %v)",
				rows, p["status"], p["results_count"], p["grid_points_count"], p["ef_cost"], want)
		}
		csv := readCSV(t, c, id)
		if len(csv)-1 != rows || csv[rows][0] != fmt.Sprintf("Entreprise %d", rows) {
			t.Fatalf("the stage's CSV has %d rows (last %q), want %d", len(csv)-1, csv[len(csv)-1], rows)
		}
	}

	// At the limit, through a pipeline: an import of jobs.MaxItems rows
	// (an import's ceiling), then phone_info over each.
	t.Run("pipeline at the limit", func(t *testing.T) {
		var paste strings.Builder
		paste.WriteString("nom;telephone\n")
		src := &numbered{n: jobs.MaxItems}
		for row, err := src.Next(); err == nil; row, err = src.Next() {
			paste.WriteString(strings.Join(row, ";") + "\n")
		}
		text, _ := json.Marshal(paste.String())
		def := fmt.Sprintf(`{"nodes":[{"id":"i","type":"import","config":{"source":"paste","text":%s}},
			{"id":"p","type":"phone_info","config":{}}],"edges":[{"from":"i","to":"p"}]}`, text)
		id := c.Do("POST", "/api/pipelines", def).Must(t, 201).JSON()["id"].(string)
		got := waitPipeline(t, c, id)
		st := stageJobs(t, got)
		if got["status"] != "done" || st["i"]["results_count"] != float64(jobs.MaxItems) {
			t.Fatalf("pipeline %v", got)
		}
		checkStage(t, st["p"]["id"].(string), jobs.MaxItems)
	})

	// Above it: a stage's items come from its predecessor's output
	// (CreateItemsFrom, what the pipeline's step calls), not bounded by a
	// request's items; the request itself still is.
	t.Run("stage above the limit", func(t *testing.T) {
		rows := jobs.MaxItems + 1
		j, err := e.App.Jobs.CreateItemsFrom(context.Background(), u, "phone_info", jobs.ItemRequest{}, &numbered{n: rows})
		if err != nil {
			t.Fatal(err)
		}
		checkStage(t, j.ID, rows)
		var items strings.Builder
		items.WriteString(`{"items":[`)
		for i := range rows {
			if i > 0 {
				items.WriteByte(',')
			}
			fmt.Fprintf(&items, `{"telephone":"04 72 00 00 %02d"}`, i%100)
		}
		items.WriteString(`]}`)
		if got := c.Do("POST", "/api/jobs/phone-info", items.String()).Must(t, 422).Body; !strings.Contains(string(got), "10000") {
			t.Errorf("a request of %d items: %s", rows, got)
		}
	})

	t.Run("no rows or no needed column", func(t *testing.T) {
		for _, src := range []jobs.ItemSource{&numbered{n: 0}, noPhone{}} {
			if _, err := e.App.Jobs.CreateItemsFrom(context.Background(), u, "phone_info", jobs.ItemRequest{}, src); err == nil {
				t.Errorf("%T: created", src)
			}
		}
	})

	// The worst case counts every row: 50,000 sirene rows (50 EF) then
	// legal_data over each (1,000 EF; the first 10,000 rows would be 200)
	// pass under a threshold of 1,100 and are refused under 1,000.
	big := `{"schema_version":1,"definition":{"nodes":[
		{"id":"s","type":"sirene","config":{"activites":["boulangerie"],"zones":["Rhône"],"stop_at":50000}},
		{"id":"d","type":"legal_data","config":{}}],
		"edges":[{"from":"s","to":"d"}]}}`
	for _, th := range []float64{1100, 1000} {
		t.Run(fmt.Sprintf("worst case under %v EF", th), func(t *testing.T) {
			e := apptest.Start(t, apptest.WithConfig(func(c *config.Config) {
				c.EFQuota, c.EFCostThreshold = &quota, &th
			}))
			c := e.NewClient()
			c.Signup("worst-case@example.org", fixturePassword)
			c.Verify("worst-case@example.org")
			v := c.Do("POST", "/api/pipelines/validate", big).Must(t, 200).JSON()
			if ok := th > 1050; (v["ok"] == true) != ok || (!ok && (v["reason"] != "cost" || !strings.Contains(fmt.Sprint(v["error"]), "1050"))) {
				t.Errorf("%v", v)
			}
		})
	}
}

// noPhone is an item source without the column phone_info needs.
type noPhone struct{}

func (noPhone) Columns() []string       { return []string{"nom"} }
func (noPhone) Next() ([]string, error) { return nil, errors.New("not read") }
