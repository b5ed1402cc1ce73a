package inproc_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/inproc"
)

// TestHandlerTransport: the handler sees the request as a server would
// (method, host, URI, headers, body, the caller's context) and the client
// reads its answer whole: status (200 when unwritten, the first one when
// written twice), headers and body.
func TestHandlerTransport(t *testing.T) {
	type key struct{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Seen", r.Method+" "+r.Host+" "+r.RequestURI+" "+r.Header.Get("X-In")+" "+string(body))
		if v, _ := r.Context().Value(key{}).(string); v != "" {
			w.Header().Set("X-Context", v)
		}
		switch r.URL.Path {
		case "/teapot":
			w.WriteHeader(http.StatusTeapot)
			w.WriteHeader(http.StatusOK) // ignored, as net/http does
			io.WriteString(w, "short and stout")
		case "/silent":
		default:
			io.WriteString(w, "hello")
		}
	})
	c := &http.Client{Transport: inproc.HandlerTransport(h)}
	tests := []struct {
		name, method, url, body string
		wantStatus              int
		wantBody, wantSeen      string
	}{
		{"a GET with a query", "GET", "http://api.sim.test/search?q=a%20b", "", 200, "hello",
			"GET api.sim.test /search?q=a%20b in "},
		{"a POST with a body", "POST", "https://overpass.sim.test/api/interpreter", "data=[out:json];", 200, "hello",
			"POST overpass.sim.test /api/interpreter in data=[out:json];"},
		{"the first status wins", "GET", "http://x.test/teapot", "", http.StatusTeapot, "short and stout",
			"GET x.test /teapot in "},
		{"nothing written is a 200 with no body", "DELETE", "http://x.test/silent", "", 200, "", "DELETE x.test /silent in "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.WithValue(context.Background(), key{}, "caller")
			req, err := http.NewRequestWithContext(ctx, tt.method, tt.url, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-In", "in")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || string(b) != tt.wantBody || resp.ContentLength != int64(len(tt.wantBody)) {
				t.Errorf("%d %q (length %d), want %d %q", resp.StatusCode, b, resp.ContentLength, tt.wantStatus, tt.wantBody)
			}
			if got := resp.Header.Get("X-Seen"); got != tt.wantSeen {
				t.Errorf("the handler saw %q, want %q", got, tt.wantSeen)
			}
			if resp.Header.Get("X-Context") != "caller" {
				t.Error("the handler did not get the caller's context")
			}
		})
	}
}

// TestHandlerTransportCancelled: a request whose context has ended is not
// served; one whose context ends while served gets the context's error.
func TestHandlerTransportCancelled(t *testing.T) {
	served := 0
	ctx, cancel := context.WithCancel(context.Background())
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served++
		cancel()
		io.WriteString(w, "late")
	})
	c := &http.Client{Transport: inproc.HandlerTransport(h)}
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x.test/", nil)
	if _, err := c.Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while served: %v", err)
	}
	if _, err := c.Do(req); !errors.Is(err, context.Canceled) || served != 1 {
		t.Errorf("already cancelled: %v, served %d times", err, served)
	}
}
