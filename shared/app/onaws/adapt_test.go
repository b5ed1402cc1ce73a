package onaws_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/app/onaws"
)

func event(method, path, query, body string, headers map[string]string, cookies []string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{}
	for k, v := range headers {
		h[strings.ToLower(k)] = v
	}
	return events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "$default", RawPath: path, RawQueryString: query, Headers: h, Cookies: cookies, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			Stage: "$default", RequestID: "r1",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "198.51.100.10"},
		},
	}
}

// TestGroupsAnswerLikeTheLocalServer sends the same requests to the local
// server over HTTP and, as synthetic API Gateway v2 events, to each route
// group's handler (the code a Lambda runs, over the same tables), and
// compares status, content type and body.
func TestGroupsAnswerLikeTheLocalServer(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("lambda@example.org", "pass-w0rd!")
	key := c.CreateKey("lambda")
	var cookie string
	for _, ck := range c.HTTP.Jar.Cookies(mustURL(t, e.Server.URL)) {
		if ck.Name == api.CookieName {
			cookie = ck.Name + "=" + ck.Value
		}
	}
	handlers := map[string]onaws.HTTPHandler{}
	for _, g := range api.Groups() {
		a, err := app.New(e.Config, e.Adapters, api.OnlyGroup(g.Name))
		if err != nil {
			t.Fatal(err)
		}
		handlers[g.Name] = onaws.Adapt(a.Server)
	}
	tests := []struct {
		name, method, path, body string
		key, session             bool
		status                   int
	}{
		{"registry", "GET", "/api/modules-registry", "", false, false, 200},
		{"openapi", "GET", "/api/openapi.json", "", false, false, 200},
		{"me with key", "GET", "/api/auth/me", "", true, false, 200},
		{"me with session", "GET", "/api/auth/me", "", false, true, 200},
		{"me anonymous", "GET", "/api/auth/me", "", false, false, 401},
		{"keys with key", "GET", "/api/keys", "", true, false, 403},
		{"features with session", "GET", "/api/features", "", false, true, 200},
		{"vote unknown feature", "POST", "/api/features/nope/interest", "", false, true, 404},
		{"bad login", "POST", "/api/auth/login", `{"email":"lambda@example.org","password":"wrong-1"}`, false, false, 401},
		{"malformed body", "POST", "/api/auth/login", `{"email":`, false, false, 400},
		{"wrong method", "DELETE", "/api/modules-registry", "", false, false, 405},
		{"unknown route", "GET", "/api/nothing-here", "", false, false, 404},
		{"health", "GET", "/healthz", "", false, false, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local := e.NewClient()
			hdr := map[string]string{}
			var cookies []string
			if tt.key {
				local.Key = key
				hdr["X-API-Key"] = key
			}
			if tt.session {
				local.Header = http.Header{"Cookie": {cookie}}
				cookies = []string{cookie}
			}
			var body any
			if tt.body != "" {
				body = tt.body
				hdr["Content-Type"] = "application/json"
			}
			want := local.Do(tt.method, tt.path, body)
			if want.Status != tt.status {
				t.Fatalf("local server: %d, want %d: %s", want.Status, tt.status, want.Body)
			}
			group := api.GroupOf(tt.path)
			got, err := handlers[group](context.Background(), event(tt.method, tt.path, "", tt.body, hdr, cookies))
			if err != nil {
				t.Fatal(err)
			}
			if got.StatusCode != want.Status {
				t.Errorf("%s: status %d, local %d (%s)", group, got.StatusCode, want.Status, got.Body)
			}
			if ct := got.Headers["Content-Type"]; ct != want.Header.Get("Content-Type") {
				t.Errorf("%s: content type %q, local %q", group, ct, want.Header.Get("Content-Type"))
			}
			if !sameJSON(got.Body, string(want.Body)) {
				t.Errorf("%s: body\n%s\nlocal\n%s", group, got.Body, want.Body)
			}
		})
	}

	// A route is served only by its own group's Lambda.
	r, err := handlers["api-registry"](context.Background(), event("GET", "/api/auth/me", "", "", map[string]string{"X-API-Key": key}, nil))
	if err != nil || r.StatusCode != 404 {
		t.Errorf("api-registry served /api/auth/me: %d %v", r.StatusCode, err)
	}

	// Signup through the Lambda sets the session cookie in the v2 cookies list,
	// and the gateway's source IP is the client address the limits count.
	for i := range 4 {
		body := `{"email":"l` + string(rune('a'+i)) + `@example.org","password":"pass-w0rd!","invitation_code":"` + apptest.Code + `","accept_responsibility":true}`
		r, err := handlers["api-auth"](context.Background(), event("POST", "/api/auth/signup", "", body, map[string]string{"Content-Type": "application/json"}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if i < 3 && (r.StatusCode != 200 || len(r.Cookies) != 1 || !strings.HasPrefix(r.Cookies[0], api.CookieName+"=")) {
			t.Fatalf("signup %d through the gateway: %d cookies %v: %s", i, r.StatusCode, r.Cookies, r.Body)
		}
		if i == 3 && r.StatusCode != 429 {
			t.Fatalf("4th signup from one source IP: %d, want 429", r.StatusCode)
		}
	}
	other := event("POST", "/api/auth/signup", "", `{"email":"lz@example.org","password":"pass-w0rd!","invitation_code":"`+apptest.Code+`","accept_responsibility":true}`,
		map[string]string{"Content-Type": "application/json"}, nil)
	other.RequestContext.HTTP.SourceIP = "198.51.100.11"
	if r, err := handlers["api-auth"](context.Background(), other); err != nil || r.StatusCode != 200 {
		t.Fatalf("signup from another source IP: %d %v: %s", r.StatusCode, err, r.Body)
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
