package veille

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/store"
)

// TickBatch bounds the veilles started and the runs settled (computed or
// failed) by one tick; the next tick takes the rest.
const TickBatch = 50

// startGrace is how long a claimed run may go without its replay before
// a tick takes its start over (the claiming tick died in between).
const startGrace = 5 * time.Minute

// computeLease is how long a tick holds a run it computes: another tick
// takes it over only past this (its computer died).
const computeLease = 15 * time.Minute

// TickResult says what a tick did: the runs it claimed (a replay that
// could not start is one, failed), computed, and failed.
type TickResult struct {
	Started  int `json:"started"`
	Computed int `json:"computed"`
	Failed   int `json:"failed"`
}

// Tick starts the due veilles' replays, each exactly once however many
// ticks overlap (a conditional write claims it), and computes the runs
// whose replay has ended. It reads the due veilles and the pending runs
// from the sparse gsi2 index, never scanning.
func (s *Service) Tick(ctx context.Context) (TickResult, error) {
	var res TickResult
	now := s.d.Now().UTC()
	tbl := s.d.DB.Table(Table)
	due, err := tbl.Query(ctx, store.Query{Index: "gsi2", PK: duePK,
		SK: store.SortCond{Op: store.SortLe, Value: store.Padded(now.UnixMilli()) + "#~"}, Limit: TickBatch})
	if err != nil {
		return res, fmt.Errorf("due veilles: %w", err)
	}
	var errs []error
	for _, it := range due.Items {
		id, _ := strconv.ParseInt(strings.TrimPrefix(it.String("pk"), "VEILLE#"), 10, 64)
		// Read again: the index may lag behind the table.
		r, err := s.get(ctx, 0, id, false)
		if apperr.Is(err, apperr.NotFound) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r.Status != Active || r.PendingRunID != 0 || r.next.After(now) {
			continue
		}
		err = s.start(ctx, r)
		switch {
		case errors.Is(err, errConflict):
			// Another tick claimed it.
		case err != nil:
			errs = append(errs, err)
		default:
			res.Started++
		}
	}
	// Every pending run is looked at (the ones still replaying are skipped
	// at the cost of a read), the first TickBatch that ended settled.
	err = store.ForEach(ctx, tbl, store.Query{Index: "gsi2", PK: pendingPK}, func(it store.Item) error {
		d, err := runFrom(it)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		done, err := s.settle(ctx, d, now)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("veille %d run %d: %w", d.VeilleID, d.ID, err))
		case done == RunComputed:
			res.Computed++
		case done == RunFailed:
			res.Failed++
		}
		if res.Computed+res.Failed >= TickBatch {
			return store.ErrStop
		}
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("pending veille runs: %w", err))
	}
	return res, errors.Join(errs...)
}

// start claims a run of the veille (the veille's version must not have
// moved since r was read: errConflict otherwise) and starts its replay.
// A replay that cannot start (no room among the 5 concurrent jobs, the
// month's EF spent) is a failed run; the next one comes on schedule.
func (s *Service) start(ctx context.Context, r *record) error {
	rid, err := s.d.Accounts.NextID(ctx, "veille-run")
	if err != nil {
		return err
	}
	now := s.d.Now().UTC()
	d := &runDoc{Run: Run{ID: rid}, VeilleID: r.ID, State: RunPending, CreatedAt: iso(now)}
	r.PendingRunID = rid
	r.schedule(now)
	it, err := d.item()
	if err != nil {
		return err
	}
	if err := s.put(ctx, r, store.PutOp(Table, it, store.NotExists("pk"))); err != nil {
		return err
	}
	if err := s.replay(ctx, r, d); err != nil {
		s.d.Log.WarnContext(ctx, "veille replay not started", "veille", r.ID, "run", rid, "err", err)
		return s.fail(ctx, d, err)
	}
	return nil
}

// replay creates the run's job (a scrape with the source's settings) or
// pipeline (the source's definition) and records it on the run.
func (s *Service) replay(ctx context.Context, r *record, d *runDoc) error {
	u, err := s.d.Accounts.User(ctx, r.UserID)
	if err != nil {
		return err
	}
	if !u.IsActive {
		// A deactivated account's veilles spend nothing: their runs fail
		// until an admin activates it again.
		return errors.New("the account is deactivated")
	}
	if r.SourcePipelineID != nil {
		id, err := s.d.Pipelines.ReplayID(ctx, u, *r.SourcePipelineID)
		if err != nil {
			return err
		}
		d.PipelineID = id
	} else {
		// The source's settings; the last run's job has them too when
		// the source was deleted.
		src, err := s.d.Jobs.Get(ctx, u.ID, *r.SourceJobID)
		if apperr.Is(err, apperr.NotFound) && r.LastRunJobID != nil {
			src, err = s.d.Jobs.Get(ctx, u.ID, *r.LastRunJobID)
		}
		if err != nil {
			return err
		}
		j, err := s.d.Jobs.Replay(ctx, u, src)
		if err != nil {
			return err
		}
		d.JobID = j.ID
	}
	return s.putRun(ctx, d)
}

func (s *Service) putRun(ctx context.Context, d *runDoc) error {
	it, err := d.item()
	if err != nil {
		return err
	}
	if err := s.d.DB.Table(Table).Put(ctx, it, nil); err != nil {
		return fmt.Errorf("write veille run %d: %w", d.ID, err)
	}
	return nil
}

// settle computes a pending run whose replay has ended, or fails it when
// the replay did not finish; it returns the run's new state ("" while the
// replay runs or another tick computes it).
func (s *Service) settle(ctx context.Context, d *runDoc, now time.Time) (string, error) {
	r, err := s.get(ctx, 0, d.VeilleID, true)
	if apperr.Is(err, apperr.NotFound) {
		return "", s.d.DB.Table(Table).Delete(ctx, runKey(d.VeilleID, d.ID), nil)
	}
	if err != nil {
		return "", err
	}
	if d.JobID == "" && d.PipelineID == "" {
		// Claimed but its replay not recorded: its starter is at it, or
		// died. Past startGrace, one tick (the lease) starts it.
		created, _ := time.Parse(isoFmt, d.CreatedAt)
		if now.Sub(created) < startGrace || !s.lease(ctx, d, now) {
			return "", nil
		}
		if err := s.replay(ctx, r, d); err != nil {
			return RunFailed, s.fail(ctx, d, err)
		}
		return "", nil
	}
	if d.PipelineID != "" && d.JobID == "" {
		status, out, err := s.d.Pipelines.Outcome(ctx, r.UserID, d.PipelineID)
		if apperr.Is(err, apperr.NotFound) {
			return RunFailed, s.fail(ctx, d, errors.New("the replayed pipeline was deleted"))
		}
		if err != nil {
			return "", err
		}
		switch {
		case status == jobs.Running:
			return "", nil
		case status != jobs.Done || out == nil:
			return RunFailed, s.fail(ctx, d, fmt.Errorf("the replayed pipeline ended %s", status))
		}
		d.JobID = out.ID
	}
	j, err := s.d.Jobs.Get(ctx, r.UserID, d.JobID)
	if apperr.Is(err, apperr.NotFound) {
		return RunFailed, s.fail(ctx, d, errors.New("the replay's job was deleted"))
	}
	if err != nil {
		return "", err
	}
	switch {
	case j.Status.Active():
		return "", nil
	case j.Status != jobs.Done || !j.DownloadAvailable:
		return RunFailed, s.fail(ctx, d, fmt.Errorf("the replay's job ended %s", j.Status))
	}
	if !s.lease(ctx, d, now) {
		return "", nil // another tick computes it
	}
	err = s.compute(ctx, r, d)
	if errors.Is(err, blob.ErrNotFound) || apperr.Is(err, apperr.Gone) {
		// The previous rows or the replay's output are gone (purged,
		// expired): no retry brings them back.
		return RunFailed, s.fail(ctx, d, err)
	}
	if err != nil {
		return "", err
	}
	return RunComputed, nil
}

// lease claims the computation of a run for computeLease.
func (s *Service) lease(ctx context.Context, d *runDoc, now time.Time) bool {
	_, err := s.d.DB.Table(Table).Update(ctx, runKey(d.VeilleID, d.ID),
		store.Update{}.Set("lease_ms", now.Add(computeLease).UnixMilli()),
		store.And(store.Eq("state", RunPending), store.Or(store.NotExists("lease_ms"), store.Lt("lease_ms", now.UnixMilli()))))
	return err == nil
}

// fail closes a run whose replay could not run, and frees the veille for
// its next run.
func (s *Service) fail(ctx context.Context, d *runDoc, cause error) error {
	d.State, d.Error = RunFailed, cause.Error()
	if err := s.putRun(ctx, d); err != nil {
		return err
	}
	_, err := s.modify(ctx, 0, d.VeilleID, true, func(r *record) error {
		if r.PendingRunID == d.ID {
			r.PendingRunID = 0
		}
		return nil
	})
	if apperr.Is(err, apperr.NotFound) {
		return nil
	}
	return err
}
