package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/placerow"
)

// fakeSocials stands in for the socials module: it answers from the
// site_web cell alone, without fetching, so that the engine's item path is
// tested on its own. A host starting with "panic" panics, "dead" is
// unreachable, "none" gives nothing, "fail" fails the batch (once per
// item while failures is positive).
type fakeSocials struct {
	runs     atomic.Int64
	failures atomic.Int64
}

func (m *fakeSocials) Slug() string { return "socials" }
func (m *fakeSocials) Columns() []string {
	return []string{"social_facebook", "social_instagram", "social_linkedin", "social_twitter", "social_tiktok", "social_youtube"}
}
func (m *fakeSocials) Reads() []string { return []string{"site_web"} }

func (m *fakeSocials) Run(ctx context.Context, env *enrich.Env, in enrich.Input) (enrich.Result, error) {
	m.runs.Add(1)
	u, ok := placerow.SiteURL(in["site_web"])
	if !ok {
		return enrich.Result{Values: make([]string, 6)}, nil
	}
	host := u.Hostname()
	switch {
	case strings.HasPrefix(host, "panic"):
		panic("extractor bug")
	case strings.HasPrefix(host, "dead"):
		return enrich.Result{Values: make([]string, 6), Unreachable: true}, nil
	case strings.HasPrefix(host, "none"):
		return enrich.Result{Values: make([]string, 6)}, nil
	case strings.HasPrefix(host, "fail") && m.failures.Add(-1) >= 0:
		return enrich.Result{}, errors.New("file store down")
	}
	v := make([]string, 6)
	v[0] = "https://www.facebook.com/" + strings.Split(host, ".")[0]
	return enrich.Result{Values: v, Found: true}, nil
}

func itemEnv(t testing.TB, m enrich.Module) *env {
	set, err := enrich.NewSet(crawl.New(crawl.Deps{}), nil, m)
	if err != nil {
		t.Fatal(err)
	}
	return newEnv(t, newWorld(), envOpts{deps: func(d *Deps) { d.Modules = set }})
}

// createItems creates a socials job over raw items for a new account.
func (e *env) createItems(raw []string) *jobs.Job {
	e.t.Helper()
	req := jobs.ItemRequest{}
	for _, r := range raw {
		req.Items = append(req.Items, json.RawMessage(r))
	}
	u := &accounts.User{ID: uids.Add(1), EmailVerified: true}
	j, err := e.jobs.CreateItems(context.Background(), u, "socials", req)
	if err != nil {
		e.t.Fatalf("create: %v", err)
	}
	return j
}

// TestItemJob: 45 items (three batches) run to done; the output keeps the
// input's columns in order, appends the module's, keeps a produced column
// the input has in place (the module's value when it found one), and
// counts unreachable items, panics included.
func TestItemJob(t *testing.T) {
	m := &fakeSocials{}
	e := itemEnv(t, m)
	var raw []string
	for i := range 45 {
		site := fmt.Sprintf("site%d.fr", i)
		switch i {
		case 3:
			site = "dead.fr"
		case 7:
			site = "panic.fr"
		case 11:
			site = ""
		case 12:
			site = "none.fr"
		}
		item := fmt.Sprintf(`{"nom":"Place %d","site_web":%q,"rating":4.5,"social_facebook":"https://www.facebook.com/old%d"}`, i, site, i)
		if i == 30 {
			item = fmt.Sprintf(`{"site_web":%q,"nom":"Place 30","extra":{"a":[1,2]},"rating":null}`, site)
		}
		raw = append(raw, item)
	}
	j := e.wait(e.createItems(raw).ID)
	if j.Status != jobs.Done || j.ResultsCount != 45 || j.ProcessedPoints != 45 || j.GridPointsCount != 45 ||
		j.ErrorCount != 2 || *j.OutputFilename != "socials_"+j.ID+".csv" {
		t.Fatalf("job %+v", j)
	}
	out := parseCSV(t, e.output(j.ID))
	want := []string{"nom", "site_web", "rating", "social_facebook", "extra",
		"social_instagram", "social_linkedin", "social_twitter", "social_tiktok", "social_youtube"}
	if !slices.Equal(out.header, want) || len(out.rows) != 45 {
		t.Fatalf("header %q, %d rows", out.header, len(out.rows))
	}
	for i, r := range out.rows {
		fb := fmt.Sprintf("https://www.facebook.com/site%d", i)
		switch i {
		case 3, 7, 11, 12:
			fb = fmt.Sprintf("https://www.facebook.com/old%d", i) // nothing found: the input's value stays
		case 30:
			if r["extra"] != `{"a":[1,2]}` || r["rating"] != "" {
				t.Errorf("row 30: %v", r)
			}
		}
		if r["nom"] != fmt.Sprintf("Place %d", i) || r["social_facebook"] != fb {
			t.Errorf("row %d: %v", i, r)
		}
	}
	if n := len(e.tasks(j.ID)); n != 3 {
		t.Errorf("%d ledger tasks, want 3 batches", n)
	}
	logs := strings.Join(e.logs(j.ID), "\n")
	if !strings.Contains(logs, "Done: 45 rows, 41 enriched, 2 unreachable.") {
		t.Errorf("logs:\n%s", logs)
	}

	// A batch delivered again after the job is done changes nothing.
	runs := m.runs.Load()
	body, _ := json.Marshal(message{Kind: kindBatch, Job: j.ID, Task: "b2", Items: []batchItem{{I: 20, V: map[string]string{"site_web": "x.fr"}}}})
	if err := e.eng.Handle(context.Background(), body); err != nil {
		t.Fatal(err)
	}
	if m.runs.Load() != runs || e.job(j.ID).ResultsCount != 45 {
		t.Error("a redelivered batch ran again")
	}
}

// TestItemJobRetriesAFailedBatch: a batch whose module fails is delivered
// again and the job ends done with each item counted once.
func TestItemJobRetriesAFailedBatch(t *testing.T) {
	m := &fakeSocials{}
	m.failures.Store(1)
	e := itemEnv(t, m)
	raw := []string{`{"site_web":"fail.fr"}`, `{"site_web":"ok.fr"}`}
	j := e.wait(e.createItems(raw).ID)
	if j.Status != jobs.Done || j.ResultsCount != 2 || j.ProcessedPoints != 2 {
		t.Fatalf("job %+v", j)
	}
	out := parseCSV(t, e.output(j.ID))
	if out.rows[0]["social_facebook"] != "https://www.facebook.com/fail" {
		t.Errorf("rows %v", out.rows)
	}
}

// TestItemJobWithoutModule: a job whose module this process lacks fails
// with a message saying so, and gives its slot back.
func TestItemJobWithoutModule(t *testing.T) {
	e := newEnv(t, newWorld(), envOpts{})
	j := e.wait(e.createItems([]string{`{"site_web":"x.fr"}`}).ID)
	if j.Status != jobs.Failed || j.ErrorMessage == nil || !strings.Contains(*j.ErrorMessage, "module") {
		t.Fatalf("job %+v", j)
	}
}

func TestBatchIDs(t *testing.T) {
	for _, tt := range []struct {
		id string
		n  int
		ok bool
	}{{"b1", 0, true}, {"b500", 499, true}, {"b0", 0, false}, {"b01", 0, false}, {"b", 0, false}, {"r1", 0, false}, {"b-1", 0, false}} {
		if n, ok := parseBatchID(tt.id); ok != tt.ok || ok && n != tt.n {
			t.Errorf("%q: %d %v", tt.id, n, ok)
		}
	}
	if batchID(0) != "b1" {
		t.Error(batchID(0))
	}
	for _, tt := range []struct {
		body string
		ok   bool
	}{
		{`{"kind":"batch","job":"j","task":"b1","items":[{"i":0}]}`, true},
		{`{"kind":"batch","job":"j","task":"b1","items":[]}`, false},
		{`{"kind":"batch","job":"j","task":"r1","items":[{"i":0}]}`, false},
	} {
		if _, err := decode([]byte(tt.body)); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.body, err)
		}
	}
	if got := cut("ééé", 3); got != "é" {
		t.Errorf("cut %q", got)
	}
}

// BenchmarkItemJob10k runs a job of 10,000 items through the whole item
// path (input file, 500 batches on the queue, parts, the streamed merge)
// with a module that answers at once, and reports the peak of the heap in
// use during the run, sampled every 5 ms: the memory of a job must stay
// bounded by a batch and a part, not grow with its items.
func BenchmarkItemJob10k(b *testing.B) {
	m := &fakeSocials{}
	e := itemEnv(b, m)
	raw := make([]string, 10000)
	for i := range raw {
		raw[i] = fmt.Sprintf(`{"nom":"Place %d","site_web":"site%d.fr","adresse":"%d rue de la République, 69002 Lyon","telephone":"04 78 00 %02d %02d","rating":4.%d}`,
			i, i, i%200, i%100, i/100%100, i%10)
	}
	var peak atomic.Uint64
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		stop := make(chan struct{})
		go func() {
			t := time.NewTicker(5 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
						peak.Store(ms.HeapInuse - base)
					}
				}
			}
		}()
		j := e.wait(e.createItems(raw).ID)
		close(stop)
		if j.Status != jobs.Done || j.ResultsCount != 10000 {
			b.Fatalf("job %+v", j)
		}
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(b.N*10000)/b.Elapsed().Seconds(), "items/s")
}

// blockingSocials holds every item until released, to cancel a job in
// the middle of its batches.
type blockingSocials struct {
	fakeSocials
	started chan struct{}
	release chan struct{}
}

func (m *blockingSocials) Run(ctx context.Context, env *enrich.Env, in enrich.Input) (enrich.Result, error) {
	select {
	case m.started <- struct{}{}:
	default:
	}
	select {
	case <-m.release:
	case <-ctx.Done():
		return enrich.Result{}, ctx.Err()
	}
	return m.fakeSocials.Run(ctx, env, in)
}

// TestItemJobCancelled: a job cancelled while its batches run ends
// cancelled; the batches finishing after it change nothing and no output
// is written.
func TestItemJobCancelled(t *testing.T) {
	m := &blockingSocials{started: make(chan struct{}, 1), release: make(chan struct{})}
	e := itemEnv(t, m)
	raw := make([]string, 60)
	for i := range raw {
		raw[i] = fmt.Sprintf(`{"site_web":"site%d.fr"}`, i)
	}
	u := &accounts.User{ID: uids.Add(1), EmailVerified: true}
	req := jobs.ItemRequest{}
	for _, r := range raw {
		req.Items = append(req.Items, json.RawMessage(r))
	}
	j, err := e.jobs.CreateItems(context.Background(), u, "socials", req)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.started:
	case <-time.After(30 * time.Second):
		t.Fatal("no item started")
	}
	if _, err := e.jobs.Cancel(context.Background(), u.ID, j.ID); err != nil {
		t.Fatal(err)
	}
	close(m.release)
	// Let the running batches reach their commit and find the job gone.
	time.Sleep(500 * time.Millisecond)
	got := e.job(j.ID)
	if got.Status != jobs.Cancelled || got.ProcessedPoints != 0 || got.DownloadAvailable {
		t.Fatalf("job %+v", got)
	}
	if _, _, err := e.files.Open(context.Background(), OutputKey(j.ID)); err == nil {
		t.Error("an output was written for a cancelled job")
	}
}
