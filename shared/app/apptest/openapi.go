package apptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Doc is the served OpenAPI document, loaded and checked by kin-openapi,
// with the operations it describes found by the rules the server routes by
// (net/http patterns), so a request reaches the operation the service ran.
type Doc struct {
	spec *openapi3.T
	mux  *http.ServeMux
	// capture, when set (SVC_OPENAPI_EXAMPLES), is the folder where the
	// first JSON success of each operation and status is written: the
	// source of the document's examples (shared/api/testdata/examples).
	capture string
	mu      sync.Mutex
}

// LoadDoc parses and validates an OpenAPI document. It is exported for the
// tests that build a server without Start (shared/api's own tests).
func LoadDoc(raw []byte) (*Doc, error) {
	loader := openapi3.NewLoader()
	spec, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := spec.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	d := &Doc{spec: spec, mux: http.NewServeMux(), capture: os.Getenv("SVC_OPENAPI_EXAMPLES")}
	for path, item := range spec.Paths.Map() {
		for method := range item.Operations() {
			d.mux.Handle(method+" "+path, http.NotFoundHandler())
		}
	}
	return d, nil
}

// Doc returns the document the env's server serves, fetched once.
func (e *Env) Doc() *Doc {
	e.T.Helper()
	e.docOnce.Do(func() {
		resp, err := http.Get(e.Server.URL + "/api/openapi.json")
		if err != nil {
			e.docErr = err
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			e.docErr = err
			return
		}
		if resp.StatusCode != http.StatusOK {
			e.docErr = fmt.Errorf("GET /api/openapi.json: %d %s", resp.StatusCode, raw)
			return
		}
		e.doc, e.docErr = LoadDoc(raw)
	})
	if e.docErr != nil {
		e.T.Fatal(e.docErr)
	}
	return e.doc
}

// Validate checks one exchange against the document: the request (when
// the service accepted it: a request the document refuses must be refused
// by the service too) and the response (its status must be declared, its
// media type and its body must match). A route the document does not
// describe (session-only and admin routes) is not checked. Each mismatch is
// a test error naming the method, path and status.
func Validate(t testing.TB, d *Doc, req *http.Request, reqBody []byte, status int, header http.Header, body []byte) {
	t.Helper()
	for _, msg := range d.Check(req, reqBody, status, header, body) {
		t.Errorf("OpenAPI: %s %s -> %d: %s", req.Method, req.URL.RequestURI(), status, msg)
	}
}

// Check returns what contradicts the document in one exchange (see
// Validate).
func (d *Doc) Check(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) []string {
	route, params := d.find(req)
	if route == nil {
		return nil
	}
	opts := &openapi3filter.Options{
		// Tests use the session cookie on key routes too: the document's
		// schemes say how a key is sent, not who may call.
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            true,
	}
	// The validator reads the body from a copy, so the caller's request is
	// left as it was.
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	var out []string
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && status < 400 {
		out = append(out, "the service accepted a request the document refuses: "+oneLine(err))
	}
	// The validator lets unknown query parameters through; a parameter a
	// test sends and the service answers must be one the document names,
	// or a generated client could not send it.
	if status < 400 {
		for name := range req.URL.Query() {
			if route.Operation.Parameters.GetByInAndName(openapi3.ParameterInQuery, name) == nil {
				out = append(out, "query parameter "+strconv.Quote(name)+" is not in the document")
			}
		}
	}
	// Bodies of 1xx, 204 and 304 are empty by definition; a HEAD has none.
	resp := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: opts,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), resp); err != nil {
		out = append(out, "response: "+oneLine(err))
	}
	if len(out) == 0 {
		d.keep(route, status, header, body)
	}
	return out
}

// find returns the operation the request reaches and its path parameters,
// or nil when the document does not describe it.
func (d *Doc) find(req *http.Request) (*routers.Route, map[string]string) {
	_, pattern := d.mux.Handler(req)
	if pattern == "" {
		return nil, nil
	}
	_, path, _ := strings.Cut(pattern, " ")
	item := d.spec.Paths.Value(path)
	method := req.Method
	if method == http.MethodHead {
		return nil, nil // no body to check; its GET is
	}
	op := item.GetOperation(method)
	if op == nil {
		return nil, nil
	}
	params := map[string]string{}
	segs := strings.Split(strings.TrimPrefix(req.URL.EscapedPath(), "/"), "/")
	for i, p := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if strings.HasPrefix(p, "{") && i < len(segs) {
			v, err := url.PathUnescape(segs[i])
			if err != nil {
				v = segs[i]
			}
			params[strings.Trim(p, "{}")] = v
		}
	}
	return &routers.Route{Spec: d.spec, Server: nil, Path: path, PathItem: item, Method: method, Operation: op}, params
}

// keep writes the first JSON success of an operation and status (4 KiB at
// most) to the capture folder, when one is set.
func (d *Doc) keep(route *routers.Route, status int, header http.Header, body []byte) {
	if d.capture == "" || status >= 300 || !strings.HasPrefix(header.Get("Content-Type"), "application/json") || len(body) > 4<<10 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	name := filepath.Join(d.capture, fmt.Sprintf("%s.%d.json", route.Operation.OperationID, status))
	if _, err := os.Stat(name); err == nil {
		return
	}
	_ = os.MkdirAll(d.capture, 0o755)
	_ = os.WriteFile(name, body, 0o644)
}

func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 1500 {
		s = s[:1500] + "…"
	}
	return s
}

// ValidateGateway checks one exchange sent through the Lambda harness's
// API Gateway (shared/app/onaws/lambdatest: an HTTP API event, payload
// v2) like Validate. An answer of the gateway itself (a throttle, a timeout:
// {"message"}, never the service's {detail}) is not the service's and is
// not checked.
func ValidateGateway(t testing.TB, d *Doc, method, path, query string, headers map[string]string, body string, resp events.APIGatewayV2HTTPResponse) {
	t.Helper()
	if resp.StatusCode >= 400 {
		var own struct {
			Message *string `json:"message"`
			Detail  *string `json:"detail"`
		}
		if json.Unmarshal([]byte(resp.Body), &own) == nil && own.Message != nil && own.Detail == nil {
			return
		}
	}
	u := "http://gateway" + path
	if query != "" {
		u += "?" + query
	}
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Errorf("OpenAPI: %s %s: %v", method, path, err)
		return
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	h := http.Header{}
	for k, v := range resp.Headers {
		h.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	out := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if out, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			t.Errorf("OpenAPI: %s %s: a base64 body that does not decode: %v", method, path, err)
			return
		}
	}
	Validate(t, d, req, []byte(body), resp.StatusCode, h, out)
}
