package engine

import (
	"context"

	"github.com/prospectdata/svc/shared/jobs"
)

// seen is what one query's unsaturated searches of a task listed, and the
// people of their tiles (scrape.Plan.People).
type seen struct {
	places, people int64
}

// learn hands what a done scrape's searches saw to the densities
// (Deps.Densities), query by query, so that the next estimate of those
// queries knows how common their places are. A failure is logged, never
// the job's: its rows are written, and one job's lesson is not worth a
// retry of its finalize.
func (e *Engine) learn(ctx context.Context, j *jobs.Job, rec jobs.Record) {
	if e.d.Densities == nil || j.JobType != jobs.TypeScrap {
		return
	}
	for i, q := range j.Queries {
		s := rec.Seen(i)
		if err := e.d.Densities.Learn(ctx, j.Country, q, s.Places, s.People); err != nil {
			e.d.Log.Warn("engine: densities not learnt", "job", j.ID, "query", q, "err", err)
		}
	}
}
