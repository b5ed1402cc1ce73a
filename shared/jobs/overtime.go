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
// resumed automatically, no call needed"): in one transaction the job
// fails with a message naming its continuation, and a resume over the base
// tiles it left is created in pending, taking the slot the job gives back
// and charged nothing (those tiles were paid for). The first worker to see
// the job overdue does it; the others find it failed. stopped is false
// when the job goes on (not overdue, or nothing left to resume).
func (s *Service) Overtime(ctx context.Context, j *Job) (stopped bool, err error) {
	if !Overdue(j, s.d.Now()) {
		return false, nil
	}
	set, p, err := s.plan(requestOf(j))
	if err != nil {
		return false, err
	}
	remaining, err := s.remainingRoots(ctx, j, p.Grid.Len())
	if err != nil {
		return false, err
	}
	if len(remaining) == 0 {
		return false, nil // every tile is searched: let it finish
	}
	next := newJob(j.UserID, set, p, s.d.Now(), j.Source)
	next.GridPointsCount, next.EFCost, next.Roots, next.SourceJobID = len(remaining), 0, remaining, &j.ID
	it, err := item(next)
	if err != nil {
		return false, err
	}
	msg := fmt.Sprintf("Durée maximale de 24 h atteinte : le job continue dans %s. / Maximum run time of 24 hours reached: the job continues as %s.", next.ID, next.ID)
	ops, err := FailOps(j, s.d.Now(), msg)
	if err != nil {
		return false, err
	}
	// The continuation takes over the job's slot of the concurrent-job
	// limit: FailOps' release (its second operation) is left out rather
	// than undone by a second update of the same item, which a
	// transaction may not hold.
	ops = append(ops[:1:1], ops[2:]...)
	ops = append(ops,
		store.PutOp(Table, it, store.NotExists("pk")),
		store.PutOp(Table, store.Item{"pk": resumeKey(j.ID).PK, "sk": "RESUME", "job": next.ID, "active": true}, nil),
	)
	if err := Transition(ctx, s.d.DB, 0, ops...); err != nil {
		if errors.Is(err, ErrTransition) {
			return true, nil // another worker stopped it (or it ended)
		}
		return false, fmt.Errorf("overtime of job %s: %w", j.ID, err)
	}
	if s.d.OnTerminal != nil {
		s.d.OnTerminal(ctx, j)
	}
	if s.d.Started != nil {
		if err := s.d.Started(ctx, next); err != nil {
			return true, fmt.Errorf("start job %s: %w", next.ID, err)
		}
	}
	return true, nil
}
