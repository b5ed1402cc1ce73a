package jobs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// The active index (docs/jobs.md, "Stuck jobs"): every job pending or
// running is on gsi3 of the jobs table, a sparse index, under one partition
// ActivePK, sorted by its last progress:
//
//	gsi3pk = ACTIVE#JOB, gsi3sk = <progress, ms, 20 digits>#<id>
//
// The progress stamp is the creation at first (for a job waiting for its
// pool, the moment it gets the lease), the start (pending → running), then the engine's last closed task, batch or step, written at
// most once per ProgressEvery. Every terminal transition removes both
// attributes (docOp), so the index holds only the jobs that have not
// ended. The periodic sweep reads it from its oldest stamp up to a cutoff:
// it reads the jobs that made no progress for that long, never the table.

// ActiveIndex is the index of the jobs that have not ended.
const ActiveIndex = "gsi3"

// ActivePK is the partition of ActiveIndex.
const ActivePK = "ACTIVE#JOB"

// ProgressEvery is how often at most a job's progress stamp is written:
// the engine rewrites it only when it is older, so that a busy job costs
// the index one write a minute, not one per task.
const ProgressEvery = time.Minute

// ProgressSK is the sort key of the active index for a job whose last
// progress was at t.
func ProgressSK(id string, t time.Time) string { return store.Padded(t.UnixMilli()) + "#" + id }

// lastProgress is the job's last progress as its item records it, and false
// when the item is not on the active index (ended, or written before the
// index existed).
func lastProgress(it store.Item) (time.Time, bool) {
	if it.String("gsi3pk") != ActivePK {
		return time.Time{}, false
	}
	ms, _, ok := strings.Cut(it.String("gsi3sk"), "#")
	if !ok {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return msTime(n), true
}

// Progressed adds to u the job's progress stamp at now when the one its
// item (as read) records is ProgressEvery old or more. A job off the index
// (ended) is left off it: the caller's condition on the job's status
// keeps a stamp from coming back on an ended job.
func Progressed(u store.Update, it store.Item, id string, now time.Time) store.Update {
	last, ok := lastProgress(it)
	if !ok || now.Sub(last) < ProgressEvery {
		return u
	}
	return u.Set("gsi3sk", ProgressSK(id, now))
}

// activeAttrs are the index attributes of a job created pending (or
// running), stamped with its creation.
func activeAttrs(j *Job) (pk, sk string, ok bool) {
	if !j.Status.Active() {
		return "", "", false
	}
	if _, _, queued := queueAttrs(j); queued {
		// Waiting for its pool may take hours: it goes on the index
		// when it gets the lease (acquire).
		return "", "", false
	}
	return ActivePK, ProgressSK(j.ID, j.Created), true
}

// unactive removes a job from the active index (the terminal transitions).
func unactive(u store.Update) store.Update { return u.Remove("gsi3pk").Remove("gsi3sk") }

// Stale is a job of the active index with no progress since Since.
type Stale struct {
	Job    *Job
	Record Record
	// Since is its last progress.
	Since time.Time
}

// StaleJobs calls fn with the jobs whose last progress is before cutoff,
// oldest first, at most limit of them: an index query from the oldest
// stamp, never a scan. fn returns store.ErrStop to stop early.
func StaleJobs(ctx context.Context, db store.DB, cutoff time.Time, limit int, fn func(Stale) error) error {
	n := 0
	err := store.ForEach(ctx, db.Table(Table), store.Query{
		Index: ActiveIndex, PK: ActivePK, SK: store.SortCond{Op: store.SortLt, Value: store.Padded(cutoff.UnixMilli())},
		Limit: limit,
	}, func(it store.Item) error {
		if n == limit {
			return store.ErrStop
		}
		n++
		since, ok := lastProgress(it)
		if !ok {
			return nil
		}
		j, err := fromItem(it)
		if err != nil {
			return err
		}
		return fn(Stale{Job: j, Record: Record{it}, Since: since})
	})
	if err != nil {
		return fmt.Errorf("stale jobs: %w", err)
	}
	return nil
}
