package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// TestBadInput21PathIDs sends every route with a path wildcard an id holding
// a NUL byte, invalid UTF-8 or a control character: each must answer a
// {detail} 404 (no such object), never reach the store as a server fault.
func TestBadInput21PathIDs(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("badid@example.org", "badid-passw0rd")
	c.Key = c.CreateKey("bad ids")
	bad := []string{"%00", "a%00b", "%ff%fe", "%01x", "a%0Ab", "%7F", strings.Repeat("a", 300)}
	tried := 0
	for _, rt := range e.App.Server.Routes() {
		if !strings.Contains(rt.Path, "{") || !strings.HasPrefix(rt.Path, "/api/") {
			continue
		}
		for _, id := range bad {
			path := rt.Path
			for strings.Contains(path, "{") {
				i, j := strings.Index(path, "{"), strings.Index(path, "}")
				path = path[:i] + id + path[j+1:]
			}
			var body any
			if rt.Method == http.MethodPost || rt.Method == http.MethodPut || rt.Method == http.MethodPatch {
				body = "{}"
			}
			r := c.Do(rt.Method, path, body)
			tried++
			if r.Status >= 500 {
				t.Errorf("%s %s: %d %s", rt.Method, path, r.Status, r.Body)
				continue
			}
			// A route the key may not reach answers 403 before any id is
			// read; a route whose wildcard is not an id (a job type, a
			// file name) may refuse otherwise, but never with a fault.
			if r.Status != http.StatusNotFound && r.Status != http.StatusForbidden &&
				(strings.HasPrefix(rt.Path, "/api/jobs/{id}") || strings.HasPrefix(rt.Path, "/api/pipelines/{id}")) {
				t.Errorf("%s %s: %d, want 404: %s", rt.Method, path, r.Status, r.Body)
			}
			if r.Status >= 400 && !bytes.Contains(r.Body, []byte(`"detail"`)) {
				t.Errorf("%s %s: %d without {detail}: %s", rt.Method, path, r.Status, r.Body)
			}
		}
	}
	if tried < 15*len(bad) {
		t.Fatalf("only %d requests: the route table has fewer id routes than expected", tried)
	}
}

// TestBadInput21BodyIDs sends ids and emails no object can have in request
// bodies: a 400 naming the field, never a server fault (a 500 is also the
// only answer that logs at ERROR, so none means no ERROR line either).
func TestBadInput21BodyIDs(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("badbody@example.org", "badbody-passw0rd")
	for _, id := range []string{"\x00", "a\x00b", "\xff\xfe", "ab\ncd", strings.Repeat("a", 300)} {
		for _, field := range []string{"source_job_id", "source_pipeline_id"} {
			// Raw bytes: invalid UTF-8 must reach the decoder as sent.
			body := `{"name":"watch","frequency_days":7,"` + field + `":"` + rawJSONString(id) + `"}`
			r := c.Do("POST", "/api/veille", body)
			if r.Status != http.StatusBadRequest || !bytes.Contains(r.Body, []byte(field)) {
				t.Errorf("veille %s=%q: %d %s, want 400 naming the field", field, id, r.Status, r.Body)
			}
		}
	}
	for _, email := range []string{"\x00", "a\x00b@example.org", "badbody@example.org\x00", "\xff\xfe@example.org", "a\x7f@example.org"} {
		// A client each: the login limit per IP would answer 429 first.
		r := e.NewClient().Do("POST", "/api/auth/login", `{"email":"`+rawJSONString(email)+`","password":"whatever1"}`)
		if r.Status != http.StatusBadRequest || !bytes.Contains(r.Body, []byte("email")) {
			t.Errorf("login email %q: %d %s, want 400 naming email", email, r.Status, r.Body)
		}
	}
	// A well-formed unknown email is still the bad-credentials 401.
	e.NewClient().Do("POST", "/api/auth/login", map[string]any{"email": "nobody@example.org", "password": "whatever1"}).Must(t, http.StatusUnauthorized)
}

// rawJSONString escapes s for a JSON string literal but keeps invalid UTF-8 bytes
// as they are (encoding/json would replace them).
func rawJSONString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[ch>>4])
			b.WriteByte("0123456789abcdef"[ch&15])
		case ch == '"' || ch == '\\':
			b.WriteByte('\\')
			b.WriteByte(ch)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// TestBadInput21ImportURL: an import's spreadsheet address that its fetch
// would refuse is refused at validation and creation, with the reason,
// not at run time.
func TestBadInput21ImportURL(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("importurl@example.org", "importurl-passw0rd")
	c.Verify("importurl@example.org")
	def := func(u string) string {
		return `{"nodes":[{"id":"i","type":"import","config":{"source":"url","url":` + strconvQuote(u) + `}}],"edges":[]}`
	}
	// reason: a word of the refusal that names the cause in any language.
	for _, tt := range []struct{ url, reason string }{
		{"file:///etc/passwd", "http(s)"},
		{"gopher://example.org/x", "http(s)"},
		{"http://127.0.0.1:8080/list.csv", "127.0.0.1"},
		{"http://localhost/list.csv", "localhost"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254"},
		{"https://10.0.0.5/list.csv", "10.0.0.5"},
		{"https://0x7f000001/list.csv", "127.0.0.1"},
		{"https://intranet/list.csv", "intranet"},
		{"https://example.org:99999/list.csv", "99999"},
	} {
		v := c.Do("POST", "/api/pipelines/validate", `{"schema_version":1,"definition":`+def(tt.url)+`}`).Must(t, 200).JSON()
		if v["ok"] != false || v["reason"] != "definition" || !strings.Contains(fmt.Sprint(v["error"]), tt.reason) {
			t.Errorf("validate %s: %v, want a definition refusal saying %q", tt.url, v, tt.reason)
		}
		r := c.Do("POST", "/api/pipelines", def(tt.url))
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), tt.reason) {
			t.Errorf("create %s: %d %s, want 400 saying %q", tt.url, r.Status, r.Body, tt.reason)
		}
	}
	// A public address and a sim world host (answered by its fixture web)
	// pass: they are read at launch.
	for _, u := range []string{"https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOp/edit#gid=0", "https://sheets.sim.test/list.csv"} {
		v := c.Do("POST", "/api/pipelines/validate", `{"schema_version":1,"definition":`+def(u)+`}`).Must(t, 200).JSON()
		if v["ok"] != true {
			t.Errorf("validate %s: %v", u, v)
		}
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
