package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/prospectdata/svc/shared/apiref"
)

// referenceServer is the real server's route table and middleware on
// loopback, with no store: the reference and the document need none.
func referenceServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	srv.Config.Handler = New(Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: srv.URL})
	t.Cleanup(srv.Close)
	return srv
}

func fetch(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// TestReferenceRoutes serves the page and its files through the route
// table: the page (or, in a build without the bundle, the 503 naming make
// apiref), every file the page names, and a 404 {detail} for any other.
func TestReferenceRoutes(t *testing.T) {
	srv := referenceServer(t)
	res, body := fetch(t, srv.URL+"/api/reference")
	if !apiref.New(apiref.Embedded()).Ready() {
		if os.Getenv("SVC_TEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("Swagger UI is not vendored: make test runs make apiref first")
		}
		if res.StatusCode != 503 || !strings.Contains(body, "make apiref") {
			t.Errorf("without the bundle: %d %s", res.StatusCode, body)
		}
		return
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		res.Header.Get("Content-Security-Policy") != apiref.CSP {
		t.Fatalf("page: %d %v", res.StatusCode, res.Header)
	}
	if !strings.Contains(body, `data-url="openapi.json"`) {
		t.Errorf("the page does not point at openapi.json: %s", body)
	}
	// Relative to the page: /api/openapi.json is the document.
	if res, doc := fetch(t, srv.URL+"/api/openapi.json"); res.StatusCode != 200 || !strings.Contains(doc, `"openapi"`) {
		t.Errorf("document: %d", res.StatusCode)
	}
	refs := regexp.MustCompile(`(?:src|href)="(reference/[^"]+)"`).FindAllStringSubmatch(body, -1)
	want := map[string]string{apiref.Bundle: "text/javascript", apiref.Stylesheet: "text/css", apiref.Start: "text/javascript"}
	for _, m := range refs {
		u := srv.URL + "/api/" + m[1]
		res, b := fetch(t, u)
		name := strings.TrimPrefix(strings.SplitN(m[1], "?", 2)[0], "reference/")
		if res.StatusCode != 200 || len(b) == 0 {
			t.Errorf("%s: %d, %d bytes", u, res.StatusCode, len(b))
		}
		if ct, ok := want[name]; ok {
			if !strings.HasPrefix(res.Header.Get("Content-Type"), ct) {
				t.Errorf("%s: type %q, want %s", name, res.Header.Get("Content-Type"), ct)
			}
			delete(want, name)
		}
	}
	if len(want) > 0 {
		t.Errorf("the page names none of %v", want)
	}
	for _, p := range []string{"/api/reference/nope.js", "/api/reference/README.md", "/api/reference/%00"} {
		res, b := fetch(t, srv.URL+p)
		var e ErrorBody
		if res.StatusCode != 404 || json.Unmarshal([]byte(b), &e) != nil || e.Detail == "" {
			t.Errorf("%s: %d %s", p, res.StatusCode, b)
		}
	}
	if g := GroupOf("/api/reference/" + apiref.Bundle); g != GroupOf("/api/openapi.json") {
		t.Errorf("the files are served by %s, the document by %s", g, GroupOf("/api/openapi.json"))
	}
}

// TestReferenceRenders loads the page in headless Chromium: Swagger UI
// renders the operations of the served document, under the page's CSP
// with no violation, and the browser asks nothing of any other origin.
func TestReferenceRenders(t *testing.T) {
	exe, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("SVC_TEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("no Chromium: make test installs Debian's chromium")
		}
		t.Skip("no Chromium installed")
	}
	if !apiref.New(apiref.Embedded()).Ready() {
		if os.Getenv("SVC_TEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("Swagger UI is not vendored: make test runs make apiref first")
		}
		t.Skip("Swagger UI not vendored (make apiref)")
	}
	srv := referenceServer(t)
	doc := srv.Config.Handler.(*Server).OpenAPI()
	me := doc["paths"].(map[string]any)["/api/auth/me"].(map[string]any)["get"].(map[string]any)
	summary := me["summary"].(string)
	// Swagger UI's id of an operation's block: operations-<tag>-<operationId>.
	opBlock := fmt.Sprintf("#operations-%v-%v", me["tags"].([]any)[0], me["operationId"])

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // tests run as root in a container
		// Any name the page tried to resolve fails: only the loopback
		// address of the server is reachable.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var requested []string
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requested = append(requested, e.Request.URL)
			mu.Unlock()
		}
	}))
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	// Injected by the browser, not the page: the CSP does not apply to it.
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__violations = [];
document.addEventListener("securitypolicyviolation", e => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`,
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/api/reference"), chromedp.WaitVisible(chromedp.CSS(".opblock-summary"))); err != nil {
		t.Fatal(err)
	}
	// An operation opened shows its responses and their schemas (what
	// runs the highlighter and the model views, under the same CSP).
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(opBlock+" .opblock-summary-control")),
		chromedp.WaitVisible(chromedp.CSS(opBlock+" .responses-table"))); err != nil {
		t.Fatal(err)
	}
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("#swagger-ui")))
	if err != nil {
		t.Fatal(err)
	}
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__violations`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, summary) || !strings.Contains(html, "/api/auth/me") {
		t.Errorf("the rendered reference lacks GET /api/auth/me (%q)", summary)
	}
	if len(violations) > 0 {
		t.Errorf("CSP violations: %v", violations)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, u := range requested {
		if !strings.HasPrefix(u, srv.URL+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page requested %s", u)
		}
	}
	if len(requested) < 4 {
		t.Errorf("requests %v: the page, its three files and the document expected", requested)
	}
}
