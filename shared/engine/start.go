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
	resend, open := true, it.OpenTasks()
	if j.Status == jobs.Pending {
		op, err := jobs.Start(j, e.d.Now(), len(roots))
		if err != nil {
			return err
		}
		err = jobs.Transition(ctx, e.d.DB, 0, op)
		switch {
		case errors.Is(err, jobs.ErrTransition):
			// Started by another delivery meanwhile, or cancelled.
			if j, it, ok, err = e.load(ctx, m.Job); err != nil || !ok || j.Status != jobs.Running {
				return err
			}
			open = it.OpenTasks()
		case err != nil:
			return fmt.Errorf("start job %s: %w", j.ID, err)
		default:
			resend = false
			open, it = int64(len(roots)), jobs.Record{}
			e.log(ctx, j, true,
				fmt.Sprintf("Started: %d tiles × %d queries (%s mode).", len(roots), len(j.Queries), j.ScrapMode),
				fmt.Sprintf("Démarrage : %d tuiles × %d requêtes (mode %s).", len(roots), len(j.Queries), j.ScrapMode))
		}
	}
	if open == 0 {
		// Every task is done: the finalize message may have been lost.
		return e.closeOut(ctx, j, it)
	}
	done := map[string]bool{}
	if resend {
		recs, err := e.tasks(ctx, j.ID, "")
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.State == jobs.TaskDone && !strings.Contains(r.ID, ".") {
				done[r.ID] = true
			}
		}
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
