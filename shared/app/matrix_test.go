package app_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// The credential kinds of the matrix.
const (
	none        = "none"
	session     = "session"
	key         = "key"
	revokedKey  = "revoked key"
	otherUser   = "another account's session"
	deactivated = "deactivated account's session"
	deactKey    = "deactivated account's key"
)

var kinds = []string{none, session, key, revokedKey, otherUser, deactivated, deactKey}

const fixturePassword = "pass-w0rd!"

// fixture is a set of accounts: A (active, verified, with a key and a revoked
// key), B (another account) and D (deactivated by an admin after creating a
// key).
type fixture struct {
	e                  *apptest.Env
	a, b, d            *apptest.Client
	aEmail, bEmail     string
	dEmail             string
	key, revoked, dKey string
	aKeyID, dID        int64
}

var seq atomic.Int64

func newFixture(t *testing.T, e *apptest.Env, admin *apptest.Client) *fixture {
	t.Helper()
	n := seq.Add(1)
	f := &fixture{e: e, a: e.NewClient(), b: e.NewClient(), d: e.NewClient()}
	f.aEmail = fmt.Sprintf("a%d@example.org", n)
	f.bEmail = fmt.Sprintf("b%d@example.org", n)
	f.dEmail = fmt.Sprintf("d%d@example.org", n)
	f.a.Signup(f.aEmail, fixturePassword)
	f.a.Verify(f.aEmail)
	f.b.Signup(f.bEmail, fixturePassword)
	f.dID = f.d.Signup(f.dEmail, fixturePassword)
	f.key = f.a.CreateKey("live")
	f.revoked = f.a.CreateKey("old")
	var listed struct {
		Keys []struct {
			ID     int64  `json:"id"`
			Prefix string `json:"prefix"`
		} `json:"keys"`
	}
	r := f.a.Do("GET", "/api/keys", nil).Must(t, 200)
	if err := jsonUnmarshal(r.Body, &listed); err != nil {
		t.Fatal(err)
	}
	for _, k := range listed.Keys {
		switch k.Prefix {
		case f.revoked[:15]:
			f.a.Do("DELETE", "/api/keys/"+itoa(k.ID), nil).Must(t, 204)
		case f.key[:15]:
			f.aKeyID = k.ID
		}
	}
	f.dKey = f.d.CreateKey("d")
	admin.Do("POST", "/api/admin/users/"+itoa(f.dID)+"/deactivate", nil).Must(t, 200)
	return f
}

func (f *fixture) client(kind string) *apptest.Client {
	withKey := func(k string) *apptest.Client {
		c := f.e.NewClient()
		c.Key = k
		return c
	}
	// A copy of the session, so that a call that replaces the cookie
	// (signup, login) leaves the fixture's sessions as they were.
	clone := func(c *apptest.Client) *apptest.Client {
		n := f.e.NewClient()
		u := mustURL(f.e.Server.URL)
		n.HTTP.Jar.SetCookies(u, c.HTTP.Jar.Cookies(u))
		return n
	}
	switch kind {
	case session:
		return clone(f.a)
	case key:
		return withKey(f.key)
	case revokedKey:
		return withKey(f.revoked)
	case otherUser:
		return clone(f.b)
	case deactivated:
		return clone(f.d)
	case deactKey:
		return withKey(f.dKey)
	}
	return f.e.NewClient()
}

// email is the address of the account acting with the kind.
func (f *fixture) email(kind string) string {
	switch kind {
	case otherUser:
		return f.bEmail
	case deactivated, deactKey:
		return f.dEmail
	}
	return f.aEmail
}

type cell map[string]int

// all gives every kind the same status but those listed after it.
func all(status int, except ...any) cell {
	c := cell{}
	for _, k := range kinds {
		c[k] = status
	}
	for i := 0; i+1 < len(except); i += 2 {
		c[except[i].(string)] = except[i+1].(int)
	}
	return c
}

// TestCredentialMatrix calls every route of the foundation with every kind of
// credential and checks the status the spec gives: keys reach only their
// scope (403 elsewhere), revoked keys and keys of deactivated accounts get
// 401, session-only routes refuse keys, another account's object is a 404,
// a deactivated account may read and leave but not act.
func TestCredentialMatrix(t *testing.T) {
	e := apptest.Start(t)
	admin := e.NewClient()
	admin.Signup(apptest.AdminEmail, fixturePassword)
	shared := newFixture(t, e, admin)
	var n atomic.Int64
	rows := []struct {
		method, path string
		body         func(f *fixture, kind string) any
		fresh        bool // the call changes the fixture: a new one per cell
		want         cell
	}{
		{"GET", "/healthz", nil, false, all(200)},
		{"GET", "/verify-email?token=abc", nil, false, all(200)},
		{"GET", "/reset-password?token=abc", nil, false, all(200)},
		{"GET", "/api/auth/me", nil, false, all(200, none, 401, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/auth/signup", func(*fixture, string) any {
			return map[string]any{"email": fmt.Sprintf("new%d@example.org", n.Add(1)), "password": fixturePassword,
				"invitation_code": apptest.Code, "accept_responsibility": true}
		}, false, all(200, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/auth/login", func(f *fixture, _ string) any {
			return map[string]any{"email": f.aEmail, "password": fixturePassword}
		}, false, all(200, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/auth/logout", nil, true, all(200, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/auth/password/reset-request", func(f *fixture, _ string) any {
			return map[string]any{"email": f.aEmail}
		}, false, all(200, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/auth/password/reset-confirm", func(*fixture, string) any {
			return map[string]any{"token": "not-a-real-token", "new_password": "val1d-password"}
		}, false, all(400, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/auth/password/change", func(*fixture, string) any {
			return map[string]any{"current_password": fixturePassword, "new_password": "an0ther-pass"}
		}, true, all(200, none, 401, key, 403, revokedKey, 401, deactivated, 403, deactKey, 401)},
		{"POST", "/api/auth/email/verify", func(*fixture, string) any {
			return map[string]any{"token": "not-a-real-token"}
		}, false, all(400, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/auth/email/resend-verify", nil, false, all(200, none, 401, key, 403, revokedKey, 401, deactivated, 403, deactKey, 401)},
		{"GET", "/api/auth/me/export", nil, false, all(200, none, 401, key, 403, revokedKey, 401, deactKey, 401)},
		{"DELETE", "/api/auth/me", func(f *fixture, kind string) any {
			return map[string]any{"confirm_email": f.email(kind)}
		}, true, all(204, none, 401, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/keys", func(*fixture, string) any { return map[string]any{"name": "k"} }, false,
			all(201, none, 401, key, 403, revokedKey, 401, deactivated, 403, deactKey, 401)},
		{"GET", "/api/keys", nil, false, all(200, none, 401, key, 403, revokedKey, 401, deactKey, 401)},
		{"DELETE", "/api/keys/{aKey}", nil, true, all(404, none, 401, session, 204, key, 403, revokedKey, 401, deactKey, 401)},
		{"GET", "/api/modules-registry", nil, false, all(200, revokedKey, 401, deactKey, 401)},
		{"GET", "/api/features", nil, false, all(200, none, 401, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/features/crm/interest", nil, false, all(204, none, 401, key, 403, revokedKey, 401, deactivated, 403, deactKey, 401)},
		{"DELETE", "/api/features/crm/interest", nil, false, all(204, none, 401, key, 403, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/features/not-a-feature/interest", nil, false, all(404, none, 401, key, 403, revokedKey, 401, deactivated, 403, deactKey, 401)},
		{"GET", "/api/openapi.json", nil, false, all(200, key, 403, revokedKey, 401, deactKey, 401)},
		{"GET", "/api/webhooks", nil, false, all(200, none, 401, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/webhooks", func(*fixture, string) any {
			return map[string]any{"url": "https://10.0.0.1/hook", "events": []string{"job.completed"}}
		}, false, all(400, none, 401, revokedKey, 401, deactivated, 403, deactKey, 401)},
		{"GET", "/api/webhooks/999999/deliveries", nil, false, all(404, none, 401, revokedKey, 401, deactKey, 401)},
		{"DELETE", "/api/webhooks/999999", nil, false, all(404, none, 401, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/admin/users/{dID}/activate", nil, false, all(403, none, 401, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/jobs/finance", func(*fixture, string) any {
			return map[string]any{"items": []any{map[string]any{"siren": "443061841"}}}
		},
			false, all(503, none, 401, revokedKey, 401, deactKey, 401)},
		{"POST", "/api/jobs/emails", func(*fixture, string) any { return map[string]any{"items": []any{}} },
			false, all(422, none, 401, otherUser, 403, revokedKey, 401, deactivated, 403, deactKey, 401)},
		{"GET", "/api/brand-assets/1/aaaaaaaaaaaaaaaa-0123456789abcdef-logo.png", nil, false,
			all(404, none, 401, key, 403, revokedKey, 401, deactKey, 401)},
	}
	for _, row := range rows {
		// Each row starts in fresh rate-limit windows: the windows are at
		// most an hour long.
		e.Clock.Advance(time.Hour)
		for _, kind := range kinds {
			t.Run(row.method+" "+row.path+"/"+kind, func(t *testing.T) {
				f := shared
				if row.fresh {
					f = newFixture(t, e, admin)
				}
				path := strings.NewReplacer("{aKey}", itoa(f.aKeyID), "{dID}", itoa(f.dID)).Replace(row.path)
				var body any
				if row.body != nil {
					body = row.body(f, kind)
				}
				r := f.client(kind).Do(row.method, path, body)
				if want := row.want[kind]; r.Status != want {
					t.Errorf("status %d, want %d: %s", r.Status, want, r.Body)
				}
				if r.Status >= 400 && detail(t, r) == "" {
					t.Errorf("error without {detail}: %s", r.Body)
				}
			})
		}
	}
	// The admin route itself works for an admin session.
	admin.Do("POST", "/api/admin/users/"+itoa(shared.dID)+"/activate", nil).Must(t, 200)
}
