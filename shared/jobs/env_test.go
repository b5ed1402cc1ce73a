package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob/dir"
	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/jobs/jobstest"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// planner is the scrape service over the real gazetteer, loaded once for
// the package: the job service plans and prices with it, and it keeps no
// state of its own.
var planner = sync.OnceValue(func() *scrape.Service {
	s := scrape.New(scrape.Deps{Gazetteer: data.Load})
	if err := s.Warm(); err != nil {
		panic(err)
	}
	return s
})

// start is the test clock's first instant.
var start = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// runner records what the service asks of the engine.
type runner struct {
	mu       sync.Mutex
	started  []string
	salvaged []string
}

func (r *runner) Start(_ context.Context, j *jobs.Job) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, j.ID)
	return nil
}

func (r *runner) Salvage(_ context.Context, j *jobs.Job) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.salvaged = append(r.salvaged, j.ID)
	return nil
}

func (r *runner) Derive(context.Context, string, export.Format) error { return nil }

func (r *runner) starts(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.started {
		if s == id {
			n++
		}
	}
	return n
}

// listener records the terminal transitions it is told of.
type listener struct {
	mu    sync.Mutex
	ended []string // id:status
}

func (l *listener) JobEnded(_ context.Context, j *jobs.Job) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = append(l.ended, j.ID+":"+string(j.Status))
}

func (l *listener) got() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ended...)
}

type env struct {
	t      *testing.T
	clock  *clocktest.Clock
	db     store.DB
	files  *dir.Store
	root   string // the file store's directory
	ledger *accounts.Ledger
	svc    *jobs.Service
	runner *runner // nil: the service has no runner
	ended  *listener
}

type options struct {
	quota   float64
	runner  bool
	noFiles bool
}

type option func(*options)

// withQuota sets the month's EF quota (default 10,000).
func withQuota(q float64) option { return func(o *options) { o.quota = q } }

// withRunner attaches a recording runner: jobs are started, pools lease.
func withRunner() option { return func(o *options) { o.runner = true } }

// withoutFiles builds the service of a runtime without a file store.
func withoutFiles() option { return func(o *options) { o.noFiles = true } }

// newEnv wires the job service over the embedded tables and the
// directory file store in a temp dir, on a test clock.
func newEnv(t *testing.T, opts ...option) *env {
	t.Helper()
	o := options{quota: 10000}
	for _, f := range opts {
		f(&o)
	}
	d := t.TempDir()
	c := clocktest.New(start)
	db, err := bolt.Open(filepath.Join(d, "tables.db"),
		[]store.Schema{accounts.Schema(), ratelimit.Schema(), jobs.Schema()}, bolt.WithNoSync(), bolt.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{t: t, clock: c, db: db, root: filepath.Join(d, "files"), ended: &listener{}}
	e.files, err = dir.New(e.root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.files.Close() })
	limits := ratelimit.New(db, c.Now)
	e.ledger = accounts.NewLedger(db, c.Now, o.quota)
	deps := jobs.Deps{DB: db, Scrape: planner(), Ledger: e.ledger, Limits: limits,
		Accounts: accounts.New(accounts.Deps{DB: db, Limits: limits, Now: c.Now}, accounts.Config{}),
		Now:      c.Now, Source: "sim", Files: e.files}
	if o.noFiles {
		deps.Files = nil
	}
	e.svc = jobs.New(deps)
	if o.runner {
		e.runner = &runner{}
		e.svc.Attach(e.runner)
	}
	e.svc.Listen(e.ended)
	return e
}

// user is a verified account (the job service reads the caller as given).
func user(id int64) *accounts.User { return &accounts.User{ID: id, EmailVerified: true} }

// scrapeOf is a small scrape request: one query over one commune.
func scrapeOf(zones ...string) scrape.Request {
	if len(zones) == 0 {
		zones = []string{"Villeurbanne"}
	}
	return scrape.Request{Queries: []string{"plombier"}, Zones: zones}
}

func (e *env) create(u *accounts.User, r scrape.Request) *jobs.Job {
	e.t.Helper()
	j, err := e.svc.Create(context.Background(), u, r)
	if err != nil {
		e.t.Fatalf("create: %v", err)
	}
	return j
}

func (e *env) get(uid int64, id string) *jobs.Job {
	e.t.Helper()
	j, err := e.svc.Get(context.Background(), uid, id)
	if err != nil {
		e.t.Fatalf("get %s: %v", id, err)
	}
	return j
}

func (e *env) active(uid int64) int {
	e.t.Helper()
	n, err := e.svc.Active(context.Background(), uid)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) spent(uid int64) float64 {
	e.t.Helper()
	s, err := e.ledger.Spent(context.Background(), uid)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// inputFiles lists the item input files the file store holds.
func (e *env) inputFiles() []string {
	e.t.Helper()
	var out []string
	err := filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, "input.jsonl") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// The engine's side: what the engine does to a job (start it, close its
// tasks, finish it), made through the transitions jobs exports to it. The
// tests need jobs in every state; these helpers are the one place that
// knows how the engine moves them.

// engine moves the env's jobs as the engine would.
func (e *env) engine() jobstest.Engine {
	return jobstest.Engine{T: e.t, DB: e.db, Files: e.files, Jobs: e.svc, Now: e.clock.Now}
}

// begin moves a pending job to running with n tasks open.
func (e *env) begin(id string, n int) *jobs.Job { e.t.Helper(); return e.engine().Begin(id, n) }

// closeTask closes task of a running job, opening the given tasks.
func (e *env) closeTask(id, task string, opens ...string) {
	e.t.Helper()
	e.engine().CloseTask(id, task, opens...)
}

// csvOf writes rows under header as a job output.
func csvOf(t *testing.T, header []string, rows ...[]string) []byte {
	return jobstest.CSV(t, header, rows...)
}

// sampleCSV is a two-row output.
func sampleCSV(t *testing.T) []byte {
	return csvOf(t, []string{"nom", "telephone", "email"},
		[]string{"Plomberie Martin", "+33 4 78 00 00 01", ""},
		[]string{"Dupont & Fils", "+33 4 78 00 00 02", "contact@dupont.example"})
}

// finish runs a job to done with output as its CSV (none when nil), and
// tells the service of the end, as the engine's finalizer does.
func (e *env) finish(id string, output []byte) *jobs.Job {
	e.t.Helper()
	return e.engine().Finish(id, "plombier-villeurbanne.csv", output)
}

// fail ends a pending or running job failed with msg.
func (e *env) fail(id, msg string) { e.t.Helper(); e.engine().Fail(id, msg) }

// wantCode fails unless err carries code; it returns the error.
func wantCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("err %v, want code %s", err, code)
	}
	return ae
}

// wantField fails unless err is a 422 naming field.
func wantField(t *testing.T, err error, field string) *apperr.Error {
	t.Helper()
	ae := wantCode(t, err, apperr.Unprocessable)
	for _, f := range ae.Fields {
		if f.Field == field {
			return ae
		}
	}
	t.Fatalf("fields %+v, want one naming %s", ae.Fields, field)
	return nil
}

func ptr[T any](v T) *T { return &v }

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%q", *p)
}
