package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/store"
)

// Item jobs (a module over the items of POST /api/jobs/{type}) run on the
// same queue, ledger and transitions as scrapes: the start message reads
// the job's input file and sends one batch message per BatchSize items;
// each batch runs its module over its items, writes its part and closes
// its ledger task in one transaction with the job's counters; the last
// batch sends the finalize message, which streams the input and the parts
// into the CSV output (docs/enrichment.md).

// BatchSize is how many items one batch message carries. A batch is one
// Lambda invocation: 20 items of a few pages each end well within the
// tasks queue's visibility, and its message stays far below SQS's 256 KiB
// (the cells a module reads are cut at maxMessageCell).
const BatchSize = 20

// maxMessageCell cuts the cells a batch message carries: a site address
// or a name longer than this is not one.
const maxMessageCell = 2048

// batchItem is one item of a batch message: its index in the job's input
// and the cells its module reads.
type batchItem struct {
	I int               `json:"i"`
	V map[string]string `json:"v,omitempty"`
}

// batchID is the id of the n-th batch (0-based n): "b1", "b2", ...
func batchID(n int) string { return "b" + strconv.Itoa(n+1) }

// parseBatchID reads "b<n>" into its 0-based index.
func parseBatchID(id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, "b")
	if !ok || rest == "" || rest[0] == '0' || len(rest) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		return 0, false
	}
	return n - 1, true
}

// itemPart is one line of a batch's part: an item's index and its
// module's cells.
type itemPart struct {
	I int      `json:"i"`
	V []string `json:"v"`
}

func (e *Engine) module(j *jobs.Job) (enrich.Module, error) {
	m, ok := e.d.Modules.Lookup(j.JobType)
	if !ok {
		return nil, permanent("This module cannot run on this server", fmt.Errorf("no module %q", j.JobType))
	}
	return m, nil
}

// startItems is handleStart for an item job.
func (e *Engine) startItems(ctx context.Context, j *jobs.Job, rec jobs.Record) error {
	mod, err := e.module(j)
	if err != nil {
		return err
	}
	// The input is read twice at most and never held: its items are
	// counted from the job (CreateItems wrote that many), then streamed
	// into batch messages sent as they fill (a pipeline stage may take a
	// million rows, docs/pipelines.md).
	nBatches := (j.GridPointsCount + BatchSize - 1) / BatchSize
	b, ok, err := e.begin(ctx, j, rec, nBatches)
	if err != nil || !ok {
		return err
	}
	j = b.job
	if b.started {
		e.log(ctx, j, true,
			fmt.Sprintf("Started: %d items in %d batches (%s).", j.GridPointsCount, nBatches, j.JobType),
			fmt.Sprintf("Démarrage : %d éléments en %d lots (%s).", j.GridPointsCount, nBatches, j.JobType))
		if n, ok := mod.(enrich.Noted); ok {
			if en, fr := n.JobNote(); en != "" {
				e.log(ctx, j, true, en, fr)
			}
		}
	}
	if b.open == 0 {
		return e.closeOut(ctx, j, b.rec)
	}
	done, err := e.doneTasks(ctx, j.ID, "b", b.started)
	if err != nil {
		return err
	}
	ms := make([]message, 0, sendChunk)
	n, err := e.readBatches(ctx, j, mod.Reads(), func(b int, items []batchItem) error {
		if id := batchID(b); !done[id] {
			ms = append(ms, message{Kind: kindBatch, Job: j.ID, Task: id, Items: items})
		}
		if len(ms) < sendChunk {
			return nil
		}
		err := e.sendTo(ctx, e.d.ItemQueue, ms...)
		ms = ms[:0]
		return err
	})
	if err != nil {
		return err
	}
	if n != nBatches {
		return permanent("The job's input is inconsistent",
			fmt.Errorf("input of %d batches for %d items", n, j.GridPointsCount))
	}
	return e.sendTo(ctx, e.d.ItemQueue, ms...)
}

// sendChunk is how many batch messages a start holds before sending
// them: 50 SendMessageBatch calls, a few hundred kilobytes.
const sendChunk = 500

// readBatches streams the job's input into its batches, each item with
// the cells of keys, handing each batch to fn as it fills (with its
// 0-based index; the slice is fn's), and returns how many there were.
func (e *Engine) readBatches(ctx context.Context, j *jobs.Job, keys []string, fn func(int, []batchItem) error) (int, error) {
	rc, in, err := e.openInput(ctx, j)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	at := map[string]int{}
	for _, k := range keys {
		if i := slices.Index(in.Columns, k); i >= 0 {
			at[k] = i
		}
	}
	n := 0
	var cur []batchItem
	for i := 0; ; i++ {
		row, err := in.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, permanent("The job's input is unreadable", err)
		}
		bi := batchItem{I: i, V: map[string]string{}}
		for k, c := range at {
			if v := row[c]; v != "" {
				bi.V[k] = cut(v, maxMessageCell)
			}
		}
		cur = append(cur, bi)
		if len(cur) == BatchSize {
			if err := fn(n, cur); err != nil {
				return 0, err
			}
			n, cur = n+1, make([]batchItem, 0, BatchSize)
		}
	}
	if len(cur) > 0 {
		if err := fn(n, cur); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// cut shortens s to at most n bytes, on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// itemOutcome is a batch's work before its transaction.
type itemOutcome struct {
	parts       []itemPart
	unreachable int
	found       int
	// failures are the causes (en, fr) of the items whose paid work
	// failed though their site was read; uncharged sums the shares of
	// their prices to give back.
	failures  [][2]string
	uncharged float64
}

// itemRefund is the EF a batch gives back: the shares of the items' price
// (the job's charge over its items) their failed work stood for.
func itemRefund(j *jobs.Job, uncharged float64) float64 {
	if j.EFCost <= 0 || j.GridPointsCount <= 0 || uncharged <= 0 {
		return 0
	}
	return math.Round(j.EFCost/float64(j.GridPointsCount)*uncharged*100) / 100
}

// openInput opens an item job's input, stored at its creation: a missing
// or unreadable input is permanent (no retry mends it), a read failure of
// the file store is not. The caller closes rc.
func (e *Engine) openInput(ctx context.Context, j *jobs.Job) (io.ReadCloser, *jobs.InputReader, error) {
	rc, _, err := e.d.Files.Open(ctx, jobs.InputKey(j.ID))
	if errors.Is(err, blob.ErrNotFound) {
		return nil, nil, permanent("The job's input is missing", err)
	}
	if err != nil {
		return nil, nil, err
	}
	in, err := jobs.NewInputReader(rc)
	if err != nil {
		rc.Close()
		return nil, nil, permanent("The job's input is unreadable", err)
	}
	return rc, in, nil
}

// handleBatch runs one batch of an item job.
func (e *Engine) handleBatch(ctx context.Context, m message) error {
	j, jit, ok, err := e.load(ctx, m.Job)
	if err != nil || !ok {
		return err
	}
	if j.Status.Terminal() {
		return nil
	}
	if j.Status != jobs.Running {
		return fmt.Errorf("batch %s of job %s: job is %s", m.Task, j.ID, j.Status)
	}
	if done, err := jobs.TaskIsDone(ctx, e.d.DB, j.ID, m.Task); err != nil || done {
		if err != nil {
			return err
		}
		return e.afterClose(ctx, j, jit)
	}
	mod, err := e.module(j)
	if err != nil {
		return err
	}
	out, err := e.runItems(ctx, j, mod, m.Items)
	if err != nil {
		return err
	}
	if err := writePart(ctx, e, j.ID, m.Task, out.parts); err != nil {
		return err
	}
	n := int64(len(m.Items))
	refund := itemRefund(j, out.uncharged)
	var also []store.TxOp
	if refund > 0 {
		// In the batch's transaction: given back once, with the batch.
		also = append(also, accounts.RefundOp(j.UserID, chargeMonth(j), refund))
	}
	err = jobs.CloseTask(ctx, e.d.DB, j, jit, jobs.Close{
		Task: jobs.Task{ID: m.Task, Rows: int(n)},
		Progress: jobs.Progress{Points: n, Results: n, Errors: int64(out.unreachable + len(out.failures)),
			Found: int64(out.found), Answered: n, Opened: -1, ItemRefundCents: cents(refund)},
		Also: also,
	}, e.d.Now())
	if errors.Is(err, jobs.ErrTaskClosed) {
		e.d.Log.Debug("engine: batch already closed", "job", j.ID, "batch", m.Task, "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	after, err := jobs.Reload(ctx, e.d.DB, j.ID)
	if err != nil {
		return err
	}
	seq := after.LogSeq()
	for _, f := range out.failures {
		e.logAt(ctx, j, seq, false, f[0], f[1])
		seq++
	}
	if refund > 0 {
		e.logAt(ctx, j, seq, false,
			fmt.Sprintf("%s EF refunded for the work not done in batch %s (%s).", pricing.FormatEF(refund), m.Task, j.JobType),
			fmt.Sprintf("%s EF remboursés pour le travail non fait du lot %s (%s).", pricing.FormatEF(refund), m.Task, j.JobType))
	}
	if b, ok := parseBatchID(m.Task); ok && (b+1)%e.d.LogEvery == 0 {
		done, total := after.Points(), int64(j.GridPointsCount)
		e.logAt(ctx, j, after.LogSeq(), false,
			fmt.Sprintf("Progress: %d/%d items, %d enriched, %d unreachable.", done, total, after.Found(), after.Errors()),
			fmt.Sprintf("Progression : %d/%d éléments, %d enrichis, %d injoignables.", done, total, after.Found(), after.Errors()))
	}
	return e.afterClose(ctx, j, after)
}

// runItems runs the module over a batch's items, ItemWorkers at once over
// the whole engine, each within enrich.ItemTimeout. A panic in a module
// is the item's failure, not the worker's.
func (e *Engine) runItems(ctx context.Context, j *jobs.Job, mod enrich.Module, items []batchItem) (itemOutcome, error) {
	env := &enrich.Env{Session: e.sessions.get(j.ID, e.d.Modules), Job: enrich.Job{
		ID: j.ID, UserID: j.UserID, Options: j.Options(),
	}}
	cols := len(mod.Columns())
	res := make([]enrich.Result, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		if err := e.itemSlots.acquire(ctx, j.LowPriority); err != nil {
			wg.Wait()
			return itemOutcome{}, err
		}
		wg.Go(func() {
			defer e.itemSlots.release()
			res[i], errs[i] = e.runItem(ctx, env, mod, it)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return itemOutcome{}, err
	}
	var out itemOutcome
	for i, r := range res {
		v := r.Values
		if len(v) != cols {
			v = append(v[:min(len(v), cols):min(len(v), cols)], make([]string, max(cols-len(v), 0))...)
		}
		out.parts = append(out.parts, itemPart{I: items[i].I, V: v})
		if r.Unreachable {
			out.unreachable++
		}
		if r.Found {
			out.found++
		}
		if r.Failure != "" && !r.Unreachable {
			out.failures = append(out.failures, [2]string{r.Failure, cmp.Or(r.FailureFR, r.Failure)})
		}
		out.uncharged += min(max(r.Uncharged, 0), 1)
	}
	return out, nil
}

func (e *Engine) runItem(ctx context.Context, env *enrich.Env, mod enrich.Module, it batchItem) (r enrich.Result, err error) {
	ictx, cancel := context.WithTimeout(ctx, enrich.ItemTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			e.d.Log.Error("engine: module panicked on an item", "job", env.Job.ID, "module", mod.Slug(), "item", it.I,
				"panic", p, "stack", string(debug.Stack()))
			r, err = enrich.Result{Unreachable: true}, nil
		}
	}()
	r, err = mod.Run(ictx, env, enrich.Input(it.V))
	if err != nil && ctx.Err() == nil && ictx.Err() != nil {
		// The item's own deadline: the site was too slow, not a failure
		// of the batch.
		return enrich.Result{Unreachable: true}, nil
	}
	return r, err
}

// finalizeItems is handleFinalize for an item job: the output keeps every
// input column in order, then the module's columns the input lacks; a
// module column the input already has keeps its place and takes the
// module's value when the module found one (docs/enrichment.md).
func (e *Engine) finalizeItems(ctx context.Context, j *jobs.Job, jit jobs.Record) error {
	if open := jit.OpenTasks(); open != 0 {
		e.d.Log.Warn("engine: finalize with batches open, dropped", "job", j.ID, "open", open)
		return nil
	}
	mod, err := e.module(j)
	if err != nil {
		return err
	}
	recs, err := e.tasks(ctx, j.ID, "b")
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.State != jobs.TaskDone {
			return permanent("The job's task ledger is inconsistent", fmt.Errorf("batch %s is %s with no task open", r.ID, r.State))
		}
	}
	rows, err := e.itemOutput(ctx, j, mod, nil)
	if err != nil {
		return err
	}
	j.DownloadAvailable = true
	ops, err := jobs.DoneOps(j, e.d.Now(), nil)
	if err != nil {
		return err
	}
	err = jobs.Transition(ctx, e.d.DB, 0, ops...)
	if errors.Is(err, jobs.ErrTransition) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finish job %s: %w", j.ID, err)
	}
	found, unreachable := jit.Found(), jit.Errors()
	e.log(ctx, j, true,
		fmt.Sprintf("Done: %d rows, %d enriched, %d unreachable.", rows, found, unreachable),
		fmt.Sprintf("Terminé : %d lignes, %d enrichies, %d injoignables.", rows, found, unreachable))
	if e.d.OnTerminal != nil {
		e.d.OnTerminal(ctx, j)
	}
	if err := e.d.Files.DeletePrefix(ctx, partsPrefix(j.ID)); err != nil {
		e.d.Log.Warn("engine: delete the parts of a done job", "job", j.ID, "err", err)
	}
	e.sessions.forget(j.ID)
	return nil
}

// itemOutput merges an item job's batches (those of only, when not nil)
// into its output and sets the job's rows and output name.
func (e *Engine) itemOutput(ctx context.Context, j *jobs.Job, mod enrich.Module, only map[int]bool) (int, error) {
	var distinct []string
	if d, ok := mod.(enrich.Distinct); ok {
		distinct = d.DistinctColumns()
	}
	rows, err := e.mergeItems(ctx, j, mod.Columns(), distinct, only)
	if err != nil {
		return 0, err
	}
	j.ResultsCount = rows
	name := slug(j.JobType) + "_" + j.ID + ".csv"
	j.OutputFilename = &name
	return rows, nil
}

// mergeItems streams the input and the parts (one part in memory at a
// time: batches cover consecutive items) into the output CSV. only, when
// not nil, keeps the rows of those batches (a salvage: the batches done
// before the job stopped).
func (e *Engine) mergeItems(ctx context.Context, j *jobs.Job, produced, distinct []string, only map[int]bool) (int, error) {
	rc, in, err := e.openInput(ctx, j)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	header := slices.Clone(in.Columns)
	place := make([]int, len(produced)) // where each produced column goes
	for i, c := range produced {
		if k := slices.Index(in.Columns, c); k >= 0 {
			if !slices.Contains(distinct, c) {
				place[i] = k
				continue
			}
			// Same name, another meaning: the item's column stays.
			for n := 2; slices.Contains(header, c); n++ {
				c = produced[i] + "_" + strconv.Itoa(n)
			}
		}
		place[i] = len(header)
		header = append(header, c)
	}

	rows := 0
	werr, perr := blob.Write(ctx, e.d.Files, OutputKey(j.ID), "text/csv; charset=utf-8", func(pw io.Writer) error {
		w, err := export.NewCSV(pw, header)
		if err != nil {
			return err
		}
		batch := -1
		var cells map[int][]string
		out := make([]string, len(header))
		for i := 0; ; i++ {
			row, err := in.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return permanent("The job's input is unreadable", err)
			}
			if only != nil && !only[i/BatchSize] {
				continue
			}
			if b := i / BatchSize; b != batch {
				batch = b
				if cells, err = e.readItemPart(ctx, j.ID, batchID(b)); err != nil {
					return err
				}
			}
			clear(out)
			copy(out, row)
			for k, v := range cells[i] {
				if k < len(place) && (v != "" || place[k] >= len(row)) {
					out[place[k]] = v
				}
			}
			if err := w.Write(out); err != nil {
				return err
			}
			rows++
		}
		return w.Flush()
	})
	if werr != nil {
		return 0, werr
	}
	if perr != nil {
		return 0, fmt.Errorf("write the output of job %s: %w", j.ID, perr)
	}
	return rows, nil
}

// readItemPart reads a batch's part into its cells by item index.
func (e *Engine) readItemPart(ctx context.Context, job, task string) (map[int][]string, error) {
	b, err := e.readPart(ctx, partKey(job, task))
	if err != nil {
		return nil, err
	}
	out := map[int][]string{}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var p itemPart
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, permanent("A part of the job's results is unreadable", fmt.Errorf("%s: %w", task, err))
		}
		out[p.I] = p.V
	}
}

// sessionCache keeps the crawl sessions of the jobs this process works
// for, so that the batches of a job share fetched pages (the pages of a
// site two items share, a batch delivered again). It holds few sessions,
// each bounded (crawl.Session): memory stays bounded however many items.
type sessionCache struct {
	mu    sync.Mutex
	max   int
	order []string
	m     map[string]*crawl.Session
}

func newSessionCache(n int) *sessionCache {
	return &sessionCache{max: n, m: map[string]*crawl.Session{}}
}

func (c *sessionCache) get(job string, set *enrich.Set) *crawl.Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[job]; ok {
		return s
	}
	if len(c.order) >= c.max {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	s := set.Session()
	c.m[job] = s
	c.order = append(c.order, job)
	return s
}

func (c *sessionCache) forget(job string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[job]; !ok {
		return
	}
	delete(c.m, job)
	c.order = slices.DeleteFunc(c.order, func(s string) bool { return s == job })
}
