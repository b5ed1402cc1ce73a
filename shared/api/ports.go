package api

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/exports"
	"github.com/prospectdata/svc/shared/features"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/keys"
	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/shared/registers"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/veille"
	"github.com/prospectdata/svc/shared/webhooks"
	"github.com/prospectdata/svc/shared/zones"
)

// The ports of the HTTP surface: what the handlers call on each concept,
// declared here by their consumer, so that a handler is tested with a
// fake of the one port it uses rather than the whole application
// (shared/app passes the concepts' services, which satisfy them; the
// assertions are in ports_test.go). Each lists exactly the methods a
// route calls: a method no route calls stays off the port.

// Accounts is the account book (accounts.Service): sign-up, sessions,
// passwords, email verification, deactivation, deletion and export.
type Accounts interface {
	Signup(ctx context.Context, req accounts.SignupRequest, ip string) (*accounts.User, *accounts.Session, error)
	Login(ctx context.Context, req accounts.LoginRequest, ip string) (*accounts.User, *accounts.Session, error)
	// Session resolves a session cookie; ok is false for a forged, ended
	// or expired one.
	Session(ctx context.Context, token string) (_ *accounts.Session, ok bool, _ error)
	EndSession(ctx context.Context, uid int64, sid string) error
	User(ctx context.Context, id int64) (*accounts.User, error)
	RequestReset(ctx context.Context, email, ip string) error
	ConfirmReset(ctx context.Context, token, newPassword string) error
	// ChangePassword returns the new session (the others are ended).
	ChangePassword(ctx context.Context, u *accounts.User, current, next string) (*accounts.Session, error)
	VerifyEmail(ctx context.Context, token string) error
	ResendVerification(ctx context.Context, u *accounts.User) (already bool, err error)
	SetActive(ctx context.Context, id int64, active bool) (*accounts.User, error)
	DeleteAccount(ctx context.Context, u *accounts.User, confirmEmail string) error
	// Export streams the account's archive (a ZIP) in the request.
	Export(ctx context.Context, u *accounts.User, w io.Writer) error
	// Now is the book's clock (the export's file name is dated by it).
	Now() time.Time
}

// Keys is the API key store (keys.Service).
type Keys interface {
	// Authenticate resolves a presented secret to its live key.
	Authenticate(ctx context.Context, secret string) (*keys.Key, error)
	Create(ctx context.Context, uid int64, name string) (*keys.Created, error)
	List(ctx context.Context, uid int64) ([]*keys.Key, error)
	Revoke(ctx context.Context, uid int64, idText string) error
}

// Features is the feature-interest poll (features.Service).
type Features interface {
	Get(ctx context.Context, uid int64) (*features.Summary, error)
	Vote(ctx context.Context, uid int64, id string) error
	Retract(ctx context.Context, uid int64, id string) error
}

// Scrape plans scrapes without running them (scrape.Service): estimates,
// the estimate's map, countries, zone completion and the EF usage.
type Scrape interface {
	Estimate(ctx context.Context, u *accounts.User, r scrape.Request) (*scrape.Plan, error)
	Map(ctx context.Context, u *accounts.User, r scrape.Request) (*scrape.EstimateMap, *scrape.Plan, error)
	Countries(u *accounts.User, english bool) (*scrape.Countries, error)
	Complete(country, prefix string, limit int) ([]zones.Completion, error)
	Usage(ctx context.Context, u *accounts.User) (*scrape.Usage, error)
}

// Jobs is the job book (jobs.Service): creation of every job type, the
// caller's jobs and their outputs, cancellation, resumption, deletion.
type Jobs interface {
	Create(ctx context.Context, u *accounts.User, r scrape.Request) (*jobs.Job, error)
	CreateItems(ctx context.Context, u *accounts.User, module string, r jobs.ItemRequest) (*jobs.Job, error)
	CreateSingle(ctx context.Context, u *accounts.User, jobType string, params any, ef float64) (*jobs.Job, error)
	List(ctx context.Context, uid int64, limit, offset int) ([]*jobs.Job, error)
	// Queue is the platform's multi-proxy queue, anonymised for uid.
	Queue(ctx context.Context, uid int64) (*jobs.QueueView, error)
	Get(ctx context.Context, uid int64, id string) (*jobs.Job, error)
	// Cancel says whether the cancellation also closed the job's pipeline.
	Cancel(ctx context.Context, uid int64, id string) (pipelineCancelled bool, err error)
	Resume(ctx context.Context, u *accounts.User, id string) (*jobs.Job, error)
	Delete(ctx context.Context, uid int64, id string) error
	Download(ctx context.Context, uid int64, id, format string) (*jobs.Download, error)
	// Items calls w once, when the page's first byte is ready: before
	// that an error is still a {detail}.
	Items(ctx context.Context, uid int64, id string, offset, limit int, w func() io.Writer) error
	// Result writes a single-run job's result document.
	Result(ctx context.Context, uid int64, id, jobType string, w io.Writer) error
	Places(ctx context.Context, uid int64, id string) (*jobs.MapPlaces, error)
	Map(ctx context.Context, uid int64, id string) (*jobs.TileMap, error)
	OutputColumns(ctx context.Context, uid int64, id string) (*jobs.Columns, error)
	// Logs are a job's log lines after a sequence number (the progress
	// stream); the stream checks the job's owner first.
	Logs(ctx context.Context, id string, after int64, tail int) ([]jobs.LogLine, error)
}

// Events is the account's event log (events.Service), as the feed reads it.
type Events interface {
	List(ctx context.Context, uid int64, q events.Query) (events.Page, error)
}

// Webhooks is the account's webhook endpoints (webhooks.Service).
type Webhooks interface {
	Create(ctx context.Context, uid int64, rawURL string, types []string, secret *string) (*webhooks.Endpoint, error)
	List(ctx context.Context, uid int64) ([]*webhooks.Endpoint, error)
	Deliveries(ctx context.Context, uid int64, idText string) ([]webhooks.Attempt, error)
	Delete(ctx context.Context, uid int64, idText string) error
}

// Pipelines creates, checks and reads pipelines (pipelines.Service).
type Pipelines interface {
	// Table is the node types' table (the schema route).
	Table() *pipelines.Table
	Check(ctx context.Context, u *accounts.User, raw json.RawMessage, structureOnly bool) (*pipelines.Checked, error)
	Create(ctx context.Context, u *accounts.User, r pipelines.CreateRequest) (*pipelines.Created, error)
	List(ctx context.Context, uid int64) ([]pipelines.Summary, error)
	Get(ctx context.Context, uid int64, id string) (*pipelines.Detail, error)
	Cancel(ctx context.Context, uid int64, id string) error
	Continue(ctx context.Context, uid int64, id, nodeID string) error
	InputColumns(ctx context.Context, uid int64, id, nodeID string) (*pipelines.InputColumnsBody, error)
	FilterPreview(ctx context.Context, uid int64, id, nodeID string, rules pipelines.Group) (*pipelines.PreviewBody, error)
}

// Veille is the watch of completed scrapes and pipelines (veille.Service):
// the caller's veilles, their runs and signals, and the admin's run-now.
type Veille interface {
	List(ctx context.Context, uid int64) ([]veille.Veille, error)
	Create(ctx context.Context, u *accounts.User, r veille.CreateRequest) (*veille.Veille, error)
	Get(ctx context.Context, uid, id int64) (*veille.Veille, error)
	Update(ctx context.Context, uid, id int64, req veille.UpdateRequest) (*veille.Veille, error)
	Delete(ctx context.Context, uid, id int64) error
	Runs(ctx context.Context, uid, id int64) ([]veille.Run, error)
	Run(ctx context.Context, uid, id, rid int64) (*veille.Run, error)
	Signals(ctx context.Context, uid, id, rid int64) (*veille.SignalList, error)
	SignalsFile(ctx context.Context, uid, id, rid int64, f export.Format, filename string) (*veille.SignalFile, error)
	// RunNow makes a veille due at once (any owner: the admin's route).
	RunNow(ctx context.Context, id int64) (*veille.Veille, error)
}

// Exports builds the account export into the file store (exports.Service)
// where responses are capped: Get asks for it and says where it is once
// built.
type Exports interface {
	Get(ctx context.Context, u *accounts.User) (exports.Result, error)
}

// Companies looks companies up in the registers (registers.Client).
type Companies interface {
	Lookup(ctx context.Context, q registers.Query) (registers.Company, error)
}

// WorldClock is the simulated world's day store, as the admin route needs
// it: a port, so that the API knows no provider.
type WorldClock interface {
	// Advance moves the world days forward and returns its new day.
	Advance(ctx context.Context, days int) (int, error)
	// MaxAdvance is the most days one advance may move.
	MaxAdvance() int
}
