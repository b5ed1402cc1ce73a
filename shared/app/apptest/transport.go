package apptest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Transport is an http.RoundTripper that checks every exchange with a
// server against the OpenAPI document that server serves (Validate), for
// the tests that talk to a built server over plain HTTP clients (the
// local binary's tests) rather than through Client. The document is
// fetched from the first request's host, once.
type Transport struct {
	T    testing.TB
	Base http.RoundTripper // nil: http.DefaultTransport

	once sync.Once
	doc  *Doc
}

// CheckedClient returns a client whose exchanges are checked, with jar as
// its cookie jar (nil: none).
func CheckedClient(t testing.TB, jar http.CookieJar) *http.Client {
	return &http.Client{Jar: jar, Transport: &Transport{T: t}}
}

func (tr *Transport) base() http.RoundTripper {
	if tr.Base != nil {
		return tr.Base
	}
	return http.DefaultTransport
}

// RoundTrip sends the request, then checks the request and the answer. An
// event stream's body is left to the caller (reading it would wait for the
// job's end); its status and media type are still checked.
func (tr *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var sent []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the request body: %w", err)
		}
		sent = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := tr.base().RoundTrip(req)
	if err != nil || req.URL.Path == "/api/openapi.json" {
		return resp, err
	}
	d := tr.load(req)
	if d == nil {
		return resp, nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		Validate(tr.T, d, req, sent, resp.StatusCode, resp.Header, nil)
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read the response body: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	Validate(tr.T, d, req, sent, resp.StatusCode, resp.Header, body)
	return resp, nil
}

// load fetches and loads the document of the request's server, once; a
// failure is a test error (and no check afterwards).
func (tr *Transport) load(req *http.Request) *Doc {
	tr.once.Do(func() {
		if err := tr.fetch(req); err != nil {
			tr.T.Errorf("OpenAPI: %v", err)
		}
	})
	return tr.doc
}

// fetch reads the document from the request's server.
func (tr *Transport) fetch(req *http.Request) error {
	u := *req.URL
	u.Path, u.RawQuery = "/api/openapi.json", ""
	resp, err := tr.base().RoundTrip(&http.Request{Method: http.MethodGet, URL: &u, Header: http.Header{}, Host: u.Host})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /api/openapi.json: %d %s", resp.StatusCode, raw)
	}
	tr.doc, err = LoadDoc(raw)
	return err
}
