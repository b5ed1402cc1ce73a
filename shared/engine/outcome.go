package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/prospectdata/svc/shared/placerow"
	"time"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/store"
)

// A run that failed says so (doc.go, "Failures"). The job's item counts its
// units, the searches of a scrape or the items of an item job, as each
// task or batch closes:
//
//   - units_answered: the units the provider (or the module) answered;
//   - units_failed: the units that failed for good (a search still failing
//     after its retries, the units of a task or batch given up);
//   - last_error: the cause of the last failure, for the messages below.
//
// A job whose units all failed ends failed, never done with an empty
// output; so does one whose first FailFastAfter units failed with none
// answered (the provider is down or refuses the account: the rest would
// fail alike). A job done with some units failed says how many in its log,
// once (failures_reported), and a scrape is refunded their share of its
// charge in the same transaction (pricing.Refund, docs/pricing.md). A
// scrape that fails is refunded the searches it did not have answered,
// in the transaction of its failure (refund_cents records what was given
// back, so that nothing is given twice).
const (
	attrAnswered  = "units_answered"
	attrFailed    = "units_failed"
	attrLastError = "last_error"
	attrReported  = "failures_reported"
	attrRefund    = "refund_cents"
)

// maxCause caps the cause kept in last_error and quoted in messages.
const maxCause = 300

// cause is an error as the user reads it: its text, on one line, cut.
func cause(err error) string {
	if err == nil {
		return "unknown error"
	}
	return truncate(placerow.OneLine(err.Error()), maxCause)
}

// units names a job's units in messages.
func units(j *jobs.Job) string {
	if jobs.ItemModule(j.JobType) {
		return "items"
	}
	return "searches"
}

// afterClose is what follows a closed (or given up) task or batch, from
// the job's item read after it: the job fails when its first FailFastAfter
// units all failed, and ends (closeOut) when no task is open.
func (e *Engine) afterClose(ctx context.Context, j *jobs.Job, after store.Item) error {
	answered, failed := after.Int(attrAnswered), after.Int(attrFailed)
	if answered == 0 && failed >= int64(e.d.FailFastAfter) {
		return e.failJob(ctx, j.ID, fmt.Sprintf("Nothing could be done: the first %d %s failed (%s).",
			failed, units(j), after.String(attrLastError)))
	}
	if after.Int(attrOpenTasks) != 0 {
		return nil
	}
	return e.closeOut(ctx, j, after)
}

// closeOut ends a job with no task open: failed when none of its units
// was answered, else its failures reported and its finalize sent.
func (e *Engine) closeOut(ctx context.Context, j *jobs.Job, after store.Item) error {
	answered, failed := after.Int(attrAnswered), after.Int(attrFailed)
	if failed > 0 && answered == 0 {
		return e.failJob(ctx, j.ID, fmt.Sprintf("Nothing could be done: %d of %d %s failed (%s).",
			failed, failed, units(j), after.String(attrLastError)))
	}
	if failed > 0 {
		if err := e.reportFailures(ctx, j, answered, failed, after.String(attrLastError)); err != nil {
			return err
		}
	}
	return e.send(ctx, message{Kind: kindFinalize, Job: j.ID})
}

// reportFailures writes, once, the log line of a job ending with some
// units failed, and refunds a scrape their share of its charge.
func (e *Engine) reportFailures(ctx context.Context, j *jobs.Job, answered, failed int64, why string) error {
	refund := 0.0
	u := store.Update{}.Set(attrReported, true)
	if j.JobType == jobs.TypeScrap {
		refund = pricing.Refund(j.EFCost, float64(answered+failed), int(answered))
		u = u.Set(attrRefund, cents(refund))
	}
	ops := []store.TxOp{store.UpdateOp(jobs.Table, jobs.Key(j.ID), u,
		store.And(store.Eq("status", string(jobs.Running)), store.NotExists(attrReported), store.NotExists(attrRefund)))}
	if refund > 0 {
		ops = append(ops, pricing.RefundOp(j.UserID, chargeMonth(j), refund))
	}
	err := e.d.DB.Transact(ctx, ops...)
	var txErr *store.TxConditionError
	if errors.As(err, &txErr) {
		return nil // reported by another delivery, or the job ended
	}
	if err != nil {
		return fmt.Errorf("report the failures of job %s: %w", j.ID, err)
	}
	total := answered + failed
	en := fmt.Sprintf("%d of %d %s failed: %s.", failed, total, units(j), why)
	fr := fmt.Sprintf("%d %s sur %d en échec : %s.", failed, unitsFR(j), total, why)
	if refund > 0 {
		en += fmt.Sprintf(" %s EF refunded for them.", pricing.FormatEF(refund))
		fr += fmt.Sprintf(" %s EF remboursés pour celles-ci.", pricing.FormatEF(refund))
	}
	e.log(ctx, j, true, en, fr)
	return nil
}

func unitsFR(j *jobs.Job) string {
	if jobs.ItemModule(j.JobType) {
		return "éléments"
	}
	return "recherches"
}

// failRefund is what a failing job's transaction adds for its refund: the
// EF of the searches of a scrape that were not answered (of those its
// charge assumed, or those it made when more), less what an earlier
// report gave back. The condition makes the refund once: refund_cents is
// as read.
func (e *Engine) failRefund(j *jobs.Job, it store.Item) (u store.Update, cond *store.Cond, ef float64) {
	if j.JobType != jobs.TypeScrap || j.EFCost <= 0 {
		return nil, nil, 0
	}
	answered, failed := it.Int(attrAnswered), it.Int(attrFailed)
	planned := float64(answered + failed)
	if j.ExpectedSearches > 0 {
		// What the charge assumed, priced by the densities learnt.
		planned = max(planned, j.ExpectedSearches)
	} else if mode, ok := pricing.ParseMode(j.ScrapMode); ok {
		var stopAt int64
		if j.StopAt != nil {
			stopAt = *j.StopAt
		}
		est := pricing.Compute(pricing.Params{Tiles: j.GridPointsCount, Queries: len(j.Queries), Mode: mode,
			IncludeReviews: j.IncludeReviews, StopAt: stopAt})
		planned = max(planned, est.ExpectedSearches)
	}
	total := cents(pricing.Refund(j.EFCost, planned, int(answered)))
	// The refund holds for the counts as read: a task closing meanwhile
	// (answered grows) or a report refunding (refund_cents) makes the
	// transaction fail, and failJob reads again.
	cond = store.And(asRead(it, attrRefund), asRead(it, attrAnswered))
	due := total - it.Int(attrRefund)
	if due <= 0 {
		return nil, cond, 0
	}
	return store.Update{}.Set(attrRefund, total), cond, float64(due) / 100
}

// asRead is the condition that attribute a is still as it was read.
func asRead(it store.Item, a string) *store.Cond {
	if v, ok := it[a]; ok {
		return store.Eq(a, v)
	}
	return store.NotExists(a)
}

func cents(ef float64) int64 { return int64(ef*100 + 0.5) }

// chargeMonth is the month a job was charged in: its creation's.
func chargeMonth(j *jobs.Job) string { return j.Created.UTC().Format("2006-01") }

// stampProgress adds the job's progress stamp to u (jobs.Progressed).
func (e *Engine) stampProgress(u store.Update, j *jobs.Job, jit store.Item) store.Update {
	return jobs.Progressed(u, jit, j.ID, e.d.Now())
}

// minutes is d in whole minutes, rounded.
func minutes(d time.Duration) int { return int(d.Round(time.Minute) / time.Minute) }
