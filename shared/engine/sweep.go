package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/store"
)

// The sweep of stuck jobs (docs/jobs.md, "Stuck jobs"). Every message a
// worker cannot finish ends in a give-up; what still escapes it (a message
// lost, a give-up whose writes failed on every delivery, a worker that
// vanished while it held the proxy pool) leaves a job that makes no
// progress. The periodic sweep message (SweepMessage, every minute) reads
// the active index from its oldest progress stamp (jobs.StaleJobs, never a
// scan) and fails each job that made no progress for longer than the
// redelivery chain of the message it waits for, plus StuckMargin:
//
//   - a job pending (its start) or with tile tasks open: the chain of
//     the tasks queue;
//   - an item job with batches open: the chain of the item queue;
//   - anything else (a single run, a finalize): the longest chain of
//     Redelivery.
//
// The failure goes through failJob: error_message, the refund of a
// scrape's unanswered searches, OnTerminal (the pool's lease released and
// the next job promoted, job.failed in the event log), the salvage of what
// it had done. Its own time is counted from the sweeps that saw it: the
// sweep keeps when sweeps started to run without a gap (an item
// SWEEP#jobs / SWEEP), so that a local runtime stopped overnight does not
// fail every job it had running when it starts again.

// sweepLook bounds the stale jobs one sweep reads, sweepFail those it
// fails: the next sweep, a minute later, goes on.
const (
	sweepLook = 200
	sweepFail = 25
)

// sweepGap: sweeps further apart than this mean the service was stopped.
const sweepGap = 5 * time.Minute

// handleSweep runs the periodic repairs: the stuck jobs, then OnSweep (the
// pool's lease).
func (e *Engine) handleSweep(ctx context.Context) error {
	err := e.sweepStuck(ctx)
	if e.d.OnSweep != nil {
		err = errors.Join(err, e.d.OnSweep(ctx))
	}
	return err
}

// Sweep runs the periodic repairs at once (SweepMessage's handling).
func (e *Engine) Sweep(ctx context.Context) error { return e.handleSweep(ctx) }

// sweepStuck fails the jobs stuck for longer than their bound.
func (e *Engine) sweepStuck(ctx context.Context) error {
	now := e.d.Now()
	watched, err := e.watchedSince(ctx, now)
	if err != nil {
		return err
	}
	shortest := e.chain(e.d.QueueName)
	for _, q := range []string{e.d.ItemQueue, e.d.SingleQueue} {
		shortest = min(shortest, e.chain(q))
	}
	cutoff := now.Add(-shortest - e.d.StuckMargin)
	if watched.After(cutoff) {
		return nil // the sweeps have not watched any job long enough
	}
	var stuck []jobs.Stale
	err = jobs.StaleJobs(ctx, e.d.DB, cutoff, sweepLook, func(s jobs.Stale) error {
		bound := e.stuckAfter(s.Job, s.Record)
		if now.Sub(s.Since) < bound || now.Sub(watched) < bound {
			return nil
		}
		if s.Record.Queued() {
			return nil // waiting for its pool, not stuck (the index does not hold them: an old item)
		}
		stuck = append(stuck, s)
		if len(stuck) == sweepFail {
			return store.ErrStop
		}
		return nil
	})
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range stuck {
		idle := now.Sub(s.Since)
		e.d.Log.Error("engine: a stuck job fails", "job", s.Job.ID, "status", s.Job.Status, "idle", idle,
			"open", s.Record.OpenTasks())
		msg := fmt.Sprintf("The job made no progress for %d minutes and was stopped: a worker stopped without recording its work.", minutes(idle))
		if s.Job.Status == jobs.Pending {
			msg = fmt.Sprintf("The job could not be started: it waited %d minutes for a worker.", minutes(idle))
		}
		if err := e.failJob(ctx, s.Job.ID, msg); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// watchedSince is since when sweeps have run without a gap, now included.
func (e *Engine) watchedSince(ctx context.Context, now time.Time) (time.Time, error) {
	return jobs.WatchedSince(ctx, e.d.DB, now, sweepGap)
}

// chain is the redelivery chain of a queue's messages.
func (e *Engine) chain(q string) time.Duration {
	if d, ok := e.d.Redelivery[q]; ok && d > 0 {
		return d
	}
	return time.Duration(e.d.GiveUpAfter+1) * e.d.Visibility
}

// longestChain is the longest of the queues' chains.
func (e *Engine) longestChain() time.Duration {
	longest := max(e.chain(e.d.QueueName), e.chain(e.d.ItemQueue), e.chain(e.d.SingleQueue))
	for _, d := range e.d.Redelivery {
		longest = max(longest, d)
	}
	return longest
}

// stuckAfter is how long a job may make no progress before the sweep
// fails it: the chain of the message it waits for, plus StuckMargin.
func (e *Engine) stuckAfter(j *jobs.Job, rec jobs.Record) time.Duration {
	open := rec.OpenTasks()
	var wait time.Duration
	switch {
	case j.Status == jobs.Pending:
		wait = e.chain(e.d.QueueName)
	case open > 0 && jobs.ItemModule(j.JobType):
		wait = e.chain(e.d.ItemQueue)
	case open > 0 && e.d.Runners[j.JobType] == nil && e.d.CSVRunners[j.JobType] == nil:
		wait = e.chain(e.d.QueueName)
	default:
		wait = e.longestChain()
	}
	return wait + e.d.StuckMargin
}
