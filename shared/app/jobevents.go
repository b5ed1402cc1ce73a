package app

import (
	"context"
	"log/slog"

	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/jobs"
)

// jobEvent returns the engine's OnTerminal hook: every terminal transition
// it commits appends job.completed or job.failed to the owner's event log.
// The append follows the commit (a separate transaction): an append that
// fails is logged, and the job's state stands.
func jobEvent(evs *events.Service, baseURL string, log *slog.Logger) func(ctx context.Context, j *jobs.Job) {
	return func(ctx context.Context, j *jobs.Job) {
		typ := events.JobFailed
		if j.Status == jobs.Done {
			typ = events.JobCompleted
		} else if j.Status == jobs.Cancelled {
			typ = events.JobCancelled
		}
		data := events.JobData{
			ID: j.ID, JobType: j.JobType, Status: string(j.Status), Queries: j.Queries, Zones: j.Zones,
			ResultsCount: int64(j.ResultsCount), ErrorCount: int64(j.ErrorCount), EFCost: j.EFCost,
			CreatedAt: j.CreatedAt, CompletedAt: j.CompletedAt, ErrorMessage: j.ErrorMessage,
			PipelineID: j.PipelineID, SourceJobID: j.SourceJobID,
		}
		if j.DownloadAvailable {
			data.DownloadURL = events.DownloadURL(baseURL, j.ID)
		}
		if _, err := evs.Append(ctx, j.UserID, typ, data); err != nil {
			log.ErrorContext(ctx, "job event not appended", "job", j.ID, "type", typ, "err", err)
		}
	}
}
