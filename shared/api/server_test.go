package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/apperr"
)

func TestKeyAllowed(t *testing.T) {
	tests := []struct {
		method, path string
		want         bool
	}{
		{"GET", "/api/jobs", true},
		{"POST", "/api/jobs/emails", true},
		{"GET", "/api/jobsx", false},
		{"POST", "/api/estimate", true},
		{"GET", "/api/ef/quota", true},
		{"GET", "/api/ef", false},
		{"POST", "/api/pipelines/validate", true},
		{"GET", "/api/veille/3/runs", true},
		{"GET", "/api/events", true},
		{"DELETE", "/api/webhooks/2", true},
		{"GET", "/api/company/123456789", true},
		{"GET", "/api/company", false},
		{"GET", "/api/countries", true},
		{"GET", "/api/modules-registry", true},
		{"GET", "/api/auth/me", true},
		{"HEAD", "/api/auth/me", true},
		{"DELETE", "/api/auth/me", false},
		{"GET", "/api/auth/me/export", false},
		{"POST", "/api/auth/logout", false},
		{"POST", "/api/keys", false},
		{"GET", "/api/keys", false},
		{"GET", "/api/admin/users", false},
		{"GET", "/api/features", false},
		{"GET", "/api/openapi.json", false},
		{"GET", "/api/jobs/../keys", false},
		{"GET", "/api/jobs/%2e%2e/keys", true}, // a literal segment, not a parent reference
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			if got := KeyAllowed(tt.method, tt.path); got != tt.want {
				t.Errorf("KeyAllowed(%s, %s) = %v, want %v", tt.method, tt.path, got, tt.want)
			}
		})
	}
}

func bare(t *testing.T, routes ...Route) *Server {
	t.Helper()
	s := &Server{d: Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, mux: http.NewServeMux()}
	s.routes = routes
	s.mount(routes)
	return s
}

func call(s *Server, method, path, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader(body)))
	return w
}

func detailOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var b ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("body %q is not {detail}: %v", w.Body, err)
	}
	return b.Detail
}

func TestPanicBecomes500(t *testing.T) {
	s := bare(t, Route{Method: "GET", Path: "/boom", Handle: func(http.ResponseWriter, *http.Request, *Caller) error {
		panic("kaboom")
	}})
	w := call(s, "GET", "/boom", "")
	if w.Code != 500 || detailOf(t, w) != "Erreur interne du serveur" {
		t.Fatalf("panic answered %d %s", w.Code, w.Body)
	}
	if strings.Contains(w.Body.String(), "kaboom") {
		t.Error("the panic value leaked to the caller")
	}
}

func TestUnknownRouteAndMethod(t *testing.T) {
	s := bare(t, Route{Method: "GET", Path: "/thing", Handle: func(w http.ResponseWriter, _ *http.Request, _ *Caller) error {
		writeJSON(w, 200, OK{OK: true})
		return nil
	}})
	if w := call(s, "GET", "/nope", ""); w.Code != 404 || detailOf(t, w) == "" {
		t.Errorf("unknown route: %d %s", w.Code, w.Body)
	}
	w := call(s, "DELETE", "/thing", "")
	if w.Code != 405 || detailOf(t, w) == "" || w.Header().Get("Allow") != "GET" {
		t.Errorf("wrong method: %d %s %v", w.Code, w.Body, w.Header())
	}
}

func TestDecodeErrors(t *testing.T) {
	type body struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	s := bare(t, Route{Method: "POST", Path: "/echo", MaxBody: 64, Handle: func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
		var b body
		if err := decode(r, &b); err != nil {
			return err
		}
		writeJSON(w, 200, b)
		return nil
	}})
	tests := []struct {
		name, body string
		status     int
	}{
		{"valid", `{"name":"a","n":1}`, 200},
		{"empty body", ``, 400},
		{"malformed", `{"name":`, 400},
		{"trailing data", `{"name":"a"} {}`, 400},
		{"not an object", `[1,2]`, 400},
		{"wrong type names the field", `{"n":"x"}`, 422},
		{"oversize", `{"name":"` + strings.Repeat("a", 100) + `"}`, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := call(s, "POST", "/echo", tt.body)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if tt.status >= 400 && detailOf(t, w) == "" {
				t.Error("no detail")
			}
		})
	}
	w := call(s, "POST", "/echo", `{"n":"x"}`)
	var b ErrorBody
	json.Unmarshal(w.Body.Bytes(), &b)
	if len(b.Errors) != 1 || b.Errors[0].Field != "n" {
		t.Errorf("field error %s", w.Body)
	}
}

// TestDecodeTypeNames: a value of the wrong type is named by the JSON type
// the field takes, in the document's words, never by its Go type.
func TestDecodeTypeNames(t *testing.T) {
	type Embedded struct {
		Queries []string `json:"queries"`
		Deep    struct {
			Level int `json:"level"`
		} `json:"deep"`
	}
	type body struct {
		Embedded
		Name  string            `json:"name"`
		N     int               `json:"n"`
		Ratio float64           `json:"ratio"`
		On    *bool             `json:"on"`
		List  []string          `json:"list"`
		Items []json.RawMessage `json:"items"`
		Map   map[string]int    `json:"map"`
		Inner struct{ A int }   `json:"inner"`
	}
	s := bare(t, Route{Method: "POST", Path: "/echo", Handle: func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
		var b body
		return decode(r, &b)
	}})
	tests := []struct{ body, field, want string }{
		{`{"name":1}`, "name", "Invalid type (expected string)"},
		{`{"n":"x"}`, "n", "Invalid type (expected integer)"},
		{`{"n":1.5}`, "n", "Invalid type (expected integer)"},
		{`{"ratio":"x"}`, "ratio", "Invalid type (expected number)"},
		{`{"on":"yes"}`, "on", "Invalid type (expected boolean)"},
		{`{"list":"x"}`, "list", "Invalid type (expected array)"},
		{`{"list":[1]}`, "list", "Invalid type (expected string)"},
		{`{"items":"x"}`, "items", "Invalid type (expected array)"},
		{`{"map":[]}`, "map", "Invalid type (expected object)"},
		{`{"inner":"x"}`, "inner", "Invalid type (expected object)"},
		{`{"inner":{"A":"x"}}`, "inner.A", "Invalid type (expected integer)"},
		{`{"queries":"x"}`, "queries", "Invalid type (expected array)"},
		{`{"deep":{"level":"x"}}`, "deep.level", "Invalid type (expected integer)"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/echo", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept-Language", "en")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			var b ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || w.Code != 422 || len(b.Errors) != 1 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if b.Errors[0].Field != tt.field || b.Errors[0].Message != tt.want {
				t.Errorf("%s: %q, want %s: %q", b.Errors[0].Field, b.Errors[0].Message, tt.field, tt.want)
			}
		})
	}
}

func TestErrorLanguage(t *testing.T) {
	s := bare(t, Route{Method: "GET", Path: "/x", Handle: func(http.ResponseWriter, *http.Request, *Caller) error {
		return apperr.TooManyRequests(42)
	}})
	w := call(s, "GET", "/x", "")
	if w.Code != 429 || w.Header().Get("Retry-After") != "42" || detailOf(t, w) != "Trop de tentatives. Réessaie dans 42 secondes." {
		t.Errorf("429: %d %v %s", w.Code, w.Header(), w.Body)
	}
}

// TestOpenAPIDocument checks the document derived from the route table and,
// when SVC_OPENAPI_OUT names a file, writes it there for the OpenAPI
// validator that `make test` runs.
func TestOpenAPIDocument(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: "http://127.0.0.1:8080"})
	doc := s.OpenAPI()
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", parsed.OpenAPI)
	}
	for _, rt := range s.Routes() {
		_, listed := parsed.Paths[rt.Path][strings.ToLower(rt.Method)]
		if listed != KeyReachable(rt) {
			t.Errorf("%s %s listed=%v, key-reachable=%v", rt.Method, rt.Path, listed, KeyReachable(rt))
		}
	}
	for _, want := range []string{"/api/auth/me", "/api/modules-registry"} {
		if _, ok := parsed.Paths[want]; !ok {
			t.Errorf("%s missing from the document", want)
		}
	}
	if slices.ContainsFunc(s.Routes(), func(r Route) bool { return r.Path == "/api/keys" && KeyReachable(r) }) {
		t.Error("key management reachable with a key")
	}
	if out := os.Getenv("SVC_OPENAPI_OUT"); out != "" {
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every route belongs to exactly the group whose prefixes cover it, and no
// two groups claim one prefix.
func TestGroupsCoverRoutes(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, rt := range s.Routes() {
		g := GroupOf(rt.Path)
		claimed := false
		for _, grp := range Groups() {
			for _, p := range grp.Prefixes {
				if rt.Path == p || strings.HasPrefix(rt.Path, p+"/") {
					if claimed {
						t.Errorf("%s claimed by two groups", rt.Path)
					}
					claimed = true
					if grp.Name != g {
						t.Errorf("%s: GroupOf %s, prefix of %s", rt.Path, g, grp.Name)
					}
				}
			}
		}
		if !claimed {
			t.Errorf("%s %s belongs to no group", rt.Method, rt.Path)
		}
	}
}
