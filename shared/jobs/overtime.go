package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// MaxRunTime is the spec's maximum run time of a scrape: past it the job
// stops and a resume continues it automatically.
const MaxRunTime = 24 * time.Hour

// Overdue tells whether a running job has run past MaxRunTime.
func Overdue(j *Job, now time.Time) bool {
	if j.Status != Running || j.StartedAt == nil {
		return false
	}
	start, err := time.Parse(timeFmt, *j.StartedAt)
	return err == nil && now.Sub(start) >= MaxRunTime
}

// Overtime stops a job past MaxRunTime and resumes it (spec: "stopped and
// resumed automatically, no call needed"): a resume over the base tiles it
// left is created in pending (a tile whose subdivision was cut off counts
// as left), charged nothing (those tiles were paid for), with one more
// slot of the concurrent-job limit, which the stopped job gives back when
// the engine merges what it found so far and ends it done. The resume
// marker makes it happen once: first is true for the call that created the
// continuation; stopped is true while the job is being stopped.
func (s *Service) Overtime(ctx context.Context, j *Job) (stopped, first bool, err error) {
	if !Overdue(j, s.d.Now()) {
		return false, false, nil
	}
	// The tasks still queued of a stopped job meet it here one after the
	// other: one read of the marker answers them without planning again.
	if m, err := s.d.DB.Table(Table).Get(ctx, resumeKey(j.ID)); err == nil && m.Bool("active") {
		return true, false, nil
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, false, fmt.Errorf("resume marker of %s: %w", j.ID, err)
	}
	set, p, err := s.plan(requestOf(j))
	if err != nil {
		return false, false, err
	}
	remaining, err := s.remainingRoots(ctx, j, p.Grid.Len())
	if err != nil {
		return false, false, err
	}
	if len(remaining) == 0 {
		return false, false, nil // every tile is searched: let it finish
	}
	next := newJob(j.UserID, set, p, s.d.Now(), j.Source)
	next.GridPointsCount, next.EFCost, next.Roots, next.SourceJobID = len(remaining), 0, remaining, &j.ID
	next.continuation, next.LowPriority = true, j.LowPriority
	next.Rates = j.Rates // planned as the job it continues
	it, err := item(next)
	if err != nil {
		return false, false, err
	}
	err = s.d.DB.Transact(ctx,
		store.PutOp(Table, store.Item{"pk": resumeKey(j.ID).PK, "sk": "RESUME", "job": next.ID, "active": true},
			store.NotExists("pk")),
		store.PutOp(Table, it, store.NotExists("pk")),
		store.UpdateOp(Table, activeKey(j.UserID), store.Update{}.Add("n", 1), nil),
	)
	var txErr *store.TxConditionError
	if errors.As(err, &txErr) && txErr.Index == 0 {
		return true, false, nil // another worker stopped it
	}
	if err != nil {
		return false, false, fmt.Errorf("overtime of job %s: %w", j.ID, err)
	}
	// It waits for the pool its stopped source holds until the source's
	// partial finalize ends it.
	if err := s.schedule(ctx, next); err != nil {
		return true, true, fmt.Errorf("start job %s: %w", next.ID, err)
	}
	return true, true, nil
}
