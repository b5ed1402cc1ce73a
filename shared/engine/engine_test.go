package engine

import (
	"context"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/placerow"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
)

// TestJobRunsToDone runs a job over Lyon to the end and checks its output
// and every counter.
func TestJobRunsToDone(t *testing.T) {
	w := newWorld()
	e := newEnv(t, w, envOpts{})
	j := e.run(lyon("normal"))
	if j.Status != jobs.Done {
		t.Fatalf("status %s (%v)", j.Status, j.ErrorMessage)
	}
	p, err := planner().Plan(mustClean(t, lyon("normal")))
	if err != nil {
		t.Fatal(err)
	}
	out := parseCSV(t, e.output(j.ID))
	wantHeader := []string{"nom", "site_web", "telephone", "adresse", "rating", "reviews_count", "category", "lien_maps",
		"aggregator_flag", "place_id", "query", "zone", "latitude", "longitude", "departement", "region"}
	if !slices.Equal(out.header, wantHeader) {
		t.Errorf("header %q", out.header)
	}

	t.Run("rows", func(t *testing.T) {
		if len(out.rows) == 0 || len(out.rows) != j.ResultsCount {
			t.Fatalf("%d rows, results_count %d", len(out.rows), j.ResultsCount)
		}
		ids := map[string]bool{}
		byQuery, byZone := map[string]int{}, map[string]int{}
		for _, r := range out.rows {
			if ids[r["place_id"]] {
				t.Fatalf("place %s twice", r["place_id"])
			}
			ids[r["place_id"]] = true
			lat, _ := strconv.ParseFloat(r["latitude"], 64)
			lon, _ := strconv.ParseFloat(r["longitude"], 64)
			if len(p.Grid.Locate(orb.Point{lon, lat})) == 0 {
				t.Errorf("row %s at %v,%v is outside the zones", r["place_id"], lat, lon)
			}
			if r["zone"] != "Lyon (69)" || r["departement"] != "Rhône" || r["region"] != "Auvergne-Rhône-Alpes" {
				t.Errorf("row %s: zone %q, departement %q, region %q", r["place_id"], r["zone"], r["departement"], r["region"])
			}
			byQuery[r["query"]]++
			byZone[r["zone"]]++
		}
		if !reflect.DeepEqual(byQuery, withoutZeros(j.Breakdown.ByQuery)) || !reflect.DeepEqual(byZone, j.Breakdown.ByZone) {
			t.Errorf("breakdown %+v, rows give %v / %v", j.Breakdown, byQuery, byZone)
		}
		// Every place the provider returned within the zone is a row
		// (unless its number is foreign: exclude_foreign_phones is on by
		// default), once; every place outside is not.
		w.mu.Lock()
		defer w.mu.Unlock()
		outside := 0
		for id, pl := range w.returned {
			in := len(p.Grid.Locate(orb.Point{pl.Lon, pl.Lat})) > 0
			if !in {
				outside++
			}
			_, foreign := placerow.ClassifyPhone(pl.Phone, "FRA")
			if want := in && !foreign; want != ids[id] {
				t.Errorf("place %s: in zone %v, phone %s, in output %v", id, in, pl.Phone, ids[id])
			}
		}
		if outside == 0 {
			t.Error("the provider returned no place outside the zone: the test proves nothing")
		}
		// A bakery that is also a restaurant appears once, under the
		// query whose task came first.
		shared := 0
		for _, pl := range w.places["boulangerie"] {
			if slices.ContainsFunc(w.places["restaurant"], func(r provider.Place) bool { return r.ID == pl.ID }) && ids[pl.ID] {
				shared++
			}
		}
		if shared == 0 {
			t.Error("no place of two queries in the output")
		}
	})

	t.Run("counters", func(t *testing.T) {
		if j.ProcessedPoints != j.GridPointsCount || j.GridPointsCount != p.Grid.Len() {
			t.Errorf("processed %d of %d points (grid %d)", j.ProcessedPoints, j.GridPointsCount, p.Grid.Len())
		}
		if got := int(w.searches.Load()); j.TotalAttemptsCount != got {
			t.Errorf("total_attempts_count %d, provider saw %d", j.TotalAttemptsCount, got)
		}
		if j.ErrorCount != 0 {
			t.Errorf("error_count %d", j.ErrorCount)
		}
		if j.FlaggedTilesCount == 0 {
			t.Error("no flagged tile: the crowd should saturate at max depth")
		}
		// The parts go after OnTerminal.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			parts, _, err := e.files.List(context.Background(), partsPrefix(j.ID), 0)
			if err == nil && len(parts) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%d parts left after done (%v)", len(parts), err)
				break
			}
		}
		if rec := e.record(j.ID); rec.OpenTasks() != 0 {
			t.Errorf("open_tasks %d", rec.OpenTasks())
		}
		if it := e.item(jobs.ActiveKey(j.UserID)); it.Int("n") != 0 {
			t.Errorf("active jobs %d after done", it.Int("n"))
		}
		if j.StartedAt == nil || j.CompletedAt == nil || !j.DownloadAvailable || j.OutputFilename == nil ||
			!strings.HasPrefix(*j.OutputFilename, "restaurant_lyon_"+j.ID) || !strings.HasSuffix(*j.OutputFilename, ".csv") {
			t.Errorf("job %+v", j)
		}
	})

	t.Run("query stats", func(t *testing.T) {
		if !slices.Equal(j.DeadQueries, []string{"licorne"}) {
			t.Errorf("dead queries %q", j.DeadQueries)
		}
		for _, q := range j.Queries {
			st := j.QueryStats[q]
			if st.Tiles < j.GridPointsCount || st.WithResults > st.Tiles {
				t.Errorf("%s: %+v over %d points", q, st, j.GridPointsCount)
			}
		}
		if st := j.QueryStats["restaurant"]; st.Tiles <= j.GridPointsCount {
			t.Errorf("restaurant searched %d tiles: no split", st.Tiles)
		}
		if st := j.QueryStats["licorne"]; st.WithResults != 0 || st.Tiles != j.GridPointsCount {
			t.Errorf("licorne %+v", st)
		}
	})

	t.Run("ledger and logs", func(t *testing.T) {
		roots := 0
		for _, r := range e.tasks(j.ID) {
			if r.State != jobs.TaskDone {
				t.Errorf("task %s %s", r.ID, r.State)
			}
			if depth(r.ID) == 0 {
				roots++
			}
		}
		if roots != j.GridPointsCount {
			t.Errorf("%d root tasks, %d points", roots, j.GridPointsCount)
		}
		logs := e.logs(j.ID)
		if len(logs) < 3 || !strings.HasPrefix(logs[0], "Started: ") || !strings.HasPrefix(logs[len(logs)-1], "Done: ") ||
			!slices.ContainsFunc(logs, func(s string) bool { return strings.HasPrefix(s, "Progress: ") }) ||
			!slices.ContainsFunc(logs, func(s string) bool { return strings.Contains(s, "saturated") }) {
			t.Errorf("logs %q", logs)
		}
	})
}

func withoutZeros(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func mustClean(t testing.TB, r scrape.Request) scrape.Settings {
	t.Helper()
	s, err := scrape.Clean(r, true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestModesSplitDepth: saturated tiles split as deep as the mode allows
// and no deeper, and deeper modes find more.
func TestModesSplitDepth(t *testing.T) {
	w := newWorld()
	e := newEnv(t, w, envOpts{})
	prev := 0
	for _, tt := range []struct {
		mode  string
		depth int
	}{{"fast", 1}, {"normal", 2}, {"ultra", 3}} {
		t.Run(tt.mode, func(t *testing.T) {
			j := e.run(lyon(tt.mode, "restaurant"))
			deepest := 0
			for _, r := range e.tasks(j.ID) {
				deepest = max(deepest, depth(r.ID))
			}
			if deepest != tt.depth {
				t.Errorf("deepest task at depth %d, want %d", deepest, tt.depth)
			}
			if j.FlaggedTilesCount == 0 {
				t.Error("no flagged search at max depth")
			}
			if j.ResultsCount <= prev {
				t.Errorf("%d results, not more than the shallower mode's %d", j.ResultsCount, prev)
			}
			t.Logf("%s: %d results, %d searches, %d flagged", tt.mode, j.ResultsCount, j.TotalAttemptsCount, j.FlaggedTilesCount)
			prev = j.ResultsCount
		})
	}
}

// TestDroppedPlacesStillSaturate: a search at the provider's cap is
// saturated and split even when the adapter drops some of its places
// (closed businesses): saturation counts what the provider listed.
func TestDroppedPlacesStillSaturate(t *testing.T) {
	w := newWorld()
	w.dropEvery = 3
	e := newEnv(t, w, envOpts{})
	j := e.run(lyon("fast", "restaurant"))
	deepest := 0
	for _, r := range e.tasks(j.ID) {
		deepest = max(deepest, depth(r.ID))
	}
	if deepest != 1 || j.FlaggedTilesCount == 0 {
		t.Errorf("deepest task at depth %d, %d flagged: the dropped places hid the saturation", deepest, j.FlaggedTilesCount)
	}
}

// TestStopAt: once results_count reaches stop_at, tasks close without
// searching.
func TestStopAt(t *testing.T) {
	full := newEnv(t, newWorld(), envOpts{workers: 1}).run(lyon("fast", "boulangerie"))
	w := newWorld()
	e := newEnv(t, w, envOpts{workers: 1, deps: func(d *Deps) { d.Handlers = 1 }})
	r := lyon("fast", "boulangerie")
	r.StopAt = ptr(int64(20))
	j := e.run(r)
	if j.Status != jobs.Done || j.ResultsCount < 20 || j.ResultsCount >= full.ResultsCount ||
		j.TotalAttemptsCount >= full.TotalAttemptsCount {
		t.Fatalf("stop_at 20: %s, %d results, %d searches; without: %d results, %d searches",
			j.Status, j.ResultsCount, j.TotalAttemptsCount, full.ResultsCount, full.TotalAttemptsCount)
	}
	skipped := 0
	for _, r := range e.tasks(j.ID) {
		if r.State != jobs.TaskDone {
			t.Errorf("task %s %s", r.ID, r.State)
		}
		if len(r.Stats) == 0 {
			skipped++
		}
	}
	if skipped == 0 || j.ProcessedPoints != j.GridPointsCount {
		t.Errorf("%d tasks skipped, %d/%d points", skipped, j.ProcessedPoints, j.GridPointsCount)
	}
	t.Logf("stop_at 20: %d results, %d searches, %d tasks skipped; without: %d results, %d searches",
		j.ResultsCount, j.TotalAttemptsCount, skipped, full.ResultsCount, full.TotalAttemptsCount)
}

// TestPhoneFilters: max_per_phone and exclude_foreign_phones.
func TestPhoneFilters(t *testing.T) {
	e := newEnv(t, newWorld(), envOpts{})
	base := e.run(withPhones(lyon("fast"), 0, false))
	all := parseCSV(t, e.output(base.ID)).rows
	noNumber := 0
	for _, r := range all {
		if key, _ := placerow.ClassifyPhone(r["telephone"], "FRA"); key == "" {
			noNumber++
		}
	}
	for _, tt := range []struct {
		maxPer  int
		exclude bool
	}{{0, true}, {1, false}, {1, true}, {2, true}, {10, false}} {
		t.Run(strconv.Itoa(tt.maxPer)+"/"+strconv.FormatBool(tt.exclude), func(t *testing.T) {
			j := e.run(withPhones(lyon("fast"), tt.maxPer, tt.exclude))
			rows := parseCSV(t, e.output(j.ID)).rows
			per := map[string]int{}
			kept, foreign, shared := 0, 0, 0
			for _, r := range rows {
				key, abroad := placerow.ClassifyPhone(r["telephone"], "FRA")
				if key == "" {
					kept++
					continue
				}
				per[key]++
				if abroad {
					foreign++
				}
				if key == "+33472000001" {
					shared++
					if r["aggregator_flag"] != "true" {
						t.Errorf("row %s shares its number with many but is not flagged", r["place_id"])
					}
				}
			}
			if kept != noNumber {
				t.Errorf("%d rows without a usable number, want all %d", kept, noNumber)
			}
			if tt.exclude && foreign > 0 || !tt.exclude && foreign == 0 {
				t.Errorf("exclude %v: %d foreign numbers", tt.exclude, foreign)
			}
			for k, n := range per {
				if tt.maxPer > 0 && n > tt.maxPer {
					t.Errorf("%s listed %d times, max %d", k, n, tt.maxPer)
				}
			}
			if !slices.ContainsFunc(rows, func(r map[string]string) bool { return strings.HasPrefix(r["telephone"], "+262") }) {
				t.Error("Réunion numbers dropped: they are French")
			}
			if tt.maxPer == 0 && shared < 3 || tt.maxPer > 0 && shared > tt.maxPer {
				t.Errorf("the shared number listed %d times", shared)
			}
			if len(rows) != j.ResultsCount || len(rows) > len(all) {
				t.Errorf("%d rows, results_count %d, unfiltered %d", len(rows), j.ResultsCount, len(all))
			}
		})
	}
}

func withPhones(r scrape.Request, maxPer int, exclude bool) scrape.Request {
	r.MaxPerPhone = maxPer
	r.ExcludeForeignPhones = &exclude
	return r
}

// TestTransientErrors: transient failures are retried and counted; a
// search that keeps failing counts as an error and the job still ends.
func TestTransientErrors(t *testing.T) {
	clean := newEnv(t, newWorld(), envOpts{})
	want := clean.run(lyon("normal"))
	wantCSV := clean.output(want.ID)

	t.Run("recovered", func(t *testing.T) {
		w := newWorld()
		w.failFirst, w.failEvery = 2, 3
		e := newEnv(t, w, envOpts{})
		j := e.run(lyon("normal"))
		if e.output(j.ID) != wantCSV {
			t.Error("output differs from a run without failures")
		}
		if j.ErrorCount != 0 || j.TotalAttemptsCount <= want.TotalAttemptsCount || j.TotalAttemptsCount != int(w.searches.Load()) {
			t.Errorf("errors %d, attempts %d (provider %d), %d without failures", j.ErrorCount, j.TotalAttemptsCount, w.searches.Load(), want.TotalAttemptsCount)
		}
		got, exp := summarize(j), summarize(want)
		got.Attempts, exp.Attempts = 0, 0
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("summary %+v, want %+v", got, exp)
		}
	})
	t.Run("lasting", func(t *testing.T) {
		w := newWorld()
		w.failAlways = 7
		e := newEnv(t, w, envOpts{deps: func(d *Deps) { d.Retries = 2 }})
		j := e.run(lyon("normal"))
		if j.Status != jobs.Done || j.ErrorCount == 0 || j.TotalAttemptsCount != int(w.searches.Load()) {
			t.Fatalf("%s, errors %d, attempts %d, provider %d", j.Status, j.ErrorCount, j.TotalAttemptsCount, w.searches.Load())
		}
		// Each failing search made 1 + Retries requests.
		w.mu.Lock()
		defer w.mu.Unlock()
		failing := 0
		for k, n := range w.attempts {
			if hash(k)%7 == 0 {
				failing++
				if n != 3 {
					t.Errorf("%s tried %d times", k, n)
				}
			}
		}
		if failing != j.ErrorCount {
			t.Errorf("%d failing searches, error_count %d", failing, j.ErrorCount)
		}
	})
}

// dupQueue sends every message twice the first time it is sent.
type dupQueue struct {
	queue.Queue
	mu   sync.Mutex
	seen map[string]bool
}

func (q *dupQueue) Send(ctx context.Context, name string, msgs ...queue.Message) ([]string, error) {
	ids, err := q.Queue.Send(ctx, name, msgs...)
	if err != nil {
		return ids, err
	}
	q.mu.Lock()
	var again []queue.Message
	for _, m := range msgs {
		if !q.seen[string(m.Body)] {
			q.seen[string(m.Body)] = true
			again = append(again, m)
		}
	}
	q.mu.Unlock()
	if len(again) == 0 {
		return ids, nil
	}
	return q.Queue.Send(ctx, name, again...)
}

// flakySends fails one Send of task or finalize messages in seven, after
// the messages were enqueued or before.
type flakySends struct {
	queue.Queue
	n atomic.Int64
}

func (q *flakySends) Send(ctx context.Context, name string, msgs ...queue.Message) ([]string, error) {
	if !strings.Contains(string(msgs[0].Body), `"kind":"start"`) {
		switch q.n.Add(1) % 14 {
		case 0:
			return nil, errors.New("network down")
		case 7:
			if _, err := q.Queue.Send(ctx, name, msgs...); err != nil {
				return nil, err
			}
			return nil, errors.New("lost the answer")
		}
	}
	return q.Queue.Send(ctx, name, msgs...)
}

// TestRedelivery: messages delivered twice (every send duplicated, start
// included), and sends failing after the commit of their task, give the
// output and counters of a clean run.
func TestRedelivery(t *testing.T) {
	clean := newEnv(t, newWorld(), envOpts{})
	want := clean.run(lyon("ultra"))
	wantCSV := clean.output(want.ID)
	for _, tt := range []struct {
		name string
		wrap func(queue.Queue) queue.Queue
	}{
		{"every message twice", func(q queue.Queue) queue.Queue { return &dupQueue{Queue: q, seen: map[string]bool{}} }},
		{"sends failing", func(q queue.Queue) queue.Queue { return &flakySends{Queue: q} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, newWorld(), envOpts{wrapQueue: tt.wrap})
			j := e.run(lyon("ultra"))
			if e.output(j.ID) != wantCSV {
				t.Error("output differs from a clean run")
			}
			if got, exp := summarize(j), summarize(want); !reflect.DeepEqual(got, exp) {
				t.Errorf("summary %+v, want %+v", got, exp)
			}
			if it := e.item(jobs.ActiveKey(j.UserID)); it.Int("n") != 0 {
				t.Errorf("active jobs %d", it.Int("n"))
			}
		})
	}
}

// TestTaskDeliveredTwice hands a closed task and a start to the engine
// again, by hand: nothing changes.
func TestTaskDeliveredTwice(t *testing.T) {
	e := newEnv(t, newWorld(), envOpts{})
	j := e.run(lyon("normal"))
	before, csv := summarize(e.job(j.ID)), e.output(j.ID)
	ctx := context.Background()
	p, _ := planner().Plan(mustClean(t, lyon("normal")))
	bodies := []string{
		`{"kind":"start","job":"` + j.ID + `"}`,
		`{"kind":"finalize","job":"` + j.ID + `"}`,
	}
	tl := p.Grid.Tiles()[0]
	bodies = append(bodies, `{"kind":"task","job":"`+j.ID+`","task":"r1","tile":[`+
		strconv.Itoa(int(tl.Z))+`,`+strconv.Itoa(int(tl.X))+`,`+strconv.Itoa(int(tl.Y))+`],"q":[0,1,2,3]}`)
	for _, b := range bodies {
		if err := e.eng.Handle(ctx, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if after := summarize(e.job(j.ID)); !reflect.DeepEqual(after, before) || e.output(j.ID) != csv {
		t.Errorf("after redelivery %+v, before %+v", after, before)
	}
}

// TestCrashSafety stops the workers in the middle of a job (work in
// progress abandoned, as in a crash), starts a new engine on the same
// files, and gets the output and counters of an uninterrupted run.
func TestCrashSafety(t *testing.T) {
	clean := newEnv(t, newWorld(), envOpts{})
	want := clean.run(lyon("ultra"))
	wantCSV := clean.output(want.ID)
	total := want.TotalAttemptsCount

	for _, at := range []float64{0.1, 0.5, 0.9} {
		t.Run(strconv.FormatFloat(at, 'f', -1, 64), func(t *testing.T) {
			w := newWorld()
			crashed := make(chan struct{})
			var once sync.Once
			w.onSearch = func(n int64) {
				if n == int64(at*float64(total)) {
					once.Do(func() { close(crashed) })
				}
			}
			e := newEnv(t, w, envOpts{})
			id := e.create(lyon("ultra")).ID
			<-crashed
			e.close()
			select {
			case <-e.terminalChan(id):
				t.Fatal("the job ended before the crash")
			default:
			}
			w.onSearch = nil
			e.opts.queueShift = 10 * time.Minute // messages in flight reappear
			e.open()
			j := e.wait(id)
			if e.output(id) != wantCSV {
				t.Error("output differs from an uninterrupted run")
			}
			got, exp := summarize(j), summarize(want)
			if !reflect.DeepEqual(got, exp) {
				t.Errorf("summary %+v, want %+v", got, exp)
			}
		})
	}
}

// TestCancelledJob: tasks of a job cancelled meanwhile are dropped, and it
// is never finalised.
func TestCancelledJob(t *testing.T) {
	w := newWorld()
	e := newEnv(t, w, envOpts{})
	var once sync.Once
	cancelled := make(chan struct{})
	var id string
	var mu sync.Mutex
	w.onSearch = func(n int64) {
		if n == 20 {
			once.Do(func() {
				mu.Lock()
				defer mu.Unlock()
				_, err := e.db.Table(jobs.Table).Update(context.Background(), jobs.Key(id),
					store.Update{}.Set("status", string(jobs.Cancelled)), nil)
				if err != nil {
					t.Error(err)
				}
				close(cancelled)
			})
		}
	}
	mu.Lock()
	id = e.create(lyon("ultra")).ID
	mu.Unlock()
	<-cancelled
	// Let the queue drain.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		v, f, d, err := e.q.Depth(context.Background(), "tasks")
		if err != nil {
			t.Fatal(err)
		}
		if v+f+d == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if j := e.job(id); j.Status != jobs.Cancelled || j.CompletedAt != nil || j.DownloadAvailable {
		t.Errorf("job %+v", j)
	}
	if _, err := e.files.Stat(context.Background(), OutputKey(id)); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("output of a cancelled job: %v", err)
	}
	if n := w.searches.Load(); n > 200 {
		t.Errorf("%d searches after cancelling at 20", n)
	}
}

// missingParts hides the parts from the finalizer.
type missingParts struct{ blob.Store }

func (m missingParts) Open(ctx context.Context, key string) (io.ReadCloser, blob.Info, error) {
	if strings.Contains(key, "/parts/") {
		return nil, blob.Info{}, blob.ErrNotFound
	}
	return m.Store.Open(ctx, key)
}

// failingFiles fails every write.
type failingFiles struct{ blob.Store }

func (failingFiles) Put(context.Context, string, io.Reader, string) (int64, error) {
	return 0, errors.New("disk on fire")
}

// TestFailures: a job whose output cannot be built fails at once, one
// whose finalize keeps failing fails after GiveUpAfter deliveries; both
// release their slot and are told to OnTerminal.
func TestFailures(t *testing.T) {
	for _, tt := range []struct {
		name string
		wrap func(blob.Store) blob.Store
		msg  string
	}{
		{"part missing", func(s blob.Store) blob.Store { return missingParts{s} }, "A part of the job's results is missing"},
		// Its tasks with rows are given up, the others close, then its
		// output cannot be written.
		{"file store down", func(s blob.Store) blob.Store { return failingFiles{s} }, "The output could not be built: it kept failing (2 attempts)."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, newWorld(), envOpts{wrapFiles: tt.wrap, deps: func(d *Deps) { d.GiveUpAfter = 2 }})
			j := e.run(lyon("fast", "plombier"))
			if j.Status != jobs.Failed || j.ErrorMessage == nil || !strings.HasPrefix(*j.ErrorMessage, tt.msg) || j.CompletedAt == nil {
				t.Fatalf("job %s %v", j.Status, j.ErrorMessage)
			}
			if it := e.item(jobs.ActiveKey(j.UserID)); it.Int("n") != 0 {
				t.Errorf("active jobs %d", it.Int("n"))
			}
			logs := e.logs(j.ID)
			if !slices.ContainsFunc(logs, func(s string) bool { return strings.HasPrefix(s, "Job failed: ") }) {
				t.Errorf("logs %q", logs)
			}
		})
	}
}

// TestSimProvider runs jobs against the simulated world (shared/provider/sim,
// 1% transient failures): deeper modes find more of the world's places in
// the zone, every row is in the zone and unique, and a second run gives
// the same output.
func TestSimProvider(t *testing.T) {
	g, err := data.Load()
	if err != nil {
		t.Fatal(err)
	}
	world := sim.New(g, sim.Options{Seed: 7})
	e := newEnv(t, world, envOpts{})
	req := func(mode string) scrape.Request {
		r := lyon(mode, "restaurant", "boulangerie")
		r.ExcludeForeignPhones = ptr(false)
		return r
	}
	p, err := planner().Plan(mustClean(t, req("fast")))
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string]bool{}
	for _, q := range []string{"restaurant", "boulangerie"} {
		places, err := world.Truth(context.Background(), q, p.Zones[0].Shape.Bound())
		if err != nil {
			t.Fatal(err)
		}
		for _, pl := range places {
			if len(p.Grid.Locate(orb.Point{pl.Lon, pl.Lat})) > 0 {
				truth[pl.ID] = true
			}
		}
	}
	prev := 0
	var first string
	for _, mode := range []string{"fast", "ultra", "ultra"} {
		j := e.run(req(mode))
		if j.Status != jobs.Done || j.ProcessedPoints != j.GridPointsCount || j.Source != "sim" {
			t.Fatalf("%s: %s, %d/%d points, source %q", mode, j.Status, j.ProcessedPoints, j.GridPointsCount, j.Source)
		}
		csv := e.output(j.ID)
		rows := parseCSV(t, csv).rows
		found, flagged := 0, 0
		ids := map[string]bool{}
		for _, r := range rows {
			if ids[r["place_id"]] {
				t.Fatalf("place %s twice", r["place_id"])
			}
			ids[r["place_id"]] = true
			if truth[r["place_id"]] {
				found++
			}
			if r["aggregator_flag"] == "true" {
				flagged++
			}
		}
		t.Logf("%s: %d rows, %d of the zone's %d places (%.0f%%), %d searches, %d flagged searches, %d aggregator rows",
			mode, len(rows), found, len(truth), 100*float64(found)/float64(len(truth)), j.TotalAttemptsCount, j.FlaggedTilesCount, flagged)
		if len(rows) != j.ResultsCount || len(rows) < prev || flagged == 0 || found != len(rows) {
			t.Errorf("%s: %d rows (results_count %d), previous mode %d, %d flagged", mode, len(rows), j.ResultsCount, prev, flagged)
		}
		if prev > 0 && mode == "ultra" && first != "" && csv != first {
			t.Error("a second ultra run gives another output")
		}
		if mode == "ultra" {
			first = csv
		}
		prev = len(rows)
	}
}
