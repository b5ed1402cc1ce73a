package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/placerow"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/upstream"
)

// Row is one line of a part (JSON Lines) and, after the finalizer's
// merge, one row of the output: placerow.Row.
type Row = placerow.Row

func partKey(job, task string) string { return partsPrefix(job) + task + ".jsonl" }

func partsPrefix(job string) string { return "jobs/" + job + "/parts/" }

// OutputKey is the file of a job's merged output.
func OutputKey(job string) string { return jobs.OutputKey(job) }

// unitResult is what one unit's search gave.
type unitResult struct {
	places    []provider.Place
	attempts  int
	failed    bool  // a request failed for good: error_count
	err       error // why, when failed
	saturated bool  // the search listed the provider's cap
	skipped   bool  // not searched: predicted to saturate (saturated set)
}

// taskResult is a task's work before its transaction.
type taskResult struct {
	rows     []Row
	counted  int // rows found by a unit that did not split (results_count)
	attempts int
	errors   int
	flagged  int
	stats    map[int]int // per query index: places kept in a zone
	split    []int       // query indexes whose search saturated below max depth
	fallback []unit      // merged searches that saturated
	skipped  bool        // closed by stop_at without searching
	// answered and failed count the task's units (outcome.go); lastErr
	// is the cause of its last failed one.
	answered, failed int
	lastErr          string
	// seen is, per query index, what its search saw when it did not
	// saturate: the places listed and the people of the tile, for the
	// densities the job teaches at its end (learn.go).
	seen map[int]seen
}

// handleTask does one task: see the package comment.
func (e *Engine) handleTask(ctx context.Context, m message) error {
	j, jit, ok, err := e.load(ctx, m.Job)
	if err != nil || !ok {
		return err
	}
	if j.Status.Terminal() {
		return nil
	}
	if j.Status != jobs.Running {
		return fmt.Errorf("task %s of job %s: job is %s", m.Task, j.ID, j.Status)
	}
	ctx = withPriority(ctx, j.LowPriority)
	if done, err := jobs.TaskIsDone(ctx, e.d.DB, j.ID, m.Task); err != nil || done {
		if err != nil {
			return err
		}
		return e.resendAfter(ctx, j, jit, m.Task)
	}
	if stop, err := e.overtime(ctx, j); stop || err != nil {
		return err
	}
	p, err := e.plan(j)
	if err != nil {
		return err
	}
	tile, _ := m.tile()
	units, ok := e.taskUnits(j, p, m, tile)
	if !ok {
		return nil
	}
	var res taskResult
	if j.StopAt != nil && jit.Results() >= *j.StopAt {
		res = taskResult{skipped: true, stats: map[int]int{}}
	} else if res, err = e.work(ctx, j, p, units, depth(m.Task)); err != nil {
		return err
	}
	if len(res.rows) > 0 {
		if err := writePart(ctx, e, j.ID, m.Task, res.rows); err != nil {
			return err
		}
	}
	return e.closeTask(ctx, j, jit, p, m, tile, res)
}

// overtime stops a job past its maximum run time (Deps.OnOvertime): a
// resume takes over its unfinished tiles, this task's included. stop
// tells the task not to run.
func (e *Engine) overtime(ctx context.Context, j *jobs.Job) (stop bool, err error) {
	if e.d.OnOvertime == nil || !jobs.Overdue(j, e.d.Now()) {
		return false, nil
	}
	stopped, first, err := e.d.OnOvertime(ctx, j)
	if err != nil {
		return true, err
	}
	if first {
		// The stopper merges what the job found so far.
		return true, e.send(ctx, message{Kind: kindFinalize, Job: j.ID, Partial: true})
	}
	return stopped, nil
}

// taskUnits are the searches of task m over tile; false drops a task the
// job's plan cannot hold (a bad query index, deeper than its mode), which
// only a corrupt message can carry.
func (e *Engine) taskUnits(j *jobs.Job, p *scrape.Plan, m message, tile maptile.Tile) ([]unit, bool) {
	units := m.units(tile)
	for _, u := range units {
		if q := u.q; q < 0 || q >= len(p.Settings.Queries) {
			e.d.Log.Error("engine: dropping a task with a bad query index", "job", j.ID, "task", m.Task, "q", q)
			return nil, false
		}
	}
	if depth(m.Task) > p.Settings.Mode.MaxDepth() {
		e.d.Log.Error("engine: dropping a task deeper than its mode", "job", j.ID, "task", m.Task)
		return nil, false
	}
	return units, true
}

// closeTask closes task m in one transaction (the task done, the tasks it
// opens pending, the job's counters), then sends the tasks it opens and
// writes its log lines.
func (e *Engine) closeTask(ctx context.Context, j *jobs.Job, jit jobs.Record, p *scrape.Plan, m message, tile maptile.Tile, res taskResult) error {
	next := e.followUps(j, p, m, tile, &res)
	root := int64(0)
	if isRoot(m.Task) {
		root = 1
	}
	seen := make(map[int]jobs.Seen, len(res.seen))
	for q, v := range res.seen {
		seen[q] = jobs.Seen{Places: v.places, People: v.people}
	}
	err := jobs.CloseTask(ctx, e.d.DB, j, jit, jobs.Close{
		Task: jobs.Task{ID: m.Task, Tile: tileString(tile), Qs: m.Queries, Rows: len(res.rows), Stats: res.stats,
			Skipped: res.skipped},
		Opens: next.tasks,
		Progress: jobs.Progress{Points: root, Results: int64(res.counted), Attempts: int64(res.attempts),
			Errors: int64(res.errors), Flagged: int64(res.flagged), Opened: int64(len(next.msgs) - 1),
			Answered: int64(res.answered), Failed: int64(res.failed), LastError: res.lastErr, Seen: seen},
	}, e.d.Now())
	if errors.Is(err, jobs.ErrTaskClosed) {
		// Another delivery finished the task, or the job left running
		// (cancelled): this work is not needed.
		e.d.Log.Debug("engine: task already closed", "job", j.ID, "task", m.Task, "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	if err := e.send(ctx, next.msgs...); err != nil {
		return err
	}
	after, err := jobs.Reload(ctx, e.d.DB, j.ID)
	if err != nil {
		return err
	}
	e.taskLogs(ctx, j, after, m.Task, tile, res, next.children, next.fallbacks)
	return e.afterClose(ctx, j, after)
}

// followUp is what a closed task opens: its quarters for the queries that
// saturated, and the base tiles under a merged search at the cap.
type followUp struct {
	tasks               []jobs.Task
	msgs                []message
	children, fallbacks int
}

// followUps builds the tasks task m opens. A split with no quarter in a
// zone (a sliver) flags its tile instead (res.flagged).
func (e *Engine) followUps(j *jobs.Job, p *scrape.Plan, m message, tile maptile.Tile, res *taskResult) followUp {
	var children []maptile.Tile
	if len(res.split) > 0 {
		if children = p.Grid.Children(tile); len(children) == 0 {
			res.flagged += len(res.split)
			res.split = nil
		}
	}
	// A merged search at the cap falls back to the searches it replaced:
	// one task per base tile under it, with the queries that fell back.
	var fallbacks []int
	fallbackQs := map[int][]int{}
	for _, f := range res.fallback {
		for _, n := range p.Under(f.tile) {
			if fallbackQs[n] == nil {
				fallbacks = append(fallbacks, n)
			}
			fallbackQs[n] = append(fallbackQs[n], f.q)
		}
	}
	slices.Sort(fallbacks)
	out := followUp{children: len(children), fallbacks: len(fallbacks)}
	for n, c := range children {
		id := childID(m.Task, n)
		out.tasks = append(out.tasks, jobs.Task{ID: id, Tile: tileString(c), Qs: res.split})
		out.msgs = append(out.msgs, taskMessage(j.ID, id, c, res.split))
	}
	tiles := p.Grid.Tiles()
	for _, n := range fallbacks {
		id, qs := fallbackID(m.Task, n), fallbackQs[n]
		out.tasks = append(out.tasks, jobs.Task{ID: id, Tile: tileString(tiles[n]), Qs: qs})
		out.msgs = append(out.msgs, taskMessage(j.ID, id, tiles[n], qs))
	}
	return out
}

// resendAfter is the work of a task found done: its children still
// pending are sent again, and the finalize message when no task is open (a
// crash between a task's commit and its sends loses nothing).
func (e *Engine) resendAfter(ctx context.Context, j *jobs.Job, jit jobs.Record, task string) error {
	recs, err := e.tasks(ctx, j.ID, task+".")
	if err != nil {
		return err
	}
	var ms []message
	for _, r := range recs {
		if r.State != jobs.TaskPending || strings.Contains(r.ID[len(task)+1:], ".") {
			// Only its own children and fallbacks: theirs are theirs to send.
			continue
		}
		t, ok := parseTileString(r.Tile)
		if !ok {
			continue
		}
		ms = append(ms, message{Kind: kindTask, Job: j.ID, Task: r.ID, Tile: t, Queries: r.Qs})
	}
	if err := e.send(ctx, ms...); err != nil {
		return err
	}
	return e.afterClose(ctx, j, jit)
}

// work searches the task's units, all at once (each request waits for a
// provider slot), and builds its rows: units in the order of their
// queries, places in the provider's order, the first of each place id
// kept, places outside every zone of the request dropped. When the job
// asks for reviews, it then reads the latest reviews of its rows (one
// request per row: a place is fetched once per task).
func (e *Engine) work(ctx context.Context, j *jobs.Job, p *scrape.Plan, units []unit, d int) (taskResult, error) {
	canSplit := d < p.Settings.Mode.MaxDepth()
	results, err := e.searchUnits(ctx, j, p, units, d, canSplit)
	if err != nil {
		return taskResult{}, err
	}
	res, err := e.collect(j, p, units, results, canSplit)
	if err != nil {
		return taskResult{}, err
	}
	if j.IncludeReviews {
		attempts, failed, err := e.fetchReviews(ctx, j, res.rows)
		if err != nil {
			return taskResult{}, err
		}
		res.attempts += attempts
		res.errors += failed
	}
	return res, nil
}

// searchUnits makes the units' searches, all at once (each request waits
// for a provider slot). A unit its query's density says to split
// unsearched is answered saturated (scrape.Plan.Skips).
func (e *Engine) searchUnits(ctx context.Context, j *jobs.Job, p *scrape.Plan, units []unit, d int, canSplit bool) ([]unitResult, error) {
	results := make([]unitResult, len(units))
	errs := make([]error, len(units))
	var wg sync.WaitGroup
	lang := languageOf(j.Country)
	for i, u := range units {
		if !u.wide && canSplit && u.q < len(j.Rates) && p.Skips(j.Rates[u.q], u.tile, d) {
			results[i] = unitResult{saturated: true, skipped: true}
			continue
		}
		wg.Go(func() {
			defer recovered(&errs[i])
			results[i], errs[i] = e.searchUnit(ctx, provider.Request{
				Query: p.Settings.Queries[u.q], Bound: u.tile.Bound(), Country: j.Country, Language: lang,
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if errors.Is(err, provider.ErrRefused) {
			// No retry mends it, for any search of the job: the job
			// fails at once, and its other tasks are dropped.
			return nil, permanent("The map provider refused the job's searches ("+cause(err)+").", err)
		}
	}
	return results, errors.Join(errs...)
}

// collect builds the task's result from its units' searches: the counts,
// what splits or falls back, and the rows (units in the order of their
// queries, places in the provider's order, the first of each place id
// kept, places outside every zone of the request dropped).
func (e *Engine) collect(j *jobs.Job, p *scrape.Plan, units []unit, results []unitResult, canSplit bool) (taskResult, error) {
	res := taskResult{stats: map[int]int{}}
	index := map[string]int{} // place id -> its row
	counted := map[string]bool{}
	for i, u := range units {
		q, r := u.q, results[i]
		res.attempts += r.attempts
		switch {
		case r.failed:
			res.errors++
			res.failed++
			res.lastErr = cause(r.err)
		case !r.skipped:
			res.answered++
		}
		if !r.failed && !r.saturated {
			if res.seen == nil {
				res.seen = map[int]seen{}
			}
			res.seen[q] = seen{places: int64(len(r.places)), people: int64(p.People(u.tile))}
		}
		// A merged search at the cap falls back to its base tiles' own
		// searches; another splits while the mode allows, else is flagged.
		splits := r.saturated && (canSplit || u.wide)
		switch {
		case splits && u.wide:
			res.fallback = append(res.fallback, u)
		case splits:
			res.split = append(res.split, q)
		case r.saturated:
			res.flagged++
		}
		kept := 0
		for _, pl := range r.places {
			pt := orb.Point{pl.Lon, pl.Lat}
			// In a zone by its shape and by its address (a row whose
			// address names another commune is out: scrape.Plan.ZonesAt).
			zs := p.ZonesAt(pt, pl.Address)
			if len(zs) == 0 || pl.ID == "" {
				continue
			}
			kept++
			e164, foreign := placerow.ClassifyPhone(pl.Phone, j.Country)
			if !splits && !counted[pl.ID] && !(j.ExcludeForeignPhones && foreign) && maptile.At(pt, u.tile.Z) == u.tile {
				counted[pl.ID] = true
				res.counted++
			}
			if _, dup := index[pl.ID]; dup {
				continue
			}
			row, err := e.row(j, p, pl, q, zs[0])
			if err != nil {
				return taskResult{}, err
			}
			row.PhoneE164, row.PhoneForeign = e164, foreign
			index[pl.ID] = len(res.rows)
			res.rows = append(res.rows, row)
		}
		res.stats[q] = kept
	}
	return res, nil
}

// row is the scrape row of a place found by query q in zone z, but for
// its phone's classification.
func (e *Engine) row(j *jobs.Job, p *scrape.Plan, pl provider.Place, q, z int) (Row, error) {
	row := Row{
		PlaceID: pl.ID, Name: pl.Name, Website: pl.Website, Phone: pl.Phone, Address: pl.Address,
		Rating: pl.Rating, Reviews: pl.ReviewCount, Category: pl.Category, MapsURL: pl.MapsURL,
		Query: p.Settings.Queries[q], Zone: p.Zones[z].Label, Lat: pl.Lat, Lon: pl.Lon,
	}
	withDept, withRegion := slices.Contains(j.ExtraColumns, "departement"), slices.Contains(j.ExtraColumns, "region")
	if withDept || withRegion {
		dept, region, err := e.d.Scrape.Locate(j.Country, orb.Point{pl.Lon, pl.Lat})
		if err != nil {
			return Row{}, err
		}
		if withDept {
			row.Department = dept
		}
		if withRegion {
			row.Region = region
		}
	}
	return row, nil
}

// searchUnit runs one search: every page up to the provider's cap.
func (e *Engine) searchUnit(ctx context.Context, req provider.Request) (unitResult, error) {
	var r unitResult
	lim := e.d.Provider.Limits()
	maxPages := 100
	if lim.Cap > 0 && lim.PageSize > 0 {
		maxPages = (lim.Cap+lim.PageSize-1)/lim.PageSize + 1
	}
	listed := 0
	for page := 0; page < maxPages; page++ {
		pg, n, err := e.request(ctx, req)
		r.attempts += n
		if err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err()
			}
			if errors.Is(err, provider.ErrRefused) {
				return r, err
			}
			r.failed, r.err = true, err
			e.d.Log.Warn("engine: search failed", "query", req.Query, "bound", req.Bound, "err", err)
			return r, nil
		}
		r.places = append(r.places, pg.Places...)
		// The cap counts what the provider listed, places the adapter
		// dropped included (closed ones): a search at the cap is saturated
		// even when fewer places are kept.
		listed += pg.Count()
		if lim.Cap > 0 && listed >= lim.Cap {
			r.saturated = true
			return r, nil
		}
		if pg.NextPageToken == "" {
			return r, nil
		}
		req.PageToken = pg.NextPageToken
	}
	return r, nil
}

// request asks the provider for one page of a search (see withRetries).
func (e *Engine) request(ctx context.Context, req provider.Request) (provider.Page, int, error) {
	return withRetries(ctx, e, func(ctx context.Context) (provider.Page, error) {
		return e.d.Provider.Search(ctx, req)
	})
}

// withRetries makes one provider request with call, retrying transient
// failures (provider.ErrTransient) Retries times after Backoff, under the
// upstream clients' one policy (upstream.Retry); it returns how many
// requests it made. Each request holds one of the Workers slots; a wait
// between retries holds none.
func withRetries[T any](ctx context.Context, e *Engine, call func(context.Context) (T, error)) (T, int, error) {
	var (
		v       T
		made    int
		slotErr error
	)
	policy := upstream.Retry{MaxAttempts: e.d.Retries + 1, Backoff: e.d.Backoff, Sleep: e.d.Sleep, WaitPastDeadline: true}
	_, err := policy.Do(ctx, func(ctx context.Context, n int) upstream.Outcome {
		if slotErr = e.slots.acquire(ctx, isLow(ctx)); slotErr != nil {
			return upstream.Outcome{Err: slotErr}
		}
		made = n
		var err error
		v, err = call(ctx)
		e.slots.release()
		return upstream.Outcome{Err: err, Temporary: errors.Is(err, provider.ErrTransient)}
	})
	var stop *upstream.StopError
	switch {
	case slotErr != nil:
		var zero T
		return zero, made, slotErr
	case errors.As(err, &stop) && stop.Reason == upstream.Interrupted:
		return v, made, stop.Cause
	case errors.As(err, &stop):
		return v, made, stop.Last
	}
	return v, made, err
}

// writePart stores a task's rows, or a batch's item cells, as one JSON
// line each, replacing what an earlier delivery wrote.
func writePart[T any](ctx context.Context, e *Engine, job, task string, lines []T) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range lines {
		if err := enc.Encode(&lines[i]); err != nil {
			return err
		}
	}
	if _, err := e.d.Files.Put(ctx, partKey(job, task), &buf, "application/x-ndjson"); err != nil {
		return fmt.Errorf("write part %s of job %s: %w", task, job, err)
	}
	return nil
}

// taskLogs writes the log lines of a closed task: a split, and progress
// every LogEvery root tasks.
func (e *Engine) taskLogs(ctx context.Context, j *jobs.Job, after jobs.Record, task string, tile maptile.Tile, res taskResult, children, fallbacks int) {
	if after.Status() != jobs.Running {
		return
	}
	seq := after.LogSeq()
	if children > 0 {
		qs := make([]string, len(res.split))
		for i, q := range res.split {
			qs[i] = strconv.Quote(j.Queries[q])
		}
		list := strings.Join(qs, ", ")
		e.logAt(ctx, j, seq, false,
			fmt.Sprintf("Tile %s saturated for %s: split into %d (depth %d).", tileString(tile), list, children, depth(task)+1),
			fmt.Sprintf("Tuile %s saturée pour %s : découpée en %d (niveau %d).", tileString(tile), list, children, depth(task)+1))
		seq++
	}
	if fallbacks > 0 {
		qs := make([]string, len(res.fallback))
		for i, f := range res.fallback {
			qs[i] = fmt.Sprintf("%q over %s", j.Queries[f.q], tileString(f.tile))
		}
		list := strings.Join(qs, ", ")
		e.logAt(ctx, j, seq, false,
			fmt.Sprintf("Merged search %s saturated: its %d base tiles are searched one by one.", list, fallbacks),
			fmt.Sprintf("Recherche groupée %s saturée : ses %d tuiles de base sont cherchées une à une.", list, fallbacks))
		seq++
	}
	if ids, _ := parseTaskID(task); len(ids) == 1 && ids[0]%e.d.LogEvery == 0 {
		done, total, results := after.Points(), j.GridPointsCount, after.Results()
		e.logAt(ctx, j, seq, false,
			fmt.Sprintf("Progress: %d/%d tiles, %d results so far.", done, total, results),
			fmt.Sprintf("Progression : %d/%d tuiles, %d résultats pour l'instant.", done, total, results))
	}
}

// languageOf is the results' language asked of the provider for a country:
// French for France and the French-speaking markets next to it, else none
// (the provider's default for the region).
func languageOf(country string) string {
	switch country {
	case "FRA", "BEL", "CHE", "LUX", "MCO":
		return "fr"
	}
	return ""
}
