package engine

import (
	"context"
	"fmt"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/jobs"
)

// The output's messages (finalize, salvage, derive, export) go to the
// finalize queue (Deps.FinalizeQueue): on AWS its Lambda has the longest
// timeout and the most memory, so that the merge of a 2,000,000-row job
// and the JSON and XLSX made from it each take a fraction of it. Once a
// job's CSV is written (finalize, salvage, a rows run) one derive message
// per format makes its JSON and XLSX, each with its own time budget, so
// that a done job's downloads are normally ready when a client asks.

// outputKind tells whether messages of kind go to the finalize queue.
func outputKind(kind string) bool {
	switch kind {
	case kindFinalize, kindSalvage, kindDerive, kindExport:
		return true
	}
	return false
}

// derivable tells whether a derive message's format is one made from the
// CSV.
func derivable(format string) bool {
	for _, f := range jobs.DerivedFormats {
		if string(f) == format {
			return true
		}
	}
	return false
}

// Derive asks a worker for format f of job id's output (a download that
// found it missing: jobs.Deps.Derive).
func (e *Engine) Derive(ctx context.Context, id string, f export.Format) error {
	return e.send(ctx, message{Kind: kindDerive, Job: id, Format: string(f)})
}

// sendDerive asks for every format made from the CSV of job id, just
// written. A failed send is logged, not returned: the job is done already,
// and a download asks again for a format it does not find.
func (e *Engine) sendDerive(ctx context.Context, id string) {
	ms := make([]message, 0, len(jobs.DerivedFormats))
	for _, f := range jobs.DerivedFormats {
		ms = append(ms, message{Kind: kindDerive, Job: id, Format: string(f)})
	}
	if err := e.send(ctx, ms...); err != nil {
		e.d.Log.Warn("engine: derive messages not sent", "job", id, "err", err)
	}
}

// handleDerive makes one format of a job's output. A job gone, expired or
// without output drops it.
func (e *Engine) handleDerive(ctx context.Context, m message) error {
	j, _, ok, err := e.load(ctx, m.Job)
	if err != nil || !ok {
		return err
	}
	if !e.outputLive(j) {
		return nil
	}
	f := export.Format(m.Format)
	err = jobs.Derive(ctx, e.d.Files, j.ID, f)
	if apperr.CodeOf(err) == apperr.Gone {
		e.d.Log.Warn("engine: derive of a job without output, dropped", "job", j.ID, "format", m.Format)
		return nil
	}
	if err != nil {
		return fmt.Errorf("derive %s of job %s: %w", m.Format, j.ID, err)
	}
	// The job may have expired or been deleted while the file was made:
	// its files were then deleted before this one was written, so this
	// one goes too (expiry and deletion change the record first, then
	// delete the files, so a read after the write sees the change).
	j, _, ok, err = e.load(ctx, m.Job)
	if err != nil {
		return err
	}
	if !ok || !e.outputLive(j) {
		if err := e.d.Files.Delete(ctx, jobs.DerivedKey(m.Job, f)); err != nil {
			return fmt.Errorf("delete %s of job %s, gone meanwhile: %w", m.Format, m.Job, err)
		}
	}
	return nil
}

// outputLive tells whether a job's output files may be written: done or
// stopped with a downloadable output, not past its expiry.
func (e *Engine) outputLive(j *jobs.Job) bool {
	return j.Status != jobs.Expired && j.DownloadAvailable && !jobs.SingleRun(j.JobType) && !jobs.PastExpiry(j, e.d.Now())
}

// afterSingle asks for the formats of a rows run's CSV once its job is
// done (err, the run's outcome, is returned as it is).
func (e *Engine) afterSingle(ctx context.Context, m message, err error) error {
	if err != nil {
		return err
	}
	j, _, ok, lerr := e.load(ctx, m.Job)
	if lerr != nil {
		e.d.Log.Warn("engine: read a rows run after it ended", "job", m.Job, "err", lerr)
		return nil
	}
	if !ok || e.d.CSVRunners[j.JobType] == nil {
		return nil
	}
	if j.Status == jobs.Done && j.DownloadAvailable {
		e.sendDerive(ctx, j.ID)
	}
	return nil
}

// handleExport builds an account's export. A failure is retried like any
// message; the API asks again for an export it does not see after
// a while (shared/exports).
func (e *Engine) handleExport(ctx context.Context, m message) error {
	if e.d.OnExport == nil {
		e.d.Log.Warn("engine: export message with no exporter, dropped", "user", m.User)
		return nil
	}
	return e.d.OnExport(ctx, m.User)
}
