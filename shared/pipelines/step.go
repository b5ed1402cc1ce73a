package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
)

// A pipeline moves on in steps. Step reads what its stages' jobs say now
// and does what follows (start successors, close the pipeline); it keeps
// no memory of what it did before, so running it twice, late or after a
// crash does no harm. Whatever changes a pipeline (a stage's job ended,
// continue, cancel) signals it, and its driver runs the next step:
//
//   - on AWS, one execution per pipeline of the generic state machine
//     (statemachines/pipeline.asl.json) runs Step in the pipeline-step
//     Lambda, then waits on a task token that a signal hands back
//     (Executor);
//   - locally, with no Executor, an in-process runner runs Step in a
//     goroutine per pipeline, once more for signals that came meanwhile.
//
// Either way the steps of one pipeline never run at once.

// Executor runs pipelines' executions on a workflow service; nil in
// ServiceDeps runs them in process.
type Executor interface {
	// Start starts the execution that drives the pipeline, with input
	// the state machine's first state receives.
	Start(ctx context.Context, pipelineID string, input []byte) error
	// Resume completes the waiting task of token (an execution waiting
	// for a signal); a token that is no longer waited on is no error.
	Resume(ctx context.Context, token string) error
}

// Step actions, as the state machine's tasks name them.
const (
	ActionAdvance = "advance"
	ActionAwait   = "await"
	ActionAbandon = "abandon"
)

// MaxRounds is how many steps one execution runs before it hands the
// pipeline to a new one (the Renew state): an execution's history is
// capped at 25,000 events and a round (Advance, the choice, Await) writes
// about a dozen.
const MaxRounds = 1000

// Await's waits (StepEvent.Wait), in seconds.
const (
	IdleWait  = 900
	RetryWait = 60
)

// StepResult is what a step found.
type StepResult struct {
	PipelineID string
	Status     string
	// Seen is the signal count the step read.
	Seen int64
	// Blocked: a successor could not start for now; step again in a
	// while even if nothing signals.
	Blocked bool
}

// Gone is the step status of a pipeline that no longer exists (its
// account was deleted): its execution ends.
const Gone = "gone"

// StepEvent is the payload of the pipeline-step Lambda, in and out: the
// pipeline's id and counters, never its rows (a state's payload is capped
// at 256 KiB; the rows stay in the file store).
type StepEvent struct {
	Action     string `json:"action,omitempty"`
	PipelineID string `json:"pipeline_id"`
	// Status is the pipeline's after an advance: running, or terminal
	// (or gone), which ends the execution.
	Status string `json:"status,omitempty"`
	// Seen is the signal count the advance read; Await sleeps only if no
	// signal came since.
	Seen int64 `json:"seen"`
	// Wait is how long Await waits for a signal before advancing anyway,
	// in seconds: RetryWait when a stage waits for room (nothing will
	// signal when it frees up), IdleWait otherwise.
	Wait int `json:"wait"`
	// Round counts the advances of this execution, Generation the
	// executions of the pipeline (its first is 0).
	Round      int  `json:"round"`
	Generation int  `json:"generation"`
	Renew      bool `json:"renew"`
	// TaskToken is the Await task's token ($$.Task.Token).
	TaskToken string `json:"task_token,omitempty"`
	// Error is what made the advance fail for good (the Abandon task).
	Error json.RawMessage `json:"error,omitempty"`
}

// HandleStep is the pipeline-step Lambda's work, one task of the state
// machine: advance the pipeline, await its next signal, or abandon it
// when its advance failed past every retry.
func (s *Service) HandleStep(ctx context.Context, ev StepEvent) (StepEvent, error) {
	if ev.PipelineID == "" {
		return ev, fmt.Errorf("pipeline step %q without pipeline_id", ev.Action)
	}
	switch ev.Action {
	case ActionAdvance:
		r, err := s.Step(ctx, ev.PipelineID)
		if err != nil {
			return ev, err
		}
		out := StepEvent{PipelineID: ev.PipelineID, Status: r.Status, Seen: r.Seen, Wait: IdleWait,
			Round: ev.Round + 1, Generation: ev.Generation}
		if r.Blocked {
			out.Wait = RetryWait
		}
		if r.Status == Running && out.Round >= MaxRounds {
			out.Renew = true
			out.Generation++
		}
		return out, nil
	case ActionAwait:
		if ev.TaskToken == "" {
			return ev, fmt.Errorf("pipeline %s: await without task_token", ev.PipelineID)
		}
		return ev, s.Await(ctx, ev.PipelineID, ev.Seen, ev.TaskToken)
	case ActionAbandon:
		s.d.Log.ErrorContext(ctx, "pipeline abandoned: its step failed past every retry", "pipeline", ev.PipelineID,
			"error", string(ev.Error))
		s.finish(ctx, ev.PipelineID, Failed)
		return StepEvent{PipelineID: ev.PipelineID, Status: Failed}, nil
	}
	return ev, fmt.Errorf("pipeline %s: unknown step action %q", ev.PipelineID, ev.Action)
}

// Step moves a pipeline on from its stages' jobs as they are now. A
// running pipeline: an expired stage fails it; a stage cancelled before
// it started, with nothing else running, cancels it; a done (or
// continued) stage with rows starts the successors not started yet; then
// it is done if nothing is left to run. A cancelled pipeline: any stage
// still running (started while it was being cancelled) is cancelled.
func (s *Service) Step(ctx context.Context, id string) (StepResult, error) {
	p, err := s.get(ctx, 0, id)
	if apperr.Is(err, apperr.NotFound) {
		return StepResult{Status: Gone}, nil
	}
	if err != nil {
		return StepResult{}, err
	}
	r := StepResult{PipelineID: id, Status: p.Status, Seen: p.signals}
	js, err := s.stageJobs(ctx, p)
	if err != nil {
		return StepResult{}, err
	}
	defer s.count(ctx, id, js)
	if p.Status == Cancelled {
		for _, j := range js {
			if j.Status.Active() {
				if _, err := s.d.Jobs.Cancel(ctx, p.UserID, j.ID); err != nil && !apperr.Is(err, apperr.Invalid) {
					return StepResult{}, err
				}
			}
		}
	}
	if p.Status != Running {
		return r, nil
	}
	started := false
	for _, n := range p.Definition.Nodes {
		j, ok := js[n.ID]
		if !ok {
			continue
		}
		switch {
		case j.Status == jobs.Expired:
			return s.end(ctx, r, Failed), nil
		case cancelStops(p, js, n.ID):
			return s.end(ctx, r, Cancelled), nil
		case resolved(p, n.ID, j, s.d.Now()) && j.ResultsCount > 0 && j.DownloadAvailable:
			n, err := s.startSuccessors(ctx, p, j)
			started = started || n > 0
			switch {
			case errors.Is(err, errRefused):
				return s.end(ctx, r, Failed), nil
			case errors.Is(err, errBlocked):
				r.Blocked = true
			case err != nil:
				return StepResult{}, err
			}
		}
	}
	// A stage just started keeps the pipeline running; otherwise the jobs
	// read above say whether it is done.
	if !started && !r.Blocked && finished(p, js, s.d.Now()) {
		return s.end(ctx, r, Done), nil
	}
	return r, nil
}

// end closes the step's pipeline in status (finish) and returns the step's
// result with the status the pipeline has then.
func (s *Service) end(ctx context.Context, r StepResult, status string) StepResult {
	if st := s.finish(ctx, r.PipelineID, status); st != "" {
		r.Status = st
	}
	return r
}

// count keeps the list's counters on the record (done stages, rows), so
// that listing 50 pipelines reads 50 items, not their jobs.
func (s *Service) count(ctx context.Context, id string, js map[string]*jobs.Job) {
	done, rows := 0, 0
	for _, j := range js {
		if j.Status.Terminal() {
			done++
		}
		rows += j.ResultsCount
	}
	if _, err := s.update(ctx, id, func(p *Pipeline) bool {
		if p.DoneCount == done && p.ResultsCount == rows {
			return false
		}
		p.DoneCount, p.ResultsCount = done, rows
		return true
	}); err != nil && !apperr.Is(err, apperr.NotFound) {
		s.d.Log.WarnContext(ctx, "pipeline counters not written", "pipeline", id, "err", err)
	}
}

// Await parks the execution's task token on the pipeline, unless a
// signal came since the advance read it (seen): then the execution goes
// on at once. A signal that comes after takes the token (signal).
func (s *Service) Await(ctx context.Context, id string, seen int64, token string) error {
	wake := false
	_, err := s.update(ctx, id, func(p *Pipeline) bool {
		if p.signals != seen || p.Status != Running {
			wake = true
			return false
		}
		p.token = token
		return true
	})
	if apperr.Is(err, apperr.NotFound) {
		wake = true
	} else if err != nil {
		return err
	}
	if wake {
		return s.d.Executor.Resume(ctx, token)
	}
	return nil
}

// start hands a new pipeline to its driver.
func (s *Service) start(ctx context.Context, id string) error {
	if s.d.Executor == nil {
		s.runner.kick(ctx, id, s.step)
		return nil
	}
	in, err := json.Marshal(StepEvent{PipelineID: id})
	if err != nil {
		return err
	}
	return s.d.Executor.Start(ctx, id, in)
}

// signal tells the pipeline's driver that something changed: locally the
// runner steps it again; on AWS the count goes up and a waiting
// execution gets its token back. A signal that fails is logged: the
// execution's Await times out and advances anyway.
func (s *Service) signal(ctx context.Context, id string) {
	if s.d.Executor == nil {
		s.runner.kick(ctx, id, s.step)
		return
	}
	token := ""
	if _, err := s.update(ctx, id, func(p *Pipeline) bool {
		p.signals++
		token, p.token = p.token, ""
		return true
	}); err != nil {
		s.d.Log.ErrorContext(ctx, "pipeline not signalled", "pipeline", id, "err", err)
		return
	}
	if token == "" {
		return // the execution is advancing: its Await will see the count
	}
	if err := s.d.Executor.Resume(ctx, token); err != nil {
		s.d.Log.ErrorContext(ctx, "pipeline execution not resumed", "pipeline", id, "err", err)
	}
}

// step is the in-process runner's step. A step that failed, or left a
// successor waiting for room, runs again after RetryWait even if nothing
// signals (on AWS the state machine's retries and Await do the same).
func (s *Service) step(ctx context.Context, id string) {
	r, err := s.Step(ctx, id)
	if err != nil {
		s.d.Log.ErrorContext(ctx, "pipeline step failed", "pipeline", id, "err", err)
	}
	if (err != nil || r.Blocked) && s.runner.alive() {
		time.AfterFunc(RetryWait*time.Second, func() {
			if s.runner.alive() {
				s.runner.kick(ctx, id, s.step)
			}
		})
	}
}

// runner runs the steps of pipelines in process: one goroutine per
// pipeline while it has signals to handle, so that one pipeline's steps
// never overlap and a step can itself cause signals (a stage it cancels)
// without waiting on itself.
type runner struct {
	mu      sync.Mutex
	again   map[string]bool // pipelines being stepped → another step is due
	wg      sync.WaitGroup
	stopped bool
}

// alive tells whether the runner still takes steps (Stop not called).
func (r *runner) alive() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.stopped
}

func (r *runner) kick(ctx context.Context, id string, step func(context.Context, string)) {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	if r.again == nil {
		r.again = map[string]bool{}
	}
	if _, busy := r.again[id]; busy {
		r.again[id] = true
		r.mu.Unlock()
		return
	}
	r.again[id] = false
	r.wg.Add(1) // under the lock: Stop cannot be waiting yet
	r.mu.Unlock()
	// The step outlives the request or job that signalled.
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer r.wg.Done()
		for {
			step(ctx, id)
			r.mu.Lock()
			if !r.again[id] {
				delete(r.again, id)
				r.mu.Unlock()
				return
			}
			r.again[id] = false
			r.mu.Unlock()
		}
	}()
}

// Stop has the in-process runner take no more steps and returns when
// none is running (shutdown: the tables close after).
func (s *Service) Stop() {
	s.runner.mu.Lock()
	s.runner.stopped = true
	s.runner.mu.Unlock()
	s.runner.wg.Wait()
}
