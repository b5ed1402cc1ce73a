package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/store"
)

// Task states in the ledger.
const (
	statePending = "pending"
	stateDone    = "done"
)

// Attributes of the job's item that the engine adds to the ones of
// shared/jobs.
const (
	attrOpenTasks = "open_tasks" // tasks written or started and not yet done
	attrLogSeq    = "log_seq"    // the last log line's number
)

func taskKey(job, task string) store.Key {
	return store.Key{PK: jobs.Key(job).PK, SK: "TASK#" + task}
}

func logKey(job string, seq int64) store.Key {
	return store.Key{PK: jobs.Key(job).PK, SK: fmt.Sprintf("LOG#%020d", seq)}
}

// expiry is the ttl of the job's engine items: its expires_at, when the
// job's record and files go too.
func expiry(j *jobs.Job) int64 {
	t, err := time.Parse(time.RFC3339, j.ExpiresAt)
	if err != nil {
		return 0
	}
	return t.Unix()
}

func withTTL(it store.Item, j *jobs.Job) store.Item {
	if ttl := expiry(j); ttl > 0 {
		it["ttl"] = ttl
	}
	return it
}

// taskRecord is a task item of the ledger.
type taskRecord struct {
	ID    string
	State string
	Tile  string // z/x/y
	Qs    []int  // query indexes
	Rows  int    // rows of its part
	// Stats per query index searched: places kept in a zone.
	Stats map[int]int
}

func fromTaskItem(it store.Item) taskRecord {
	r := taskRecord{
		ID:    strings.TrimPrefix(it.String("sk"), "TASK#"),
		State: it.String("state"),
		Tile:  it.String("tile"),
		Qs:    parseInts(it.String("q")),
		Rows:  int(it.Int("rows")),
		Stats: map[int]int{},
	}
	for p := range strings.SplitSeq(it.String("stats"), ",") {
		q, n, ok := strings.Cut(p, ":")
		if !ok {
			continue
		}
		qi, err1 := strconv.Atoi(q)
		ni, err2 := strconv.Atoi(n)
		if err1 == nil && err2 == nil {
			r.Stats[qi] = ni
		}
	}
	return r
}

func formatInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func parseInts(s string) []int {
	var out []int
	for p := range strings.SplitSeq(s, ",") {
		if n, err := strconv.Atoi(p); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// tasks reads the ledger's task items whose id starts with prefix ("" for
// every task).
func (e *Engine) tasks(ctx context.Context, job, prefix string) ([]taskRecord, error) {
	var out []taskRecord
	err := store.ForEach(ctx, e.d.DB.Table(jobs.Table), store.Query{
		PK: jobs.Key(job).PK, SK: store.BeginsWith("TASK#" + prefix),
	}, func(it store.Item) error {
		out = append(out, fromTaskItem(it))
		return nil
	})
	return out, err
}

// log appends a line to the job's log (JOB#<id> / LOG#<seq>), for the
// progress stream: the number comes from an ADD on the job's log_seq, so
// lines are numbered in the order their numbers were taken. Best effort: a
// failure is only logged. Unless force, nothing is written once the log
// holds MaxLogs lines.
func (e *Engine) log(ctx context.Context, j *jobs.Job, force bool, en, fr string) {
	e.logAt(ctx, j, -1, force, en, fr)
}

// logAt is log knowing the job's last log number (from a read of its item;
// -1 when unknown), to skip a line beyond MaxLogs without a write.
func (e *Engine) logAt(ctx context.Context, j *jobs.Job, known int64, force bool, en, fr string) {
	if !force && known >= int64(e.d.MaxLogs) {
		return
	}
	it, err := e.d.DB.Table(jobs.Table).Update(ctx, jobs.Key(j.ID), store.Update{}.Add(attrLogSeq, 1), store.Exists("pk"))
	if err != nil {
		e.d.Log.Warn("engine: job log", "job", j.ID, "err", err)
		return
	}
	seq := it.Int(attrLogSeq)
	k := logKey(j.ID, seq)
	line := withTTL(store.Item{
		"pk": k.PK, "sk": k.SK, "seq": seq, "at": e.d.Now().UTC().Format(time.RFC3339), "en": en, "fr": fr,
	}, j)
	if err := e.d.DB.Table(jobs.Table).Put(ctx, line, nil); err != nil {
		e.d.Log.Warn("engine: job log", "job", j.ID, "err", err)
	}
}
