package jobs

import "context"

// Origin says which pipeline stage a job being created is: the creation
// paths (scrape, items, single-run) write it on the job.
type Origin struct {
	PipelineID, NodeID string
	LowPriority        bool
	// Successor: a stage created by the pipeline's runner, not by a
	// request: it skips the creation quota (its pipeline was admitted).
	Successor bool
}

type originKey struct{}

// WithOrigin marks the jobs created with ctx as a pipeline's stage.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

func originOf(ctx context.Context) (Origin, bool) {
	o, ok := ctx.Value(originKey{}).(Origin)
	return o, ok && o.PipelineID != ""
}

type scheduledKey struct{}

// WithScheduled marks the jobs created with ctx as a veille's scheduled
// replay (Replay, a pipeline's replay), which skips the creation quota:
// the veille was admitted when created.
func WithScheduled(ctx context.Context) context.Context {
	return context.WithValue(ctx, scheduledKey{}, true)
}

func scheduled(ctx context.Context) bool { v, _ := ctx.Value(scheduledKey{}).(bool); return v }
