package engine

import (
	"context"
	"errors"
	"sync"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/placerow"
	"github.com/prospectdata/svc/shared/provider"
)

// fetchReviews reads the latest reviews of the task's rows into them, all
// at once (each request waits for a provider slot), retrying transient
// failures like searches. rows hold one row per place id, so no place is
// fetched twice within a task. Rows that cannot be in the output (a
// foreign number under exclude_foreign_phones) and places listing no
// review (reviews_count 0) are not asked. It returns the requests made
// and the places whose reviews could not be read (their rows stay,
// without reviews); err when ctx ended, or a permanent error when the
// provider refused a request (provider.ErrRefused).
func (e *Engine) fetchReviews(ctx context.Context, j *jobs.Job, rows []Row) (attempts, failed int, err error) {
	n := make([]int, len(rows))
	fail := make([]bool, len(rows))
	refused := make([]error, len(rows))
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
			if errors.Is(err, provider.ErrRefused) {
				refused[i] = err
				return
			}
			if err != nil {
				fail[i] = true
				if ctx.Err() == nil {
					e.d.Log.Warn("engine: reviews failed", "job", j.ID, "place", r.PlaceID, "err", err)
				}
				return
			}
			r.SetReviews(rs)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	for _, err := range refused {
		if err != nil {
			// As a refused search: no retry mends it, the job fails at
			// once (its reviews were asked for, they cannot be had).
			return 0, 0, permanent("The map provider refused the job's review requests ("+cause(err)+").", err)
		}
	}
	for i := range rows {
		attempts += n[i]
		if fail[i] {
			failed++
		}
	}
	return attempts, failed, nil
}
