package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/jobs"
)

// Single-run jobs (delivery_check, viewport_test, sirene) are one call:
// the start moves the job to running and sends one "single" message to
// the sources queue (SingleQueue); its handling
// runs the job's Runner, writes the result file (jobs.ResultKey) and
// closes the job done. They have no CSV: their items and download routes
// answer 400, their result route reads the file (docs/data-sources.md).

// Runner runs a single-run job of one type.
type Runner interface {
	// Run does the job's work from its parameters (jobs.Job.Params). The
	// result is written as JSON; count is the job's results_count. An
	// error fails the job with a message the user reads: a runner keeps
	// per-part failures (a seed mailbox down) inside its result.
	Run(ctx context.Context, j *jobs.Job) (result any, count int, err error)
}

// CSVRunner runs a single-run job whose result is rows (sirene, and the
// pipelines' import, filter and sort stages): it writes them as the job's
// CSV output, a stored CSV like a scrape's (export.NewCSV).
type CSVRunner interface {
	// RunCSV writes the output and returns its rows; warn logs what the
	// run could not cover.
	RunCSV(ctx context.Context, j *jobs.Job, w io.Writer, warn func(en, fr string)) (rows int, err error)
}

// SingleTimeout bounds one single-run job's call, RowsTimeout one whose
// result is rows (a sirene search): both within the sources worker's
// Lambda timeout (15 minutes).
const (
	SingleTimeout = 120 * time.Second
	RowsTimeout   = 14 * time.Minute
)

func (e *Engine) startSingle(ctx context.Context, j *jobs.Job) error {
	if j.Status == jobs.Pending {
		op, err := jobs.Start(j, e.d.Now(), 1)
		if err != nil {
			return err
		}
		switch err := jobs.Transition(ctx, e.d.DB, 0, op); {
		case errors.Is(err, jobs.ErrTransition):
			// Started by another delivery, or cancelled: the single
			// message is sent again below only when still running.
			if j, _, ok, err := e.load(ctx, j.ID); err != nil || !ok || j.Status != jobs.Running {
				return err
			}
		case err != nil:
			return fmt.Errorf("start job %s: %w", j.ID, err)
		default:
			e.log(ctx, j, true, "Started.", "Démarrage.")
		}
	}
	return e.sendTo(ctx, e.d.SingleQueue, message{Kind: kindSingle, Job: j.ID})
}

func (e *Engine) handleSingle(ctx context.Context, m message) error {
	j, _, ok, err := e.load(ctx, m.Job)
	if err != nil || !ok || j.Status != jobs.Running {
		return err
	}
	if err := jobs.ReadParams(ctx, e.d.Files, j); err != nil {
		return err
	}
	if rr, ok := e.d.CSVRunners[j.JobType]; ok {
		rctx, cancel := context.WithTimeout(ctx, RowsTimeout)
		defer cancel()
		return e.finishRows(ctx, j, rr, rctx)
	}
	rctx, cancel := context.WithTimeout(ctx, SingleTimeout)
	defer cancel()
	r, ok := e.d.Runners[j.JobType]
	if !ok {
		return permanent("This job cannot run on this server", fmt.Errorf("no runner for %q", j.JobType))
	}
	res, count, err := runSafely(rctx, r, j)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return permanent("The job failed: "+err.Error(), err)
	}
	body, err := json.Marshal(res)
	if err != nil {
		return permanent("The job's result cannot be written", err)
	}
	if _, err := e.d.Files.Put(ctx, jobs.ResultKey(j.ID), bytes.NewReader(body), "application/json"); err != nil {
		return fmt.Errorf("write the result of job %s: %w", j.ID, err)
	}
	j.ResultsCount = count
	j.ProcessedPoints = 1
	ops, err := jobs.SingleDoneOps(j, e.d.Now())
	if err != nil {
		return err
	}
	switch err := jobs.Transition(ctx, e.d.DB, 0, ops...); {
	case errors.Is(err, jobs.ErrTransition):
		return nil // cancelled meanwhile
	case err != nil:
		return fmt.Errorf("finish job %s: %w", j.ID, err)
	}
	e.log(ctx, j, true, fmt.Sprintf("Done: %d results.", count), fmt.Sprintf("Terminé : %d résultats.", count))
	if e.d.OnTerminal != nil {
		e.d.OnTerminal(ctx, j)
	}
	return nil
}

// finishRows runs a rows runner into the job's CSV output and closes the
// job done with its count.
func (e *Engine) finishRows(ctx context.Context, j *jobs.Job, rr CSVRunner, rctx context.Context) error {
	rows := 0
	runErr, putErr := blob.Write(ctx, e.d.Files, OutputKey(j.ID), "text/csv; charset=utf-8", func(pw io.Writer) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		n, err := rr.RunCSV(rctx, j, pw, func(en, fr string) { e.log(ctx, j, true, en, fr) })
		rows = n
		return err
	})
	if runErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ae *apperr.Error
		if errors.As(runErr, &ae) {
			return permanent("The job failed: "+ae.EN, runErr)
		}
		return permanent("The job failed: "+runErr.Error(), runErr)
	}
	if putErr != nil {
		return fmt.Errorf("write the output of job %s: %w", j.ID, putErr)
	}
	j.ResultsCount, j.ProcessedPoints = rows, 1
	name := slug(j.JobType) + "_" + j.ID + ".csv"
	j.OutputFilename = &name
	j.DownloadAvailable = true
	ops, err := jobs.SingleDoneOps(j, e.d.Now())
	if err != nil {
		return err
	}
	switch err := jobs.Transition(ctx, e.d.DB, 0, ops...); {
	case errors.Is(err, jobs.ErrTransition):
		return nil
	case err != nil:
		return fmt.Errorf("finish job %s: %w", j.ID, err)
	}
	e.log(ctx, j, true, fmt.Sprintf("Done: %d rows.", rows), fmt.Sprintf("Terminé : %d lignes.", rows))
	if e.d.OnTerminal != nil {
		e.d.OnTerminal(ctx, j)
	}
	return nil
}

// runSafely turns a runner's panic into its error.
func runSafely(ctx context.Context, r Runner, j *jobs.Job) (res any, count int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return r.Run(ctx, j)
}
