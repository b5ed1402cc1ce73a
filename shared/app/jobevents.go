package app

import (
	"context"
	"log/slog"

	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/jobs"
)

// jobEvents appends, for every terminal transition, job.completed,
// job.failed or job.cancelled to the owner's event log (a jobs.Listener).
// The append follows the commit (a separate transaction): an append that
// fails is logged, and the job's state stands.
type jobEvents struct {
	evs     *events.Service
	baseURL string
	log     *slog.Logger
}

// JobEnded implements jobs.Listener.
func (e jobEvents) JobEnded(ctx context.Context, j *jobs.Job) {
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
		data.DownloadURL = events.DownloadURL(e.baseURL, j.ID)
	}
	if _, err := e.evs.Append(ctx, j.UserID, typ, data); err != nil {
		e.log.ErrorContext(ctx, "job event not appended", "job", j.ID, "type", typ, "err", err)
	}
}
