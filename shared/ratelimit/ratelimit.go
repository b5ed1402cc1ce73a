// Package ratelimit counts attempts in fixed windows kept in the table port,
// so that every process (every Lambda instance) shares the same counters.
package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/store"
)

// Table is the name of the counters table.
const Table = "limits"

// Schema is the key design of the counters table (docs/tables.md): one item
// per limit, subject and window, expired by TTL once the window is over.
func Schema() store.Schema {
	return store.Schema{Name: Table, PK: "pk", SK: "sk", TTL: "ttl"}
}

// Rule is one limit: at most Max attempts per Window.
type Rule struct {
	Name   string // stable id, part of the counter key
	Max    int64
	Window time.Duration
}

// The limits of the spec's Limits table that the account routes apply.
var (
	Signup         = Rule{Name: "signup.ip", Max: 3, Window: time.Hour}
	LoginIP        = Rule{Name: "login.ip", Max: 5, Window: 15 * time.Minute}
	LoginEmail     = Rule{Name: "login.email", Max: 5, Window: 15 * time.Minute}
	ResetIP        = Rule{Name: "reset.ip", Max: 3, Window: time.Hour}
	ResetEmail     = Rule{Name: "reset.email", Max: 3, Window: time.Hour}
	PasswordChange = Rule{Name: "password.user", Max: 5, Window: time.Hour}
	ResendVerify   = Rule{Name: "resend.user", Max: 3, Window: time.Hour}
	KeyCreate      = Rule{Name: "keys.user", Max: 10, Window: 24 * time.Hour}
	// JobCreate and JobCreateDay are shared by job and pipeline creation,
	// refused attempts included.
	JobCreate    = Rule{Name: "create.user", Max: 30, Window: 10 * time.Minute}
	JobCreateDay = Rule{Name: "create-day.user", Max: 300, Window: 24 * time.Hour}
	// Validate is shared by POST /api/estimate and pipeline validation.
	Validate = Rule{Name: "validate.user", Max: 120, Window: 10 * time.Minute}
)

// Limiter counts attempts.
type Limiter struct {
	db  store.DB
	now func() time.Time
}

// New returns a limiter over the counters table of db.
func New(db store.DB, now func() time.Time) *Limiter {
	return &Limiter{db: db, now: now}
}

// Allow counts one attempt of subject against the rule. Every attempt counts,
// refused ones included, so hammering a limit never reopens it early. When the
// window is full it returns a TooMany error whose RetryAfter is the number of
// seconds until the window ends.
func (l *Limiter) Allow(ctx context.Context, r Rule, subject string) error {
	now := l.now()
	win := int64(r.Window / time.Second)
	start := now.Unix() / win * win
	end := start + win
	it, err := l.db.Table(Table).Update(ctx,
		store.Key{PK: r.Name + "#" + subject, SK: strconv.FormatInt(start, 10)},
		store.Update{}.Add("n", 1).Set("ttl", end+60),
		nil)
	if err != nil {
		return fmt.Errorf("ratelimit %s: %w", r.Name, err)
	}
	if it.Int("n") > r.Max {
		return apperr.TooManyRequests(int(end - now.Unix()))
	}
	return nil
}
