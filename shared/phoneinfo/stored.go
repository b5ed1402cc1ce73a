package phoneinfo

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/blob"
)

// The numbering plan seeded into the file store (POST /api/admin/phone-plan):
// ARCEP's two files as published, read by every runtime's workers.
const (
	BlocksKey    = "reference/arcep/MAJNUM.csv"
	OperatorsKey = "reference/arcep/identifiants_CE.csv"
	// MaxPlanFile caps each file (MAJNUM.csv is about 15 MB).
	MaxPlanFile = 64 << 20
)

// StoredPlan is the plan seeded into a file store, loaded on first use and
// again after Refresh (a new seeding reaches running workers), or after
// Retry while none was seeded. Before any seeding it holds no block: the
// operator columns stay empty.
type StoredPlan struct {
	Files   blob.Store
	Refresh time.Duration // default 1 h
	Retry   time.Duration // default 1 min
	Now     func() time.Time

	mu     sync.Mutex
	plan   *MemPlan
	loaded time.Time
}

// Source implements the plan's naming.
func (p *StoredPlan) Source() string { return "ARCEP numbering plan" }

// Lookup implements Plan.
func (p *StoredPlan) Lookup(national string) (Assignment, bool) {
	plan := p.current()
	if plan == nil {
		return Assignment{}, false
	}
	return plan.Lookup(national)
}

func (p *StoredPlan) current() *MemPlan {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	refresh, retry := p.Refresh, p.Retry
	if refresh <= 0 {
		refresh = time.Hour
	}
	if retry <= 0 {
		retry = time.Minute
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.plan == nil {
		refresh = retry
	}
	if !p.loaded.IsZero() && now().Sub(p.loaded) < refresh {
		return p.plan
	}
	p.loaded = now()
	plan, err := LoadStored(context.Background(), p.Files)
	if err == nil {
		p.plan = plan
	}
	// On an error the last plan stays (none before the first seeding).
	return p.plan
}

// LoadStored reads the seeded plan from the file store.
func LoadStored(ctx context.Context, files blob.Store) (*MemPlan, error) {
	blocks, _, err := files.Open(ctx, BlocksKey)
	if err != nil {
		return nil, fmt.Errorf("phone plan: %w", err)
	}
	defer blocks.Close()
	ops, _, err := files.Open(ctx, OperatorsKey)
	if err != nil {
		return nil, fmt.Errorf("phone plan: %w", err)
	}
	defer ops.Close()
	return LoadARCEP(io.LimitReader(blocks, MaxPlanFile), io.LimitReader(ops, MaxPlanFile))
}
