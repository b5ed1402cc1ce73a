package accounts

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// SessionTTL is the spec's session lifetime.
const SessionTTL = 7 * 24 * time.Hour

// Session is a server-side session row, bound to a signed cookie token.
type Session struct {
	ID      string
	UserID  int64
	Expires time.Time
	Token   string // the cookie value; only set when the session is created
}

func sessionKey(uid int64, sid string) store.Key {
	return store.Key{PK: UserPK(uid), SK: "SESSION#" + sid}
}

// sign returns the MAC of a session reference, so a forged or altered cookie
// is refused without a table read.
func (s *Service) sign(ref string) string {
	m := hmac.New(sha256.New, s.sessionSecret)
	m.Write([]byte(ref))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// NewSession writes a session row for the user and returns it with its token
// "<user id>.<session id>.<mac>".
func (s *Service) NewSession(ctx context.Context, uid int64) (*Session, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("session id: %w", err)
	}
	sid := hex.EncodeToString(b[:])
	exp := s.now().Add(SessionTTL)
	k := sessionKey(uid, sid)
	err := s.db.Table(Table).Put(ctx, store.Item{
		"pk": k.PK, "sk": k.SK, "user_id": uid,
		"created_at": s.now().UTC().Format(timeFmt), "ttl": exp.Unix(),
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("write session: %w", err)
	}
	ref := strconv.FormatInt(uid, 10) + "." + sid
	return &Session{ID: sid, UserID: uid, Expires: exp, Token: ref + "." + s.sign(ref)}, nil
}

// ParseSessionToken checks a cookie token's MAC and returns its parts.
func (s *Service) ParseSessionToken(token string) (uid int64, sid string, ok bool) {
	if len(token) > 256 {
		return 0, "", false
	}
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return 0, "", false
	}
	ref, mac := token[:i], token[i+1:]
	if !hmac.Equal([]byte(mac), []byte(s.sign(ref))) {
		return 0, "", false
	}
	us, sid, found := strings.Cut(ref, ".")
	uid, err := strconv.ParseInt(us, 10, 64)
	if !found || err != nil || len(sid) != 32 {
		return 0, "", false
	}
	return uid, sid, true
}

// Session resolves a cookie token to its live session, or ok false when the
// token is forged, the row was deleted (logout, password change, deletion) or
// has expired.
func (s *Service) Session(ctx context.Context, token string) (*Session, bool, error) {
	uid, sid, ok := s.ParseSessionToken(token)
	if !ok {
		return nil, false, nil
	}
	it, err := s.db.Table(Table).Get(ctx, sessionKey(uid, sid))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read session: %w", err)
	}
	exp := time.Unix(it.Int("ttl"), 0)
	if !exp.After(s.now()) {
		return nil, false, nil
	}
	return &Session{ID: sid, UserID: uid, Expires: exp}, true, nil
}

// EndSession deletes one session row.
func (s *Service) EndSession(ctx context.Context, uid int64, sid string) error {
	if err := s.db.Table(Table).Delete(ctx, sessionKey(uid, sid), nil); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// endSessions deletes every session of the user (password reset and change,
// account deletion).
func (s *Service) endSessions(ctx context.Context, uid int64) error {
	return s.forEach(ctx, store.Query{PK: UserPK(uid), SK: store.BeginsWith("SESSION#")}, func(it store.Item) error {
		return s.db.Table(Table).Delete(ctx, store.Key{PK: it.String("pk"), SK: it.String("sk")}, nil)
	})
}

// forEach visits every item of a query of the accounts table.
func (s *Service) forEach(ctx context.Context, q store.Query, fn func(store.Item) error) error {
	return store.ForEach(ctx, s.db.Table(Table), q, fn)
}
