// Package veille replays a finished scrape or pipeline on a cadence in
// days and reports what changed from one run to the next: new, removed,
// modified and unchanged rows, and the reputation signals among the
// modified ones (docs/veille.md). A tick (an in-process ticker locally,
// an EventBridge rule calling the veille-tick Lambda on AWS) starts the
// due replays, each exactly once, and computes the runs whose replay
// has ended.
package veille

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/store"
)

// Deps are what veilles need.
type Deps struct {
	DB        store.DB
	Files     blob.Store
	Jobs      *jobs.Service
	Pipelines Pipelines
	Accounts  *accounts.Service
	Events    *events.Service
	Ledger    *accounts.Ledger
	// Provider looks removed places up again (the churn check).
	Provider provider.Provider
	Now      func() time.Time
	Log      *slog.Logger
	// TempDir holds the diff's spill files ("" is the system's).
	TempDir string
}

// Pipelines is what veilles need of pipelines (pipelines.Service): a
// veille may watch one, and each of its runs replays it.
type Pipelines interface {
	// Outcome is where one of the user's pipelines stands: its status
	// (running, done, failed, cancelled) and its output job so far (nil
	// when none); errors are apperr's NotFound or Forbidden for a
	// pipeline that is not there or not the user's.
	Outcome(ctx context.Context, uid int64, id string) (status jobs.Status, output *jobs.Job, err error)
	// ReplayID creates a new run of one of the user's pipelines, as a
	// scheduled creation, and returns the new pipeline's id.
	ReplayID(ctx context.Context, u *accounts.User, id string) (string, error)
}

// Service manages veilles and their runs.
type Service struct{ d Deps }

// New returns the veille service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Limits (spec: Veille, Limits).
const (
	MinName, MaxName           = 2, 200
	MinFrequency, MaxFrequency = 1, 365
	minSourceID, maxSourceID   = 8, 64
)

// CreateRequest is the body of POST /api/veille.
type CreateRequest struct {
	Name             string  `json:"name"`
	SourceJobID      *string `json:"source_job_id"`
	SourcePipelineID *string `json:"source_pipeline_id"`
	FrequencyDays    *int    `json:"frequency_days"`
}

// UpdateRequest is the body of PATCH /api/veille/{id}: omitted fields
// stay as they are.
type UpdateRequest struct {
	Name          *string `json:"name"`
	FrequencyDays *int    `json:"frequency_days"`
	Status        *string `json:"status"`
}

func invalid(fr, en string) error { return apperr.New(apperr.Invalid, fr, en) }

func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < MinName || n > MaxName {
		return "", invalid(fmt.Sprintf("name : de %d à %d caractères.", MinName, MaxName),
			fmt.Sprintf("name: %d to %d characters.", MinName, MaxName))
	}
	return name, nil
}

func checkFrequency(f *int) (int, error) {
	if f == nil || *f < MinFrequency || *f > MaxFrequency {
		return 0, invalid(fmt.Sprintf("frequency_days : un entier de %d à %d.", MinFrequency, MaxFrequency),
			fmt.Sprintf("frequency_days: an integer from %d to %d.", MinFrequency, MaxFrequency))
	}
	return *f, nil
}

// Create starts watching one of the user's completed scrapes or
// pipelines. Its output is the baseline (the veille's first run, no
// counters); the first replay comes frequency_days later.
func (s *Service) Create(ctx context.Context, u *accounts.User, r CreateRequest) (*Veille, error) {
	name, err := checkName(r.Name)
	if err != nil {
		return nil, err
	}
	freq, err := checkFrequency(r.FrequencyDays)
	if err != nil {
		return nil, err
	}
	src, hasJob, err := checkSource(r)
	if err != nil {
		return nil, err
	}
	baseJob, err := s.sourceJob(ctx, u, src, hasJob)
	if err != nil {
		return nil, err
	}
	id, err := s.d.Accounts.NextID(ctx, "veille")
	if err != nil {
		return nil, err
	}
	rid, err := s.d.Accounts.NextID(ctx, "veille-run")
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	rec := &record{Veille: Veille{ID: id, Name: name, FrequencyDays: freq, Status: Active, CreatedAt: iso(now)}, UserID: u.ID}
	if hasJob {
		rec.SourceJobID = src
	} else {
		rec.SourcePipelineID = src
	}
	rec.schedule(now)
	// The baseline: the source's rows, copied so that they outlive the
	// job's retention.
	base := &runDoc{Run: Run{ID: rid, JobID: baseJob.ID, IsBaseline: true, ComputedAt: iso(now)},
		VeilleID: id, State: RunComputed, CreatedAt: iso(now)}
	if err := s.copyOutput(ctx, u.ID, baseJob.ID, outputKey(id, rid)); err != nil {
		return nil, err
	}
	base.TotalCount = baseJob.ResultsCount
	rec.LastRunID, rec.LastRunAt, rec.LastRunJobID, rec.RunCount = rid, &base.ComputedAt, &baseJob.ID, 1
	bit, err := base.item()
	if err != nil {
		return nil, err
	}
	if err := s.put(ctx, rec, store.PutOp(Table, bit, store.NotExists("pk"))); err != nil {
		return nil, err
	}
	s.completed(ctx, rec, base)
	v := rec.Veille
	return &v, nil
}

// checkSource checks that a creation names exactly one source, of a valid
// id length; it returns that id and whether it is a job's.
func checkSource(r CreateRequest) (*string, bool, error) {
	hasJob := r.SourceJobID != nil && *r.SourceJobID != ""
	hasPipe := r.SourcePipelineID != nil && *r.SourcePipelineID != ""
	if hasJob == hasPipe {
		return nil, false, invalid("Donnez exactement une source : source_job_id ou source_pipeline_id.",
			"Give exactly one source: source_job_id or source_pipeline_id.")
	}
	src := r.SourceJobID
	if hasPipe {
		src = r.SourcePipelineID
	}
	if n := len(*src); n < minSourceID || n > maxSourceID {
		return nil, false, invalid(fmt.Sprintf("L'identifiant de la source fait de %d à %d caractères.", minSourceID, maxSourceID),
			fmt.Sprintf("The source id is %d to %d characters long.", minSourceID, maxSourceID))
	}
	return src, hasJob, nil
}

// sourceJob is the completed job whose output is the baseline: the source
// job itself, or the source pipeline's output job. A source that is not
// the user's, not a scrape or not completed is refused.
func (s *Service) sourceJob(ctx context.Context, u *accounts.User, src *string, hasJob bool) (*jobs.Job, error) {
	notOwned := invalid("Source introuvable : elle doit être un de vos jobs ou pipelines.",
		"Source not found: it must be one of your jobs or pipelines.")
	notDone := invalid("La source n'est pas terminée : une veille part d'un résultat complet.",
		"The source is not completed: a veille starts from a complete output.")
	if hasJob {
		j, err := s.d.Jobs.Get(ctx, u.ID, *src)
		if apperr.Is(err, apperr.NotFound) {
			return nil, notOwned
		}
		if err != nil {
			return nil, err
		}
		if j.JobType != jobs.TypeScrap {
			return nil, invalid("Seul un scrape (ou un pipeline) se surveille.", "Only a scrape (or a pipeline) can be watched.")
		}
		if j.Status != jobs.Done || !j.DownloadAvailable {
			return nil, notDone
		}
		return j, nil
	}
	status, out, err := s.d.Pipelines.Outcome(ctx, u.ID, *src)
	if apperr.Is(err, apperr.NotFound) || apperr.Is(err, apperr.Forbidden) {
		return nil, notOwned
	}
	if err != nil {
		return nil, err
	}
	if status != jobs.Done || out == nil || !out.DownloadAvailable {
		return nil, notDone
	}
	return out, nil
}

// schedule sets the next run frequency_days after t.
func (r *record) schedule(t time.Time) {
	r.next = t.UTC().Add(time.Duration(r.FrequencyDays) * 24 * time.Hour).Truncate(time.Second)
	r.NextRunAt = iso(r.next)
}

// List is the user's active and paused veilles.
func (s *Service) List(ctx context.Context, uid int64) ([]Veille, error) {
	rs, err := s.list(ctx, uid, false)
	if err != nil {
		return nil, err
	}
	out := make([]Veille, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Veille)
	}
	return out, nil
}

// Get is one of the user's veilles (404 for a deleted one).
func (s *Service) Get(ctx context.Context, uid, id int64) (*Veille, error) {
	r, err := s.get(ctx, uid, id, false)
	if err != nil {
		return nil, err
	}
	return &r.Veille, nil
}

// Update changes the given fields: a new frequency reschedules the next
// run from now; status moves to active, paused or deleted.
func (s *Service) Update(ctx context.Context, uid, id int64, req UpdateRequest) (*Veille, error) {
	var name string
	var freq int
	var err error
	if req.Name != nil {
		if name, err = checkName(*req.Name); err != nil {
			return nil, err
		}
	}
	if req.FrequencyDays != nil {
		if freq, err = checkFrequency(req.FrequencyDays); err != nil {
			return nil, err
		}
	}
	if req.Status != nil && *req.Status != Active && *req.Status != Paused && *req.Status != Deleted {
		return nil, invalid("status vaut active, paused ou deleted.", "status is active, paused or deleted.")
	}
	now := s.d.Now().UTC()
	r, err := s.update(ctx, uid, id, func(r *record) error {
		if req.Name != nil {
			r.Name = name
		}
		if req.FrequencyDays != nil && freq != r.FrequencyDays {
			r.FrequencyDays = freq
			r.schedule(now)
		}
		if req.Status != nil {
			r.setStatus(*req.Status, now)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &r.Veille, nil
}

func (r *record) setStatus(st string, now time.Time) {
	r.Status = st
	if st == Deleted {
		t := iso(now)
		r.DeletedAt = &t
	}
}

// Delete soft-deletes a veille: kept for audit, never scheduled again,
// 404 for every route.
func (s *Service) Delete(ctx context.Context, uid, id int64) error {
	now := s.d.Now().UTC()
	_, err := s.update(ctx, uid, id, func(r *record) error {
		r.setStatus(Deleted, now)
		return nil
	})
	return err
}

// Runs is a veille's computed runs, latest first, with their job's state.
func (s *Service) Runs(ctx context.Context, uid, id int64) ([]Run, error) {
	if _, err := s.get(ctx, uid, id, false); err != nil {
		return nil, err
	}
	ds, err := s.runs(ctx, id)
	if err != nil {
		return nil, err
	}
	out := []Run{}
	for _, d := range ds {
		if d.State != RunComputed {
			continue
		}
		r := d.Run
		r.Samples = nil
		if j, err := s.d.Jobs.Get(ctx, uid, r.JobID); err == nil {
			r.JobStatus, r.JobCompletedAt = string(j.Status), j.CompletedAt
		} else {
			r.JobStatus = "deleted"
		}
		out = append(out, r)
	}
	return out, nil
}

// Run is one computed run with its samples.
func (s *Service) Run(ctx context.Context, uid, id, rid int64) (*Run, error) {
	d, err := s.run(ctx, uid, id, rid)
	if err != nil {
		return nil, err
	}
	r := d.Run
	return &r, nil
}

func (s *Service) run(ctx context.Context, uid, id, rid int64) (*runDoc, error) {
	if _, err := s.get(ctx, uid, id, false); err != nil {
		return nil, err
	}
	d, err := s.getRun(ctx, id, rid)
	if err != nil {
		return nil, err
	}
	if d.State != RunComputed {
		return nil, apperr.Missing()
	}
	return d, nil
}

// RunNow makes the veille due at once (the admin route): the next tick,
// within a minute, starts its run. 400 while a run is in flight or when
// the veille is not active.
func (s *Service) RunNow(ctx context.Context, id int64) (*Veille, error) {
	now := s.d.Now().UTC().Truncate(time.Second)
	r, err := s.update(ctx, 0, id, func(r *record) error {
		if r.Status != Active {
			return invalid("La veille n'est pas active.", "The veille is not active.")
		}
		if r.PendingRunID != 0 {
			return invalid("Une exécution de cette veille est déjà en cours.", "A run of this veille is already in flight.")
		}
		r.next, r.NextRunAt = now, iso(now)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &r.Veille, nil
}

// Export is the veilles' part of the account's export: every veille
// (deleted ones too, kept for audit) with its runs.
func (s *Service) Export(ctx context.Context, uid int64) (accounts.Section, error) {
	rs, err := s.list(ctx, uid, true)
	if err != nil {
		return accounts.Section{}, err
	}
	type entry struct {
		Veille
		DeletedAt *string  `json:"deleted_at,omitempty"`
		Runs      []runDoc `json:"runs"`
	}
	out := []entry{}
	for _, r := range rs {
		ds, err := s.runs(ctx, r.ID)
		if err != nil {
			return accounts.Section{}, err
		}
		e := entry{Veille: r.Veille, DeletedAt: r.DeletedAt, Runs: []runDoc{}}
		for _, d := range ds {
			e.Runs = append(e.Runs, *d)
		}
		out = append(out, e)
	}
	return accounts.Section{Entry: "veille", Data: out, Summary: fmt.Sprintf("Veilles : %d", len(out))}, nil
}

// Purge deletes every veille of the account, its runs and their files.
func (s *Service) Purge(ctx context.Context, uid int64) error {
	rs, err := s.list(ctx, uid, true)
	if err != nil {
		return err
	}
	t := s.d.DB.Table(Table)
	for _, r := range rs {
		ds, err := s.runs(ctx, r.ID)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if err := t.Delete(ctx, runKey(r.ID, d.ID), nil); err != nil {
				return fmt.Errorf("purge veille run %d: %w", d.ID, err)
			}
		}
		if err := s.d.Files.DeletePrefix(ctx, filesPrefix(r.ID)); err != nil {
			return fmt.Errorf("purge files of veille %d: %w", r.ID, err)
		}
		if err := t.Delete(ctx, veilleKey(r.ID), nil); err != nil {
			return fmt.Errorf("purge veille %d: %w", r.ID, err)
		}
	}
	return nil
}
