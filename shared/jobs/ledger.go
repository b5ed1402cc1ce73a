package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// The engine's task ledger lives under the job's partition (Schema): one
// item per task of a scrape (TASK#r<n>, its splits r<n>.<m>...) or batch
// of an item job (TASK#b<n>), pending when written, done when closed. The
// ledger makes a redelivered message harmless (a task done is not done
// again), tells a resume which base tiles are left (rootProgress), and is
// what the finalize merges. Its items expire with the job.

// Task states in the ledger.
const (
	TaskPending = "pending"
	TaskDone    = "done"
)

// Task is a task item of the ledger.
type Task struct {
	ID    string
	State string
	Tile  string // z/x/y; empty for a batch
	Qs    []int  // query indexes
	Rows  int    // rows of its part
	// Stats, per query index searched: the places kept in a zone.
	Stats   map[int]int
	Skipped bool // its searches were not made (the job reached its stop)
	GaveUp  bool // closed as given up: no search answered
}

func taskKey(job, task string) store.Key {
	return store.Key{PK: jobKey(job).PK, SK: "TASK#" + task}
}

func (t Task) item(j *Job) store.Item {
	k := taskKey(j.ID, t.ID)
	it := store.Item{"pk": k.PK, "sk": k.SK, "state": t.State}
	if t.Tile != "" {
		it["tile"], it["q"] = t.Tile, joinInts(t.Qs)
	}
	if t.State == TaskDone {
		it["rows"] = int64(t.Rows)
		if t.Tile != "" {
			it["stats"], it["skipped"] = formatStats(t.Stats), t.Skipped
		}
		if t.GaveUp {
			it["gave_up"] = true
		}
	}
	return withExpiry(it, j)
}

func taskOf(it store.Item) Task {
	t := Task{
		ID:      strings.TrimPrefix(it.String("sk"), "TASK#"),
		State:   it.String("state"),
		Tile:    it.String("tile"),
		Rows:    int(it.Int("rows")),
		Stats:   map[int]int{},
		Skipped: it.Bool("skipped"),
		GaveUp:  it.Bool("gave_up"),
	}
	if q := it.String("q"); q != "" {
		t.Qs = splitInts(q)
	}
	for p := range strings.SplitSeq(it.String("stats"), ",") {
		q, n, ok := strings.Cut(p, ":")
		if !ok {
			continue
		}
		qi, err1 := strconv.Atoi(q)
		ni, err2 := strconv.Atoi(n)
		if err1 == nil && err2 == nil {
			t.Stats[qi] = ni
		}
	}
	return t
}

func formatStats(stats map[int]int) string {
	qs := make([]int, 0, len(stats))
	for q := range stats {
		qs = append(qs, q)
	}
	slices.Sort(qs)
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = strconv.Itoa(q) + ":" + strconv.Itoa(stats[q])
	}
	return strings.Join(parts, ",")
}

// expiry is the ttl of the job's ledger and log items: its expires_at,
// when the job's record and files go too; 0 when it has none.
func expiry(j *Job) int64 {
	t, err := time.Parse(time.RFC3339, j.ExpiresAt)
	if err != nil {
		return 0
	}
	return t.Unix()
}

func withExpiry(it store.Item, j *Job) store.Item {
	if ttl := expiry(j); ttl > 0 {
		it["ttl"] = ttl
	}
	return it
}

// TaskIsDone tells whether the ledger holds task id of job j as done; a
// task absent or pending is not.
func TaskIsDone(ctx context.Context, db store.DB, job, id string) (bool, error) {
	it, err := db.Table(Table).Get(ctx, taskKey(job, id))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("task %s of job %s: %w", id, job, err)
	}
	return it.String("state") == TaskDone, nil
}

// Tasks reads the ledger's tasks of job whose id starts with prefix (""
// for every task).
func Tasks(ctx context.Context, db store.DB, job, prefix string) ([]Task, error) {
	var out []Task
	err := store.ForEach(ctx, db.Table(Table), store.Query{
		PK: jobKey(job).PK, SK: store.BeginsWith("TASK#" + prefix),
	}, func(it store.Item) error {
		out = append(out, taskOf(it))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tasks of job %s: %w", job, err)
	}
	return out, nil
}

// Close is one close of the engine's work, made in one transaction: the
// task done (unless done already), the tasks it opens written pending,
// the job's record given the progress (while it runs), and the caller's
// own operations (a refund).
type Close struct {
	Task     Task // its State is set to done
	Opens    []Task
	Progress Progress
	Also     []store.TxOp
}

// CloseTask applies c to job j, whose record was read as read.
// ErrTaskClosed when the task was already done or the job no longer runs:
// another delivery did the work, or the job was cancelled.
func CloseTask(ctx context.Context, db store.DB, j *Job, read Record, c Close, now time.Time) error {
	c.Task.State = TaskDone
	ops := make([]store.TxOp, 0, len(c.Opens)+len(c.Also)+2)
	ops = append(ops, store.PutOp(Table, c.Task.item(j), store.Or(store.NotExists("pk"), store.Eq("state", TaskPending))))
	for _, t := range c.Opens {
		t.State = TaskPending
		ops = append(ops, store.PutOp(Table, t.item(j), store.NotExists("pk")))
	}
	ops = append(ops, ProgressOp(j, read, c.Progress, now))
	ops = append(ops, c.Also...)
	err := db.Transact(ctx, ops...)
	var txErr *store.TxConditionError
	if errors.As(err, &txErr) {
		return fmt.Errorf("%w: %s (operation %d)", ErrTaskClosed, c.Task.ID, txErr.Index)
	}
	if err != nil {
		return fmt.Errorf("close task %s of job %s: %w", c.Task.ID, j.ID, err)
	}
	return nil
}

// Start is pending → running, with n tasks (or batches) open, on
// condition that the job is pending.
func Start(j *Job, now time.Time, n int) (store.TxOp, error) {
	return startOp(j, now, store.Update{}.Set(attrOpenTasks, int64(n)))
}

// SingleDoneOps is DoneOps for a job run in one piece (an import, a
// filter, a company lookup): its one point processed, no task open.
func SingleDoneOps(j *Job, now time.Time) ([]store.TxOp, error) {
	return DoneOps(j, now, store.Update{}.Set("processed_points", int64(1)).Set(attrOpenTasks, int64(0)))
}

// sweepKey holds when the periodic sweep of stuck jobs last ran.
func sweepKey() store.Key { return store.Key{PK: "SWEEP#jobs", SK: "SWEEP"} }

// WatchedSince records a sweep at now and tells since when sweeps have run
// without a gap longer than gap, now included: a job is judged stuck only
// over time that was watched.
func WatchedSince(ctx context.Context, db store.DB, now time.Time, gap time.Duration) (time.Time, error) {
	t := db.Table(Table)
	it, err := t.Get(ctx, sweepKey())
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return now, fmt.Errorf("sweep: %w", err)
	}
	since, last := time.UnixMilli(it.Int("since_ms")), time.UnixMilli(it.Int("last_ms"))
	if err != nil || now.Sub(last) > gap || since.After(now) {
		since = now
	}
	k := sweepKey()
	if err := t.Put(ctx, store.Item{"pk": k.PK, "sk": k.SK, "since_ms": since.UnixMilli(), "last_ms": now.UnixMilli()}, nil); err != nil {
		return now, fmt.Errorf("sweep: %w", err)
	}
	return since, nil
}
