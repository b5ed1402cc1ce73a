package engine

import (
	"context"
	"github.com/prospectdata/svc/shared/placerow"
	"sync"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider"
)

// fetchReviews reads the latest reviews of the task's rows into them, all
// at once (each request waits for a provider slot), retrying transient
// failures like searches. rows hold one row per place id, so no place is
// fetched twice within a task. Rows that cannot be in the output (a
// foreign number under exclude_foreign_phones) and places listing no
// review (reviews_count 0) are not asked. It returns the requests made
// and the places whose reviews could not be read (their rows stay,
// without reviews); err only when ctx ended.
func (e *Engine) fetchReviews(ctx context.Context, j *jobs.Job, rows []Row) (attempts, failed int, err error) {
	n := make([]int, len(rows))
	fail := make([]bool, len(rows))
	var wg sync.WaitGroup
	for i := range rows {
		r := &rows[i]
		if r.Reviews <= 0 || j.ExcludeForeignPhones && r.PhoneForeign {
			continue
		}
		wg.Go(func() {
			rs, tries, err := withRetries(ctx, e, func(ctx context.Context) ([]provider.Review, error) {
				return e.d.Provider.Reviews(ctx, r.PlaceID, placerow.MaxReviews)
			})
			n[i] = tries
			if err != nil {
				fail[i] = true
				if ctx.Err() == nil {
					e.d.Log.Warn("engine: reviews failed", "job", j.ID, "place", r.PlaceID, "err", err)
				}
				return
			}
			if len(rs) > placerow.MaxReviews {
				rs = rs[:placerow.MaxReviews]
			}
			r.LatestReviews = rs
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	for i := range rows {
		attempts += n[i]
		if fail[i] {
			failed++
		}
	}
	return attempts, failed, nil
}
