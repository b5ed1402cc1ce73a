package app_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
)

var retryMsg = regexp.MustCompile(`^Trop de tentatives\. Réessaie dans (\d+) secondes\.$`)

// must429 checks the spec's 429: French message stating the delay in
// seconds, and the same delay in Retry-After.
func must429(t *testing.T, r *apptest.Response) {
	t.Helper()
	r.Must(t, 429)
	m := retryMsg.FindStringSubmatch(detail(t, r))
	if m == nil {
		t.Fatalf("429 detail %q", detail(t, r))
	}
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || strconv.Itoa(ra) != m[1] || ra <= 0 {
		t.Fatalf("Retry-After %q vs message %q", r.Header.Get("Retry-After"), m[1])
	}
}

func signupBody(email string) map[string]any {
	return map[string]any{"email": email, "password": fixturePassword, "invitation_code": apptest.Code, "accept_responsibility": true}
}

func TestRateLimits(t *testing.T) {
	e := apptest.Start(t)

	t.Run("signup 3 per hour per IP", func(t *testing.T) {
		c := e.NewClient()
		for i := range 3 {
			c.Do("POST", "/api/auth/signup", signupBody("s"+strconv.Itoa(i)+"@example.org")).Must(t, 200)
		}
		must429(t, c.Do("POST", "/api/auth/signup", signupBody("s3@example.org")))
		// Another address is another client.
		e.NewClient().Do("POST", "/api/auth/signup", signupBody("s4@example.org")).Must(t, 200)
	})

	t.Run("login 5 per 15 minutes per IP", func(t *testing.T) {
		c := e.NewClient()
		for range 5 {
			c.Do("POST", "/api/auth/login", map[string]any{"email": "nobody@example.org", "password": "x"}).Must(t, 401)
		}
		must429(t, c.Do("POST", "/api/auth/login", map[string]any{"email": "s0@example.org", "password": fixturePassword}))
	})

	t.Run("login 5 per 15 minutes per email", func(t *testing.T) {
		for range 5 {
			e.NewClient().Do("POST", "/api/auth/login", map[string]any{"email": "s1@example.org", "password": "wrong"}).Must(t, 401)
		}
		must429(t, e.NewClient().Do("POST", "/api/auth/login", map[string]any{"email": "S1@example.org", "password": fixturePassword}))
		e.Clock.Advance(15 * time.Minute)
		e.NewClient().Do("POST", "/api/auth/login", map[string]any{"email": "s1@example.org", "password": fixturePassword}).Must(t, 200)
	})

	t.Run("reset request 3 per hour per email, silent", func(t *testing.T) {
		before := len(e.Outbox("s2@example.org"))
		for range 5 {
			e.NewClient().Do("POST", "/api/auth/password/reset-request", map[string]any{"email": "s2@example.org"}).Must(t, 200)
		}
		if sent := len(e.Outbox("s2@example.org")) - before; sent != 3 {
			t.Errorf("%d reset mails sent, want 3", sent)
		}
	})

	t.Run("reset request 3 per hour per IP, silent", func(t *testing.T) {
		c := e.NewClient()
		before := len(e.Outbox("s4@example.org"))
		for _, to := range []string{"s4@example.org", "s4@example.org", "s4@example.org", "s0@example.org"} {
			c.Do("POST", "/api/auth/password/reset-request", map[string]any{"email": to}).Must(t, 200)
		}
		if sent := len(e.Outbox("s4@example.org")) - before; sent != 3 || len(e.Outbox("s0@example.org")) != 2 {
			t.Errorf("reset mails after the IP limit: s4 %d (want 3), s0 %d (want welcome+verify only)", sent, len(e.Outbox("s0@example.org")))
		}
	})

	t.Run("password change 5 per hour per user", func(t *testing.T) {
		c := e.NewClient()
		c.Signup("pc@example.org", fixturePassword)
		for range 5 {
			c.Do("POST", "/api/auth/password/change", map[string]any{"current_password": "wrong", "new_password": "n3w-password"}).Must(t, 400)
		}
		must429(t, c.Do("POST", "/api/auth/password/change", map[string]any{"current_password": fixturePassword, "new_password": "n3w-password"}))
	})

	t.Run("verification resend 3 per hour per user", func(t *testing.T) {
		c := e.NewClient()
		c.Signup("rv@example.org", fixturePassword)
		for range 3 {
			c.Do("POST", "/api/auth/email/resend-verify", nil).Must(t, 200)
		}
		must429(t, c.Do("POST", "/api/auth/email/resend-verify", nil))
	})

	t.Run("keys: 10 active at most, 10 created per day", func(t *testing.T) {
		c := e.NewClient()
		c.Signup("keys@example.org", fixturePassword)
		for i := range 10 {
			c.CreateKey("k" + strconv.Itoa(i))
		}
		must429(t, c.Do("POST", "/api/keys", map[string]any{"name": "eleventh"}))
		e.Clock.Advance(24 * time.Hour)
		r := c.Do("POST", "/api/keys", map[string]any{"name": "eleventh"}).Must(t, 400)
		if detail(t, r) == "" {
			t.Error("400 without detail")
		}
		var listed struct {
			Keys []struct {
				ID int64 `json:"id"`
			} `json:"keys"`
		}
		json.Unmarshal(c.Do("GET", "/api/keys", nil).Must(t, 200).Body, &listed)
		if len(listed.Keys) != 10 {
			t.Fatalf("%d keys listed", len(listed.Keys))
		}
		c.Do("DELETE", "/api/keys/"+itoa(listed.Keys[0].ID), nil).Must(t, 204)
		c.Do("DELETE", "/api/keys/"+itoa(listed.Keys[0].ID), nil).Must(t, 204) // idempotent
		c.CreateKey("after revoke")
	})
}

// TestTrustedProxy: X-Forwarded-For counts only from a configured proxy.
func TestTrustedProxy(t *testing.T) {
	e := apptest.Start(t, apptest.WithConfig(func(c *config.Config) {
		c.TrustedProxies, _ = config.ParsePrefixes("127.0.9.1")
	}))
	proxy := e.NewClientFrom("127.0.9.1")
	for i := range 3 {
		proxy.Header = http.Header{"X-Forwarded-For": {"198.51.100.7"}}
		proxy.Do("POST", "/api/auth/signup", signupBody("p"+strconv.Itoa(i)+"@example.org")).Must(t, 200)
	}
	must429(t, proxy.Do("POST", "/api/auth/signup", signupBody("p3@example.org")))
	proxy.Header = http.Header{"X-Forwarded-For": {"198.51.100.8"}}
	proxy.Do("POST", "/api/auth/signup", signupBody("p4@example.org")).Must(t, 200)
	// An untrusted peer cannot choose its address with the header.
	direct := e.NewClient()
	for i := range 3 {
		direct.Header = http.Header{"X-Forwarded-For": {"203.0.113." + strconv.Itoa(i)}}
		direct.Do("POST", "/api/auth/signup", signupBody("d"+strconv.Itoa(i)+"@example.org")).Must(t, 200)
	}
	must429(t, direct.Do("POST", "/api/auth/signup", signupBody("d3@example.org")))
}

// TestSignupChecks covers the signup refusals and their exact messages, with
// captcha verification on against a siteverify stand-in.
func TestSignupChecks(t *testing.T) {
	verify := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		json.NewEncoder(w).Encode(map[string]any{"success": r.PostForm.Get("response") == "human"})
	}))
	defer verify.Close()
	e := apptest.Start(t, apptest.WithCaptcha(verify.URL, "secret"))
	body := func(mod func(map[string]any)) map[string]any {
		b := signupBody("x@example.org")
		b["captcha_token"] = "human"
		mod(b)
		return b
	}
	tests := []struct {
		name   string
		mod    func(map[string]any)
		status int
		detail string
	}{
		{"captcha missing", func(b map[string]any) { delete(b, "captcha_token") }, 400, "Captcha invalide. Réessaie."},
		{"captcha refused", func(b map[string]any) { b["captcha_token"] = "bot" }, 400, "Captcha invalide. Réessaie."},
		{"wrong invitation code", func(b map[string]any) { b["invitation_code"] = "nope" }, 400, "Code invitation invalide"},
		{"no invitation code", func(b map[string]any) { delete(b, "invitation_code") }, 400, "Code invitation invalide"},
		{"responsibility not accepted", func(b map[string]any) { b["accept_responsibility"] = false }, 422, ""},
		{"password without digit or symbol", func(b map[string]any) { b["password"] = "onlyletters" }, 422, ""},
		{"password too short", func(b map[string]any) { b["password"] = "a1" }, 422, ""},
		{"password too long", func(b map[string]any) { b["password"] = "a1" + string(make([]byte, 127)) }, 422, ""},
		{"bad email", func(b map[string]any) { b["email"] = "not-an-email" }, 422, ""},
		{"accepted", func(map[string]any) {}, 200, ""},
		{"email exists", func(b map[string]any) { b["email"] = "X@example.org" }, 400, "Email existe déjà"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.NewClient().Do("POST", "/api/auth/signup", body(tt.mod)).Must(t, tt.status)
			if tt.detail != "" && detail(t, r) != tt.detail {
				t.Errorf("detail %q, want %q", detail(t, r), tt.detail)
			}
			if tt.status == 422 {
				var b struct {
					Errors []struct{ Field, Message string } `json:"errors"`
				}
				json.Unmarshal(r.Body, &b)
				if len(b.Errors) == 0 || b.Errors[0].Field == "" {
					t.Errorf("422 without field errors: %s", r.Body)
				}
			}
		})
	}
}

// TestDeactivatedLogin: login of a deactivated account is 401 Compte désactivé.
func TestDeactivatedLogin(t *testing.T) {
	e := apptest.Start(t)
	admin := e.NewClient()
	admin.Signup(apptest.AdminEmail, fixturePassword)
	if admin.Do("GET", "/api/auth/me", nil).JSON()["is_admin"] != true {
		t.Fatal("SVC_ADMIN_EMAILS does not make an admin")
	}
	u := e.NewClient()
	id := u.Signup("gone@example.org", fixturePassword)
	admin.Do("POST", "/api/admin/users/"+itoa(id)+"/deactivate", nil).Must(t, 200)
	r := e.NewClient().Do("POST", "/api/auth/login", map[string]any{"email": "gone@example.org", "password": fixturePassword}).Must(t, 401)
	if detail(t, r) != "Compte désactivé" {
		t.Errorf("detail %q", detail(t, r))
	}
	if u.Do("GET", "/api/auth/me", nil).Must(t, 200).JSON()["is_active"] != false {
		t.Error("me does not show is_active false")
	}
	admin.Do("POST", "/api/admin/users/999999/deactivate", nil).Must(t, 404)
}
