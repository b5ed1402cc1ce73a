package app_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
)

func detail(t *testing.T, r *apptest.Response) string {
	t.Helper()
	d, _ := r.JSON()["detail"].(string)
	return d
}

func sessionCookie(t *testing.T, r *apptest.Response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "svc_session" {
			return c
		}
	}
	t.Fatalf("no svc_session cookie in %v", r.Header)
	return nil
}

// replay sends a request with only the given cookie, as an attacker holding a
// copy of it would.
func replay(e *apptest.Env, c *http.Cookie) int {
	req, _ := http.NewRequest("GET", e.Server.URL+"/api/auth/me", nil)
	req.AddCookie(c)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestAccountLife walks one account through the whole of its life as the
// spec's Accounts, API keys and Authentication sections describe it.
func TestAccountLife(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	const email, pw = "alice@example.org", "s3cret-pass"

	// Signup: 200 {ok, user}, session cookie with the spec's attributes.
	r := c.Do("POST", "/api/auth/signup", map[string]any{
		"email": "Alice@Example.org", "password": pw, "invitation_code": apptest.Code, "accept_responsibility": true,
	}).Must(t, 200)
	body := r.JSON()
	user := body["user"].(map[string]any)
	if body["ok"] != true || user["email"] != email || user["email_verified"] != false || user["is_active"] != true || user["is_admin"] != false {
		t.Fatalf("signup body %s", r.Body)
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(user["created_at"].(string)) {
		t.Errorf("created_at %v is not ISO 8601 UTC", user["created_at"])
	}
	ck := sessionCookie(t, r)
	setCookie := r.Header.Get("Set-Cookie")
	for _, want := range []string{"Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=604800"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, want)
		}
	}
	if strings.Contains(setCookie, "Secure") {
		t.Errorf("cookie marked Secure on an http base URL")
	}

	// The outbox holds a welcome and a verification mail, real RFC 5322.
	mails := e.Outbox(email)
	if len(mails) != 2 {
		t.Fatalf("outbox has %d mails for %s, want welcome and verification", len(mails), email)
	}
	for _, m := range mails {
		for _, h := range []string{"From", "To", "Subject", "Date", "Message-Id", "Mime-Version", "Content-Type"} {
			if m.Header.Get(h) == "" {
				t.Errorf("%s lacks header %s", m.File, h)
			}
		}
	}
	c.Do("GET", "/api/auth/me", nil).Must(t, 200)

	// Verification link: its page confirms nothing by itself being opened and
	// does not echo the token into its markup; the API route is single use.
	tok := e.Token(email, "verify-email")
	pg := e.NewClient().Do("GET", "/verify-email?token="+tok, nil).Must(t, 200)
	if ct := pg.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" || bytes.Contains(pg.Body, []byte(tok)) {
		t.Errorf("verify page: %s, echoes token: %v", ct, bytes.Contains(pg.Body, []byte(tok)))
	}
	if c.Do("GET", "/api/auth/me", nil).JSON()["email_verified"] != false {
		t.Error("opening the link page verified the address")
	}
	c.Do("POST", "/api/auth/email/verify", map[string]any{"token": tok}).Must(t, 200)
	r = c.Do("POST", "/api/auth/email/verify", map[string]any{"token": tok}).Must(t, 400)
	if d := detail(t, r); d != "Lien de vérification invalide ou expiré" {
		t.Errorf("reused verification token: %q", d)
	}
	if c.Do("GET", "/api/auth/me", nil).Must(t, 200).JSON()["email_verified"] != true {
		t.Error("email not verified after following the link")
	}
	r = c.Do("POST", "/api/auth/email/resend-verify", nil).Must(t, 200)
	if r.JSON()["already_verified"] != true {
		t.Errorf("resend after verification: %s", r.Body)
	}

	// Logout deletes the session row: the old cookie replayed gets 401.
	c.Do("POST", "/api/auth/logout", nil).Must(t, 200)
	c.Do("GET", "/api/auth/me", nil).Must(t, 401)
	if got := replay(e, ck); got != 401 {
		t.Errorf("replayed cookie after logout: %d, want 401", got)
	}

	// Login.
	r = c.Do("POST", "/api/auth/login", map[string]any{"email": email, "password": "wrong-pass1"}).Must(t, 401)
	if d := detail(t, r); d != "Email ou mot de passe incorrect" {
		t.Errorf("bad login detail %q", d)
	}
	c.Do("POST", "/api/auth/login", map[string]any{"email": email, "password": pw}).Must(t, 200)

	// API key: shown once, sk_ + 40 hex, prefix sk_ + 12 hex.
	r = c.Do("POST", "/api/keys", map[string]any{"name": "crm sync"}).Must(t, 201)
	kb := r.JSON()
	key := kb["key"].(string)
	if !regexp.MustCompile(`^sk_[0-9a-f]{40}$`).MatchString(key) || kb["prefix"] != key[:15] || kb["name"] != "crm sync" {
		t.Fatalf("created key %s", r.Body)
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`).MatchString(kb["created_at"].(string)) {
		t.Errorf("key created_at %v", kb["created_at"])
	}
	list := c.Do("GET", "/api/keys", nil).Must(t, 200)
	if bytes.Contains(list.Body, []byte(key)) || bytes.Contains(list.Body, []byte(`"key"`)) {
		t.Errorf("key list shows the secret: %s", list.Body)
	}
	m := e.NewClient()
	m.Key = key
	if m.Do("GET", "/api/auth/me", nil).Must(t, 200).JSON()["email"] != email {
		t.Error("key does not act for its owner")
	}
	bearer := e.NewClient()
	bearer.Header = http.Header{"Authorization": {"Bearer " + key}}
	bearer.Do("GET", "/api/auth/me", nil).Must(t, 200)
	r = m.Do("GET", "/api/keys", nil).Must(t, 403)
	if d := detail(t, r); !strings.Contains(d, "API key") {
		t.Errorf("key caller should read English, got %q", d)
	}
	var listed struct {
		Keys []struct {
			ID         int64   `json:"id"`
			LastUsedAt *string `json:"last_used_at"`
			RevokedAt  *string `json:"revoked_at"`
		} `json:"keys"`
	}
	json.Unmarshal(c.Do("GET", "/api/keys", nil).Must(t, 200).Body, &listed)
	if len(listed.Keys) != 1 || listed.Keys[0].LastUsedAt == nil || listed.Keys[0].RevokedAt != nil {
		t.Fatalf("key list after use: %+v", listed)
	}
	c.Do("DELETE", "/api/keys/"+itoa(listed.Keys[0].ID), nil).Must(t, 204)
	m.Do("GET", "/api/auth/me", nil).Must(t, 401)
	json.Unmarshal(c.Do("GET", "/api/keys", nil).Must(t, 200).Body, &listed)
	if listed.Keys[0].RevokedAt == nil {
		t.Error("revoked key listed without revoked_at")
	}

	// Password change: exact messages, then every other session ends.
	old := e.NewClient()
	old.Do("POST", "/api/auth/login", map[string]any{"email": email, "password": pw}).Must(t, 200)
	r = c.Do("POST", "/api/auth/password/change", map[string]any{"current_password": "nope-nope1", "new_password": "n3w-password"}).Must(t, 400)
	if d := detail(t, r); d != "Mot de passe actuel incorrect" {
		t.Errorf("wrong current password: %q", d)
	}
	r = c.Do("POST", "/api/auth/password/change", map[string]any{"current_password": pw, "new_password": pw}).Must(t, 400)
	if d := detail(t, r); d != "Le nouveau mot de passe doit être différent de l'actuel" {
		t.Errorf("same password: %q", d)
	}
	c.Do("POST", "/api/auth/password/change", map[string]any{"current_password": pw, "new_password": "onlyletters"}).Must(t, 422)
	const pw2 = "n3w-password"
	c.Do("POST", "/api/auth/password/change", map[string]any{"current_password": pw, "new_password": pw2}).Must(t, 200)
	c.Do("GET", "/api/auth/me", nil).Must(t, 200)
	old.Do("GET", "/api/auth/me", nil).Must(t, 401)

	// Password reset: same answer for unknown addresses, single-use token,
	// every session ended.
	anon := e.NewClient()
	known := anon.Do("POST", "/api/auth/password/reset-request", map[string]any{"email": email}).Must(t, 200)
	unknown := anon.Do("POST", "/api/auth/password/reset-request", map[string]any{"email": "nobody@example.org"}).Must(t, 200)
	if !bytes.Equal(known.Body, unknown.Body) {
		t.Errorf("reset-request answers differ: %s vs %s", known.Body, unknown.Body)
	}
	if len(e.Outbox("nobody@example.org")) != 0 {
		t.Error("reset mail sent to an unknown address")
	}
	rtok := e.Token(email, "reset-password")
	anon.Do("POST", "/api/auth/password/reset-confirm", map[string]any{"token": rtok, "new_password": "short"}).Must(t, 422)
	const pw3 = "reset-pass-9"
	anon.Do("POST", "/api/auth/password/reset-confirm", map[string]any{"token": rtok, "new_password": pw3}).Must(t, 200)
	r = anon.Do("POST", "/api/auth/password/reset-confirm", map[string]any{"token": rtok, "new_password": "again-pass-9"}).Must(t, 400)
	if d := detail(t, r); d != "Lien invalide ou expiré" {
		t.Errorf("reused reset token: %q", d)
	}
	c.Do("GET", "/api/auth/me", nil).Must(t, 401)
	// Past the login window (5 per 15 minutes per email, used up above).
	e.Clock.Advance(15 * time.Minute)
	c.Do("POST", "/api/auth/login", map[string]any{"email": email, "password": pw2}).Must(t, 401)
	c.Do("POST", "/api/auth/login", map[string]any{"email": email, "password": pw3}).Must(t, 200)

	// Feature vote, then a new key, both to be exported and then deleted.
	c.Do("POST", "/api/features/crm/interest", nil).Must(t, 204)
	key2 := c.CreateKey("second")

	// Export: a ZIP with exactly the spec's entries, no secret inside.
	r = c.Do("GET", "/api/auth/me/export", nil).Must(t, 200)
	if ct := r.Header.Get("Content-Type"); ct != "application/zip" {
		t.Errorf("export Content-Type %q", ct)
	}
	if cd := r.Header.Get("Content-Disposition"); !regexp.MustCompile(`^attachment; filename=svc-export-alice-\d{4}-\d\d-\d\d\.zip$`).MatchString(cd) {
		t.Errorf("export Content-Disposition %q", cd)
	}
	zr, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
	if err != nil {
		t.Fatalf("export is not a ZIP: %v", err)
	}
	var names []string
	files := map[string][]byte{}
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, _ := f.Open()
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	slices.Sort(names)
	if want := []string{"account.json", "events.json", "jobs.json", "manifest.txt", "pipelines.json", "veille.json"}; !slices.Equal(names, want) {
		t.Errorf("export entries %v, want %v", names, want)
	}
	var account struct {
		User         map[string]any   `json:"user"`
		APIKeys      []map[string]any `json:"api_keys"`
		FeatureVotes []string         `json:"feature_votes"`
	}
	if err := json.Unmarshal(files["account.json"], &account); err != nil {
		t.Fatalf("account.json: %v", err)
	}
	if account.User["email"] != email || len(account.APIKeys) != 2 || !slices.Equal(account.FeatureVotes, []string{"crm"}) {
		t.Errorf("account.json: %s", files["account.json"])
	}
	for name, b := range files {
		for _, secret := range []string{key, key2, "argon2id", pw3} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s contains a secret (%q...)", name, secret[:6])
			}
		}
	}
	for _, name := range []string{"jobs.json", "pipelines.json", "veille.json"} {
		var v []any
		if err := json.Unmarshal(files[name], &v); err != nil {
			t.Errorf("%s is not a JSON array: %v", name, err)
		}
	}
	if !strings.Contains(string(files["manifest.txt"]), email) {
		t.Errorf("manifest.txt: %s", files["manifest.txt"])
	}

	// Deletion: confirmation checked, then everything gone.
	r = c.Do("DELETE", "/api/auth/me", map[string]any{"confirm_email": "other@example.org"}).Must(t, 400)
	if d := detail(t, r); d != "Confirmation email incorrecte." {
		t.Errorf("bad confirmation: %q", d)
	}
	ck2 := c.Do("GET", "/api/auth/me", nil).Must(t, 200)
	_ = ck2
	r = c.Do("DELETE", "/api/auth/me", map[string]any{"confirm_email": "ALICE@example.org"}).Must(t, 204)
	if len(r.Body) != 0 {
		t.Errorf("204 with a body: %q", r.Body)
	}
	c.Do("GET", "/api/auth/me", nil).Must(t, 401)
	k2 := e.NewClient()
	k2.Key = key2
	k2.Do("GET", "/api/auth/me", nil).Must(t, 401)
	anon.Do("POST", "/api/auth/login", map[string]any{"email": email, "password": pw3}).Must(t, 401)
	other := e.NewClient()
	other.Signup("bob@example.org", "b0b-password")
	counts := other.Do("GET", "/api/features", nil).Must(t, 200).JSON()["counts"].(map[string]any)
	if counts["crm"] != float64(0) {
		t.Errorf("vote of a deleted account still counted: %v", counts["crm"])
	}
	// The address is free again.
	e.NewClient().Signup(email, pw)
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
