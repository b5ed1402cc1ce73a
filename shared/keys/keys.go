// Package keys holds API keys: creation (shown once), listing, logical
// revocation, and the lookup that authenticates a machine caller. Only the
// SHA-256 fingerprint of a key is stored, as the item's partition key, so a
// lookup is one read.
package keys

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/store"
)

// Spec limits.
const (
	MaxActive      = 10
	MaxListed      = 500 // keys listed at most, newest first (revoked ones included)
	touchEvery     = time.Minute
	timeFmt        = "2006-01-02 15:04:05"
	keySK          = "APIKEY"
	countSK        = "KEYCOUNT"
	secretHexChars = 40
)

// Key is an API key record.
type Key struct {
	ID          int64   `json:"id"`
	Name        string  `json:"name"`
	Prefix      string  `json:"prefix"`
	CreatedAt   string  `json:"created_at"`
	LastUsedAt  *string `json:"last_used_at"`
	RevokedAt   *string `json:"revoked_at"`
	UserID      int64   `json:"-"`
	Fingerprint string  `json:"-"`
}

// Created is the creation response, the only one carrying the key.
type Created struct {
	ID        int64  `json:"id"`
	Key       string `json:"key"`
	Name      string `json:"name"`
	Prefix    string `json:"prefix"`
	CreatedAt string `json:"created_at"`
}

// Service manages keys.
type Service struct {
	db     store.DB
	limits *ratelimit.Limiter
	ids    func(ctx context.Context, seq string) (int64, error)
	now    func() time.Time
}

// New returns the key service; ids allocates key ids.
func New(db store.DB, limits *ratelimit.Limiter, ids func(context.Context, string) (int64, error), now func() time.Time) *Service {
	return &Service{db: db, limits: limits, ids: ids, now: now}
}

// Fingerprint is the stored form of a key.
func Fingerprint(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// LooksLikeKey reports whether s has the key format: sk_ and 40 hex digits.
func LooksLikeKey(s string) bool {
	if len(s) != 3+secretHexChars || !strings.HasPrefix(s, "sk_") {
		return false
	}
	for _, c := range s[3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func fpKey(fp string) store.Key { return store.Key{PK: "APIKEY#" + fp, SK: keySK} }

func countKey(uid int64) store.Key { return store.Key{PK: accounts.UserPK(uid), SK: countSK} }

func fromItem(it store.Item) *Key {
	k := &Key{
		ID:          it.Int("id"),
		Name:        it.String("name"),
		Prefix:      it.String("prefix"),
		CreatedAt:   it.String("created_at"),
		UserID:      it.Int("user_id"),
		Fingerprint: strings.TrimPrefix(it.String("pk"), "APIKEY#"),
	}
	if v := it.String("last_used_at"); v != "" {
		k.LastUsedAt = &v
	}
	if v := it.String("revoked_at"); v != "" {
		k.RevokedAt = &v
	}
	return k
}

// Create makes a key for the user. The active-key counter and the key are
// written in one transaction whose condition keeps the count at most
// MaxActive even when two creations race.
func (s *Service) Create(ctx context.Context, uid int64, name string) (*Created, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < 1 || n > 60 {
		return nil, apperr.Fields(apperr.Field("name", "Le nom doit contenir entre 1 et 60 caractères",
			"name must be 1 to 60 characters"))
	}
	if err := s.limits.Allow(ctx, ratelimit.KeyCreate, accounts.UserPK(uid)); err != nil {
		return nil, err
	}
	var b [secretHexChars / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("key secret: %w", err)
	}
	secret := "sk_" + hex.EncodeToString(b[:])
	id, err := s.ids(ctx, "keys")
	if err != nil {
		return nil, err
	}
	fp := Fingerprint(secret)
	created := s.now().UTC().Format(timeFmt)
	k := fpKey(fp)
	item := store.Item{
		"pk": k.PK, "sk": k.SK, "id": id, "user_id": uid, "name": name, "prefix": secret[:15],
		"created_at": created, "gsi1pk": accounts.UserPK(uid), "gsi1sk": "KEY#" + store.Padded(id),
	}
	ck := countKey(uid)
	err = s.db.Transact(ctx,
		store.UpdateOp(accounts.Table, ck, store.Update{}.Add("active", 1),
			store.Or(store.NotExists("active"), store.Lt("active", int64(MaxActive)))),
		store.PutOp(accounts.Table, item, store.NotExists("pk")))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil, apperr.New(apperr.Invalid,
			fmt.Sprintf("Nombre maximum de clés actives atteint (%d). Révoque une clé avant d'en créer une autre.", MaxActive),
			fmt.Sprintf("Maximum number of active keys reached (%d). Revoke a key before creating another.", MaxActive))
	}
	if err != nil {
		return nil, fmt.Errorf("create key: %w", err)
	}
	return &Created{ID: id, Key: secret, Name: name, Prefix: secret[:15], CreatedAt: created}, nil
}

// List returns the user's keys, newest first, never their secrets.
func (s *Service) List(ctx context.Context, uid int64) ([]*Key, error) {
	out := []*Key{}
	q := store.Query{Index: accounts.OwnerIndex, PK: accounts.UserPK(uid), SK: store.BeginsWith("KEY#"), Desc: true, Limit: 100}
	for len(out) < MaxListed {
		p, err := s.db.Table(accounts.Table).Query(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		for _, it := range p.Items {
			out = append(out, fromItem(it))
		}
		if p.Next == "" {
			break
		}
		q.After = p.Next
	}
	if len(out) > MaxListed {
		out = out[:MaxListed]
	}
	return out, nil
}

// byID finds one of the user's keys.
func (s *Service) byID(ctx context.Context, uid, id int64) (*Key, error) {
	p, err := s.db.Table(accounts.Table).Query(ctx, store.Query{
		Index: accounts.OwnerIndex, PK: accounts.UserPK(uid),
		SK: store.SortCond{Op: store.SortEq, Value: "KEY#" + store.Padded(id)}, Limit: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("find key %d: %w", id, err)
	}
	if len(p.Items) == 0 {
		return nil, apperr.Missing()
	}
	return fromItem(p.Items[0]), nil
}

// Revoke marks the key revoked; from then on it authenticates nothing.
// Revoking a revoked key is a no-op.
func (s *Service) Revoke(ctx context.Context, uid int64, idText string) error {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return apperr.Missing()
	}
	k, err := s.byID(ctx, uid, id)
	if err != nil {
		return err
	}
	if k.RevokedAt != nil {
		return nil
	}
	err = s.db.Transact(ctx,
		store.UpdateOp(accounts.Table, fpKey(k.Fingerprint), store.Update{}.Set("revoked_at", s.now().UTC().Format(timeFmt)),
			store.And(store.Exists("pk"), store.NotExists("revoked_at"))),
		store.UpdateOp(accounts.Table, countKey(uid), store.Update{}.Add("active", -1), store.Gt("active", int64(0))))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil // revoked concurrently
	}
	if err != nil {
		return fmt.Errorf("revoke key %d: %w", id, err)
	}
	return nil
}

// Authenticate resolves a presented key to its record. It returns a 401 for an
// unknown or revoked key. It refreshes last_used_at at most once a minute: the
// read it needs anyway says when it was last written, and the conditional
// write keeps concurrent requests from writing it twice.
func (s *Service) Authenticate(ctx context.Context, secret string) (*Key, error) {
	invalid := apperr.New(apperr.Unauthorized, "Clé d'API invalide ou révoquée", "Invalid or revoked API key")
	if !LooksLikeKey(secret) {
		return nil, invalid
	}
	fk := fpKey(Fingerprint(secret))
	it, err := s.db.Table(accounts.Table).Get(ctx, fk)
	if errors.Is(err, store.ErrNotFound) {
		return nil, invalid
	}
	if err != nil {
		return nil, fmt.Errorf("read key: %w", err)
	}
	k := fromItem(it)
	if k.RevokedAt != nil {
		return nil, invalid
	}
	now := s.now().UTC()
	if last, err := time.Parse(timeFmt, it.String("last_used_at")); err != nil || now.Sub(last) >= touchEvery {
		stamp := now.Format(timeFmt)
		threshold := now.Add(-touchEvery).Format(timeFmt)
		_, err := s.db.Table(accounts.Table).Update(ctx, fk, store.Update{}.Set("last_used_at", stamp),
			store.And(store.Exists("pk"), store.Or(store.NotExists("last_used_at"), store.Le("last_used_at", threshold))))
		if err == nil {
			k.LastUsedAt = &stamp
		} else if !errors.Is(err, store.ErrConditionFailed) {
			return nil, fmt.Errorf("touch key: %w", err)
		}
	}
	return k, nil
}

// Export lists the account's keys (metadata only) in account.json.
func (s *Service) Export(ctx context.Context, uid int64) (accounts.Section, error) {
	ks, err := s.List(ctx, uid)
	if err != nil {
		return accounts.Section{}, err
	}
	return accounts.Section{Entry: "account", Key: "api_keys", Data: ks, Summary: fmt.Sprintf("Clés d'API : %d", len(ks))}, nil
}

// Purge deletes the account's keys and their counter.
func (s *Service) Purge(ctx context.Context, uid int64) error {
	t := s.db.Table(accounts.Table)
	q := store.Query{Index: accounts.OwnerIndex, PK: accounts.UserPK(uid), SK: store.BeginsWith("KEY#")}
	err := store.ForEach(ctx, t, q, func(it store.Item) error {
		return t.Delete(ctx, store.Key{PK: it.String("pk"), SK: it.String("sk")}, nil)
	})
	if err != nil {
		return fmt.Errorf("purge keys: %w", err)
	}
	if err := t.Delete(ctx, countKey(uid), nil); err != nil {
		return fmt.Errorf("purge keys: %w", err)
	}
	return nil
}
