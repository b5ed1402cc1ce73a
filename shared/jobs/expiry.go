package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// PastExpiry tells whether a job's output is past its expires_at at now,
// whether or not a read has moved it to expired yet: a worker about to
// write a file of it leaves it alone.
func PastExpiry(j *Job, now time.Time) bool {
	exp, err := time.Parse(timeFmt, j.ExpiresAt)
	return err == nil && !now.Before(exp)
}

// expireIfDue moves a finished job past its expires_at to expired and
// deletes its output (spec: an expired output answers 410). It runs when
// the job is read, so no sweeper is needed for what users see; the files
// bucket's lifecycle rule (31 days) removes what no one read again. A job
// still pending or running never expires: its expires_at moves on resume.
func (s *Service) expireIfDue(ctx context.Context, j *Job) error {
	if j.Status.Active() || j.Status == Expired || !PastExpiry(j, s.d.Now()) {
		return nil
	}
	next := *j
	next.Status = Expired
	next.DownloadAvailable = false
	op, err := docOp(&next, nil, store.Eq("status", string(j.Status)))
	if err != nil {
		return err
	}
	err = s.d.DB.Transact(ctx, op)
	if errors.Is(err, store.ErrConditionFailed) {
		return nil // another reader expired it, or it changed: the next read sees it
	}
	if err != nil {
		return fmt.Errorf("expire job %s: %w", j.ID, err)
	}
	*j = next
	if s.d.Files != nil {
		// The job's directory only: its re-hosted assets stay (AssetKey).
		if err := s.d.Files.DeletePrefix(ctx, "jobs/"+j.ID+"/"); err != nil {
			return fmt.Errorf("delete output of expired job %s: %w", j.ID, err)
		}
	}
	return nil
}
