package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/prospectdata/svc/shared/jobs"
)

// Give-ups (doc.go, "Failures"). A message a worker cannot finish — it
// fails, it runs out of time, its process dies — is delivered again by the
// queue, GiveUpAfter times at most before the engine stops trying:
//
//   - the GiveUpAfter-th delivery works within the deadline minus Reserve
//     and, when it fails or runs out of that budget, records the give-up
//     in the reserve;
//   - a later delivery (the one before had no word: its process died, or
//     the give-up's own write failed) records it at once, without working.
//
// The queues deliver a message GiveUpAfter+1 times before their
// dead-letter queue (app.GiveUpAfter), so a give-up is always recorded. A
// give-up of a tile task or an item batch closes it in the ledger, marked
// gave_up, with its units counted failed, and the job goes on without it
// (afterClose: a job whose units all failed then fails); of a start, a
// single run or a finalize, it fails the job; of a salvage, a derive or an
// export (the job has ended already), it drops the message.

// errDied is the cause of a give-up recorded at once.
var errDied = errors.New("the worker stopped before finishing it")

// abandonGrace is how long the work has, once its budget is spent, to
// return before it is abandoned: its writes are conditional, so a late
// commit changes nothing a give-up recorded.
const abandonGrace = 2 * time.Second

// budget is the context the work of a delivery runs in: ctx less the
// reserve before its deadline, when it has one.
func (e *Engine) budget(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	// The deadline is the runtime's, in real time: not the engine's clock.
	reserve := min(e.d.Reserve, time.Until(dl)/4)
	return context.WithDeadline(ctx, dl.Add(-reserve))
}

// within dispatches m in work and returns its error, or gives up waiting
// abandonGrace after work ends (a call that ignores its context); a panic
// is the message's failure, not the process's.
func (e *Engine) within(work context.Context, m message) error {
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		defer recovered(&err)
		err = e.dispatch(work, m)
	}()
	select {
	case err := <-done:
		return err
	case <-work.Done():
	}
	t := time.NewTimer(abandonGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		e.d.Log.Error("engine: work abandoned past its time budget", "job", m.Job, "kind", m.Kind, "task", m.Task)
		return fmt.Errorf("abandoned past its time budget: %w", work.Err())
	}
}

// recovered, deferred, turns a panic of its goroutine into *err: a bug
// that one message meets fails that message, which ends in its give-up,
// not the process and every message it handles.
func recovered(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
	}
}

// why is a give-up's cause as the job's log and error_message say it.
func why(err error) string {
	switch {
	case errors.Is(err, errDied):
		return errDied.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "it did not finish within the worker's time limit"
	}
	return "it kept failing"
}

// giveUp records the give-up of m on its receives-th delivery.
func (e *Engine) giveUp(ctx context.Context, m message, receives int, err error) error {
	e.d.Log.Error("engine: giving up on a message", "job", m.Job, "kind", m.Kind, "task", m.Task,
		"receives", receives, "err", err)
	attempts := fmt.Sprintf("%s (%d attempts)", why(err), receives)
	switch m.Kind {
	case kindTask, kindBatch:
		return e.giveUpTask(ctx, m, attempts)
	case kindStart:
		return e.failJob(ctx, m.Job, "The job could not be started: "+attempts+".")
	case kindSingle:
		return e.failJob(ctx, m.Job, "The job could not be completed: "+attempts+".")
	case kindFinalize:
		return e.failJob(ctx, m.Job, "The output could not be built: "+attempts+".")
	}
	// A salvage, a derive, an export: its job has ended, and a later
	// request asks again.
	return nil
}

// giveUpTask closes a task or batch as given up: one transaction like its
// close, no rows (a batch keeps its items' input cells), every unit
// failed; then the job goes on (afterClose).
func (e *Engine) giveUpTask(ctx context.Context, m message, attempts string) error {
	j, jit, ok, err := e.load(ctx, m.Job)
	if err != nil || !ok || j.Status != jobs.Running {
		return err
	}
	if done, err := jobs.TaskIsDone(ctx, e.d.DB, j.ID, m.Task); err != nil || done {
		if err != nil {
			return err
		}
		// An earlier delivery closed it: only what follows may be missing.
		if m.Kind == kindTask {
			return e.resendAfter(ctx, j, jit, m.Task)
		}
		return e.afterClose(ctx, j, jit)
	}

	task := jobs.Task{ID: m.Task, GaveUp: true}
	p := jobs.Progress{Opened: -1, LastError: truncate(m.Task+": "+attempts, maxCause)}
	var en, fr string
	if m.Kind == kindTask {
		tile, _ := m.tile()
		n := int64(len(m.Queries) + len(m.Wide))
		task.Tile, task.Qs = tileString(tile), m.Queries
		if isRoot(m.Task) {
			p.Points = 1
		}
		p.Errors, p.Failed = n, n
		en = fmt.Sprintf("Tile %s (task %s) given up: %s; its %d searches count as failed.", tileString(tile), m.Task, attempts, n)
		fr = fmt.Sprintf("Tuile %s (tâche %s) abandonnée : %s ; ses %d recherches comptent comme échouées.", tileString(tile), m.Task, attempts, n)
	} else {
		// Its rows stay in the output with their input cells only: the
		// merge reads an empty part for them.
		parts := make([]itemPart, len(m.Items))
		for i, it := range m.Items {
			parts[i] = itemPart{I: it.I}
		}
		if err := writePart(ctx, e, j.ID, m.Task, parts); err != nil {
			return err
		}
		n := int64(len(m.Items))
		task.Rows = int(n)
		p.Points, p.Results, p.Errors, p.Failed = n, n, n, n
		en = fmt.Sprintf("Batch %s given up: %s; its %d items are kept without enrichment.", m.Task, attempts, n)
		fr = fmt.Sprintf("Lot %s abandonné : %s ; ses %d éléments sont gardés sans enrichissement.", m.Task, attempts, n)
	}
	err = jobs.CloseTask(ctx, e.d.DB, j, jit, jobs.Close{Task: task, Progress: p}, e.d.Now())
	if errors.Is(err, jobs.ErrTaskClosed) {
		return nil // closed by another delivery, or the job left running
	}
	if err != nil {
		return fmt.Errorf("give up %s of job %s: %w", m.Task, j.ID, err)
	}
	e.log(ctx, j, true, en, fr)
	after, err := jobs.Reload(ctx, e.d.DB, j.ID)
	if err != nil {
		return err
	}
	return e.afterClose(ctx, j, after)
}
