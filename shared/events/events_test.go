package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// newClock starts at the real time (whole seconds): stores opened with the
// real clock then hide nothing the test appends.
func newClock() *clocktest.Clock { return clocktest.New(time.Now().UTC().Truncate(time.Second)) }

// otherTable is a table of the test DB outside the event log, for the
// caller's operations of AppendWith.
const otherTable = "other"

// open returns a bbolt DB with the events table; the store's TTL clock is
// storeNow (nil: the real time, so that events the service's clock has
// moved past linger in the store as they do before TTL deletion).
func open(t testing.TB, storeNow func() time.Time) store.DB {
	t.Helper()
	opts := []bolt.Option{bolt.WithNoSync(), bolt.WithSweepInterval(0)}
	if storeNow != nil {
		opts = append(opts, bolt.WithClock(storeNow))
	}
	db, err := bolt.Open(filepath.Join(t.TempDir(), "events.db"),
		[]store.Schema{events.Schema(), {Name: otherTable, PK: "pk", SK: "sk"}}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var ctx = context.Background()

func jobData(id string) events.JobData {
	return events.JobData{ID: id, JobType: "scrap", Status: "done", Queries: []string{"plombier"}, Zones: []string{"Paris"},
		ResultsCount: 12, EFCost: 1.5, CreatedAt: "2026-03-02T09:00:00Z"}
}

// dataFor returns a valid data value for the type.
func dataFor(typ string, n int) any {
	switch typ {
	case events.PipelineCompleted, events.PipelineFailed, events.PipelineCancelled:
		return events.PipelineData{ID: fmt.Sprintf("p%d", n), Name: "Pipeline", Status: "done", CreatedAt: "2026-03-02 09:00:00"}
	case events.VeilleRunCompleted:
		return &events.VeilleRunData{RunID: int64(n), VeilleID: 1, VeilleName: "v", JobID: "j", IsBaseline: true, ComputedAt: "2026-03-02T09:00:00Z"}
	}
	return jobData(fmt.Sprintf("j%d", n))
}

func mustAppend(t testing.TB, s *events.Service, uid int64, typ string) events.Event {
	t.Helper()
	ev, err := s.Append(ctx, uid, typ, dataFor(typ, rand.IntN(1000)))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func ids(evs []events.Event) []int64 {
	out := []int64{}
	for _, e := range evs {
		out = append(out, e.ID)
	}
	return out
}

func mustList(t testing.TB, s *events.Service, uid int64, q events.Query) events.Page {
	t.Helper()
	p, err := s.List(ctx, uid, q)
	if err != nil {
		t.Fatalf("list %+v: %v", q, err)
	}
	return p
}

// Ids start at 1 and grow by 1 per account, whatever the other accounts do;
// created_at is the clock's time in the spec's form.
func TestIDsPerAccount(t *testing.T) {
	c := newClock()
	s := events.New(open(t, nil), c.Now)
	next := map[int64]int64{}
	for i, uid := range []int64{1, 2, 1, 3, 1, 2, 2, 3, 1} {
		c.Advance(time.Second)
		ev := mustAppend(t, s, uid, events.JobCompleted)
		next[uid]++
		if ev.ID != next[uid] {
			t.Fatalf("append %d for account %d: id %d, want %d", i, uid, ev.ID, next[uid])
		}
		if want := c.Now().UTC().Format("2006-01-02 15:04:05"); ev.CreatedAt != want {
			t.Errorf("created_at %q, want %q", ev.CreatedAt, want)
		}
	}
	for uid, n := range next {
		p := mustList(t, s, uid, events.Query{})
		want := []int64{}
		for i := int64(1); i <= n; i++ {
			want = append(want, i)
		}
		if !slices.Equal(ids(p.Events), want) || p.HeadID != n || p.LastID != n {
			t.Errorf("account %d: %v last %d head %d, want %v", uid, ids(p.Events), p.LastID, p.HeadID, want)
		}
		if h, err := s.Head(ctx, uid); err != nil || h != n {
			t.Errorf("Head(%d) = %d, %v", uid, h, err)
		}
	}
	if h, _ := s.Head(ctx, 99); h != 0 {
		t.Errorf("head of an account without events: %d", h)
	}
}

// Many writers (each its own Service, as separate processes are) append at
// once to two accounts while readers poll each feed with since_id = last_id:
// ids are distinct and contiguous, and every reader sees every event exactly
// once, in order, never a gap (an id is always the previous one plus 1).
func TestConcurrentAppendsNeverSkip(t *testing.T) {
	db := open(t, nil)
	c := newClock()
	const writers, each = 8, 40
	accounts := []int64{7, 8}
	total := writers * each
	types := []string{events.JobCompleted, events.JobFailed, events.PipelineCompleted}

	var wg sync.WaitGroup
	got := map[int64][]int64{}
	var mu sync.Mutex
	errs := make(chan error, 100)
	for _, uid := range accounts {
		for w := range writers {
			wg.Go(func() {
				s := events.New(db, c.Now)
				for i := range each {
					typ := types[(w+i)%len(types)]
					ev, err := s.Append(ctx, uid, typ, dataFor(typ, i))
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					got[uid] = append(got[uid], ev.ID)
					mu.Unlock()
				}
			})
		}
	}
	type seen struct {
		uid   int64
		typ   string
		order []int64
	}
	done := make(chan struct{})
	results := make(chan seen, 16)
	var readers sync.WaitGroup
	deadline := time.Now().Add(60 * time.Second)
	for _, uid := range accounts {
		for r, typ := range []string{"", "", events.JobFailed} {
			readers.Go(func() {
				s := events.New(db, c.Now)
				q := events.Query{Limit: []int{1, 7, 100}[r]}
				if typ != "" {
					q.Types = []string{typ}
				}
				var order []int64
				for time.Now().Before(deadline) {
					finished := false
					select {
					case <-done:
						finished = true
					default:
					}
					p, err := s.List(ctx, uid, q)
					if err != nil {
						errs <- err
						break
					}
					order = append(order, ids(p.Events)...)
					q.SinceID = p.LastID
					if len(p.Events) == 0 {
						if finished {
							break // a poll begun after the last append found nothing new
						}
						time.Sleep(time.Millisecond)
					}
				}
				results <- seen{uid, typ, order}
			})
		}
	}
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	close(results)

	s := events.New(db, c.Now)
	typeOf := map[int64]map[int64]string{}
	for _, uid := range accounts {
		ids := got[uid]
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for i, id := range ids {
			if id != int64(i+1) {
				t.Fatalf("account %d: appended ids %v are not 1..%d", uid, ids, total)
			}
		}
		if h, _ := s.Head(ctx, uid); h != int64(total) {
			t.Errorf("account %d: head %d, want %d", uid, h, total)
		}
		typeOf[uid] = map[int64]string{}
		for q := (events.Query{Limit: 100}); ; {
			p := mustList(t, s, uid, q)
			if len(p.Events) == 0 {
				break
			}
			for _, e := range p.Events {
				typeOf[uid][e.ID] = e.Type
			}
			q.SinceID = p.LastID
		}
		if len(typeOf[uid]) != total {
			t.Errorf("account %d: %d events listed, want %d", uid, len(typeOf[uid]), total)
		}
	}
	for res := range results {
		var want []int64
		for id := int64(1); id <= int64(total); id++ {
			if res.typ == "" || typeOf[res.uid][id] == res.typ {
				want = append(want, id)
			}
		}
		if !slices.Equal(res.order, want) {
			t.Errorf("account %d reader (types %q) saw %d events %v, want %d %v", res.uid, res.typ, len(res.order), res.order, len(want), want)
		}
	}
}

// The feed's cursors and filters over a fixed log.
func TestList(t *testing.T) {
	c := newClock()
	s := events.New(open(t, nil), c.Now)
	log := []string{
		events.JobCompleted,       // 1
		events.JobFailed,          // 2
		events.PipelineCompleted,  // 3
		events.JobCompleted,       // 4
		events.VeilleRunCompleted, // 5
		events.JobCancelled,       // 6
		events.JobCompleted,       // 7
	}
	for _, typ := range log {
		c.Advance(time.Minute)
		mustAppend(t, s, 1, typ)
	}
	mustAppend(t, s, 2, events.PipelineFailed)

	tests := []struct {
		name       string
		uid        int64
		q          events.Query
		want       []int64
		last, head int64
	}{
		{"everything, oldest first", 1, events.Query{}, []int64{1, 2, 3, 4, 5, 6, 7}, 7, 7},
		{"limit=1 is the oldest, its last_id is not the head", 1, events.Query{Limit: 1}, []int64{1}, 1, 7},
		{"since_id is exclusive", 1, events.Query{SinceID: 3, Limit: 2}, []int64{4, 5}, 5, 7},
		{"caught up", 1, events.Query{SinceID: 7}, []int64{}, 7, 7},
		{"cursor past the head", 1, events.Query{SinceID: 100}, []int64{}, 100, 7},
		{"one type", 1, events.Query{Types: []string{events.JobCompleted}}, []int64{1, 4, 7}, 7, 7},
		{"one type, limited", 1, events.Query{Types: []string{events.JobCompleted}, Limit: 2}, []int64{1, 4}, 4, 7},
		{"one type after a cursor", 1, events.Query{Types: []string{events.JobCompleted}, SinceID: 4}, []int64{7}, 7, 7},
		{"head is the filter's", 1, events.Query{Types: []string{events.PipelineCompleted}}, []int64{3}, 3, 3},
		{"filter caught up", 1, events.Query{Types: []string{events.PipelineCompleted}, SinceID: 3}, []int64{}, 3, 3},
		{"two types", 1, events.Query{Types: []string{events.PipelineCompleted, events.JobFailed}}, []int64{2, 3}, 3, 3},
		{"a type repeated", 1, events.Query{Types: []string{events.JobFailed, events.JobFailed}}, []int64{2}, 2, 2},
		{"a type without events", 1, events.Query{Types: []string{events.PipelineFailed}}, []int64{}, 0, 0},
		{"newest first", 1, events.Query{Desc: true}, []int64{7, 6, 5, 4, 3, 2, 1}, 1, 7},
		{"newest first, limited", 1, events.Query{Desc: true, Limit: 3}, []int64{7, 6, 5}, 5, 7},
		{"newest first after a cursor", 1, events.Query{Desc: true, SinceID: 4}, []int64{7, 6, 5}, 5, 7},
		{"newest first, one type", 1, events.Query{Desc: true, Limit: 2, Types: []string{events.JobCompleted}}, []int64{7, 4}, 4, 7},
		{"newest first, caught up", 1, events.Query{Desc: true, SinceID: 7}, []int64{}, 7, 7},
		{"another account", 2, events.Query{}, []int64{1}, 1, 1},
		{"another account's filter", 2, events.Query{Types: []string{events.JobCompleted}}, []int64{}, 0, 0},
		{"an account without events", 3, events.Query{SinceID: 5}, []int64{}, 5, 0},
		{"limit 100", 1, events.Query{Limit: 100}, []int64{1, 2, 3, 4, 5, 6, 7}, 7, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustList(t, s, tt.uid, tt.q)
			if !slices.Equal(ids(p.Events), tt.want) || p.LastID != tt.last || p.HeadID != tt.head {
				t.Errorf("got %v last %d head %d, want %v last %d head %d", ids(p.Events), p.LastID, p.HeadID, tt.want, tt.last, tt.head)
			}
			for _, e := range p.Events {
				if e.Type != log[e.ID-1] && tt.uid == 1 {
					t.Errorf("event %d has type %s, want %s", e.ID, e.Type, log[e.ID-1])
				}
			}
			b, _ := json.Marshal(p)
			var shape map[string]json.RawMessage
			json.Unmarshal(b, &shape)
			if len(shape) != 3 || string(shape["events"]) == "null" {
				t.Errorf("body %s", b)
			}
		})
	}

	bad := []struct {
		name   string
		q      events.Query
		fields []string
	}{
		{"limit above 100", events.Query{Limit: 101}, []string{"limit"}},
		{"negative limit", events.Query{Limit: -1}, []string{"limit"}},
		{"negative since_id", events.Query{SinceID: -1}, []string{"since_id"}},
		{"unknown type", events.Query{Types: []string{"job.done"}}, []string{"types"}},
		{"all at once", events.Query{SinceID: -2, Limit: 500, Types: []string{"x", events.JobFailed, "y"}}, []string{"since_id", "limit", "types", "types"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.List(ctx, 1, tt.q)
			checkFields(t, err, tt.fields)
		})
	}
}

// checkFields asserts err is a 422 naming exactly the fields.
func checkFields(t *testing.T, err error, fields []string) {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.Unprocessable {
		t.Fatalf("error %v, want a 422", err)
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Field)
		if f.FR == "" || f.EN == "" {
			t.Errorf("field %s without a message in both languages", f.Field)
		}
	}
	if !slices.Equal(got, fields) {
		t.Errorf("fields %v, want %v", got, fields)
	}
}

// A filtered scan stops after MaxScan events: last_id then moves past what
// was examined so that the next poll goes on, and head_id says there is more.
func TestFilteredScanIsBounded(t *testing.T) {
	c := newClock()
	s := events.New(open(t, nil), c.Now)
	n := events.MaxScan + 200
	for range n {
		mustAppend(t, s, 1, events.JobCompleted)
	}
	mustAppend(t, s, 1, events.PipelineCompleted)
	head := int64(n + 1)

	q := events.Query{Types: []string{events.PipelineCompleted}}
	p := mustList(t, s, 1, q)
	if len(p.Events) != 0 || p.LastID != events.MaxScan || p.HeadID != head {
		t.Fatalf("first poll: %v last %d head %d, want nothing, last %d, head %d", ids(p.Events), p.LastID, p.HeadID, events.MaxScan, head)
	}
	q.SinceID = p.LastID
	p = mustList(t, s, 1, q)
	if !slices.Equal(ids(p.Events), []int64{head}) || p.LastID != head {
		t.Fatalf("second poll: %v last %d", ids(p.Events), p.LastID)
	}
	// Newest first starts at the filter's head: found at once.
	p = mustList(t, s, 1, events.Query{Types: []string{events.PipelineCompleted}, Desc: true})
	if !slices.Equal(ids(p.Events), []int64{head}) || p.LastID != head || p.HeadID != head {
		t.Fatalf("desc: %v last %d head %d", ids(p.Events), p.LastID, p.HeadID)
	}
	// Unfiltered pages read only what they return.
	p = mustList(t, s, 1, events.Query{SinceID: 600, Limit: 100})
	if len(p.Events) != 100 || p.Events[0].ID != 601 || p.LastID != 700 || p.HeadID != head {
		t.Fatalf("unfiltered: %d events from %d, last %d head %d", len(p.Events), p.Events[0].ID, p.LastID, p.HeadID)
	}
}

// Events are served for 7 days; the store may still hold older ones (TTL
// deletion is late), which reads skip. Ids never restart.
func TestWindow(t *testing.T) {
	c := newClock()
	s := events.New(open(t, nil), c.Now) // the store's clock stays at the real time: nothing expires there
	t0 := c.Now()
	at := func(d time.Duration) { c.Set(t0.Add(d)) }
	day := 24 * time.Hour

	mustAppend(t, s, 1, events.JobCompleted) // 1 at t0
	at(3 * day)
	mustAppend(t, s, 1, events.PipelineCompleted) // 2 at t0+3d
	at(6 * day)
	mustAppend(t, s, 1, events.JobCompleted) // 3 at t0+6d

	all := events.Query{}
	pipes := events.Query{Types: []string{events.PipelineCompleted}}
	desc := events.Query{Desc: true}
	tests := []struct {
		name       string
		at         time.Duration
		q          events.Query
		want       []int64
		last, head int64
	}{
		{"all within the window", 6 * day, all, []int64{1, 2, 3}, 3, 3},
		{"a second before 7 days", 7*day - time.Second, all, []int64{1, 2, 3}, 3, 3},
		{"7 days old is out", 7 * day, all, []int64{2, 3}, 3, 3},
		{"newest first stops at the window", 7 * day, desc, []int64{3, 2}, 2, 3},
		{"the filter's head is in the window", 7 * day, pipes, []int64{2}, 2, 2},
		{"the filter's head left the window", 10 * day, pipes, []int64{}, 0, 0},
		{"only the newest left", 10 * day, all, []int64{3}, 3, 3},
		{"everything left", 13 * day, all, []int64{}, 0, 0},
		{"everything left, with a cursor", 13 * day, events.Query{SinceID: 2}, []int64{}, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at(tt.at)
			p := mustList(t, s, 1, tt.q)
			if !slices.Equal(ids(p.Events), tt.want) || p.LastID != tt.last || p.HeadID != tt.head {
				t.Errorf("got %v last %d head %d, want %v last %d head %d", ids(p.Events), p.LastID, p.HeadID, tt.want, tt.last, tt.head)
			}
		})
	}
	at(13 * day)
	if h, _ := s.Head(ctx, 1); h != 0 {
		t.Errorf("head %d after the window", h)
	}
	ev := mustAppend(t, s, 1, events.JobFailed)
	if ev.ID != 4 {
		t.Errorf("id %d after every event expired, want 4 (ids never restart)", ev.ID)
	}
	if p := mustList(t, s, 1, all); !slices.Equal(ids(p.Events), []int64{4}) || p.HeadID != 4 {
		t.Errorf("after a new event: %v head %d", ids(p.Events), p.HeadID)
	}
}

// The TTL is created + 8 days: the store hides the events then, while the
// counter (no TTL) keeps the ids going.
func TestTTL(t *testing.T) {
	c := newClock()
	db := open(t, c.Now)
	s := events.New(db, c.Now)
	ev := mustAppend(t, s, 1, events.JobCompleted)
	it, err := db.Table(events.Table).Get(ctx, store.Key{PK: "USER#1", SK: "00000000000000000001"})
	if err != nil {
		t.Fatal(err)
	}
	if want := c.Now().Add(events.Window + events.TTLMargin).Unix(); it.Int("ttl") != want {
		t.Errorf("ttl %d, want %d", it.Int("ttl"), want)
	}
	c.Advance(events.Window + events.TTLMargin)
	if _, err := db.Table(events.Table).Get(ctx, store.Key{PK: "USER#1", SK: "00000000000000000001"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("event past its TTL: %v", err)
	}
	if p := mustList(t, s, 1, events.Query{}); len(p.Events) != 0 || p.HeadID != 0 {
		t.Errorf("%+v", p)
	}
	if ev2 := mustAppend(t, s, 1, events.JobCompleted); ev2.ID != ev.ID+1 {
		t.Errorf("id %d after expiry", ev2.ID)
	}
}

// created_at never goes backwards along ids, even when a process's clock
// is behind the previous writer's.
func TestCreatedFollowsIDs(t *testing.T) {
	c := newClock()
	db := open(t, nil)
	ahead := events.New(db, func() time.Time { return c.Now().Add(5 * time.Second) })
	behind := events.New(db, c.Now)
	e1, _ := ahead.Append(ctx, 1, events.JobCompleted, jobData("a"))
	e2, _ := behind.Append(ctx, 1, events.JobCompleted, jobData("b"))
	if e2.CreatedAt != e1.CreatedAt {
		t.Errorf("created_at %s after %s", e2.CreatedAt, e1.CreatedAt)
	}
	c.Advance(time.Minute)
	e3, _ := behind.Append(ctx, 1, events.JobCompleted, jobData("c"))
	if want := c.Now().Format(events.TimeFormat); e3.CreatedAt != want {
		t.Errorf("created_at %s, want %s", e3.CreatedAt, want)
	}
}

// Every field of every data shape is present; the unknown ones are null.
func TestDataFieldsAlwaysPresent(t *testing.T) {
	c := newClock()
	s := events.New(open(t, nil), c.Now)
	msg := "boom"
	five := int64(5)
	tests := []struct {
		typ   string
		data  any
		keys  []string
		nulls []string
	}{
		{events.JobCompleted, events.JobData{ID: "j1", JobType: "scrap", Status: "done"},
			[]string{"id", "job_type", "status", "queries", "zones", "results_count", "error_count", "ef_cost", "created_at",
				"completed_at", "error_message", "pipeline_id", "source_job_id", "download_url"},
			[]string{"queries", "zones", "completed_at", "error_message", "pipeline_id", "source_job_id", "download_url"}},
		{events.JobFailed, &events.JobData{ID: "j2", Queries: []string{}, Zones: []string{"Lyon"}, ErrorMessage: &msg,
			DownloadURL: events.DownloadURL("https://svc.example/", "j2")},
			[]string{"id", "job_type", "status", "queries", "zones", "results_count", "error_count", "ef_cost", "created_at",
				"completed_at", "error_message", "pipeline_id", "source_job_id", "download_url"},
			[]string{"completed_at", "pipeline_id", "source_job_id"}},
		{events.PipelineCancelled, events.PipelineData{ID: "p1"},
			[]string{"id", "name", "status", "created_at", "completed_at"}, []string{"completed_at"}},
		{events.VeilleRunCompleted, events.VeilleRunData{RunID: 1, IsBaseline: true},
			[]string{"run_id", "veille_id", "veille_name", "job_id", "is_baseline", "total_count", "new_count", "removed_count",
				"modified_count", "computed_at"},
			[]string{"new_count", "removed_count", "modified_count"}},
		{events.VeilleRunCompleted, events.VeilleRunData{RunID: 2, NewCount: &five, RemovedCount: &five, ModifiedCount: &five},
			[]string{"run_id", "veille_id", "veille_name", "job_id", "is_baseline", "total_count", "new_count", "removed_count",
				"modified_count", "computed_at"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			ev, err := s.Append(ctx, 1, tt.typ, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			p := mustList(t, s, 1, events.Query{SinceID: ev.ID - 1, Limit: 1})
			if len(p.Events) != 1 {
				t.Fatalf("%+v", p)
			}
			body, _ := json.Marshal(p.Events[0])
			var got struct {
				Data map[string]any `json:"data"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			var keys, nulls []string
			for k, v := range got.Data {
				keys = append(keys, k)
				if v == nil {
					nulls = append(nulls, k)
				}
			}
			sort.Strings(keys)
			sort.Strings(nulls)
			want := slices.Sorted(slices.Values(tt.keys))
			wantNulls := slices.Sorted(slices.Values(tt.nulls))
			if !slices.Equal(keys, want) || !slices.Equal(nulls, wantNulls) {
				t.Errorf("data %s: keys %v nulls %v, want %v nulls %v", body, keys, nulls, want, wantNulls)
			}
			if !json.Valid(ev.RawData()) || string(ev.RawData()) != string(p.Events[0].RawData()) {
				t.Errorf("appended %s, read %s", ev.RawData(), p.Events[0].RawData())
			}
		})
	}
	if u := *events.DownloadURL("https://svc.example/", "abc"); u != "https://svc.example/api/jobs/abc/download" {
		t.Errorf("download url %s", u)
	}
}

// Append refuses what the log cannot serve.
func TestAppendRefuses(t *testing.T) {
	s := events.New(open(t, nil), newClock().Now)
	var nilJob *events.JobData
	tests := []struct {
		name string
		typ  string
		data any
	}{
		{"unknown type", "job.done", jobData("x")},
		{"another family's shape", events.JobCompleted, events.PipelineData{}},
		{"a map", events.PipelineCompleted, map[string]any{"id": "p"}},
		{"nil data", events.VeilleRunCompleted, nil},
		{"nil pointer", events.JobFailed, nilJob},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Append(ctx, 1, tt.typ, tt.data); err == nil {
				t.Error("accepted")
			}
		})
	}
	if h, _ := s.Head(ctx, 1); h != 0 {
		t.Errorf("head %d after refusals", h)
	}
	for _, typ := range events.Types() {
		if !events.Known(typ) {
			t.Errorf("%s not known", typ)
		}
	}
	if len(events.Types()) != 7 || events.Known("") || events.Known("job") {
		t.Error("Known")
	}
}

// AppendWith commits the caller's operations and the event together: when
// the caller's condition fails, nothing is written and the error names the
// caller's operation.
func TestAppendWith(t *testing.T) {
	db := open(t, nil)
	s := events.New(db, newClock().Now)
	other := db.Table(otherTable)
	job := store.Key{PK: "JOB#1", SK: "JOB"}
	if err := other.Put(ctx, store.Item{"pk": job.PK, "sk": job.SK, "status": "running"}, nil); err != nil {
		t.Fatal(err)
	}
	finish := func() store.TxOp {
		return store.UpdateOp(otherTable, job, store.Update{}.Set("status", "done"), store.Eq("status", "running"))
	}
	ev, err := s.AppendWith(ctx, 1, events.JobCompleted, jobData("1"), finish())
	if err != nil || ev.ID != 1 {
		t.Fatalf("%+v %v", ev, err)
	}
	if it, _ := other.Get(ctx, job); it.String("status") != "done" {
		t.Errorf("status %q", it.String("status"))
	}
	// A redelivered finalisation: the job is no longer running.
	_, err = s.AppendWith(ctx, 1, events.JobCompleted, jobData("1"), finish())
	var tce *store.TxConditionError
	if !errors.As(err, &tce) || tce.Index != 0 {
		t.Fatalf("error %v, want the caller's condition (index 0)", err)
	}
	if h, _ := s.Head(ctx, 1); h != 1 {
		t.Errorf("head %d: the refused append wrote", h)
	}
}

// Purge removes the account's log and counter, not other accounts'; the
// export carries the window's events as events.json.
func TestPurgeAndExport(t *testing.T) {
	c := newClock()
	db := open(t, nil)
	s := events.New(db, c.Now)
	mustAppend(t, s, 1, events.JobCompleted)
	c.Advance(8 * 24 * time.Hour)
	mustAppend(t, s, 1, events.PipelineFailed)
	mustAppend(t, s, 1, events.VeilleRunCompleted)
	mustAppend(t, s, 2, events.JobFailed)

	sec, err := s.Export(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Files) != 1 || sec.Files[0].Path != "events.json" || sec.Summary == "" {
		t.Fatalf("section %+v", sec)
	}
	rc, err := sec.Files[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(rc)
	rc.Close()
	var exported []events.Event
	if err := json.Unmarshal(raw, &exported); err != nil {
		t.Fatalf("events.json %s: %v", raw, err)
	}
	if got := ids(exported); !slices.Equal(got, []int64{2, 3}) || exported[0].Type != events.PipelineFailed {
		t.Errorf("exported %s", raw)
	}
	if empty, err := s.Export(ctx, 5); err != nil {
		t.Fatal(err)
	} else {
		rc, _ := empty.Files[0].Open(ctx)
		b, _ := io.ReadAll(rc)
		if string(b) != "[]\n" {
			t.Errorf("export without events: %q", b)
		}
	}

	if err := s.Purge(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(ctx, 1); err != nil {
		t.Fatalf("second purge: %v", err)
	}
	p, err := db.Table(events.Table).Query(ctx, store.Query{PK: "USER#1"})
	if err != nil || len(p.Items) != 0 {
		t.Errorf("after purge: %v %v", p.Items, err)
	}
	if p := mustList(t, s, 1, events.Query{}); len(p.Events) != 0 || p.HeadID != 0 {
		t.Errorf("feed after purge: %+v", p)
	}
	if p := mustList(t, s, 2, events.Query{}); !reflect.DeepEqual(ids(p.Events), []int64{1}) {
		t.Errorf("other account after purge: %v", ids(p.Events))
	}
}
