package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/density"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/upstream"
)

// Deps are what the engine acts on, and its tuning. Zero tuning fields take
// the defaults below.
type Deps struct {
	DB        store.DB
	Queue     queue.Queue
	QueueName string // the tasks queue ("tasks")
	// ItemQueue carries the batches of item jobs (default QueueName):
	// on AWS its own Lambda, sized for fetching websites, consumes it.
	ItemQueue string
	// SingleQueue carries the single-run jobs (default ItemQueue): on AWS
	// a Lambda with the longest timeout, as a sirene search may take
	// minutes.
	SingleQueue string
	// FinalizeQueue carries the merges of a job's parts into its output
	// (finalize, salvage), the formats derived from it (derive) and the
	// account exports (default QueueName): on AWS a Lambda with the
	// longest timeout and the most memory.
	FinalizeQueue string
	Files         blob.Store
	Provider      provider.Provider
	Scrape        *scrape.Service
	Now           func() time.Time
	Log           *slog.Logger
	// Densities learn, at each scrape's end, how common its queries'
	// places are (learn.go); nil learns nothing.
	Densities *density.Rates

	// Workers is how many provider requests this process runs at once,
	// over all the messages it handles (default pricing.Workers).
	Workers int
	// Handlers is how many messages Run handles at once (default twice
	// Workers), more than Workers so that the bookkeeping of a task (its
	// part, its transaction, its sends) overlaps the searches of others
	// and the provider slots stay busy.
	Handlers int
	// Retries is how many times a search or reviews request failing with
	// provider.ErrTransient is tried again (default 3; negative: never).
	Retries int
	// Backoff is the wait before retry n (1 for the first); default
	// 250 ms doubling up to 8 s, with ±20% jitter.
	Backoff func(n int) time.Duration
	// Sleep waits d or until ctx ends; default a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Visibility is how long a message Run receives stays hidden; it is
	// renewed every third of it while the message is handled (default 5
	// minutes, the tasks queue's).
	Visibility time.Duration
	// Wait is the long poll of a receive (default 20 s, SQS's longest).
	Wait time.Duration
	// RetryDelay is how long a message whose handling failed stays hidden
	// before its next delivery (default 5 s doubling with the receive
	// count, at most Visibility).
	RetryDelay func(receiveCount int) time.Duration
	// GiveUpAfter: a message whose handling fails (or runs out of time)
	// on its GiveUpAfter-th delivery records a give-up for its tile,
	// batch or step instead of being retried, and a later delivery (that
	// one's process died) records it without working again (giveup.go).
	// The service passes app.GiveUpAfter, whose work queues have
	// MaxReceives = GiveUpAfter+1, so that the give-up is recorded before
	// SQS moves the message to its dead-letter queue (default 4). Handle
	// never gives up: a Lambda passes the receive count to
	// HandleDelivery.
	GiveUpAfter int
	// Reserve is the time kept before a handler's deadline (a Lambda's
	// context deadline, Deadlines locally) to record a give-up or report
	// a failure: the work gets the deadline minus Reserve, at most a
	// quarter of the time left (default 10 s).
	Reserve time.Duration
	// Deadlines bound the handling of one message of each queue in Run,
	// as the Lambda timeout of its worker does on AWS (the service
	// passes each worker's TimeoutS); a queue absent has none.
	Deadlines map[string]time.Duration
	// Redelivery is, per queue, the longest a message may take from its
	// first delivery to its last (MaxReceives × visibility timeout): the
	// sweep fails a job that made no progress for longer than the chain
	// of the message it waits for, plus StuckMargin. The service passes
	// its queues' (app.Queues); a queue absent takes (GiveUpAfter+1) ×
	// Visibility.
	Redelivery map[string]time.Duration
	// StuckMargin is added to a job's redelivery chain before the sweep
	// calls it stuck (default 10 minutes).
	StuckMargin time.Duration
	// FailFastAfter: a job whose first FailFastAfter units (searches,
	// items) all failed fails at once (default 100).
	FailFastAfter int
	// LogEvery: a progress line in the job's log every LogEvery root
	// tasks (default 25).
	LogEvery int
	// MaxLogs: beyond this many lines in a job's log, progress and split
	// lines are no longer written; start and end lines always are
	// (default 300).
	MaxLogs int
	// PlanCache is how many jobs' plans are kept (default 32).
	PlanCache int
	// OnOvertime stops a job past its maximum run time and resumes it
	// (jobs.Service.Overtime); a task of an overdue job calls it and ends.
	// first is true for the call that stopped it: the engine then merges
	// the tasks done so far into the job's output (a partial finalize).
	OnOvertime func(ctx context.Context, j *jobs.Job) (stopped, first bool, err error)
	// OnPartial is told when a stopped job's partial output is kept
	// (Salvage).
	OnPartial func(ctx context.Context, j *jobs.Job)
	// OnTerminal is told of every terminal transition the engine commits
	// (done, failed), with the job as written, after the commit.
	OnTerminal func(ctx context.Context, j *jobs.Job)
	// OnSweep handles the periodic sweep message (SweepMessage): the
	// repairs no other message triggers, such as a pool lease left by a
	// process that died (jobs.Service.Promote).
	OnSweep func(ctx context.Context) error
	// OnExport builds an account's data export into the file store (an
	// export message, exports.RequestBody); nil drops such messages.
	OnExport func(ctx context.Context, uid int64) error

	// Modules are the enrichment modules item jobs run (nil: item jobs
	// fail, saying their module cannot run here).
	Modules *enrich.Set
	// Runners run the single-run jobs by type (delivery_check,
	// viewport_test): one call whose result is a JSON document.
	Runners map[string]Runner
	// CSVRunners run the single-run jobs whose result is rows (sirene,
	// the pipelines' import, filter and sort stages).
	CSVRunners map[string]CSVRunner
	// ItemWorkers is how many items this process enriches at once, over
	// all batches (default 32): sites are slow and many, and the fetcher
	// paces each host on its own.
	ItemWorkers int
}

// Engine runs scrape jobs. It is safe for concurrent use.
type Engine struct {
	d         Deps
	slots     *gate // provider requests in flight
	itemSlots *gate // items being enriched
	plans     *planCache
	sessions  *sessionCache
}

// New returns an engine over d.
func New(d Deps) *Engine {
	if d.QueueName == "" {
		d.QueueName = "tasks"
	}
	if d.ItemQueue == "" {
		d.ItemQueue = d.QueueName
	}
	if d.SingleQueue == "" {
		d.SingleQueue = d.ItemQueue
	}
	if d.FinalizeQueue == "" {
		d.FinalizeQueue = d.QueueName
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Workers <= 0 {
		d.Workers = pricing.Workers
	}
	if d.Handlers <= 0 {
		d.Handlers = 2 * d.Workers
	}
	if d.Retries == 0 {
		d.Retries = 3
	}
	if d.Retries < 0 {
		d.Retries = 0
	}
	if d.Backoff == nil {
		d.Backoff = defaultBackoff
	}
	if d.Sleep == nil {
		d.Sleep = upstream.Sleep
	}
	if d.Visibility <= 0 {
		d.Visibility = 5 * time.Minute
	}
	if d.Wait <= 0 {
		d.Wait = 20 * time.Second
	}
	if d.RetryDelay == nil {
		vis := d.Visibility
		d.RetryDelay = func(n int) time.Duration {
			return min(vis, 5*time.Second<<min(max(n-1, 0), 10))
		}
	}
	if d.GiveUpAfter <= 0 {
		d.GiveUpAfter = 4
	}
	if d.Reserve <= 0 {
		d.Reserve = 10 * time.Second
	}
	if d.StuckMargin <= 0 {
		d.StuckMargin = 10 * time.Minute
	}
	if d.FailFastAfter <= 0 {
		d.FailFastAfter = 100
	}
	if d.LogEvery <= 0 {
		d.LogEvery = 25
	}
	if d.MaxLogs <= 0 {
		d.MaxLogs = 300
	}
	if d.PlanCache <= 0 {
		d.PlanCache = 32
	}
	if d.ItemWorkers <= 0 {
		d.ItemWorkers = 32
	}
	return &Engine{d: d, slots: newGate(d.Workers), itemSlots: newGate(d.ItemWorkers),
		plans: newPlanCache(d.PlanCache), sessions: newSessionCache(4)}
}

func defaultBackoff(n int) time.Duration {
	d := 250 * time.Millisecond << min(max(n-1, 0), 5)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// Start has the job run: it sends its start message (cheap, called by job
// creation). The start handler does the rest.
func (e *Engine) Start(ctx context.Context, j *jobs.Job) error {
	return e.send(ctx, message{Kind: kindStart, Job: j.ID})
}

// Handle handles one message of the tasks queue (a Lambda's SQS record):
// nil when it is done with (the caller deletes it), an error to have it
// delivered again.
func (e *Engine) Handle(ctx context.Context, body []byte) error {
	return e.HandleDelivery(ctx, body, 0)
}

// HandleDelivery is Handle with the message's receive count (1 on the
// first delivery, 0 when unknown). When ctx has a deadline (a Lambda's),
// the work gets the deadline minus Reserve; a message that fails or runs
// out of time on its GiveUpAfter-th delivery records a give-up for its
// tile, batch or step instead of being retried, within that reserve, and
// a later delivery records it at once (giveup.go).
func (e *Engine) HandleDelivery(ctx context.Context, body []byte, receiveCount int) error {
	m, err := decode(body)
	if err != nil {
		e.d.Log.Error("engine: dropping an unreadable message", "err", err, "body", truncate(string(body), 200))
		return nil
	}
	if m.Kind != kindSweep && receiveCount > e.d.GiveUpAfter {
		// The delivery that was to record the give-up said nothing: its
		// process died (killed at its deadline, out of memory). Working
		// again would end alike.
		return e.giveUp(ctx, m, receiveCount, errDied)
	}
	work, cancel := e.budget(ctx)
	defer cancel()
	err = e.within(work, m)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if m.Kind == kindSweep {
		// The next sweep comes soon: no retry, no dead letter.
		e.d.Log.Warn("engine: sweep failed", "err", err)
		return nil
	}
	var perm *permanentError
	if errors.As(err, &perm) {
		e.d.Log.Error("engine: job fails", "job", m.Job, "kind", m.Kind, "task", m.Task, "err", err)
		return e.failJob(ctx, m.Job, perm.msg)
	}
	if receiveCount > 0 && receiveCount >= e.d.GiveUpAfter {
		return e.giveUp(ctx, m, receiveCount, err)
	}
	return err
}

func (e *Engine) dispatch(ctx context.Context, m message) error {
	switch m.Kind {
	case kindStart:
		return e.handleStart(ctx, m)
	case kindTask:
		return e.handleTask(ctx, m)
	case kindFinalize:
		return e.handleFinalize(ctx, m)
	case kindBatch:
		return e.handleBatch(ctx, m)
	case kindSingle:
		return e.afterSingle(ctx, m, e.handleSingle(ctx, m))
	case kindDerive:
		return e.handleDerive(ctx, m)
	case kindExport:
		return e.handleExport(ctx, m)
	case kindSalvage:
		return e.handleSalvage(ctx, m)
	case kindSweep:
		return e.handleSweep(ctx)
	}
	return nil // decode refuses other kinds
}

// permanentError is a failure no retry mends: the job fails with msg, the
// message the user reads in error_message.
type permanentError struct {
	msg string
	err error
}

func (p *permanentError) Error() string { return p.msg + ": " + p.err.Error() }
func (p *permanentError) Unwrap() error { return p.err }

func permanent(msg string, err error) error { return &permanentError{msg: msg, err: err} }

// Run consumes the queue with Handlers goroutines until ctx ends, then
// returns once every goroutine has: a message being handled when ctx ends
// is abandoned (its work is safe to redo) and made visible again at once.
// Each message stays hidden while it is handled (Visibility, renewed), is
// deleted once handled, and on an error is logged and left for a later
// delivery (after RetryDelay).
func (e *Engine) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for range e.d.Handlers {
		wg.Go(func() { e.loop(ctx, e.d.QueueName) })
	}
	if e.d.ItemQueue != e.d.QueueName {
		for range e.d.Handlers {
			wg.Go(func() { e.loop(ctx, e.d.ItemQueue) })
		}
	}
	if e.d.SingleQueue != e.d.QueueName && e.d.SingleQueue != e.d.ItemQueue {
		for range e.d.Handlers {
			wg.Go(func() { e.loop(ctx, e.d.SingleQueue) })
		}
	}
	if !slices.Contains([]string{e.d.QueueName, e.d.ItemQueue, e.d.SingleQueue}, e.d.FinalizeQueue) {
		for range e.d.Handlers {
			wg.Go(func() { e.loop(ctx, e.d.FinalizeQueue) })
		}
	}
	wg.Wait()
	return nil
}

func (e *Engine) loop(ctx context.Context, q string) {
	failures := 0
	for ctx.Err() == nil {
		ds, err := e.d.Queue.Receive(ctx, q, 1, e.d.Wait, e.d.Visibility)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			e.d.Log.Error("engine: receive", "err", err)
			_ = e.d.Sleep(ctx, min(time.Duration(failures)*time.Second, 30*time.Second))
			continue
		}
		failures = 0
		for _, d := range ds {
			e.process(ctx, q, d)
		}
	}
}

// process handles one delivery with its visibility renewed, then deletes
// it, or releases it for a later delivery.
func (e *Engine) process(ctx context.Context, q string, d queue.Delivery) {
	hbCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { e.heartbeat(hbCtx, q, d.Receipt) })
	hctx, cancel := ctx, context.CancelFunc(func() {})
	if t := e.d.Deadlines[q]; t > 0 {
		// As its Lambda's timeout bounds an invocation on AWS.
		hctx, cancel = context.WithTimeout(ctx, t)
	}
	err := e.HandleDelivery(hctx, d.Body, d.ReceiveCount)
	cancel()
	stop()
	wg.Wait()

	bg, cancelBG := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancelBG()
	switch {
	case err == nil:
		if derr := e.d.Queue.Delete(bg, q, d.Receipt); derr != nil && !errors.Is(derr, queue.ErrReceiptExpired) {
			e.d.Log.Warn("engine: delete a handled message", "id", d.ID, "err", derr)
		}
	case ctx.Err() != nil:
		// Stopping: another worker may take it now.
		_ = e.d.Queue.ChangeVisibility(bg, q, d.Receipt, 0)
	default:
		e.d.Log.Warn("engine: message failed, will be retried", "id", d.ID, "receives", d.ReceiveCount, "err", err)
		_ = e.d.Queue.ChangeVisibility(bg, q, d.Receipt, e.d.RetryDelay(d.ReceiveCount))
	}
}

// heartbeat keeps a delivery hidden while it is handled.
func (e *Engine) heartbeat(ctx context.Context, q, receipt string) {
	t := time.NewTicker(max(e.d.Visibility/3, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := e.d.Queue.ChangeVisibility(ctx, q, receipt, e.d.Visibility); err != nil && ctx.Err() == nil {
				e.d.Log.Warn("engine: extend a message's visibility", "err", err)
			}
		}
	}
}

// failJob moves the job to failed (releasing its slot, refunding a
// scrape's unanswered searches) and tells OnTerminal; a job already
// terminal is left alone.
func (e *Engine) failJob(ctx context.Context, id, msg string) error {
	// A task closing or a report of failures refunding meanwhile changes
	// the refund: read again and redo (the tasks in flight are few and
	// none starts once the job left running, so a few rounds settle it).
	for range 8 {
		j, it, err := jobs.Load(ctx, e.d.DB, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if j.Status.Terminal() {
			return nil
		}
		extra, cond, refund := e.failRefund(j, it)
		ops, err := jobs.FailOpsWith(j, e.d.Now(), msg, extra, cond)
		if err != nil {
			return err
		}
		if refund > 0 {
			ops = append(ops, accounts.RefundOp(j.UserID, chargeMonth(j), refund))
		}
		err = jobs.Transition(ctx, e.d.DB, 0, ops...)
		if errors.Is(err, jobs.ErrTransition) {
			continue
		}
		if err != nil {
			return fmt.Errorf("fail job %s: %w", id, err)
		}
		e.plans.forget(id)
		e.log(ctx, j, true, "Job failed: "+msg, "Échec du job : "+msg)
		if refund > 0 {
			e.log(ctx, j, true,
				fmt.Sprintf("%s EF refunded for the searches the provider did not answer.", pricing.FormatEF(refund)),
				fmt.Sprintf("%s EF remboursés pour les recherches restées sans réponse.", pricing.FormatEF(refund)))
		}
		if e.d.OnTerminal != nil {
			e.d.OnTerminal(ctx, j)
		}
		if j.StartedAt != nil {
			if err := e.Salvage(ctx, j); err != nil {
				e.d.Log.Warn("engine: salvage of a failed job not sent", "job", j.ID, "err", err)
			}
		}
		return nil
	}
	return fmt.Errorf("fail job %s: it kept changing", id)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
