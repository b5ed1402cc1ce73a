package api

import (
	"context"
	"net/http"
	"path"
	"strings"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/keys"
)

// Caller is who sends a request: a user through a session cookie or an API
// key, or nobody.
type Caller struct {
	User    *accounts.User
	Session *accounts.Session // nil for key callers
	Key     *keys.Key         // nil for session callers
}

type callerKey struct{}

func withCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf returns the request's caller (never nil).
func CallerOf(ctx context.Context) *Caller {
	if c, ok := ctx.Value(callerKey{}).(*Caller); ok {
		return c
	}
	return &Caller{}
}

// english reports whether the caller reads English: API-key callers do, the
// web app (sessions and anonymous callers) reads French unless its request
// asks for English first (Accept-Language: en, as the console sends when
// its reader chose English; docs/console.md).
func english(r *http.Request) bool {
	if c := CallerOf(r.Context()); c.Key != nil {
		return true
	}
	if _, presented := presentedKey(r); presented {
		return true
	}
	first, _, _ := strings.Cut(r.Header.Get("Accept-Language"), ",")
	first, _, _ = strings.Cut(strings.TrimSpace(first), ";")
	tag := strings.ToLower(strings.TrimSpace(first))
	return tag == "en" || strings.HasPrefix(tag, "en-")
}

// presentedKey returns the API key a request carries, from
// "Authorization: Bearer" or "X-API-Key".
func presentedKey(r *http.Request) (string, bool) {
	if v := r.Header.Get("X-API-Key"); v != "" {
		return strings.TrimSpace(v), true
	}
	if v := r.Header.Get("Authorization"); v != "" {
		if scheme, tok, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok), true
		}
	}
	return "", false
}

// KeyAllowed is the closed scope of API keys (spec, Authentication): the
// path prefixes a key may reach. Everything else is 403 for a key.
func KeyAllowed(method, p string) bool {
	p = path.Clean("/" + p)
	under := func(prefix string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }
	switch {
	case under("/api/jobs"), under("/api/estimate"), strings.HasPrefix(p, "/api/ef/"),
		under("/api/pipelines"), under("/api/veille"), under("/api/events"), under("/api/webhooks"),
		strings.HasPrefix(p, "/api/company/"), under("/api/countries"), under("/api/modules-registry"), under("/api/modules"), under("/api/zones"):
		return true
	case p == "/api/auth/me":
		return method == http.MethodGet || method == http.MethodHead
	}
	return false
}
