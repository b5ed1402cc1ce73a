package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/store"
)

// Pipeline states (spec: Pipeline status).
const (
	Running   = "running"
	Done      = "done"
	Failed    = "failed"
	Cancelled = "cancelled"
)

// Pipeline is a stored pipeline. A pipeline is an item of the pipelines
// table, PIPE#<id> / PIPE, listed on the table's owner index under
// PIPE#<created ms> (docs/pipelines.md, docs/tables.md).
type Pipeline struct {
	ID          string     `json:"id"`
	UserID      int64      `json:"user_id"`
	Name        string     `json:"name"`
	Definition  Definition `json:"definition"`
	Status      string     `json:"status"`
	CreatedAt   string     `json:"created_at"`
	CompletedAt *string    `json:"completed_at"`
	LowPriority bool       `json:"low_priority"`
	// Stages are each node's jobs, the latest last.
	Stages map[string][]string `json:"stages"`
	// Continued are the nodes whose failed or cancelled stage was
	// continued: resolved, their successors started from their rows.
	Continued []string `json:"continued,omitempty"`
	// DoneCount and ResultsCount are the list's counters, kept by Step:
	// the stages whose latest job ended, and their rows.
	DoneCount    int `json:"done_count"`
	ResultsCount int `json:"results_count"`

	created time.Time
	version int64
	// signals counts the changes told to the pipeline's driver (a stage
	// ended, continue, cancel); token is the task token of the state
	// machine's execution waiting for the next one (shared/pipelines
	// step.go). Both are item attributes, out of the document: the
	// account's export has no use for them.
	signals int64
	token   string
}

// pipeTimeFmt is the spec's time format of pipelines.
const pipeTimeFmt = "2006-01-02 15:04:05"

func pipeKey(id string) store.Key { return store.Key{PK: "PIPE#" + id, SK: "PIPE"} }

func pipeItem(p *Pipeline) (store.Item, error) {
	doc, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	k := pipeKey(p.ID)
	return store.Item{"pk": k.PK, "sk": k.SK, "gsi1pk": accounts.UserPK(p.UserID),
		"gsi1sk":  "PIPE#" + store.Padded(p.created.UnixMilli()) + "#" + p.ID,
		"user_id": p.UserID, "status": p.Status, "doc": string(doc), "v": p.version, "created_ms": p.created.UnixMilli(),
		"signals": p.signals, "token": p.token}, nil
}

func pipeFrom(it store.Item) (*Pipeline, error) {
	var p Pipeline
	if err := json.Unmarshal([]byte(it.String("doc")), &p); err != nil {
		return nil, fmt.Errorf("decode pipeline %s: %w", it.String("pk"), err)
	}
	p.version = it.Int("v")
	p.signals = it.Int("signals")
	p.token = it.String("token")
	p.created = time.UnixMilli(it.Int("created_ms")).UTC()
	if p.Stages == nil {
		p.Stages = map[string][]string{}
	}
	return &p, nil
}

// get reads a pipeline of the user (404 for another's).
func (s *Service) get(ctx context.Context, uid int64, id string) (*Pipeline, error) {
	if id == "" || len(id) > 64 {
		return nil, apperr.Missing()
	}
	it, err := s.d.DB.Table(StoreTable).Get(ctx, pipeKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apperr.Missing()
	}
	if err != nil {
		return nil, fmt.Errorf("read pipeline %s: %w", id, err)
	}
	p, err := pipeFrom(it)
	if err != nil {
		return nil, err
	}
	// The pipelines section's generic rule: another user's pipeline is a
	// 403 ("not owner"), an unknown id a 404 (docs/pipelines.md). The id
	// is random and unguessable, so the 403 reveals nothing usable.
	if uid != 0 && p.UserID != uid {
		return nil, errNotOwner()
	}
	return p, nil
}

// update applies change to the pipeline, retrying when another writer
// got there first (two stages of a fan-out may end together).
func (s *Service) update(ctx context.Context, id string, change func(p *Pipeline) bool) (*Pipeline, error) {
	for try := 0; try < 10; try++ {
		p, err := s.get(ctx, 0, id)
		if err != nil {
			return nil, err
		}
		if !change(p) {
			return p, nil
		}
		old := p.version
		p.version++
		it, err := pipeItem(p)
		if err != nil {
			return nil, err
		}
		err = s.d.DB.Table(StoreTable).Put(ctx, it, store.Eq("v", old))
		if errors.Is(err, store.ErrConditionFailed) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("write pipeline %s: %w", id, err)
		}
		return p, nil
	}
	return nil, fmt.Errorf("write pipeline %s: too many concurrent updates", id)
}

// list reads the user's latest pipelines, most recent first (limit 0:
// every one).
func (s *Service) list(ctx context.Context, uid int64, limit int) ([]*Pipeline, error) {
	out := []*Pipeline{}
	err := store.ForEach(ctx, s.d.DB.Table(StoreTable), store.Query{
		Index: "gsi1", PK: accounts.UserPK(uid), SK: store.BeginsWith("PIPE#"), Desc: true,
	}, func(it store.Item) error {
		p, err := pipeFrom(it)
		if err != nil {
			return err
		}
		out = append(out, p)
		if limit > 0 && len(out) == limit {
			return store.ErrStop
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list pipelines: %w", err)
	}
	return out, nil
}

// Export is the pipelines' part of the account's data export.
func (s *Service) Export(ctx context.Context, uid int64) (accounts.Section, error) {
	ps, err := s.list(ctx, uid, 0)
	if err != nil {
		return accounts.Section{}, err
	}
	return accounts.Section{Entry: "pipelines", Data: ps, Summary: fmt.Sprintf("Pipelines : %d", len(ps))}, nil
}

// Purge deletes every pipeline of the account (its jobs go with the
// jobs' purge).
func (s *Service) Purge(ctx context.Context, uid int64) error {
	ps, err := s.list(ctx, uid, 0)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := s.d.DB.Table(StoreTable).Delete(ctx, pipeKey(p.ID), nil); err != nil {
			return fmt.Errorf("purge pipeline %s: %w", p.ID, err)
		}
	}
	return nil
}

// errNotOwner is the 403 of another user's pipeline.
func errNotOwner() *apperr.Error {
	return apperr.New(apperr.Forbidden, "Ce pipeline appartient à un autre compte.", "This pipeline belongs to another account.")
}

// StoreTable is the name of the pipelines table.
const StoreTable = "pipelines"

// StoreSchema is the key design of the pipelines table (docs/tables.md): a
// pipeline is PIPE#<id> / PIPE, listed on the owner index gsi1 as
// USER#<uid> / PIPE#<created, 20 digits of ms>#<id>, newest first.
func StoreSchema() store.Schema {
	return store.Schema{
		Name: StoreTable, PK: "pk", SK: "sk", TTL: "ttl",
		Indexes: []store.Index{{Name: "gsi1", PK: "gsi1pk", SK: "gsi1sk"}},
	}
}
