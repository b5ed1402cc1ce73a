package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/store"
)

// load reads the job; ok is false when it no longer exists.
func (e *Engine) load(ctx context.Context, id string) (*jobs.Job, jobs.Record, bool, error) {
	j, it, err := jobs.Load(ctx, e.d.DB, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, jobs.Record{}, false, nil
	}
	if err != nil {
		return nil, jobs.Record{}, false, err
	}
	return j, it, true, nil
}

// handleStart moves the job pending → running with its count of open tasks
// (its root tasks) and sends the root tasks. A start delivered again (the
// job running already) sends again the root tasks not yet done; a task
// sent twice is harmless.
func (e *Engine) handleStart(ctx context.Context, m message) error {
	j, it, ok, err := e.load(ctx, m.Job)
	if err != nil || !ok {
		return err
	}
	if j.Status.Terminal() {
		return nil
	}
	if jobs.ItemModule(j.JobType) {
		return e.startItems(ctx, j, it)
	}
	if _, ok := e.d.Runners[j.JobType]; ok {
		return e.startSingle(ctx, j)
	}
	if _, ok := e.d.CSVRunners[j.JobType]; ok {
		return e.startSingle(ctx, j)
	}
	p, err := e.plan(j)
	if err != nil {
		return err
	}
	tiles := p.Grid.Tiles()
	// A resumed job searches only the base tiles its source left undone.
	roots := j.Roots
	if roots == nil {
		roots = make([]int, len(tiles))
		for n := range roots {
			roots[n] = n
		}
	}
	roots = slices.DeleteFunc(slices.Clone(roots), func(n int) bool { return n < 0 || n >= len(tiles) })
	b, ok, err := e.begin(ctx, j, it, len(roots))
	if err != nil || !ok {
		return err
	}
	j = b.job
	if b.started {
		e.log(ctx, j, true,
			fmt.Sprintf("Started: %d tiles × %d queries (%s mode).", len(roots), len(j.Queries), j.ScrapMode),
			fmt.Sprintf("Démarrage : %d tuiles × %d requêtes (mode %s).", len(roots), len(j.Queries), j.ScrapMode))
	}
	if b.open == 0 {
		// Every task is done: the finalize message may have been lost.
		return e.closeOut(ctx, j, b.rec)
	}
	done, err := e.doneTasks(ctx, j.ID, "r", b.started)
	if err != nil {
		return err
	}
	work := planRoots(j, p)
	ms := make([]message, 0, len(roots))
	for _, n := range roots {
		if !done[rootID(n)] {
			ms = append(ms, work.message(j.ID, n, tiles[n]))
		}
	}
	return e.send(ctx, ms...)
}

// begun is a job a start delivery found running, with its tasks open.
type begun struct {
	job  *jobs.Job
	rec  jobs.Record
	open int64
	// started: this delivery moved it pending → running, so none of its
	// tasks was sent yet.
	started bool
}

// begin moves a pending job to running with n tasks (or batches) open, or
// reads it again when another delivery started it meanwhile. ok is false
// when the job no longer runs (cancelled).
func (e *Engine) begin(ctx context.Context, j *jobs.Job, rec jobs.Record, n int) (begun, bool, error) {
	if j.Status != jobs.Pending {
		return begun{job: j, rec: rec, open: rec.OpenTasks()}, true, nil
	}
	op, err := jobs.Start(j, e.d.Now(), n)
	if err != nil {
		return begun{}, false, err
	}
	err = jobs.Transition(ctx, e.d.DB, 0, op)
	switch {
	case errors.Is(err, jobs.ErrTransition):
		// Started by another delivery meanwhile, or cancelled.
		cur, rec, ok, err := e.load(ctx, j.ID)
		if err != nil || !ok || cur.Status != jobs.Running {
			return begun{}, false, err
		}
		return begun{job: cur, rec: rec, open: rec.OpenTasks()}, true, nil
	case err != nil:
		return begun{}, false, fmt.Errorf("start job %s: %w", j.ID, err)
	}
	return begun{job: j, open: int64(n), started: true}, true, nil
}

// doneTasks are the ids of the job's top-level tasks (roots r<n> or
// batches b<n>: prefix) already done, which a start delivered again does
// not send again; none when this delivery started the job.
func (e *Engine) doneTasks(ctx context.Context, job, prefix string, started bool) (map[string]bool, error) {
	done := map[string]bool{}
	if started {
		return done, nil
	}
	recs, err := e.tasks(ctx, job, prefix)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.State == jobs.TaskDone && !strings.Contains(r.ID, ".") {
			done[r.ID] = true
		}
	}
	return done, nil
}
