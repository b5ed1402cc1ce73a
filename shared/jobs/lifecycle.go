package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/store"
)

// CancelOps is pending or running → cancelled: status and completed_at,
// and the release of the slot. The job's operation is first.
func CancelOps(j *Job, now string) ([]store.TxOp, error) {
	next := *j
	next.Status = Cancelled
	next.CompletedAt = &now
	op, err := docOp(&next, nil, store.Or(store.Eq("status", string(Pending)), store.Eq("status", string(Running))))
	if err != nil {
		return nil, err
	}
	*j = next
	return withResume(j, op, releaseOp(j.UserID)), nil
}

func errTerminal(j *Job) error {
	return apperr.New(apperr.Invalid,
		fmt.Sprintf("Le job est déjà terminé (« %s ») : il ne peut plus être annulé.", j.Status),
		fmt.Sprintf("The job has already ended (%s): it can no longer be cancelled.", j.Status))
}

// Cancel cancels the user's pending or running job (POST
// /api/jobs/{id}/cancel): 400 when it has already ended. The engine drops
// the job's remaining tasks when it meets them. pipelineCancelled says the
// cancellation closed the job's pipeline (a stage cancelled before it
// started, with no other stage active).
func (s *Service) Cancel(ctx context.Context, uid int64, id string) (pipelineCancelled bool, err error) {
	j, err := s.Get(ctx, uid, id)
	if err != nil {
		return false, err
	}
	if j.Status.Terminal() {
		return false, errTerminal(j)
	}
	ops, err := CancelOps(j, formatTime(s.d.Now()))
	if err != nil {
		return false, err
	}
	if err := Transition(ctx, s.d.DB, 0, ops...); err != nil {
		if errors.Is(err, ErrTransition) {
			// It ended between the read and the write.
			if cur, gerr := s.Get(ctx, uid, id); gerr == nil {
				return false, errTerminal(cur)
			}
		}
		return false, fmt.Errorf("cancel job %s: %w", id, err)
	}
	closed := j.PipelineID != nil && s.stages != nil && s.stages.StageCancelled(ctx, j)
	s.Ended(ctx, j)
	if j.StartedAt != nil && s.runner != nil {
		// Its partial output comes a moment later (a pipeline's next step
		// is told then).
		if err := s.runner.Salvage(ctx, j); err != nil && s.d.Log != nil {
			s.d.Log.WarnContext(ctx, "partial output of a cancelled job not asked for", "job", j.ID, "err", err)
		}
	}
	return closed, nil
}

// Delete removes the user's job and its output (DELETE /api/jobs/{id}):
// 400 while it runs. A pending job gives its slot back in the same
// transaction that deletes it.
func (s *Service) Delete(ctx context.Context, uid int64, id string) error {
	j, err := s.Get(ctx, uid, id)
	if err != nil {
		return err
	}
	switch j.Status {
	case Running:
		return apperr.New(apperr.Invalid, "Le job est en cours : annule-le avant de le supprimer.",
			"The job is running: cancel it before deleting it.")
	case Pending:
		err = s.d.DB.Transact(ctx, withResume(j,
			store.DeleteOp(Table, jobKey(id), store.Eq("status", string(Pending))), releaseOp(uid))...)
	default:
		err = s.d.DB.Table(Table).Delete(ctx, jobKey(id), store.Eq("status", string(j.Status)))
	}
	if errors.Is(err, store.ErrConditionFailed) {
		return apperr.New(apperr.Invalid, "Le job vient de changer d'état : réessaie.", "The job just changed state: retry.")
	}
	if err != nil {
		return fmt.Errorf("delete job %s: %w", id, err)
	}
	// The job is gone for the API; its engine records and files follow.
	if err := store.ForEach(ctx, s.d.DB.Table(Table), store.Query{PK: jobKey(id).PK}, func(it store.Item) error {
		return s.d.DB.Table(Table).Delete(ctx, store.Key{PK: it.String("pk"), SK: it.String("sk")}, nil)
	}); err != nil {
		return fmt.Errorf("delete records of job %s: %w", id, err)
	}
	if err := s.deleteFiles(ctx, j); err != nil {
		return fmt.Errorf("delete files of job %s: %w", id, err)
	}
	if pool := poolOf(j); pool != "" && j.Status == Pending {
		// It may have held its pool's lease, its start on its way.
		if err := s.Promote(ctx, pool); err != nil {
			return err
		}
	}
	return nil
}
