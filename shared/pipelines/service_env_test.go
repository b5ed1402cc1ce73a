package pipelines_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
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
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// gaz is the real gazetteer, decoded once for the package's services.
var gaz = sync.OnceValues(data.Load)

// executor stands for the workflow service: it records the executions
// started and the tokens handed back, and steps nothing by itself, so a
// test steps its pipelines when it chooses.
type executor struct {
	mu      sync.Mutex
	started []string
	resumed []string
}

func (x *executor) Start(_ context.Context, id string, input []byte) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	var ev pipelines.StepEvent
	if err := json.Unmarshal(input, &ev); err != nil || ev.PipelineID != id {
		return err
	}
	x.started = append(x.started, id)
	return nil
}

func (x *executor) Resume(_ context.Context, token string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.resumed = append(x.resumed, token)
	return nil
}

func (x *executor) tokens() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.resumed...)
}

type penv struct {
	t      *testing.T
	clock  *clocktest.Clock
	db     store.DB
	files  *dir.Store
	acc    *accounts.Service
	mails  *mailtest.Outbox
	jobs   *jobs.Service
	events *events.Service
	svc    *pipelines.Service
	exec   *executor
	users  int
}

// newPipelines wires the pipelines over the job service, the embedded
// tables and the directory file store in a temp dir, on a test clock,
// with an executor that leaves the stepping to the test. threshold is the
// accounts' worst-case EF threshold (0: the default).
func newPipelines(t *testing.T, threshold float64) *penv {
	t.Helper()
	d := t.TempDir()
	c := clocktest.New(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	db, err := bolt.Open(filepath.Join(d, "tables.db"), []store.Schema{accounts.Schema(), ratelimit.Schema(), jobs.Schema(),
		pipelines.StoreSchema(), events.Schema()}, bolt.WithNoSync(), bolt.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	files, err := dir.New(filepath.Join(d, "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	if threshold == 0 {
		threshold = pricing.DefaultThreshold
	}
	e := &penv{t: t, clock: c, db: db, files: files, mails: &mailtest.Outbox{}, exec: &executor{}}
	limits := ratelimit.New(db, c.Now)
	e.acc = accounts.New(accounts.Deps{DB: db, Mail: e.mails, Limits: limits, SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
		Now: c.Now}, accounts.Config{BaseURL: "http://svc.test", InvitationCodes: []string{"invite"}, MailFrom: "svc@svc.test"})
	ledger := accounts.NewLedger(db, c.Now, 1e6)
	sc := scrape.New(scrape.Deps{Gazetteer: func() (*gazetteer.Gazetteer, error) { return gaz() }, Ledger: ledger,
		Limits: limits, Accounts: e.acc, CostThreshold: threshold})
	e.jobs = jobs.New(jobs.Deps{DB: db, Scrape: sc, Ledger: ledger, Limits: limits, Accounts: e.acc, Now: c.Now,
		Source: "sim", Files: files})
	e.events = events.New(db, c.Now)
	e.svc = pipelines.NewService(pipelines.ServiceDeps{DB: db, Jobs: e.jobs, Scrape: sc, Accounts: e.acc, Events: e.events,
		Now: c.Now, Executor: e.exec, Checker: pipelines.NewChecker(pipelines.NewTable(), pipelines.Deps{Scrape: sc, Jobs: e.jobs})})
	e.jobs.ListenStages(e.svc)
	return e
}

// user signs an account up and verifies its email, through the
// accounts' own flow.
func (e *penv) user() *accounts.User {
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
	u, err = e.acc.User(ctx, u.ID)
	if err != nil || !u.EmailVerified {
		e.t.Fatalf("user %+v, %v", u, err)
	}
	return u
}

func (e *penv) create(u *accounts.User, def string) *pipelines.Created {
	e.t.Helper()
	c, err := e.svc.Create(context.Background(), u, pipelines.CreateRequest{Definition: json.RawMessage(def)})
	if err != nil {
		e.t.Fatalf("create pipeline: %v", err)
	}
	return c
}

func (e *penv) detail(u *accounts.User, id string) *pipelines.Detail {
	e.t.Helper()
	d, err := e.svc.Get(context.Background(), u.ID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

func (e *penv) step(id string) pipelines.StepResult {
	e.t.Helper()
	r, err := e.svc.Step(context.Background(), id)
	if err != nil {
		e.t.Fatalf("step %s: %v", id, err)
	}
	return r
}

// stage is the latest job of a node of the pipeline, nil when none.
func (e *penv) stage(u *accounts.User, id, node string) *pipelines.StageJob {
	e.t.Helper()
	var last *pipelines.StageJob
	for _, j := range e.detail(u, id).Jobs {
		if j.PipelineNodeID == node {
			last = &j
		}
	}
	return last
}

// The engine's side, through the transitions jobs exports to it: the one
// place these tests move a stage's job.

// engine moves the env's jobs as the engine would.
func (e *penv) engine() jobstest.Engine {
	return jobstest.Engine{T: e.t, DB: e.db, Files: e.files, Jobs: e.jobs, Now: e.clock.Now}
}

// begin moves a pending job to running.
func (e *penv) begin(id string) { e.t.Helper(); e.engine().Begin(id, 1) }

// finish ends a job done with rows under header as its output.
func (e *penv) finish(id string, header []string, rows ...[]string) {
	e.t.Helper()
	e.engine().Finish(id, "", jobstest.CSV(e.t, header, rows...))
}

// fail ends a pending or running job failed, with no output.
func (e *penv) fail(id string) { e.t.Helper(); e.engine().Fail(id, "boom") }

// eventTypes lists the account's event types, oldest first.
func (e *penv) eventTypes(uid int64) []string {
	e.t.Helper()
	p, err := e.events.List(context.Background(), uid, events.Query{Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, ev := range p.Events {
		out = append(out, ev.Type)
	}
	return out
}

// code is the application code of err, "" for nil.
func code(err error) apperr.Code {
	if err == nil {
		return ""
	}
	return apperr.CodeOf(err)
}

// Definitions the tests run: an import of two sites, emails after it.
const (
	importNode = `{"id":"i","type":"import","config":{"source":"paste","text":"nom;site_web\nA;https://a.example\nB;https://b.example"}}`
	importThen = `{"nodes":[` + importNode + `,{"id":"e","type":"emails"}],"edges":[{"from":"i","to":"e"}]}`
)

// sites are the rows of the import's output.
var sites = [][]string{{"A", "https://a.example"}, {"B", "https://b.example"}}
