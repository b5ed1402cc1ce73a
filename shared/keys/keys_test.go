package keys_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/keys"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

type env struct {
	t     *testing.T
	clock *clocktest.Clock
	svc   *keys.Service
}

// newEnv wires the key service over the embedded tables in a temp dir, on
// a test clock, with the real rate limiter.
func newEnv(t *testing.T) *env {
	t.Helper()
	c := clocktest.New(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	db, err := bolt.Open(filepath.Join(t.TempDir(), "tables.db"),
		[]store.Schema{accounts.Schema(), ratelimit.Schema()}, bolt.WithNoSync(), bolt.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var ids atomic.Int64
	svc := keys.New(db, ratelimit.New(db, c.Now),
		func(context.Context, string) (int64, error) { return ids.Add(1), nil }, c.Now)
	return &env{t: t, clock: c, svc: svc}
}

func (e *env) create(uid int64, name string) *keys.Created {
	e.t.Helper()
	k, err := e.svc.Create(context.Background(), uid, name)
	if err != nil {
		e.t.Fatalf("create key %q of user %d: %v", name, uid, err)
	}
	return k
}

func (e *env) list(uid int64) []*keys.Key {
	e.t.Helper()
	ks, err := e.svc.List(context.Background(), uid)
	if err != nil {
		e.t.Fatal(err)
	}
	return ks
}

func wantCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("err %v, want code %s", err, code)
	}
	return ae
}

// TestCreateName: the spec's name rule, 1 to 60 characters once trimmed,
// counted in characters, not bytes; a refusal is a 422 naming the field.
func TestCreateName(t *testing.T) {
	tests := []struct {
		name, in, stored string
		ok               bool
	}{
		{"one character", "a", "a", true},
		{"sixty characters", strings.Repeat("x", 60), strings.Repeat("x", 60), true},
		{"sixty accented characters (120 bytes)", strings.Repeat("é", 60), strings.Repeat("é", 60), true},
		{"surrounding spaces trimmed", "  CRM sync  ", "CRM sync", true},
		{"empty", "", "", false},
		{"only spaces", "   ", "", false},
		{"sixty-one characters", strings.Repeat("x", 61), "", false},
		{"sixty-one accented characters", strings.Repeat("é", 61), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			k, err := e.svc.Create(context.Background(), 1, tt.in)
			if !tt.ok {
				ae := wantCode(t, err, apperr.Unprocessable)
				if len(ae.Fields) != 1 || ae.Fields[0].Field != "name" {
					t.Fatalf("fields %+v, want one naming name", ae.Fields)
				}
				if n := len(e.list(1)); n != 0 {
					t.Fatalf("%d keys stored after a refusal", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.Name != tt.stored {
				t.Fatalf("name %q, want %q", k.Name, tt.stored)
			}
			if ks := e.list(1); len(ks) != 1 || ks[0].Name != tt.stored {
				t.Fatalf("listed %+v", ks)
			}
		})
	}
}

// TestKeyFormatAndHashing: the key is sk_ and 40 hex digits, shown once;
// its prefix is sk_ and 12 hex digits; only its SHA-256 is stored.
func TestKeyFormatAndHashing(t *testing.T) {
	e := newEnv(t)
	k := e.create(7, "integration")
	if len(k.Key) != 43 || !strings.HasPrefix(k.Key, "sk_") || !keys.LooksLikeKey(k.Key) {
		t.Fatalf("key %q is not sk_ and 40 hex digits", k.Key)
	}
	if k.Prefix != k.Key[:15] {
		t.Fatalf("prefix %q, want %q", k.Prefix, k.Key[:15])
	}
	if k.CreatedAt != "2026-11-24 10:00:00" {
		t.Fatalf("created_at %q, want the spec's YYYY-MM-DD HH:MM:SS", k.CreatedAt)
	}
	sum := sha256.Sum256([]byte(k.Key))
	if got, want := keys.Fingerprint(k.Key), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("fingerprint %s, want SHA-256 %s", got, want)
	}
	ks := e.list(7)
	if len(ks) != 1 {
		t.Fatalf("%d keys listed, want 1", len(ks))
	}
	if ks[0].Fingerprint != keys.Fingerprint(k.Key) {
		t.Fatalf("stored fingerprint %q, want the key's SHA-256", ks[0].Fingerprint)
	}
	body, err := json.Marshal(ks)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), k.Key) || strings.Contains(string(body), k.Key[15:]) {
		t.Fatalf("listing shows the secret: %s", body)
	}
	if strings.Contains(string(body), ks[0].Fingerprint) {
		t.Fatalf("listing shows the fingerprint: %s", body)
	}
	other := e.create(7, "second")
	if other.Key == k.Key || other.Prefix == k.Prefix {
		t.Fatalf("two keys alike: %q and %q", k.Key, other.Key)
	}
}

// TestLooksLikeKey: the format check that spares a table read.
func TestLooksLikeKey(t *testing.T) {
	hex40 := strings.Repeat("0123456789", 4)
	for _, tt := range []struct {
		name, in string
		want     bool
	}{
		{"well formed", "sk_" + hex40, true},
		{"lower-case hex letters", "sk_" + strings.Repeat("abcdef0123", 4), true},
		{"upper-case hex", "sk_" + strings.Repeat("ABCDEF0123", 4), false},
		{"39 digits", "sk_" + hex40[:39], false},
		{"41 digits", "sk_" + hex40 + "0", false},
		{"another prefix", "pk_" + hex40, false},
		{"no prefix", hex40 + "abc", false},
		{"a non-hex letter", "sk_" + hex40[:39] + "g", false},
		{"empty", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := keys.LooksLikeKey(tt.in); got != tt.want {
				t.Fatalf("LooksLikeKey(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestAuthenticate: a key acts for its owner only; a malformed, unknown or
// revoked key is a 401.
func TestAuthenticate(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	mine := e.create(1, "mine")
	theirs := e.create(2, "theirs")
	revoked := e.create(1, "old")
	if err := e.svc.Revoke(ctx, 1, strconv.FormatInt(revoked.ID, 10)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		secret  string
		wantUID int64
	}{
		{"own key", mine.Key, 1},
		{"another user's key acts for that user", theirs.Key, 2},
		{"revoked key", revoked.Key, 0},
		{"well formed but unknown", "sk_" + strings.Repeat("ab", 20), 0},
		{"malformed", "sk_nothex", 0},
		{"the prefix alone", mine.Prefix, 0},
		{"the fingerprint instead of the key", keys.Fingerprint(mine.Key), 0},
		{"empty", "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k, err := e.svc.Authenticate(ctx, tt.secret)
			if tt.wantUID == 0 {
				wantCode(t, err, apperr.Unauthorized)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.UserID != tt.wantUID || k.RevokedAt != nil {
				t.Fatalf("authenticated as user %d (revoked %v), want user %d", k.UserID, k.RevokedAt, tt.wantUID)
			}
		})
	}
}

// TestRevoke: revocation is logical (the row stays, with revoked_at), a
// second one is a no-op, and only the owner's key can be revoked: another
// user's id or a malformed one is a 404, and the key keeps working.
func TestRevoke(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	k := e.create(1, "ci")
	id := strconv.FormatInt(k.ID, 10)
	for _, tt := range []struct {
		name string
		uid  int64
		id   string
	}{
		{"another user", 2, id},
		{"not a number", 1, "abc"},
		{"zero", 1, "0"},
		{"negative", 1, "-1"},
		{"unknown id", 1, "999"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, e.svc.Revoke(ctx, tt.uid, tt.id), apperr.NotFound)
			if _, err := e.svc.Authenticate(ctx, k.Key); err != nil {
				t.Fatalf("the key stopped working: %v", err)
			}
		})
	}

	if err := e.svc.Revoke(ctx, 1, id); err != nil {
		t.Fatal(err)
	}
	ks := e.list(1)
	if len(ks) != 1 || ks[0].RevokedAt == nil || *ks[0].RevokedAt != "2026-11-24 10:00:00" {
		t.Fatalf("after revoke: %+v, want the row kept with revoked_at", ks)
	}
	wantCode(t, func() error { _, err := e.svc.Authenticate(ctx, k.Key); return err }(), apperr.Unauthorized)

	e.clock.Advance(time.Hour)
	if err := e.svc.Revoke(ctx, 1, id); err != nil {
		t.Fatalf("second revoke: %v", err)
	}
	if ks := e.list(1); *ks[0].RevokedAt != "2026-11-24 10:00:00" {
		t.Fatalf("second revoke moved revoked_at to %s", *ks[0].RevokedAt)
	}
}

// TestMaxActive: at most 10 active keys (400 beyond); a revoked key frees
// its place, and a second revoke of it frees nothing more.
func TestMaxActive(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var first *keys.Created
	for i := range keys.MaxActive {
		k := e.create(1, "k"+strconv.Itoa(i))
		if i == 0 {
			first = k
		}
	}
	// A new day, so that the creation limit (10 a day) is not what refuses.
	e.clock.Advance(24 * time.Hour)
	_, err := e.svc.Create(ctx, 1, "eleventh")
	ae := wantCode(t, err, apperr.Invalid)
	if !strings.Contains(ae.EN, "Maximum number of active keys reached (10)") {
		t.Fatalf("message %q", ae.EN)
	}
	// Another account is not counted with this one.
	e.create(2, "other account")

	id := strconv.FormatInt(first.ID, 10)
	if err := e.svc.Revoke(ctx, 1, id); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Revoke(ctx, 1, id); err != nil {
		t.Fatal(err)
	}
	e.create(1, "replacement")
	_, err = e.svc.Create(ctx, 1, "one too many")
	wantCode(t, err, apperr.Invalid)
	if n := len(e.list(1)); n != keys.MaxActive+1 {
		t.Fatalf("%d keys listed, want %d (revoked ones kept)", n, keys.MaxActive+1)
	}
}

// TestCreationLimit: 10 creations per day per user, refused attempts
// included, whatever the active count; another user has their own.
func TestCreationLimit(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i := range 10 {
		k := e.create(1, "k"+strconv.Itoa(i))
		if err := e.svc.Revoke(ctx, 1, strconv.FormatInt(k.ID, 10)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.svc.Create(ctx, 1, "eleventh")
	ae := wantCode(t, err, apperr.TooMany)
	if ae.RetryAfter <= 0 || ae.RetryAfter > 24*3600 {
		t.Fatalf("Retry-After %d, want within the day", ae.RetryAfter)
	}
	e.create(2, "another user's first")
	e.clock.Advance(24 * time.Hour)
	e.create(1, "next day")
}

// TestLastUsedAt: refreshed by a use at most once per minute.
func TestLastUsedAt(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	k := e.create(1, "poller")
	if ks := e.list(1); ks[0].LastUsedAt != nil {
		t.Fatalf("last_used_at %q before any use", *ks[0].LastUsedAt)
	}
	steps := []struct {
		name    string
		advance time.Duration
		want    string
	}{
		{"first use", 0, "2026-11-24 10:00:00"},
		{"30 s later: kept", 30 * time.Second, "2026-11-24 10:00:00"},
		{"59 s after the first: kept", 29 * time.Second, "2026-11-24 10:00:00"},
		{"a minute after the first: refreshed", time.Second, "2026-11-24 10:01:00"},
		{"an hour later", time.Hour, "2026-11-24 11:01:00"},
	}
	for _, st := range steps {
		e.clock.Advance(st.advance)
		got, err := e.svc.Authenticate(ctx, k.Key)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got.LastUsedAt == nil || *got.LastUsedAt != st.want {
			t.Fatalf("%s: returned last_used_at %v, want %s", st.name, got.LastUsedAt, st.want)
		}
		if ks := e.list(1); ks[0].LastUsedAt == nil || *ks[0].LastUsedAt != st.want {
			t.Fatalf("%s: stored last_used_at %v, want %s", st.name, ks[0].LastUsedAt, st.want)
		}
	}
}

// TestListOrderAndOwnership: the user's keys only, newest first, revoked
// ones included.
func TestListOrderAndOwnership(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.create(1, "a")
	e.clock.Advance(time.Second)
	e.create(2, "not mine")
	e.clock.Advance(time.Second)
	b := e.create(1, "b")
	e.clock.Advance(time.Second)
	c := e.create(1, "c")
	if err := e.svc.Revoke(ctx, 1, strconv.FormatInt(b.ID, 10)); err != nil {
		t.Fatal(err)
	}
	ks := e.list(1)
	var got []string
	for _, k := range ks {
		got = append(got, k.Name)
		if k.UserID != 1 {
			t.Fatalf("listed a key of user %d", k.UserID)
		}
	}
	if strings.Join(got, ",") != "c,b,a" {
		t.Fatalf("listed %v, want c, b, a", got)
	}
	if ks[0].ID != c.ID || ks[2].ID != a.ID || ks[1].RevokedAt == nil {
		t.Fatalf("listed %+v", ks)
	}
	if n := len(e.list(3)); n != 0 {
		t.Fatalf("a user without keys lists %d", n)
	}
}

// TestExportAndPurge: the export lists metadata only; the purge deletes
// the keys (they stop authenticating) and the active count, so that the
// account starts again from zero.
func TestExportAndPurge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var created []*keys.Created
	for i := range keys.MaxActive {
		created = append(created, e.create(1, "k"+strconv.Itoa(i)))
	}
	kept := e.create(2, "another account")

	sec, err := e.svc.Export(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sec.Entry != "account" || sec.Key != "api_keys" {
		t.Fatalf("section %s/%s, want account/api_keys", sec.Entry, sec.Key)
	}
	body, err := json.Marshal(sec.Data)
	if err != nil {
		t.Fatal(err)
	}
	var listed []map[string]any
	if err := json.Unmarshal(body, &listed); err != nil || len(listed) != keys.MaxActive {
		t.Fatalf("export data %s", body)
	}
	for _, k := range created {
		if strings.Contains(string(body), k.Key) {
			t.Fatalf("export shows a secret: %s", body)
		}
	}

	if err := e.svc.Purge(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := len(e.list(1)); n != 0 {
		t.Fatalf("%d keys left after purge", n)
	}
	for _, k := range created {
		if _, err := e.svc.Authenticate(ctx, k.Key); !apperr.Is(err, apperr.Unauthorized) {
			t.Fatalf("a purged key authenticates: %v", err)
		}
	}
	if _, err := e.svc.Authenticate(ctx, kept.Key); err != nil {
		t.Fatalf("another account's key purged: %v", err)
	}
	e.clock.Advance(24 * time.Hour)
	for i := range keys.MaxActive {
		e.create(1, "again"+strconv.Itoa(i))
	}
}
