package app_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// fuzzBody sends arbitrary bytes as the JSON body of a route, with a live
// session, and checks that the answer is never a server fault and that every
// refusal carries the spec's {detail}.
func fuzzBody(f *testing.F, method, path string, seeds ...string) {
	e := apptest.Start(f)
	c := e.NewClient()
	c.Signup("fuzz@example.org", "fuzz-passw0rd")
	var cookie *http.Cookie
	for _, ck := range c.HTTP.Jar.Cookies(mustURL(e.Server.URL)) {
		if ck.Name == "svc_session" {
			cookie = ck
		}
	}
	for _, s := range append(seeds, "", "{", "null", "[]", `"x"`, "{}", `{"a":1}{"b":2}`, "\xff\xfe", `{"email":1e999}`) {
		f.Add([]byte(s))
	}
	doc := e.Doc() // fetched here: a fuzz target may not call the F's methods
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(cookie)
		w := httptest.NewRecorder()
		e.App.Server.ServeHTTP(w, req)
		apptest.Validate(t, doc, req, body, w.Code, w.Header(), w.Body.Bytes())
		if w.Code >= 500 {
			t.Fatalf("%s %s with %q: %d %s", method, path, body, w.Code, w.Body)
		}
		if w.Code >= 400 {
			var b struct {
				Detail *string `json:"detail"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || b.Detail == nil {
				t.Fatalf("%s %s with %q: %d without {detail}: %s", method, path, body, w.Code, w.Body)
			}
		}
	})
}

func FuzzSignupBody(f *testing.F) {
	fuzzBody(f, "POST", "/api/auth/signup",
		`{"email":"x@example.org","password":"abc12345","invitation_code":"`+apptest.Code+`","accept_responsibility":true}`,
		`{"email":"x@example.org","password":"abc12345","invitation_code":"`+apptest.Code+`","accept_responsibility":"yes"}`,
		`{"email":["x"],"captcha_token":null}`)
}

func FuzzLoginBody(f *testing.F) {
	fuzzBody(f, "POST", "/api/auth/login", `{"email":"fuzz@example.org","password":"fuzz-passw0rd"}`, `{"email":null,"password":12}`)
}

func FuzzResetRequestBody(f *testing.F) {
	fuzzBody(f, "POST", "/api/auth/password/reset-request", `{"email":"fuzz@example.org"}`, `{"email":{}}`)
}

func FuzzResetConfirmBody(f *testing.F) {
	fuzzBody(f, "POST", "/api/auth/password/reset-confirm", `{"token":"abcdefghijkl","new_password":"abc12345"}`, `{"token":5}`)
}

func FuzzPasswordChangeBody(f *testing.F) {
	fuzzBody(f, "POST", "/api/auth/password/change", `{"current_password":"wrong","new_password":"abc12345"}`)
}

func FuzzVerifyEmailBody(f *testing.F) {
	fuzzBody(f, "POST", "/api/auth/email/verify", `{"token":"abcdefghijkl"}`, `{"token":[]}`)
}

func FuzzDeleteMeBody(f *testing.F) {
	fuzzBody(f, "DELETE", "/api/auth/me", `{"confirm_email":"someone@example.org"}`, `{"confirm_email":false}`)
}

func FuzzKeyCreateBody(f *testing.F) {
	fuzzBody(f, "POST", "/api/keys", `{"name":"ok"}`, `{"name":""}`, `{"name":"`+string(bytes.Repeat([]byte("é"), 61))+`"}`)
}
