package veille_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/blob/dir"
	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/jobs/jobstest"
	"github.com/prospectdata/svc/shared/mail/mailtest"
	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
	"github.com/prospectdata/svc/shared/veille"
)

// gaz is the real gazetteer, decoded once for the package's services.
var gaz = sync.OnceValues(data.Load)

// places is a map provider whose lookups answer from a fixed table: a
// place present is open, ErrClosed and ErrNotFound as set, a transient
// failure for the rest. Searches find nothing (the veille only looks up).
type places struct {
	mu     sync.Mutex
	open   map[string]provider.Place
	closed map[string]bool
	looked []string
}

func (p *places) Name() string            { return "fake" }
func (p *places) Limits() provider.Limits { return provider.Limits{PageSize: 20, Cap: 60} }
func (p *places) Search(context.Context, provider.Request) (provider.Page, error) {
	return provider.Page{}, nil
}
func (p *places) Reviews(context.Context, string, int) ([]provider.Review, error) { return nil, nil }

func (p *places) Place(_ context.Context, id string) (provider.Place, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.looked = append(p.looked, id)
	if pl, ok := p.open[id]; ok {
		return pl, nil
	}
	if p.closed[id] {
		return provider.Place{}, provider.ErrClosed
	}
	if strings.HasPrefix(id, "gone") {
		return provider.Place{}, provider.ErrNotFound
	}
	return provider.Place{}, fmt.Errorf("%w: timeout", provider.ErrTransient)
}

// idle is a pipelines executor that starts and resumes nothing.
type idle struct{}

func (idle) Start(context.Context, string, []byte) error { return nil }
func (idle) Resume(context.Context, string) error        { return nil }

type env struct {
	t      *testing.T
	clock  *clocktest.Clock
	db     store.DB
	files  *dir.Store
	acc    *accounts.Service
	mails  *mailtest.Outbox
	ledger *accounts.Ledger
	jobs   *jobs.Service
	pipes  *pipelines.Service
	events *events.Service
	places *places
	svc    *veille.Service
	users  int
}

// newEnv wires the veilles over the job and pipeline services, the
// embedded tables and the directory file store in a temp dir, on a test
// clock. The pipelines' driver is a workflow service that steps nothing
// by itself: a test steps them when it chooses.
func newEnv(t *testing.T) *env {
	t.Helper()
	d := t.TempDir()
	c := clocktest.New(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	db, err := bolt.Open(filepath.Join(d, "tables.db"), []store.Schema{accounts.Schema(), ratelimit.Schema(), jobs.Schema(),
		pipelines.StoreSchema(), veille.Schema(), events.Schema()}, bolt.WithNoSync(), bolt.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	files, err := dir.New(filepath.Join(d, "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	e := &env{t: t, clock: c, db: db, files: files, mails: &mailtest.Outbox{},
		places: &places{open: map[string]provider.Place{}, closed: map[string]bool{}}}
	limits := ratelimit.New(db, c.Now)
	e.acc = accounts.New(accounts.Deps{DB: db, Mail: e.mails, Limits: limits, SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
		Now: c.Now}, accounts.Config{BaseURL: "http://svc.test", InvitationCodes: []string{"invite"}, MailFrom: "svc@svc.test"})
	e.ledger = accounts.NewLedger(db, c.Now, 1e6)
	sc := scrape.New(scrape.Deps{Gazetteer: func() (*gazetteer.Gazetteer, error) { return gaz() }, Ledger: e.ledger,
		Limits: limits, Accounts: e.acc, CostThreshold: pricing.DefaultThreshold})
	e.jobs = jobs.New(jobs.Deps{DB: db, Scrape: sc, Ledger: e.ledger, Limits: limits, Accounts: e.acc, Now: c.Now,
		Source: "sim", Files: files})
	e.events = events.New(db, c.Now)
	e.pipes = pipelines.NewService(pipelines.ServiceDeps{DB: db, Jobs: e.jobs, Scrape: sc, Accounts: e.acc, Events: e.events,
		Now: c.Now, Executor: idle{}, Checker: pipelines.NewChecker(pipelines.NewTable(), pipelines.Deps{Scrape: sc, Jobs: e.jobs})})
	e.jobs.ListenStages(e.pipes)
	e.svc = veille.New(veille.Deps{DB: db, Files: files, Jobs: e.jobs, Pipelines: e.pipes, Accounts: e.acc, Events: e.events,
		Ledger: e.ledger, Provider: e.places, Now: c.Now, TempDir: t.TempDir()})
	return e
}

// user signs an account up and verifies its email through the accounts'
// own flow.
func (e *env) user() *accounts.User {
	e.t.Helper()
	ctx := context.Background()
	e.users++
	email := "user" + strconv.Itoa(e.users) + "@example.com"
	u, _, err := e.acc.Signup(ctx, accounts.SignupRequest{Email: email, Password: "correct horse 1", InvitationCode: "invite",
		AcceptResponsibility: true}, "10.0.0."+strconv.Itoa(e.users))
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.acc.VerifyEmail(ctx, e.mails.Token(e.t, email, "verify")); err != nil {
		e.t.Fatal(err)
	}
	if u, err = e.acc.User(ctx, u.ID); err != nil {
		e.t.Fatal(err)
	}
	return u
}

// header is the columns of the watched outputs.
var header = []string{"place_id", "nom", "adresse", "rating", "reviews_count"}

// scrapeJob creates one of u's scrapes and ends it done with rows.
func (e *env) scrapeJob(u *accounts.User, rows ...[]string) *jobs.Job {
	e.t.Helper()
	j, err := e.jobs.Create(context.Background(), u, scrape.Request{Queries: []string{"plombier"}, Zones: []string{"Villeurbanne"}})
	if err != nil {
		e.t.Fatal(err)
	}
	e.finish(j.ID, rows...)
	return j
}

// The engine's side, through the transitions jobs exports to it: the one
// place these tests move a job.

// engine moves the env's jobs as the engine would.
func (e *env) engine() jobstest.Engine {
	return jobstest.Engine{T: e.t, DB: e.db, Files: e.files, Jobs: e.jobs, Now: e.clock.Now}
}

// finish ends a job done with rows as its output.
func (e *env) finish(id string, rows ...[]string) {
	e.t.Helper()
	e.engine().Finish(id, "out.csv", jobstest.CSV(e.t, header, rows...))
}

// fail ends a pending or running job failed.
func (e *env) fail(id string) { e.t.Helper(); e.engine().Fail(id, "boom") }

func (e *env) tick() veille.TickResult {
	e.t.Helper()
	r, err := e.svc.Tick(context.Background())
	if err != nil {
		e.t.Fatalf("tick: %v", err)
	}
	return r
}

func (e *env) runs(u *accounts.User, id int64) []veille.Run {
	e.t.Helper()
	rs, err := e.svc.Runs(context.Background(), u.ID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}

// latestJob is u's most recent job.
func (e *env) latestJob(u *accounts.User) *jobs.Job {
	e.t.Helper()
	js, err := e.jobs.List(context.Background(), u.ID, 1, 0)
	if err != nil || len(js) == 0 {
		e.t.Fatalf("no job (%v)", err)
	}
	return js[0]
}

// eventsOf lists the account's veille events' data, oldest first.
func (e *env) eventsOf(uid int64) []map[string]any {
	e.t.Helper()
	p, err := e.events.List(context.Background(), uid, events.Query{Limit: 100, Types: []string{events.VeilleRunCompleted}})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range p.Events {
		var m map[string]any
		if err := json.Unmarshal(ev.RawData(), &m); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
