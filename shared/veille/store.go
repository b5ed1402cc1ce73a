package veille

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/store"
)

// Veille states (spec: Veille status).
const (
	Active  = "active"
	Paused  = "paused"
	Deleted = "deleted"
)

// Run states: a run is pending from its start until its replay ended and
// its diff was computed (computed), or its replay could not run (failed).
const (
	RunPending  = "pending"
	RunComputed = "computed"
	RunFailed   = "failed"
)

// Veille is the public shape of a veille (spec: Veille).
type Veille struct {
	ID               int64   `json:"id"`
	Name             string  `json:"name"`
	SourceJobID      *string `json:"source_job_id"`
	SourcePipelineID *string `json:"source_pipeline_id"`
	FrequencyDays    int     `json:"frequency_days"`
	Status           string  `json:"status"`
	NextRunAt        string  `json:"next_run_at"`
	LastRunAt        *string `json:"last_run_at"`
	LastRunJobID     *string `json:"last_run_job_id"`
	RunCount         int     `json:"run_count"`
	CreatedAt        string  `json:"created_at"`
}

// record is a stored veille: the public fields and the bookkeeping.
type record struct {
	Veille
	UserID    int64   `json:"user_id"`
	DeletedAt *string `json:"deleted_at,omitempty"`
	// LastRunID is the latest computed run: its rows are the next diff's
	// previous side. PendingRunID is the run in flight (0: none).
	LastRunID    int64 `json:"last_run_id"`
	PendingRunID int64 `json:"pending_run_id,omitempty"`

	version int64
	next    time.Time
}

// Run is a stored run; the public fields are those of the spec (Veille
// run), the rest bookkeeping.
type Run struct {
	ID         int64   `json:"id"`
	JobID      string  `json:"job_id"`
	PrevJobID  *string `json:"prev_job_id,omitempty"`
	IsBaseline bool    `json:"is_baseline"`
	TotalCount int     `json:"total_count"`
	// The diff's counters; absent on a baseline, which has none.
	PrevTotalCount *int   `json:"prev_total_count,omitempty"`
	NewCount       *int   `json:"new_count,omitempty"`
	RemovedCount   *int   `json:"removed_count,omitempty"`
	ModifiedCount  *int   `json:"modified_count,omitempty"`
	UnchangedCount *int   `json:"unchanged_count,omitempty"`
	ComputedAt     string `json:"computed_at"`
	// JobStatus and JobCompletedAt are filled in the list.
	JobStatus      string   `json:"job_status,omitempty"`
	JobCompletedAt *string  `json:"job_completed_at,omitempty"`
	Samples        *Samples `json:"samples,omitempty"`
}

// runDoc is how a run is stored: the public fields and the bookkeeping.
type runDoc struct {
	Run
	VeilleID   int64  `json:"veille_id"`
	State      string `json:"state"`
	PipelineID string `json:"pipeline_id,omitempty"`
	Error      string `json:"error,omitempty"`
	Lookups    int    `json:"lookups"`
	Rejoined   int    `json:"rejoined"`
	Signals    int    `json:"signals"`
	CreatedAt  string `json:"created_at"`
}

// Keys and index entries (docs/veille.md). A veille and its runs share a
// partition of the veille table (Schema); the owner index lists an
// account's veilles; the gsi2 index holds, sparsely, the active
// veilles by next_run_at (the tick's due query) and the pending runs.
const (
	duePK     = "VEILLE#DUE"
	pendingPK = "VEILLE#PENDING"
)

func veilleKey(id int64) store.Key {
	return store.Key{PK: "VEILLE#" + strconv.FormatInt(id, 10), SK: "VEILLE"}
}

func runKey(vid, rid int64) store.Key {
	return store.Key{PK: "VEILLE#" + strconv.FormatInt(vid, 10), SK: "RUN#" + store.Padded(rid)}
}

// isoFmt is the spec's format of veille and run times.
const isoFmt = "2006-01-02T15:04:05Z"

func iso(t time.Time) string { return t.UTC().Format(isoFmt) }

func (r *record) item() (store.Item, error) {
	doc, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	k := veilleKey(r.ID)
	it := store.Item{"pk": k.PK, "sk": k.SK, "gsi1pk": accounts.UserPK(r.UserID),
		"gsi1sk": "VEILLE#" + store.Padded(r.ID), "user_id": r.UserID, "status": r.Status, "doc": string(doc),
		"v": r.version, "next_ms": r.next.UnixMilli()}
	// Due only while active with no run in flight.
	if r.Status == Active && r.PendingRunID == 0 {
		it["gsi2pk"], it["gsi2sk"] = duePK, store.Padded(r.next.UnixMilli())+"#"+strconv.FormatInt(r.ID, 10)
	}
	return it, nil
}

func recordFrom(it store.Item) (*record, error) {
	var r record
	if err := json.Unmarshal([]byte(it.String("doc")), &r); err != nil {
		return nil, fmt.Errorf("decode veille %s: %w", it.String("pk"), err)
	}
	r.version = it.Int("v")
	r.next = time.UnixMilli(it.Int("next_ms")).UTC()
	return &r, nil
}

func (d *runDoc) item() (store.Item, error) {
	doc, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	k := runKey(d.VeilleID, d.ID)
	it := store.Item{"pk": k.PK, "sk": k.SK, "state": d.State, "doc": string(doc)}
	if d.State == RunPending {
		it["gsi2pk"], it["gsi2sk"] = pendingPK, store.Padded(d.VeilleID)+"#"+store.Padded(d.ID)
	}
	return it, nil
}

func runFrom(it store.Item) (*runDoc, error) {
	var d runDoc
	if err := json.Unmarshal([]byte(it.String("doc")), &d); err != nil {
		return nil, fmt.Errorf("decode veille run %s %s: %w", it.String("pk"), it.String("sk"), err)
	}
	return &d, nil
}

// get reads a veille; uid 0 reads any owner's; a deleted one is a 404
// unless withDeleted.
func (s *Service) get(ctx context.Context, uid, id int64, withDeleted bool) (*record, error) {
	if id <= 0 {
		return nil, apperr.Missing()
	}
	it, err := s.d.DB.Table(Table).Get(ctx, veilleKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apperr.Missing()
	}
	if err != nil {
		return nil, fmt.Errorf("read veille %d: %w", id, err)
	}
	r, err := recordFrom(it)
	if err != nil {
		return nil, err
	}
	if (uid != 0 && r.UserID != uid) || (!withDeleted && r.Status == Deleted) {
		return nil, apperr.Missing()
	}
	return r, nil
}

// errConflict: another writer changed the veille first.
var errConflict = errors.New("veille changed concurrently")

// put writes a veille conditionally on the version it was read at, with
// extra operations in the same transaction.
func (s *Service) put(ctx context.Context, r *record, extra ...store.TxOp) error {
	old := r.version
	r.version++
	it, err := r.item()
	if err != nil {
		return err
	}
	cond := store.Eq("v", old)
	if old == 0 {
		cond = store.NotExists("pk")
	}
	ops := append([]store.TxOp{store.PutOp(Table, it, cond)}, extra...)
	err = s.d.DB.Transact(ctx, ops...)
	var txErr *store.TxConditionError
	if errors.As(err, &txErr) || errors.Is(err, store.ErrConditionFailed) {
		r.version = old
		return errConflict
	}
	if err != nil {
		r.version = old
		return fmt.Errorf("write veille %d: %w", r.ID, err)
	}
	return nil
}

// update applies change to the veille, retrying on concurrent writes (a
// deleted veille is a 404).
func (s *Service) update(ctx context.Context, uid, id int64, change func(r *record) error) (*record, error) {
	return s.modify(ctx, uid, id, false, change)
}

// modify is update, on a deleted veille too when withDeleted (the
// bookkeeping of a run that ends after the deletion).
func (s *Service) modify(ctx context.Context, uid, id int64, withDeleted bool, change func(r *record) error) (*record, error) {
	for try := 0; try < 10; try++ {
		r, err := s.get(ctx, uid, id, withDeleted)
		if err != nil {
			return nil, err
		}
		if err := change(r); err != nil {
			return nil, err
		}
		err = s.put(ctx, r)
		if errors.Is(err, errConflict) {
			continue
		}
		return r, err
	}
	return nil, fmt.Errorf("write veille %d: too many concurrent updates", id)
}

func (s *Service) getRun(ctx context.Context, vid, rid int64) (*runDoc, error) {
	if rid <= 0 {
		return nil, apperr.Missing()
	}
	it, err := s.d.DB.Table(Table).Get(ctx, runKey(vid, rid))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apperr.Missing()
	}
	if err != nil {
		return nil, fmt.Errorf("read veille run %d: %w", rid, err)
	}
	return runFrom(it)
}

// list reads the user's veilles (deleted ones included when asked).
func (s *Service) list(ctx context.Context, uid int64, withDeleted bool) ([]*record, error) {
	out := []*record{}
	err := store.ForEach(ctx, s.d.DB.Table(Table), store.Query{
		Index: "gsi1", PK: accounts.UserPK(uid), SK: store.BeginsWith("VEILLE#"), Desc: true,
	}, func(it store.Item) error {
		r, err := recordFrom(it)
		if err != nil {
			return err
		}
		if withDeleted || r.Status != Deleted {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list veilles: %w", err)
	}
	return out, nil
}

// runs reads a veille's runs, latest first.
func (s *Service) runs(ctx context.Context, vid int64) ([]*runDoc, error) {
	k := veilleKey(vid)
	out := []*runDoc{}
	err := store.ForEach(ctx, s.d.DB.Table(Table), store.Query{PK: k.PK, SK: store.BeginsWith("RUN#"), Desc: true},
		func(it store.Item) error {
			d, err := runFrom(it)
			if err != nil {
				return err
			}
			out = append(out, d)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("runs of veille %d: %w", vid, err)
	}
	return out, nil
}

// Table is the name of the veille table.
const Table = "veille"

// Schema is the key design of the veille table (docs/tables.md): a veille
// and its runs share the partition VEILLE#<id>; the owner index gsi1
// lists an account's veilles; gsi2 holds, sparsely, the active veilles by
// their next run and the pending runs.
func Schema() store.Schema {
	return store.Schema{
		Name: Table, PK: "pk", SK: "sk", TTL: "ttl",
		Indexes: []store.Index{{Name: "gsi1", PK: "gsi1pk", SK: "gsi1sk"}, {Name: "gsi2", PK: "gsi2pk", SK: "gsi2sk"}},
	}
}
