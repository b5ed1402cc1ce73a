package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/modules"
)

// Single-run jobs are one call whose result is a JSON document, not rows
// (the engine's Runner): delivery_check and viewport_test. They have no
// reusable CSV, so their items route answers 400 (spec) and so does their
// download; their result route reads the document.
const (
	TypeDeliveryCheck = modules.DeliveryCheck
	TypeViewportTest  = modules.ViewportTest
)

// TypeSirene is the sirene source: one call too, whose result is rows (a
// CSV like a scrape's).
const TypeSirene = modules.Sirene

// SingleRun tells whether a job type runs as one call with a JSON result
// (no CSV).
func SingleRun(jobType string) bool {
	return jobType == TypeDeliveryCheck || jobType == TypeViewportTest
}

// The stages a pipeline runs itself, one call each whose result is a CSV.
const (
	TypeImport = modules.Import
	TypeFilter = modules.Filter
	TypeSort   = modules.Sort
)

// runsOnce tells whether CreateSingle makes jobs of the type.
func runsOnce(jobType string) bool {
	switch jobType {
	case TypeSirene, TypeImport, TypeFilter, TypeSort:
		return true
	}
	return SingleRun(jobType)
}

// A single-run job's parameters are stored on its item up to
// MaxInlineParams; larger ones (an import's paste, a filter's long `in`
// lists) go to the file store (ParamsKey), up to MaxParams, and the
// engine reads them back before the run (ReadParams).
const (
	MaxInlineParams = 8 << 10
	// MaxParams holds the 16 MiB an import's paste may have, JSON-escaped.
	MaxParams = 48 << 20
)

// ParamsKey is the file of a single-run job's parameters too large for
// its item.
func ParamsKey(id string) string { return "jobs/" + id + "/params.json" }

// ReadParams loads a job's parameters kept in the file store into
// j.Params (nothing to do for inline ones).
func ReadParams(ctx context.Context, files blob.Store, j *Job) error {
	if !j.ParamsInFile {
		return nil
	}
	rc, _, err := files.Open(ctx, ParamsKey(j.ID))
	if err != nil {
		return fmt.Errorf("parameters of job %s: %w", j.ID, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxParams+1))
	if err != nil {
		return fmt.Errorf("parameters of job %s: %w", j.ID, err)
	}
	j.Params = b
	return nil
}

// ResultKey is the file of a single-run job's result.
func ResultKey(id string) string { return "jobs/" + id + "/result.json" }

// CreateSingle creates a single-run job with its (validated) parameters:
// the same admission as every job (verified email 403, creation quota
// 429), then one transaction taking a slot (429) and debiting ef (400).
func (s *Service) CreateSingle(ctx context.Context, u *accounts.User, jobType string, params any, ef float64) (*Job, error) {
	if !runsOnce(jobType) {
		return nil, apperr.Missing()
	}
	if err := s.admit(ctx, u); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(params)
	if err != nil || len(raw) > MaxParams {
		return nil, apperr.New(apperr.Invalid, "Paramètres invalides.", "Invalid parameters.")
	}
	if s.d.Files == nil {
		return nil, apperr.New(apperr.Unavailable, "Les jobs ne peuvent pas tourner ici.", "Jobs cannot run here.")
	}
	now := s.d.Now()
	source := s.d.Source
	if s.d.ModuleSource != nil {
		if src := s.d.ModuleSource(jobType); src != "" {
			source = src
		}
	}
	country, err := s.singleCountry(ctx, u.ID, raw)
	if err != nil {
		return nil, err
	}
	j := &Job{
		ID: newID(), JobType: jobType, Queries: []string{}, Zones: []string{}, Country: country, Status: Pending,
		GridPointsCount: 1, EFCost: ef, CreatedAt: formatTime(now),
		ExpiresAt: formatTime(now.Add(Retention)), Source: source, UserID: u.ID, Created: now,
		Breakdown:   Breakdown{ByQuery: map[string]int{}, ByZone: map[string]int{}},
		DeadQueries: []string{}, QueryStats: map[string]QueryStat{}, ExtraColumns: []string{},
		Params: raw,
	}
	if len(raw) > MaxInlineParams {
		if _, err := s.d.Files.Put(ctx, ParamsKey(j.ID), bytes.NewReader(raw), "application/json"); err != nil {
			return nil, fmt.Errorf("store parameters of job %s: %w", j.ID, err)
		}
		j.Params, j.ParamsInFile = nil, true
	}
	if err := s.insert(ctx, j, ef); err != nil {
		if j.ParamsInFile {
			if derr := s.d.Files.Delete(context.WithoutCancel(ctx), ParamsKey(j.ID)); derr != nil && s.d.Log != nil {
				s.d.Log.Warn("parameters of a refused job not deleted", "job", j.ID, "err", derr)
			}
		}
		return nil, err
	}
	if err := s.schedule(ctx, j); err != nil {
		return nil, fmt.Errorf("start job %s: %w", j.ID, err)
	}
	return j, nil
}

// singleCountry is the country a single-run job carries: its source job's
// (a pipeline's filter or sort stage works on that job's rows), else the
// one its parameters name (a viewport test searches in a country), else
// none (fillDefaults puts the default).
func (s *Service) singleCountry(ctx context.Context, uid int64, raw json.RawMessage) (string, error) {
	var p struct {
		SourceJobID string `json:"source_job_id"`
		Country     string `json:"country"`
	}
	// Parameters of another shape (a JSON array, a config without these
	// fields) simply name no country.
	if json.Unmarshal(raw, &p) != nil {
		return "", nil
	}
	if p.SourceJobID != "" {
		src, err := s.Get(ctx, uid, p.SourceJobID)
		if apperr.Is(err, apperr.NotFound) {
			// Not the caller's to read: the job is still created and
			// fails when it runs, as any other access (the default).
			return "", nil
		}
		if err != nil {
			return "", err
		}
		return src.Country, nil
	}
	return p.Country, nil
}

// errNoCSV is the 400 of the row routes on a job without a reusable CSV.
func errNoCSV(j *Job) error {
	return apperr.New(apperr.Invalid,
		fmt.Sprintf("Un job %s n'a pas de CSV réutilisable : lisez son résultat.", j.JobType),
		fmt.Sprintf("A %s job has no reusable CSV: read its result.", j.JobType))
}

// Result writes the result document of the user's single-run job of the
// type: 404 for another's or an unknown job, 400 for a job of another type
// or not done, 410 when expired or missing.
func (s *Service) Result(ctx context.Context, uid int64, id, jobType string, w io.Writer) error {
	j, err := s.Get(ctx, uid, id)
	if err != nil {
		return err
	}
	if j.JobType != jobType {
		return apperr.New(apperr.Invalid, fmt.Sprintf("Ce job n'est pas un job %s.", jobType),
			fmt.Sprintf("This job is not a %s job.", jobType))
	}
	switch {
	case j.Status == Expired:
		return errGone()
	case j.Status.Active():
		return errNotDone(j)
	case j.Status != Done:
		return apperr.New(apperr.Invalid, fmt.Sprintf("Le job est %s : il n'a pas de résultat.", j.Status),
			fmt.Sprintf("The job is %s: it has no result.", j.Status))
	}
	if s.d.Files == nil {
		return errGone()
	}
	rc, _, err := s.d.Files.Open(ctx, ResultKey(id))
	if errors.Is(err, blob.ErrNotFound) {
		return errGone()
	}
	if err != nil {
		return fmt.Errorf("open the result of %s: %w", id, err)
	}
	defer rc.Close()
	_, err = io.Copy(w, rc)
	return err
}
