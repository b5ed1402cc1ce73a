package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/prospectdata/svc/shared/jobs"
)

// A job stopped while it ran (cancelled, or failed) keeps what it had
// done: the salvage message merges its finished parts into its output, as
// a finalize would, and makes it downloadable while its status stays.
// A pipeline continued past such a stage starts its successors from
// those rows. Single-run jobs write their output in one go: they have no
// parts to salvage.

// Salvage asks for a stopped job's partial output.
func (e *Engine) Salvage(ctx context.Context, j *jobs.Job) error {
	if jobs.SingleRun(j.JobType) || e.d.CSVRunners[j.JobType] != nil {
		return nil
	}
	return e.send(ctx, message{Kind: kindSalvage, Job: j.ID})
}

func (e *Engine) handleSalvage(ctx context.Context, m message) error {
	j, _, ok, err := e.load(ctx, m.Job)
	if err != nil || !ok {
		return err
	}
	if (j.Status != jobs.Cancelled && j.Status != jobs.Failed) || j.DownloadAvailable {
		return nil
	}
	if jobs.ItemModule(j.JobType) {
		err = e.salvageItems(ctx, j)
	} else {
		err = e.salvageScrape(ctx, j)
	}
	if err != nil {
		return err
	}
	if j.ResultsCount == 0 {
		return nil
	}
	ops, err := jobs.PartialOps(j)
	if err != nil {
		return err
	}
	err = jobs.Transition(ctx, e.d.DB, 0, ops...)
	if errors.Is(err, jobs.ErrTransition) {
		return nil // deleted or changed meanwhile
	}
	if err != nil {
		return fmt.Errorf("keep the partial output of job %s: %w", j.ID, err)
	}
	e.log(ctx, j, true,
		fmt.Sprintf("Partial results kept: %d rows, downloadable.", j.ResultsCount),
		fmt.Sprintf("Résultats partiels conservés : %d lignes, téléchargeables.", j.ResultsCount))
	if e.d.OnPartial != nil {
		e.d.OnPartial(ctx, j)
	}
	e.sendDerive(ctx, j.ID)
	return nil
}

// salvageScrape merges the tasks done before the stop.
func (e *Engine) salvageScrape(ctx context.Context, j *jobs.Job) error {
	_, out, err := e.mergeDone(ctx, j, false)
	if err != nil {
		return err
	}
	j.DownloadAvailable = out.rows > 0
	return nil
}

// salvageItems merges the batches done before the stop: their rows
// only, enriched.
func (e *Engine) salvageItems(ctx context.Context, j *jobs.Job) error {
	mod, err := e.module(j)
	if err != nil {
		return err
	}
	recs, err := e.tasks(ctx, j.ID, "b")
	if err != nil {
		return err
	}
	done := map[int]bool{}
	for _, r := range recs {
		if b, ok := parseBatchID(r.ID); ok && r.State == jobs.TaskDone {
			done[b] = true
		}
	}
	if len(done) == 0 {
		return nil
	}
	rows, err := e.itemOutput(ctx, j, mod, done)
	if err != nil {
		return err
	}
	j.DownloadAvailable = rows > 0
	return nil
}
