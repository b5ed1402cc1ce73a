package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// The job's item holds, beside its document, the counters its workers add
// to (docs/jobs.md): the five of the contract (counters), and the
// engine's working ones below. Each is a top-level number so that
// concurrent closes ADD to it and none is lost. Only this package names
// them: the engine reads them through Record and writes them through
// Progress and the operations of this file.
const (
	attrOpenTasks  = "open_tasks"        // tasks or batches written or started and not yet done
	attrLogSeq     = "log_seq"           // the last log line's number
	attrAnswered   = "units_answered"    // units the provider or the module answered
	attrFailed     = "units_failed"      // units failed for good
	attrLastError  = "last_error"        // the cause of the last failure
	attrReported   = "failures_reported" // the failures' log line was written
	attrRefund     = "refund_cents"      // what a scrape's failures gave back
	attrFound      = "found_count"       // items a module found something for
	attrItemRefund = "item_refund_cents" // what an item job's failed work gave back
)

// The counters of what a scrape's searches saw, per query index:
// seen_places_<i>, seen_people_<i>.
func seenPlacesAttr(q int) string { return "seen_places_" + strconv.Itoa(q) }
func seenPeopleAttr(q int) string { return "seen_people_" + strconv.Itoa(q) }

// Record is a job's item as read: what its counters say at that moment.
// The zero Record reads zero everywhere.
type Record struct{ it store.Item }

// Status is the job's status as read.
func (r Record) Status() Status { return Status(r.it.String("status")) }

// Points is processed_points: base tiles searched, or items run.
func (r Record) Points() int64 { return r.it.Int("processed_points") }

// Results is results_count.
func (r Record) Results() int64 { return r.it.Int("results_count") }

// Errors is error_count.
func (r Record) Errors() int64 { return r.it.Int("error_count") }

// Queued tells whether the job waits in its pool's queue (pool.go).
func (r Record) Queued() bool { return r.it.String("gsi2pk") != "" }

// OpenTasks is how many tasks (or batches) are written or started and not
// yet done.
func (r Record) OpenTasks() int64 { return r.it.Int(attrOpenTasks) }

// LogSeq is the number of the job's last log line.
func (r Record) LogSeq() int64 { return r.it.Int(attrLogSeq) }

// Answered and Failed count the job's units (searches or items) answered
// and failed for good; LastError is the cause of the last failure.
func (r Record) Answered() int64   { return r.it.Int(attrAnswered) }
func (r Record) Failed() int64     { return r.it.Int(attrFailed) }
func (r Record) LastError() string { return r.it.String(attrLastError) }

// Found counts the items a module found something for.
func (r Record) Found() int64 { return r.it.Int(attrFound) }

// RefundCents is what a scrape's failures gave back so far, in cents.
func (r Record) RefundCents() int64 { return r.it.Int(attrRefund) }

// Seen is what a scrape's unsaturated searches of query q listed, and the
// people of their tiles.
func (r Record) Seen(q int) Seen {
	return Seen{Places: r.it.Int(seenPlacesAttr(q)), People: r.it.Int(seenPeopleAttr(q))}
}

// Seen is what one query's unsaturated searches listed, and the people of
// their tiles (scrape.Plan.People).
type Seen struct{ Places, People int64 }

// Load reads a job by id, whoever owns it (the engine's read): the job and
// its record. ErrNotFound when absent.
func Load(ctx context.Context, db store.DB, id string) (*Job, Record, error) {
	it, err := db.Table(Table).Get(ctx, jobKey(id))
	if err != nil {
		return nil, Record{}, fmt.Errorf("get job %s: %w", id, err)
	}
	j, err := fromItem(it)
	if err != nil {
		return nil, Record{}, err
	}
	return j, Record{it}, nil
}

// Reload reads the record of job id again (after a close, for what
// follows it).
func Reload(ctx context.Context, db store.DB, id string) (Record, error) {
	it, err := db.Table(Table).Get(ctx, jobKey(id))
	if err != nil {
		return Record{}, fmt.Errorf("get job %s: %w", id, err)
	}
	return Record{it}, nil
}

// Progress is what closing a unit of the engine's work adds to its job's
// record: a scrape's task, an item job's batch, either given up.
type Progress struct {
	Points, Results, Attempts, Errors, Flagged int64
	// Opened is the tasks this close opens less the one it closes: a
	// task split into four opens three; a batch closing opens −1.
	Opened           int64
	Answered, Failed int64
	Found            int64
	LastError        string // kept when not empty
	ItemRefundCents  int64
	Seen             map[int]Seen
}

// ProgressOp adds p to the job's record, on condition that the job is
// still running, with its progress stamp when the one read (read) is old
// (Progressed).
func ProgressOp(j *Job, read Record, p Progress, now time.Time) store.TxOp {
	u := store.Update{}
	for _, a := range []struct {
		name string
		n    int64
	}{
		{"processed_points", p.Points}, {"results_count", p.Results}, {"total_attempts_count", p.Attempts},
		{"error_count", p.Errors}, {"flagged_tiles_count", p.Flagged}, {attrOpenTasks, p.Opened},
		{attrAnswered, p.Answered}, {attrFailed, p.Failed}, {attrFound, p.Found}, {attrItemRefund, p.ItemRefundCents},
	} {
		if a.n != 0 {
			u = u.Add(a.name, a.n)
		}
	}
	if p.LastError != "" {
		u = u.Set(attrLastError, p.LastError)
	}
	for q, v := range p.Seen {
		u = u.Add(seenPlacesAttr(q), v.Places).Add(seenPeopleAttr(q), v.People)
	}
	u = Progressed(u, read.it, j.ID, now)
	if len(u) == 0 {
		// An update needs an action: the one that changes nothing.
		u = u.Add(attrOpenTasks, 0)
	}
	return store.UpdateOp(Table, jobKey(j.ID), u, store.Eq("status", string(Running)))
}

// ReportOp marks, once, that a job ending with some units failed said so,
// with the refund of a scrape's share of its charge (cents; 0 for none),
// on condition that the job runs and neither was recorded.
func ReportOp(j *Job, refundCents int64) store.TxOp {
	u := store.Update{}.Set(attrReported, true)
	if refundCents > 0 {
		u = u.Set(attrRefund, refundCents)
	}
	return store.UpdateOp(Table, jobKey(j.ID), u,
		store.And(store.Eq("status", string(Running)), store.NotExists(attrReported), store.NotExists(attrRefund)))
}

// FailRefund is what a failing scrape's transaction adds to give back
// totalCents in all: the update that records it and the refund due now
// (what the record read had not given yet), on condition that the
// record's refund and answered units are still as read, so that the
// refund is made once and for the counts it was computed from.
func FailRefund(read Record, totalCents int64) (u store.Update, cond *store.Cond, dueCents int64) {
	cond = store.And(asRead(read.it, attrRefund), asRead(read.it, attrAnswered))
	due := totalCents - read.RefundCents()
	if due <= 0 {
		return nil, cond, 0
	}
	return store.Update{}.Set(attrRefund, totalCents), cond, due
}

// asRead is the condition that attribute a is still as it was read.
func asRead(it store.Item, a string) *store.Cond {
	if v, ok := it[a]; ok {
		return store.Eq(a, v)
	}
	return store.NotExists(a)
}

// AppendLog adds a line to the job's log (JOB#<id> / LOG#<seq>), read by
// Logs and the progress stream. Its number comes from an ADD on the job's
// log_seq, so lines are numbered in the order their numbers were taken.
// The line expires with the job (expiry).
func AppendLog(ctx context.Context, db store.DB, j *Job, at time.Time, en, fr string) error {
	it, err := db.Table(Table).Update(ctx, jobKey(j.ID), store.Update{}.Add(attrLogSeq, 1), store.Exists("pk"))
	if err != nil {
		return fmt.Errorf("log of job %s: %w", j.ID, err)
	}
	seq := it.Int(attrLogSeq)
	k := logKey(j.ID, seq)
	line := withExpiry(store.Item{
		"pk": k.PK, "sk": k.SK, "seq": seq, "at": at.UTC().Format(time.RFC3339), "en": en, "fr": fr,
	}, j)
	if err := db.Table(Table).Put(ctx, line, nil); err != nil {
		return fmt.Errorf("log of job %s: %w", j.ID, err)
	}
	return nil
}

func logKey(job string, seq int64) store.Key {
	return store.Key{PK: jobKey(job).PK, SK: "LOG#" + store.Padded(seq)}
}

// ErrTaskClosed reports a close whose task was already done, or whose job
// had left running (CloseTask).
var ErrTaskClosed = errors.New("jobs: task already closed or job not running")
