package jobs

import (
	"context"

	"github.com/prospectdata/svc/shared/export"
)

// Runner runs the work of jobs: the engine (shared/engine) implements it.
// It is attached after the service is built (Attach), since the engine is
// built over the service.
type Runner interface {
	// Start is told of every job that may run now (created with no pool
	// to wait for, or given its pool's lease). It may be told twice of a
	// job.
	Start(ctx context.Context, j *Job) error
	// Salvage keeps what a job stopped while running (cancelled) had
	// done as its output.
	Salvage(ctx context.Context, j *Job) error
	// Derive asks a worker for format f of a job's output, where the API
	// may not make it in the request (Deps.DeriveInWorker).
	Derive(ctx context.Context, id string, f export.Format) error
}

// Listener is told of every terminal transition, after its commit and the
// release of the job's pool: the event feed, and the pipelines whose
// next stage a job's end starts.
type Listener interface {
	JobEnded(ctx context.Context, j *Job)
}

// Stages is the pipelines' side of a stage's cancel: a listener that is
// also told of a stage's cancel as it commits, and closes the stage's
// pipeline there and then when the cancel ends it, so that the cancel
// answers pipeline_cancelled (the pipeline's own step, which comes later,
// would be too late to say it).
type Stages interface {
	Listener
	// StageCancelled is told that j, a stage of a pipeline, was just
	// cancelled, and says whether that closed its pipeline.
	StageCancelled(ctx context.Context, j *Job) bool
}

// Attach gives the service the runner of its jobs. A service without one
// (an account function, which links no engine) starts nothing: a job
// created there waits for a process that has one, the sweep at the
// latest. Call it before the service is used.
func (s *Service) Attach(r Runner) { s.runner = r }

// Listen adds l to the listeners of jobs' ends, told in the order they
// were added. Call it before the service is used.
func (s *Service) Listen(l Listener) { s.listeners = append(s.listeners, l) }

// ListenStages adds the pipelines as a listener, and as what a stage's
// cancel asks. Call it before the service is used.
func (s *Service) ListenStages(p Stages) {
	s.stages = p
	s.Listen(p)
}
