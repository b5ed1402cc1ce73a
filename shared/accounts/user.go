// Package accounts holds users, their sessions and their single-use tokens
// (email verification, password reset), and the account life of the spec's
// /api/auth routes: signup, login, logout, password reset and change, email
// verification, deletion and data export.
package accounts

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/store"
)

// Table is the accounts table: users, email claims, sessions, tokens, and the
// records of keys and features (docs/tables.md).
const Table = "accounts"

// OwnerIndex lists the records of a user that live outside the user's own
// partition (email claim, tokens, API keys): gsi1pk = USER#<id>.
const OwnerIndex = "gsi1"

// Schema is the key design of the accounts table.
func Schema() store.Schema {
	return store.Schema{
		Name:    Table,
		PK:      "pk",
		SK:      "sk",
		Indexes: []store.Index{{Name: OwnerIndex, PK: "gsi1pk", SK: "gsi1sk"}},
		TTL:     "ttl",
	}
}

// UserPK is the partition of everything a user owns in the accounts table.
func UserPK(id int64) string { return "USER#" + strconv.FormatInt(id, 10) }

const (
	profileSK = "PROFILE"
	timeFmt   = "2006-01-02T15:04:05Z"
)

// User is an account.
type User struct {
	ID            int64     `json:"id"`
	Email         string    `json:"email"`
	IsAdmin       bool      `json:"is_admin"`
	IsActive      bool      `json:"is_active"`
	EmailVerified bool      `json:"email_verified"`
	CreatedAt     string    `json:"created_at"`
	PasswordHash  string    `json:"-"`
	Created       time.Time `json:"-"`
	// LastCountry is the country (alpha-3) of the user's last scrape or
	// valid estimate, offered first by GET /api/countries; "" before any.
	LastCountry string `json:"-"`
}

func userItem(u *User) store.Item {
	return store.Item{
		"pk":             UserPK(u.ID),
		"sk":             profileSK,
		"id":             u.ID,
		"email":          u.Email,
		"password_hash":  u.PasswordHash,
		"is_admin":       u.IsAdmin,
		"is_active":      u.IsActive,
		"email_verified": u.EmailVerified,
		"created_at":     u.CreatedAt,
	}
}

func userFrom(it store.Item) *User {
	u := &User{
		ID:            it.Int("id"),
		Email:         it.String("email"),
		PasswordHash:  it.String("password_hash"),
		IsAdmin:       it.Bool("is_admin"),
		IsActive:      it.Bool("is_active"),
		EmailVerified: it.Bool("email_verified"),
		CreatedAt:     it.String("created_at"),
		LastCountry:   it.String("last_country"),
	}
	u.Created, _ = time.Parse(timeFmt, u.CreatedAt)
	return u
}

func emailKey(email string) store.Key { return store.Key{PK: "EMAIL#" + email, SK: "EMAIL"} }

// NormalizeEmail lower-cases and trims an address; accounts are unique by it.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// plausibleEmail says whether s could be an account's email: at most 254
// bytes of valid UTF-8 without a control character nor U+FFFD. It is the shape every
// email must have before it becomes a store or limiter key; validEmail is
// the stricter rule of new accounts.
func plausibleEmail(s string) bool {
	return len(s) > 0 && len(s) <= 254 && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		// U+FFFD is what the JSON decoder left of invalid UTF-8.
		return unicode.IsControl(r) || r == utf8.RuneError
	})
}

// validEmail accepts a bare address (no display name) of at most 254 bytes
// whose domain has a dot.
func validEmail(s string) bool {
	if !plausibleEmail(s) {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".")
}

// User returns the user with the id. Admin status is the stored flag or
// membership of the configured admin emails, so a change of SVC_ADMIN_EMAILS
// applies without touching the table.
func (s *Service) User(ctx context.Context, id int64) (*User, error) {
	it, err := s.db.Table(Table).Get(ctx, store.Key{PK: UserPK(id), SK: profileSK})
	if errors.Is(err, store.ErrNotFound) {
		return nil, apperr.Missing()
	}
	if err != nil {
		return nil, fmt.Errorf("get user %d: %w", id, err)
	}
	u := userFrom(it)
	u.IsAdmin = u.IsAdmin || s.cfg.isAdmin(u.Email)
	return u, nil
}

// userByEmail resolves an email claim to its user.
func (s *Service) userByEmail(ctx context.Context, email string) (*User, error) {
	it, err := s.db.Table(Table).Get(ctx, emailKey(email))
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, apperr.Missing()
		}
		return nil, fmt.Errorf("get email claim: %w", err)
	}
	return s.User(ctx, it.Int("user_id"))
}

// SetActive activates or deactivates an account (admin). Deactivating also
// ends its sessions' right to act: keys get 401, sessions are refused on
// mutating routes.
func (s *Service) SetActive(ctx context.Context, id int64, active bool) (*User, error) {
	_, err := s.db.Table(Table).Update(ctx, store.Key{PK: UserPK(id), SK: profileSK},
		store.Update{}.Set("is_active", active), store.Exists("pk"))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil, apperr.Missing()
	}
	if err != nil {
		return nil, fmt.Errorf("set active %d: %w", id, err)
	}
	return s.User(ctx, id)
}

// SetLastCountry records the country of the user's last scrape or
// estimate. It writes only when the country changed, so that repeated
// estimates for one country cost no write.
func (s *Service) SetLastCountry(ctx context.Context, u *User, country string) error {
	if u.LastCountry == country {
		return nil
	}
	_, err := s.db.Table(Table).Update(ctx, store.Key{PK: UserPK(u.ID), SK: profileSK},
		store.Update{}.Set("last_country", country), store.Exists("pk"))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return fmt.Errorf("set last country of %d: %w", u.ID, err)
	}
	u.LastCountry = country
	return nil
}

func (s *Service) nextID(ctx context.Context, seq string) (int64, error) {
	it, err := s.db.Table(Table).Update(ctx, store.Key{PK: "SEQ#" + seq, SK: "SEQ"}, store.Update{}.Add("n", 1), nil)
	if err != nil {
		return 0, fmt.Errorf("next %s id: %w", seq, err)
	}
	return it.Int("n"), nil
}

// NextID allocates the next id of a sequence (users, keys, ...).
func (s *Service) NextID(ctx context.Context, seq string) (int64, error) { return s.nextID(ctx, seq) }
