// Package features holds feature-interest votes: one vote per user and
// coming-soon feature, and a vote count per feature kept in one item so that
// the counts of every feature are a single read.
package features

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/store"
)

// countsKey is the one item holding every feature's vote count.
var countsKey = store.Key{PK: "FEATURES", SK: "COUNTS"}

// Service records votes.
type Service struct {
	db      store.DB
	allowed []string
}

// New returns the vote service over the registry's allow-list.
func New(db store.DB) *Service { return &Service{db: db, allowed: modules.FeatureIDs()} }

// Summary is the body of GET /api/features.
type Summary struct {
	Voted  []string         `json:"voted"`
	Counts map[string]int64 `json:"counts"`
}

func voteKey(uid int64, id string) store.Key {
	return store.Key{PK: accounts.UserPK(uid), SK: "VOTE#" + id}
}

// Get returns the user's votes and every allowed feature's count (zero
// included).
func (s *Service) Get(ctx context.Context, uid int64) (*Summary, error) {
	voted, err := s.voted(ctx, uid)
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int64, len(s.allowed))
	it, err := s.db.Table(accounts.Table).Get(ctx, countsKey)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("read vote counts: %w", err)
	}
	for _, id := range s.allowed {
		counts[id] = max(it.Int(id), 0)
	}
	return &Summary{Voted: voted, Counts: counts}, nil
}

func (s *Service) voted(ctx context.Context, uid int64) ([]string, error) {
	// At most one vote per allowed id exists, so one page holds them all.
	p, err := s.db.Table(accounts.Table).Query(ctx, store.Query{PK: accounts.UserPK(uid), SK: store.BeginsWith("VOTE#"), Limit: 1000})
	if err != nil {
		return nil, fmt.Errorf("read votes: %w", err)
	}
	out := []string{}
	for _, it := range p.Items {
		out = append(out, strings.TrimPrefix(it.String("sk"), "VOTE#"))
	}
	return out, nil
}

func (s *Service) check(id string) error {
	if !slices.Contains(s.allowed, id) {
		return apperr.New(apperr.NotFound, "Fonctionnalité inconnue", "Unknown feature")
	}
	return nil
}

// Vote records the user's interest; a second vote is a no-op. The vote and the
// count change in one transaction conditioned on the vote being new.
func (s *Service) Vote(ctx context.Context, uid int64, id string) error {
	if err := s.check(id); err != nil {
		return err
	}
	k := voteKey(uid, id)
	err := s.db.Transact(ctx,
		store.PutOp(accounts.Table, store.Item{"pk": k.PK, "sk": k.SK, "feature": id}, store.NotExists("pk")),
		store.UpdateOp(accounts.Table, countsKey, store.Update{}.Add(id, 1), nil))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return fmt.Errorf("vote %s: %w", id, err)
	}
	return nil
}

// Retract removes the user's vote; retracting an absent vote is a no-op.
func (s *Service) Retract(ctx context.Context, uid int64, id string) error {
	if err := s.check(id); err != nil {
		return err
	}
	return s.retract(ctx, uid, id)
}

func (s *Service) retract(ctx context.Context, uid int64, id string) error {
	err := s.db.Transact(ctx,
		store.DeleteOp(accounts.Table, voteKey(uid, id), store.Exists("pk")),
		store.UpdateOp(accounts.Table, countsKey, store.Update{}.Add(id, -1), nil))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return fmt.Errorf("retract %s: %w", id, err)
	}
	return nil
}

// Export lists the account's votes in account.json.
func (s *Service) Export(ctx context.Context, uid int64) (accounts.Section, error) {
	v, err := s.voted(ctx, uid)
	if err != nil {
		return accounts.Section{}, err
	}
	return accounts.Section{Entry: "account", Key: "feature_votes", Data: v}, nil
}

// Purge retracts the account's votes so the counts stay true.
func (s *Service) Purge(ctx context.Context, uid int64) error {
	v, err := s.voted(ctx, uid)
	if err != nil {
		return err
	}
	for _, id := range v {
		if err := s.retract(ctx, uid, id); err != nil {
			return err
		}
	}
	return nil
}
