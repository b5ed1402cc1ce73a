package phoneinfo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// Status is what a live check once said of a number: its current
// operator (after porting), whether it was ported, whether it answered.
// A field left unknown by the check stays unknown: "" or nil.
type Status struct {
	// CarrierCurrent is the operator the number is served by now.
	CarrierCurrent string
	// Ported says the number left its block's operator; nil when unknown.
	Ported *bool
	// Reachable says the number was in service (attached to a network);
	// nil when unknown.
	Reachable *bool
	// CheckedAt is when the check was made.
	CheckedAt time.Time
}

// String shows a status with its unknowns as "?": the pointers' values,
// not their addresses, in logs and test failures.
func (s Status) String() string {
	b := func(p *bool) string {
		if p == nil {
			return "?"
		}
		return strconv.FormatBool(*p)
	}
	return "{" + s.CarrierCurrent + " ported=" + b(s.Ported) + " reachable=" + b(s.Reachable) + " at " +
		s.CheckedAt.Format(time.RFC3339) + "}"
}

// Cache is the port of the per-number cache of live checks, keyed by the
// number in E.164 ("+33612345678"). In cache_only mode it is the only
// source of phone_carrier_current, phone_is_ported and phone_is_reachable:
// the module never asks an operator.
type Cache interface {
	// Get returns the number's status; ok is false when the cache has
	// none. Its error is the store's (a retry may mend it).
	Get(ctx context.Context, e164 string) (s Status, ok bool, err error)
	// Put records a number's status, replacing any earlier one.
	Put(ctx context.Context, e164 string, s Status) error
}

// MemCache is an in-memory Cache, for tests and the local runtime.
type MemCache struct {
	mu sync.RWMutex
	m  map[string]Status
}

// NewMemCache returns an empty MemCache.
func NewMemCache() *MemCache { return &MemCache{m: map[string]Status{}} }

// Get implements Cache.
func (c *MemCache) Get(_ context.Context, e164 string) (Status, bool, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.m[e164]
	return s, ok, nil
}

// Put implements Cache.
func (c *MemCache) Put(_ context.Context, e164 string, s Status) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[e164] = s
	return nil
}

// Key design of StoreCache's items (docs/phone-info.md):
//
//	pk  "phone#<e164>"  ("phone#+33612345678")
//	sk  "v"
//	carrier_current  string, absent when unknown
//	is_ported        bool, absent when unknown
//	is_reachable     bool, absent when unknown
//	checked_at       string, RFC 3339 UTC
const (
	cachePKPrefix = "phone#"
	cacheSK       = "v"
)

// StoreCache is a Cache over a table whose partition key attribute is
// "pk" and sort key attribute "sk": one item per number, read with one
// Get by full key (no query, no scan).
func StoreCache(t store.Table) Cache { return storeCache{t: t} }

// StoreCacheTTL is StoreCache whose items also carry, in the table's TTL
// attribute ttlAttr (epoch seconds), their check's time plus keep: the
// store deletes a number's status once it is too old to be read
// (Deps.MaxAge), rather than keeping every number ever checked.
func StoreCacheTTL(t store.Table, ttlAttr string, keep time.Duration) Cache {
	return storeCache{t: t, ttlAttr: ttlAttr, keep: keep}
}

type storeCache struct {
	t       store.Table
	ttlAttr string
	keep    time.Duration
}

func cacheKey(e164 string) store.Key { return store.Key{PK: cachePKPrefix + e164, SK: cacheSK} }

func (c storeCache) Get(ctx context.Context, e164 string) (Status, bool, error) {
	if e164 == "" {
		return Status{}, false, nil
	}
	it, err := c.t.Get(ctx, cacheKey(e164))
	if errors.Is(err, store.ErrNotFound) {
		return Status{}, false, nil
	}
	if err != nil {
		return Status{}, false, fmt.Errorf("phone cache: get %s: %w", e164, err)
	}
	s := Status{CarrierCurrent: it.String("carrier_current")}
	if it.Has("is_ported") {
		b := it.Bool("is_ported")
		s.Ported = &b
	}
	if it.Has("is_reachable") {
		b := it.Bool("is_reachable")
		s.Reachable = &b
	}
	if t, err := time.Parse(time.RFC3339Nano, it.String("checked_at")); err == nil {
		s.CheckedAt = t
	}
	return s, true, nil
}

func (c storeCache) Put(ctx context.Context, e164 string, s Status) error {
	if e164 == "" {
		return errors.New("phone cache: put: empty number")
	}
	k := cacheKey(e164)
	it := store.Item{"pk": k.PK, "sk": k.SK}
	if s.CarrierCurrent != "" {
		it["carrier_current"] = s.CarrierCurrent
	}
	if s.Ported != nil {
		it["is_ported"] = *s.Ported
	}
	if s.Reachable != nil {
		it["is_reachable"] = *s.Reachable
	}
	if !s.CheckedAt.IsZero() {
		it["checked_at"] = s.CheckedAt.UTC().Format(time.RFC3339Nano)
		if c.ttlAttr != "" && c.keep > 0 {
			it[c.ttlAttr] = s.CheckedAt.Add(c.keep).Unix()
		}
	}
	if err := c.t.Put(ctx, it, nil); err != nil {
		return fmt.Errorf("phone cache: put %s: %w", e164, err)
	}
	return nil
}
