package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// Token kinds and lifetimes (docs/accounts.md): a verification link stays
// valid for two days, a reset link for one hour.
const (
	tokenVerify = "verify"
	tokenReset  = "reset"
	VerifyTTL   = 48 * time.Hour
	ResetTTL    = time.Hour
)

func tokenKey(hash string) store.Key { return store.Key{PK: "TOKEN#" + hash, SK: "TOKEN"} }

func hashToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// newToken stores the SHA-256 of a fresh random token and returns the token,
// which only the mail carries.
func (s *Service) newToken(ctx context.Context, kind string, uid int64, ttl time.Duration) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	h := hashToken(tok)
	k := tokenKey(h)
	err := s.db.Table(Table).Put(ctx, store.Item{
		"pk": k.PK, "sk": k.SK, "kind": kind, "user_id": uid,
		"ttl":    s.now().Add(ttl).Unix(),
		"gsi1pk": UserPK(uid), "gsi1sk": "TOKEN#" + h,
	}, nil)
	if err != nil {
		return "", fmt.Errorf("write %s token: %w", kind, err)
	}
	return tok, nil
}

// consumeToken deletes the token if it is of the kind and unexpired, and
// returns its user. The conditional delete makes it single use even when two
// requests race.
func (s *Service) consumeToken(ctx context.Context, kind, tok string) (int64, bool, error) {
	if len(tok) < 10 || len(tok) > 256 {
		return 0, false, nil
	}
	k := tokenKey(hashToken(tok))
	it, err := s.db.Table(Table).Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read token: %w", err)
	}
	err = s.db.Table(Table).Delete(ctx, k, store.And(store.Eq("kind", kind), store.Gt("ttl", s.now().Unix())))
	if errors.Is(err, store.ErrConditionFailed) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("consume token: %w", err)
	}
	return it.Int("user_id"), true, nil
}
