package engine

import (
	"context"

	"github.com/prospectdata/svc/shared/jobs"
)

// The task ledger, the job's counters and its log are the job's record,
// owned by shared/jobs (record.go, ledger.go): the engine reads them
// through jobs.Record and jobs.Tasks and writes them through jobs.Close,
// jobs.ProgressOp and jobs.AppendLog.

// tasks reads the ledger's tasks whose id starts with prefix ("" for every
// task).
func (e *Engine) tasks(ctx context.Context, job, prefix string) ([]jobs.Task, error) {
	return jobs.Tasks(ctx, e.d.DB, job, prefix)
}

// log appends a line to the job's log (JOB#<id> / LOG#<seq>), for the
// progress stream: the number comes from an ADD on the job's log_seq, so
// lines are numbered in the order their numbers were taken. Best effort: a
// failure is only logged. Unless force, nothing is written once the log
// holds MaxLogs lines.
func (e *Engine) log(ctx context.Context, j *jobs.Job, force bool, en, fr string) {
	e.logAt(ctx, j, -1, force, en, fr)
}

// logAt is log knowing the job's last log number (from a read of its item;
// -1 when unknown), to skip a line beyond MaxLogs without a write.
func (e *Engine) logAt(ctx context.Context, j *jobs.Job, known int64, force bool, en, fr string) {
	if !force && known >= int64(e.d.MaxLogs) {
		return
	}
	if err := jobs.AppendLog(ctx, e.d.DB, j, e.d.Now(), en, fr); err != nil {
		e.d.Log.Warn("engine: job log", "job", j.ID, "err", err)
	}
}
