package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/placerow"
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
// in the transaction of its failure (the record keeps what was given
// back, so that nothing is given twice: jobs.ReportOp, jobs.FailRefund).
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
func (e *Engine) afterClose(ctx context.Context, j *jobs.Job, after jobs.Record) error {
	answered, failed := after.Answered(), after.Failed()
	if answered == 0 && failed >= int64(e.d.FailFastAfter) {
		return e.failJob(ctx, j.ID, fmt.Sprintf("Nothing could be done: the first %d %s failed (%s).",
			failed, units(j), after.LastError()))
	}
	if after.OpenTasks() != 0 {
		return nil
	}
	return e.closeOut(ctx, j, after)
}

// closeOut ends a job with no task open: failed when none of its units
// was answered, else its failures reported and its finalize sent.
func (e *Engine) closeOut(ctx context.Context, j *jobs.Job, after jobs.Record) error {
	answered, failed := after.Answered(), after.Failed()
	if failed > 0 && answered == 0 {
		return e.failJob(ctx, j.ID, fmt.Sprintf("Nothing could be done: %d of %d %s failed (%s).",
			failed, failed, units(j), after.LastError()))
	}
	if failed > 0 {
		if err := e.reportFailures(ctx, j, answered, failed, after.LastError()); err != nil {
			return err
		}
	}
	return e.send(ctx, message{Kind: kindFinalize, Job: j.ID})
}

// reportFailures writes, once, the log line of a job ending with some
// units failed, and refunds a scrape their share of its charge.
func (e *Engine) reportFailures(ctx context.Context, j *jobs.Job, answered, failed int64, why string) error {
	refund := 0.0
	if j.JobType == jobs.TypeScrap {
		refund = pricing.Refund(j.EFCost, float64(answered+failed), int(answered))
	}
	ops := []store.TxOp{jobs.ReportOp(j, cents(refund))}
	if refund > 0 {
		ops = append(ops, accounts.RefundOp(j.UserID, chargeMonth(j), refund))
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
// report gave back. The condition makes the refund once: the refund
// recorded is as read.
func (e *Engine) failRefund(j *jobs.Job, read jobs.Record) (u store.Update, cond *store.Cond, ef float64) {
	if j.JobType != jobs.TypeScrap || j.EFCost <= 0 {
		return nil, nil, 0
	}
	answered, failed := read.Answered(), read.Failed()
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
	// The refund holds for the counts as read: a task closing meanwhile
	// (answered grows) or a report refunding makes the transaction fail,
	// and failJob reads again.
	u, cond, due := jobs.FailRefund(read, cents(pricing.Refund(j.EFCost, planned, int(answered))))
	return u, cond, float64(due) / 100
}

func cents(ef float64) int64 { return int64(ef*100 + 0.5) }

// chargeMonth is the month a job was charged in: its creation's.
func chargeMonth(j *jobs.Job) string { return j.Created.UTC().Format("2006-01") }

// minutes is d in whole minutes, rounded.
func minutes(d time.Duration) int { return int(d.Round(time.Minute) / time.Minute) }
