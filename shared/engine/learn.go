package engine

import (
	"context"
	"strconv"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/store"
)

// seen is what one query's unsaturated searches of a task listed, and the
// people of their tiles (scrape.Plan.People).
type seen struct {
	places, people int64
}

// The job item's counters of what its searches saw, per query index:
// seen_places_<i>, seen_people_<i>, ADDed by each task's transaction.
func seenPlacesAttr(q int) string { return "seen_places_" + strconv.Itoa(q) }
func seenPeopleAttr(q int) string { return "seen_people_" + strconv.Itoa(q) }

// addSeen adds a task's seen counts to the job item's update.
func addSeen(u store.Update, s map[int]seen) store.Update {
	for q, v := range s {
		u = u.Add(seenPlacesAttr(q), v.places).Add(seenPeopleAttr(q), v.people)
	}
	return u
}

// learn hands what a done scrape's searches saw to the densities
// (Deps.Densities), query by query, so that the next estimate of those
// queries knows how common their places are. A failure is logged, never
// the job's: its rows are written, and one job's lesson is not worth a
// retry of its finalize.
func (e *Engine) learn(ctx context.Context, j *jobs.Job, jit store.Item) {
	if e.d.Densities == nil || j.JobType != jobs.TypeScrap {
		return
	}
	for i, q := range j.Queries {
		places, people := jit.Int(seenPlacesAttr(i)), jit.Int(seenPeopleAttr(i))
		if err := e.d.Densities.Learn(ctx, j.Country, q, places, people); err != nil {
			e.d.Log.Warn("engine: densities not learnt", "job", j.ID, "query", q, "err", err)
		}
	}
}
