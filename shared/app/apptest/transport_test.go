package apptest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the errors it is given.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

const miniDoc = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/api/things/{id}":{"get":{
 "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}},
  {"name":"limit","in":"query","required":false,"schema":{"type":"integer","minimum":1}}],
 "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object",
  "properties":{"n":{"type":"integer"}},"required":["n"]}}}},
  "404":{"description":"missing","content":{"application/json":{"schema":{"type":"object"}}}}}}}}}`

// TestTransportChecks: the transport lets a true exchange through and
// reports each way an exchange can contradict the document.
func TestTransportChecks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/openapi.json" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(miniDoc))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/things/good":
			w.Write([]byte(`{"n":1}`))
		case "/api/things/string":
			w.Write([]byte(`{"n":"1"}`))
		case "/api/things/teapot":
			w.WriteHeader(http.StatusTeapot)
			w.Write([]byte(`{}`))
		default:
			w.Write([]byte(`{"n":2}`))
		}
	}))
	defer srv.Close()
	tests := []struct {
		path, want string
	}{
		{"/api/things/good", ""},
		{"/api/things/good?limit=3", ""},
		{"/api/things/string", "response body doesn't match"},
		{"/api/things/teapot", "418"},
		{"/api/things/x?limit=0", "accepted a request the document refuses"},
		{"/api/things/x?cache=1", `query parameter "cache" is not in the document`},
		{"/api/elsewhere", ""}, // not described: not checked
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := &recorder{TB: t}
			c := &http.Client{Transport: &Transport{T: rec}}
			resp, err := c.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got := strings.Join(rec.errs, "\n")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("errors %q, want one with %q", got, tt.want)
			}
		})
	}
}
