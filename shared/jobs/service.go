package jobs

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
)

// MaxActive is the spec's limit of pending or running jobs per account.
const MaxActive = 5

// Retention is how long a job's output stays downloadable: expires_at is
// the creation time plus Retention (docs/jobs.md).
const Retention = 30 * 24 * time.Hour

// Deps are what the job service acts on.
type Deps struct {
	DB       store.DB
	Scrape   *scrape.Service
	Ledger   *accounts.Ledger
	Limits   *ratelimit.Limiter
	Accounts *accounts.Service
	Now      func() time.Time
	// Source is the map provider's name, recorded on every job.
	Source string
	// ModuleSource names the source a module's jobs read (enrich.SourceOf:
	// a register, an API, "web" for the items' websites; "sim" for a
	// simulated twin). Nil records Source.
	ModuleSource func(module string) string
	// Files holds job outputs; nil where the runtime has no file store.
	Files blob.Store
	// DeriveInWorker asks the runner for a format of a job's output
	// (Runner.Derive) where the API may not make it in the request (a
	// Lambda's response cap); false makes it in the first download's
	// request (derive.go).
	DeriveInWorker bool
	// ItemsPageBytes bounds an items page where responses are capped (a
	// Lambda's 6 MB): the page stops before its body, as the runtime
	// sends it, would pass this many bytes. 0: no bound (the contract's
	// omitted limit returns every row).
	ItemsPageBytes int
	Log            *slog.Logger
}

// Service creates and reads jobs. Its runner and listeners are attached
// after it is built (ports.go).
type Service struct {
	d         Deps
	runner    Runner
	listeners []Listener
	stages    Stages
}

// New returns the job service.
func New(d Deps) *Service { return &Service{d: d} }

// Create creates a scrape job for the user (POST /api/jobs): verified email
// (403), the creation quota, shared with pipelines and counting refused
// attempts (429), the request's rules (422), its zones and grid (400), then
// one transaction that takes a slot of the concurrent-job limit (429),
// debits the EF (400 over the quota) and writes the job in pending.
func (s *Service) Create(ctx context.Context, u *accounts.User, r scrape.Request) (*Job, error) {
	if err := s.admit(ctx, u); err != nil {
		return nil, err
	}
	set, p, err := s.plan(r)
	if err != nil {
		return nil, err
	}
	if err := s.d.Scrape.Price(ctx, p, nil); err != nil {
		return nil, err
	}
	now := s.d.Now()
	j := newJob(u.ID, set, p, now, s.d.Source)
	if err := s.insert(ctx, j, p.Estimate.EF); err != nil {
		return nil, err
	}
	if err := s.d.Accounts.SetLastCountry(ctx, u, set.Country); err != nil {
		return nil, err
	}
	if err := s.schedule(ctx, j); err != nil {
		return nil, fmt.Errorf("start job %s: %w", j.ID, err)
	}
	return j, nil
}

// admit applies what every job creation needs first: a verified email
// (403) and the creation quota, shared with pipelines and counting refused
// attempts (429).
func (s *Service) admit(ctx context.Context, u *accounts.User) error {
	if !u.EmailVerified {
		return apperr.New(apperr.Forbidden, "Vérifie ton adresse email avant de lancer un job.",
			"Verify your email address before creating jobs.")
	}
	if o, ok := originOf(ctx); (ok && o.Successor) || scheduled(ctx) {
		return nil
	}
	subject := accounts.UserPK(u.ID)
	for _, rule := range []ratelimit.Rule{ratelimit.JobCreate, ratelimit.JobCreateDay} {
		if err := s.d.Limits.Allow(ctx, rule, subject); err != nil {
			return err
		}
	}
	return nil
}

// plan cleans a scrape request (422) and plans it (400 when it cannot run).
func (s *Service) plan(r scrape.Request) (scrape.Settings, *scrape.Plan, error) {
	set, err := scrape.Clean(r, true)
	if err != nil {
		return set, nil, err
	}
	p, err := s.d.Scrape.Plan(set)
	if err != nil {
		return set, nil, err
	}
	if !p.Valid() {
		return set, nil, planError(p)
	}
	return set, p, nil
}

// planError is the 400 of a plan that cannot run: its problems, in both
// languages, joined.
func planError(p *scrape.Plan) error {
	var fr, en []string
	for _, f := range p.Problems {
		fr = append(fr, f.Field+" : "+f.FR)
		en = append(en, f.Field+": "+f.EN)
	}
	return apperr.New(apperr.Invalid, strings.Join(fr, " ; "), strings.Join(en, "; "))
}

// insert writes a new job in one transaction with its slot of the
// concurrent-job limit and its EF debit.
func (s *Service) insert(ctx context.Context, j *Job, ef float64, extra ...store.TxOp) error {
	if o, ok := originOf(ctx); ok {
		id := o.PipelineID
		j.PipelineID, j.PipelineNodeID, j.LowPriority = &id, o.NodeID, o.LowPriority
		if o.LowPriority {
			ef = pricing.LowPriority(ef)
			j.EFCost = ef
		}
	}
	j.fillDefaults()
	it, err := item(j)
	if err != nil {
		return err
	}
	charge, fits := s.d.Ledger.ChargeOp(j.UserID, ef)
	if !fits {
		return pricing.OverQuota(ef, s.d.Ledger.Quota())
	}
	ops := []store.TxOp{
		store.UpdateOp(Table, activeKey(j.UserID), store.Update{}.Add("n", 1),
			store.Or(store.NotExists("n"), store.Lt("n", MaxActive))),
		charge,
		store.PutOp(Table, it, store.NotExists("pk")),
	}
	ops = append(ops, extra...)
	err = s.d.DB.Transact(ctx, ops...)
	var txErr *store.TxConditionError
	if errors.As(err, &txErr) {
		switch txErr.Index {
		case 0:
			return tooManyActive()
		case 1:
			rem, rerr := s.d.Ledger.Remaining(ctx, j.UserID)
			if rerr != nil {
				return rerr
			}
			return pricing.OverQuota(ef, rem)
		}
	}
	if err != nil {
		return fmt.Errorf("create job: %w", err)
	}
	return nil
}

// tooManyActive is the refusal of a sixth pending or running job. It is a
// 429 like the creation quota, with a Retry-After a job takes to start
// finishing; the message says why.
func tooManyActive() *apperr.Error {
	e := apperr.TooManyRequests(60)
	e.FR = fmt.Sprintf("Tu as déjà %d jobs en attente ou en cours. Réessaie quand l'un d'eux sera terminé.", MaxActive)
	e.EN = fmt.Sprintf("You already have %d pending or running jobs. Retry when one of them has finished.", MaxActive)
	return e
}

// newJob builds the pending job of a plan.
func newJob(uid int64, set scrape.Settings, p *scrape.Plan, now time.Time, source string) *Job {
	j := &Job{
		ID: newID(), JobType: TypeScrap, Queries: set.Queries, Country: set.Country, Zones: set.Zones,
		IncludeReviews: set.IncludeReviews, ScrapMode: string(set.Mode), MaxPerPhone: set.MaxPerPhone,
		ExcludeForeignPhones: set.ExcludeForeignPhones, ExtraColumns: set.ExtraColumns, Status: Pending,
		GridPointsCount: p.Grid.Len(), EFCost: p.Estimate.EF, ExpectedSearches: p.Estimate.ExpectedSearches, Rates: p.Rates, CreatedAt: formatTime(now),
		ExpiresAt: formatTime(now.Add(Retention)), Source: source, UserID: uid, Created: now,
		Breakdown:   Breakdown{ByQuery: map[string]int{}, ByZone: map[string]int{}},
		DeadQueries: []string{}, QueryStats: map[string]QueryStat{},
	}
	if set.StopAt > 0 {
		v := set.StopAt
		j.StopAt = &v
	}
	return j
}

// idEncoding writes job ids in lower-case base32 without padding.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newID returns a random job id: 80 bits, unguessable, so that an id says
// nothing of other accounts' jobs.
func newID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return idEncoding.EncodeToString(b)
}

// Get returns the user's job; another account's job, or none, is a 404.
func (s *Service) Get(ctx context.Context, uid int64, id string) (*Job, error) {
	if id == "" || len(id) > 64 {
		return nil, apperr.Missing()
	}
	it, err := s.d.DB.Table(Table).Get(ctx, jobKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apperr.Missing()
	}
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", id, err)
	}
	j, err := fromItem(it)
	if err != nil {
		return nil, err
	}
	if j.UserID != uid {
		return nil, apperr.Missing()
	}
	if err := s.expireIfDue(ctx, j); err != nil {
		return nil, err
	}
	return j, nil
}

// List returns the user's jobs, most recent first: limit clamped to
// 1..500 (default 100), offset at least 0. The owner index holds the whole
// records, so a page costs one Query plus the skipped offset.
func (s *Service) List(ctx context.Context, uid int64, limit, offset int) ([]*Job, error) {
	limit = min(max(limit, 1), 500)
	offset = max(offset, 0)
	out := []*Job{}
	skipped := 0
	err := store.ForEach(ctx, s.d.DB.Table(Table), store.Query{
		Index: "gsi1", PK: accounts.UserPK(uid), SK: store.BeginsWith("JOB#"), Desc: true,
	}, func(it store.Item) error {
		if skipped < offset {
			skipped++
			return nil
		}
		j, err := fromItem(it)
		if err != nil {
			return err
		}
		out = append(out, j)
		if len(out) == limit {
			return store.ErrStop
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return out, nil
}

// Active is the user's count of pending or running jobs (the concurrent
// limit's counter).
func (s *Service) Active(ctx context.Context, uid int64) (int, error) {
	it, err := s.d.DB.Table(Table).Get(ctx, activeKey(uid))
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("active jobs of %d: %w", uid, err)
	}
	return int(it.Int("n")), nil
}
