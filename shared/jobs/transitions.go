package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// The state transitions the scrape engine (shared/engine) makes, as
// transaction operations on the job's item, so that the engine adds its own
// writes (the task ledger, counters) to the same transaction.
//
// The job's document is rewritten by a transition: its other fields only
// change in transitions, each conditional on the state it leaves, and its
// counters are read from their top-level attributes (which the transition
// leaves alone unless extra says otherwise), so a concurrent ADD of a
// worker is never lost.

// Key is the key of the job's item.
func Key(id string) store.Key { return jobKey(id) }

// ActiveKey is the key of the account's active-job count.
func ActiveKey(uid int64) store.Key { return activeKey(uid) }

// Decode reads a job item (as Get returns it).
func Decode(it store.Item) (*Job, error) { return fromItem(it) }

// ErrTransition reports a transition whose job was not in the state it
// leaves (store.ErrConditionFailed on the job's operation).
var ErrTransition = errors.New("jobs: job not in the state the transition leaves")

// startOp is pending → running: status, started_at, and the extra actions
// (the open-task count), on condition that the job is pending.
func startOp(j *Job, now time.Time, extra store.Update) (store.TxOp, error) {
	next := *j
	next.Status = Running
	t := formatTime(now)
	next.StartedAt = &t
	// Its stamp on the active index: the start is progress.
	extra = append(store.Update{}.Set("gsi3pk", ActivePK).Set("gsi3sk", ProgressSK(j.ID, now)), extra...)
	op, err := docOp(&next, extra, store.Eq("status", string(Pending)))
	if err != nil {
		return op, err
	}
	*j = next
	return op, nil
}

// DoneOps is running → done: status and completed_at, with the outputs the
// caller set on j (breakdown, query_stats, dead_queries, output_filename,
// download_available, results_count), on condition that the job is
// running; and the release of the account's slot of the concurrent-job
// limit. The job's operation is first.
func DoneOps(j *Job, now time.Time, extra store.Update) ([]store.TxOp, error) {
	next := *j
	next.Status = Done
	t := formatTime(now)
	next.CompletedAt = &t
	extra = extra.Set("results_count", int64(next.ResultsCount))
	op, err := docOp(&next, extra, store.Eq("status", string(Running)))
	if err != nil {
		return nil, err
	}
	*j = next
	return withResume(j, op, releaseOp(j.UserID)), nil
}

// withResume adds, for a resume, the clearing of its source's marker.
func withResume(j *Job, ops ...store.TxOp) []store.TxOp {
	if op, ok := resumeDoneOp(j); ok {
		ops = append(ops, op)
	}
	return ops
}

// FailOps is pending or running → failed with the message: status,
// completed_at and error_message, and the release of the slot. The job's
// operation is first.
func FailOps(j *Job, now time.Time, msg string) ([]store.TxOp, error) {
	return FailOpsWith(j, now, msg, nil, nil)
}

// FailOpsWith is FailOps with the caller's actions on the job's item
// (extra) and a condition added to its own (also; nil for none): the
// engine refunds a failed scrape's unanswered searches in the same
// transaction, once.
func FailOpsWith(j *Job, now time.Time, msg string, extra store.Update, also *store.Cond) ([]store.TxOp, error) {
	next := *j
	next.Status = Failed
	t := formatTime(now)
	next.CompletedAt = &t
	next.ErrorMessage = &msg
	cond := store.Or(store.Eq("status", string(Pending)), store.Eq("status", string(Running)))
	if also != nil {
		cond = store.And(cond, also)
	}
	op, err := docOp(&next, extra, cond)
	if err != nil {
		return nil, err
	}
	*j = next
	return withResume(j, op, releaseOp(j.UserID)), nil
}

// Transition applies ops (from Start, DoneOps, FailOps, with the
// caller's own), mapping a failed condition on the job's operation, at
// index jobOp, to ErrTransition.
func Transition(ctx context.Context, db store.DB, jobOp int, ops ...store.TxOp) error {
	err := db.Transact(ctx, ops...)
	var txErr *store.TxConditionError
	if errors.As(err, &txErr) && txErr.Index == jobOp {
		return fmt.Errorf("%w: %w", ErrTransition, err)
	}
	return err
}

// docOp rewrites the job's status and document. Every transition leaves
// pending or running, so it also takes the job out of its pool's queue
// (where a job waiting for the lease is; removing absent attributes is a
// no-op), and a terminal one out of the active index.
func docOp(j *Job, extra store.Update, cond *store.Cond) (store.TxOp, error) {
	doc, err := json.Marshal(j)
	if err != nil {
		return store.TxOp{}, fmt.Errorf("encode job %s: %w", j.ID, err)
	}
	u := unqueue(store.Update{}.Set("status", string(j.Status)).Set("doc", string(doc)))
	if j.Status.Terminal() {
		u = unactive(u)
	}
	u = append(u, extra...)
	return store.UpdateOp(Table, jobKey(j.ID), u, store.And(store.Exists("pk"), cond)), nil
}

// releaseOp gives back the account's slot of the concurrent-job limit.
// It has no condition: a terminal transition must not fail on the count,
// which only the creation (+1, n < MaxActive) and the terminal transitions
// (−1, exactly once per job, by their condition on the job's state) change.
func releaseOp(uid int64) store.TxOp {
	return store.UpdateOp(Table, activeKey(uid), store.Update{}.Add("n", -1), nil)
}

// PartialOps keeps a stopped job's partial output (engine salvage): its
// rows count, output name and download, the status unchanged (cancelled
// or failed) and the condition that it still is.
func PartialOps(j *Job) ([]store.TxOp, error) {
	op, err := docOp(j, store.Update{}.Set("results_count", int64(j.ResultsCount)), store.Eq("status", string(j.Status)))
	if err != nil {
		return nil, err
	}
	return []store.TxOp{op}, nil
}
