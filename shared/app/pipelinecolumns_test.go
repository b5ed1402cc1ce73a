package app_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/jobs"
)

// stageJobs maps a pipeline detail's jobs by their node id (the latest job
// of a node wins, which is the only one in these runs).
func stageJobs(t *testing.T, got map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, j := range got["jobs"].([]any) {
		m := j.(map[string]any)
		out[m["pipeline_node_id"].(string)] = m
	}
	return out
}

// columnNames lists the names of an input-columns report, in its order.
func columnNames(body map[string]any) []string {
	var out []string
	cols, _ := body["columns"].([]any)
	for _, c := range cols {
		out = append(out, c.(map[string]any)["name"].(string))
	}
	return out
}

// TestPipelineColumnGuarantee: an import of pasted rows whose custom
// columns sit between the standard ones goes through emails → filter →
// sort → techstack. Every stage's CSV keeps every column it received, in
// the same order, with the cells of the rows it keeps unchanged, and adds
// only its own documented columns after them (spec: Column guarantee).
// The custom columns are also what the filter and the sort work on, so a
// stage that dropped or reordered them would fail the run itself.
func TestPipelineColumnGuarantee(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("columns@example.org", fixturePassword)
	c.Verify("columns@example.org")

	// Real sim businesses, so that the enrichment stages fetch sites the
	// fixture web answers and their columns are filled on some rows: a
	// guarantee checked only on empty cells would prove little.
	src, _ := scrapeRows(t, c, "boulangerie", "Lyon", 1)
	scraped := readCSV(t, c, src)
	at := func(name string) int {
		i := slices.Index(scraped[0], name)
		if i < 0 {
			t.Fatalf("the scrape has no %s column: %q", name, scraped[0])
		}
		return i
	}
	nom, site, tel, rating := at("nom"), at("site_web"), at("telephone"), at("rating")

	// Custom columns interleaved with standard ones; their cells hold what
	// CSV round trips get wrong: accents, quotes, the separator, a line
	// break, a formula-like value (stored with the export's guard), an
	// empty cell, a French decimal comma.
	header := []string{"nom", "ma_colonne_perso", "site_web", "telephone", "score_interne", "rating", "commentaire libre"}
	const perso, score, comment = 1, 4, 6
	scores := []string{"12", "87,5", "45", "99", "50", "3", "64,25", "71", "", "58", "20", "93"}
	persos := []string{"%02d Équipe Sud", `%02d "entre guillemets"`, "%02d; avec point-virgule", "=%02d+1", "%02d ligne\nsuivante", "%02d"}
	comments := []string{"client fidèle", "", "à rappeler", "-"}
	if len(scraped)-1 < len(scores) {
		t.Fatalf("the scrape has %d rows, want %d", len(scraped)-1, len(scores))
	}
	var orig [][]string // as pasted
	for i, s := range scores {
		r := scraped[i+1]
		orig = append(orig, []string{export.Restore(r[nom]), fmt.Sprintf(persos[i%len(persos)], i), export.Restore(r[site]),
			export.Restore(r[tel]), s, export.Restore(r[rating]), comments[i%len(comments)]})
	}
	// A dozen rows, each kind of cell a few times (TestPipelineLargeImport
	// pastes thousands).
	var paste bytes.Buffer
	w := csv.NewWriter(&paste)
	w.Comma = ';'
	_ = w.Write(header)
	_ = w.WriteAll(orig)

	// Kept by the filter (score_interne >= 50, an empty cell matches
	// nothing) in their input order, then the sort's top 5 by score.
	var kept []int
	for i, s := range scores {
		if s != "" && num(t, s) >= 50 {
			kept = append(kept, i)
		}
	}
	top := slices.Clone(kept)
	slices.SortStableFunc(top, func(a, b int) int { return -cmp.Compare(num(t, scores[a]), num(t, scores[b])) })
	top = top[:5]
	all := make([]int, len(orig))
	for i := range all {
		all[i] = i
	}

	def := map[string]any{"nodes": []any{
		map[string]any{"id": "i", "type": "import", "config": map[string]any{"source": "paste", "text": paste.String()}},
		map[string]any{"id": "e", "type": "emails"},
		map[string]any{"id": "f", "type": "filter", "config": map[string]any{"rules": map[string]any{"logic": "AND",
			"conditions": []any{map[string]any{"column": "score_interne", "op": ">=", "value": 50}}}}},
		map[string]any{"id": "o", "type": "sort", "config": map[string]any{"sort_by": "score_interne", "direction": "desc", "top_n": 5}},
		map[string]any{"id": "t", "type": "techstack"},
	}, "edges": []any{
		map[string]any{"from": "i", "to": "e"}, map[string]any{"from": "e", "to": "f"},
		map[string]any{"from": "f", "to": "o"}, map[string]any{"from": "o", "to": "t"},
	}}
	id := c.Do("POST", "/api/pipelines", def).Must(t, 201).JSON()["id"].(string)
	got := waitPipeline(t, c, id)
	if got["status"] != "done" {
		t.Fatalf("pipeline: %v", got)
	}
	jobsOf := stageJobs(t, got)
	schema := c.Do("GET", "/api/pipelines/schema", nil).Must(t, 200).JSON()["nodes"].(map[string]any)

	// The chain, in order. produces is the spec's node table, checked
	// against the served schema too so that the two cannot drift apart
	// unnoticed; rows are the original rows each stage keeps.
	stages := []struct {
		node, typ string
		produces  []string
		rows      []int
	}{
		{"i", "import", nil, all},
		{"e", "emails", []string{"email", "email_personal"}, all},
		{"f", "filter", nil, kept},
		{"o", "sort", nil, top},
		{"t", "techstack", []string{"tech_cms", "tech_analytics", "tech_ads_pixels"}, top},
	}
	prevHeader := header
	var prev map[string][]string // the previous stage's rows by their ma_colonne_perso
	filled := map[string]int{}   // non-empty cells of each stage's own columns
	var last [][]string
	for si, st := range stages {
		j := jobsOf[st.node]
		if j == nil || j["status"] != "done" || j["job_type"] != st.typ {
			t.Fatalf("stage %s: %v", st.node, j)
		}
		var served []string
		for _, p := range schema[st.typ].(map[string]any)["produces"].([]any) {
			served = append(served, p.(string))
		}
		if !slices.Equal(served, st.produces) {
			t.Errorf("%s: the schema says it produces %q, the spec %q", st.typ, served, st.produces)
		}
		recs := readCSV(t, c, j["id"].(string))
		want := append(slices.Clone(prevHeader), st.produces...)
		if !slices.Equal(recs[0], want) {
			t.Fatalf("%s header\n got %q\nwant %q", st.typ, recs[0], want)
		}
		if len(recs)-1 != len(st.rows) || j["results_count"] != float64(len(st.rows)) {
			t.Fatalf("%s: %d rows (results_count %v), want %d", st.typ, len(recs)-1, j["results_count"], len(st.rows))
		}
		cur := map[string][]string{}
		for k, r := range recs[1:] {
			o := orig[st.rows[k]]
			// The imported cells, custom ones included, as pasted (the
			// stored CSV guards a formula-like cell, once).
			for i, cell := range o {
				if r[i] != export.Neutralise(cell) {
					t.Errorf("%s row %d, %s: %q, want %q", st.typ, k, header[i], r[i], export.Neutralise(cell))
				}
			}
			// Every cell received, the earlier stages' columns too.
			if prev != nil {
				in := prev[r[perso]]
				if in == nil || !slices.Equal(r[:len(prevHeader)], in) {
					t.Errorf("%s row %d: %q, its input row %q", st.typ, k, r[:len(prevHeader)], in)
				}
			}
			for i := len(prevHeader); i < len(r); i++ {
				if r[i] != "" {
					filled[st.typ]++
				}
			}
			cur[r[perso]] = slices.Clone(r)
		}
		// The columns the next node receives are these, in this order.
		if si+1 < len(stages) {
			next := stages[si+1].node
			ic := c.Do("GET", "/api/pipelines/"+id+"/nodes/"+next+"/input-columns", nil).Must(t, 200).JSON()
			if !slices.Equal(columnNames(ic), recs[0]) || ic["predecessor_job_id"] != j["id"] || ic["row_count"] != float64(len(st.rows)) {
				t.Errorf("input-columns of %s: %v, want the columns %q of job %v", next, ic, recs[0], j["id"])
			}
		}
		prevHeader, prev, last = recs[0], cur, recs
	}
	for _, typ := range []string{"emails", "techstack"} {
		if filled[typ] == 0 {
			t.Errorf("%s filled none of its columns: the run proves nothing about cells it writes", typ)
		}
	}

	// The final dataset is the last stage's, with the custom columns of
	// the surviving rows as pasted and in the top-5 order.
	out, _ := got["output_job"].(map[string]any)
	if out == nil || out["id"] != jobsOf["t"]["id"] || out["results_count"] != 5.0 || out["download_available"] != true {
		t.Fatalf("output_job %v, techstack %v", out, jobsOf["t"])
	}
	final := readCSV(t, c, out["id"].(string))
	if !slices.EqualFunc(final, last, slices.Equal[[]string]) {
		t.Fatalf("the output_job's CSV is not the last stage's")
	}
	for k, r := range final[1:] {
		o := orig[top[k]]
		for _, i := range []int{perso, score, comment} {
			if r[i] != export.Neutralise(o[i]) {
				t.Errorf("final row %d, %s: %q, pasted %q", k, header[i], r[i], o[i])
			}
		}
	}
}

// num reads a score as the filter does (a decimal comma is a point).
func num(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmt.Sscan(strings.Replace(s, ",", ".", 1), &f); err != nil {
		t.Fatalf("score %q: %v", s, err)
	}
	return f
}

// TestPipelineInputReasons: input-columns and filter-preview answer every
// reason the service defines, each in the state that causes it, and 404
// for a node, a pipeline or another account's pipeline the caller cannot
// see (spec: input-columns, filter-preview).
func TestPipelineInputReasons(t *testing.T) {
	// A slow map provider keeps a scrape stage running while the routes
	// are asked about its successors; the import stages need no provider.
	e := apptest.Start(t, apptest.WithConfig(func(c *config.Config) { c.SimLatency = 3 * time.Second }))
	c := e.NewClient()
	c.Signup("reasons@example.org", fixturePassword)
	c.Verify("reasons@example.org")
	ctx := context.Background()
	rules := map[string]any{"rules": map[string]any{"logic": "AND", "conditions": []any{
		map[string]any{"column": "ville", "op": "=", "value": "Lyon"}}}}

	// input asks both routes about a node; preview is false for a node that
	// is not a filter (filter-preview answers 400 there).
	type answer struct {
		cols, preview map[string]any
	}
	input := func(t *testing.T, id, node string, preview bool) answer {
		t.Helper()
		a := answer{cols: c.Do("GET", "/api/pipelines/"+id+"/nodes/"+node+"/input-columns", nil).Must(t, 200).JSON()}
		if preview {
			a.preview = c.Do("POST", "/api/pipelines/"+id+"/nodes/"+node+"/filter-preview", rules).Must(t, 200).JSON()
		} else {
			c.Do("POST", "/api/pipelines/"+id+"/nodes/"+node+"/filter-preview", rules).Must(t, 400)
		}
		return a
	}
	// noInput checks the answers of a node whose input is not there: the
	// reason, no columns, zero counts.
	noInput := func(t *testing.T, a answer, reason string) {
		t.Helper()
		if a.cols["reason"] != reason || len(a.cols["columns"].([]any)) != 0 || a.cols["row_count"] != nil {
			t.Errorf("input-columns: %v, want reason %s and no column", a.cols, reason)
		}
		if a.preview == nil {
			return
		}
		if a.preview["reason"] != reason || a.preview["total"] != 0.0 || a.preview["matched"] != 0.0 ||
			len(a.preview["samples"].([]any)) != 0 {
			t.Errorf("filter-preview: %v, want reason %s and zero counts", a.preview, reason)
		}
	}

	// A running root: its filter's input is not done (no_data_yet), the
	// sort after the filter has no predecessor job at all (no_data_yet
	// too), the root itself has no predecessor.
	running := c.Do("POST", "/api/pipelines", `{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":["boulangerie"],"zones":["Villeurbanne"]}},
		{"id":"f","type":"filter","config":{"rules":{"conditions":[]}}},
		{"id":"o","type":"sort","config":{"sort_by":"rating"}}],
		"edges":[{"from":"s","to":"f"},{"from":"f","to":"o"}]}`).Must(t, 201).JSON()["id"].(string)
	scrapeJob := func() map[string]any {
		return stageJobs(t, c.Do("GET", "/api/pipelines/"+running, nil).Must(t, 200).JSON())["s"]
	}
	if j := scrapeJob(); j == nil || (j["status"] != "pending" && j["status"] != "running") {
		t.Fatalf("the scrape stage is not active: %v", j)
	}
	for _, tt := range []struct {
		name, node string
		filter     bool
		reason     string
	}{
		{"root", "s", false, "no_predecessor"},
		{"predecessor running", "f", true, "no_data_yet"},
		{"predecessor without a job", "o", false, "no_data_yet"},
	} {
		t.Run("running/"+tt.name, func(t *testing.T) { noInput(t, input(t, running, tt.node, tt.filter), tt.reason) })
	}
	// The answers above are only about a running predecessor if it still
	// was when they were given.
	if j := scrapeJob(); j["status"] != "pending" && j["status"] != "running" {
		t.Fatalf("the scrape stage ended during the checks (%v): slow the sim down", j["status"])
	}
	// Cancelled, the predecessor is not done either: still no_data_yet.
	c.Do("POST", "/api/pipelines/"+running+"/cancel", nil).Must(t, 200)
	waitJob(t, c, scrapeJob()["id"].(string), finished)
	t.Run("predecessor cancelled", func(t *testing.T) { noInput(t, input(t, running, "f", true), "no_data_yet") })

	// A done import: its filter's input is its CSV, typed and previewed.
	done := c.Do("POST", "/api/pipelines", `{"nodes":[
		{"id":"i","type":"import","config":{"source":"paste","text":"nom;ville;score\nDurand;Lyon;12\nMartin;Paris;7\nPetit;Lyon;\n"}},
		{"id":"f","type":"filter","config":{"rules":{"conditions":[]}}},
		{"id":"o","type":"sort","config":{"sort_by":"score"}}],
		"edges":[{"from":"i","to":"f"},{"from":"f","to":"o"}]}`).Must(t, 201).JSON()["id"].(string)
	got := waitPipeline(t, c, done)
	imp := stageJobs(t, got)["i"]
	if got["status"] != "done" || imp["status"] != "done" {
		t.Fatalf("import pipeline: %v", got)
	}
	impID := imp["id"].(string)
	a := input(t, done, "f", true)
	if a.cols["reason"] != nil || a.cols["predecessor_job_id"] != impID || a.cols["row_count"] != 3.0 ||
		!slices.Equal(columnNames(a.cols), []string{"nom", "ville", "score"}) {
		t.Errorf("input-columns of a done predecessor: %v", a.cols)
	}
	if p := a.preview; p["reason"] != nil || p["predecessor_job_id"] != impID || p["total"] != 3.0 || p["matched"] != 2.0 ||
		p["capped"] != false || len(p["samples"].([]any)) != 2 {
		t.Errorf("filter-preview of a done predecessor: %v", p)
	} else if s := p["samples"].([]any)[1].(map[string]any); s["nom"] != "Petit" || s["score"] != nil {
		t.Errorf("a sample keeps its empty fields: %v", s)
	}
	noInput(t, input(t, done, "i", false), "no_predecessor")

	// The predecessor's CSV lost from the file store while its job still
	// says done: no_csv_found (no route deletes a file and keeps its job,
	// so the test removes it itself).
	files := e.Adapters.Files
	stored := readCSV(t, c, impID) // kept to put a broken copy back
	if err := files.Delete(ctx, jobs.OutputKey(impID)); err != nil {
		t.Fatal(err)
	}
	t.Run("no CSV on disk", func(t *testing.T) { noInput(t, input(t, done, "f", true), "no_csv_found") })

	// An unreadable CSV: input-columns says csv_read_error, filter-preview
	// fails with a 500 (spec: filter-preview, CSV unreadable).
	broken := "\uFEFF" + strings.Join(stored[0], ";") + "\r\n\"Durand;Lyon;12\r\nMartin;Paris;7\r\n"
	if _, err := files.Put(ctx, jobs.OutputKey(impID), strings.NewReader(broken), "text/csv"); err != nil {
		t.Fatal(err)
	}
	t.Run("CSV unreadable", func(t *testing.T) {
		if cols := c.Do("GET", "/api/pipelines/"+done+"/nodes/f/input-columns", nil).Must(t, 200).JSON(); cols["reason"] != "csv_read_error" ||
			len(cols["columns"].([]any)) != 0 {
			t.Errorf("input-columns: %v", cols)
		}
		c.Do("POST", "/api/pipelines/"+done+"/nodes/f/filter-preview", rules).Must(t, 500)
	})

	// What the caller cannot see is a 404 on both routes, whoever asks;
	// without credentials, a 401.
	other := e.NewClient()
	other.Signup("reasons-other@example.org", fixturePassword)
	other.Verify("reasons-other@example.org")
	for _, tt := range []struct {
		name     string
		cl       *apptest.Client
		id, node string
		status   int
	}{
		{"unknown node", c, done, "zz", 404},
		{"unknown pipeline", c, "nope", "f", 404},
		{"another account's pipeline", other, done, "f", 403},
		{"another account's pipeline, unknown node", other, done, "zz", 403},
		{"no credentials", e.NewClient(), done, "f", 401},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.cl.Do("GET", "/api/pipelines/"+tt.id+"/nodes/"+tt.node+"/input-columns", nil).Must(t, tt.status)
			tt.cl.Do("POST", "/api/pipelines/"+tt.id+"/nodes/"+tt.node+"/filter-preview", rules).Must(t, tt.status)
		})
	}
}
