package sim

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
)

// siteDomain is the parent domain of every simulated website: .test is
// reserved (RFC 2606), so no real host can answer for one.
const siteDomain = ".sim.test"

// Web returns the fixture web: a transport that answers requests for the
// websites of the world's places (https://<slug>.<token>.sim.test/) from
// memory, as the internet would, so that an http.Client using it crawls
// them like real sites:
//
//   - / (home: name, address, phone, email, social links, technology
//     fingerprints), /contact, /mentions-legales for French places (the
//     publisher with SIREN, Luhn-valid SIRET, VAT number, capital),
//     /robots.txt and /sitemap.xml; 404 elsewhere, 405 for methods other
//     than GET and HEAD, and http:// redirected to https://;
//   - a few sites dead: connection refused, or 500 on every page;
//   - hosts that are not a place's site, or whose place has not opened
//     yet on the world's day, fail as a DNS lookup of an unknown host.
//
// Everything is drawn from the place's key, so every process serves the
// same sites.
func (w *World) Web() http.RoundTripper { return webTransport{w} }

type webTransport struct{ w *World }

// RoundTrip answers one request.
func (t webTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close() // a RoundTripper must close it, even on error
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	host := strings.ToLower(req.URL.Hostname())
	s, err := t.w.siteOf(req, host)
	if err != nil {
		return nil, err
	}
	if s.refused {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: simAddr(), Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	if req.URL.Scheme == "http" {
		resp := respond(req, http.StatusMovedPermanently, "text/html; charset=utf-8", "")
		resp.Header.Set("Location", "https://"+s.host+req.URL.RequestURI())
		return resp, nil
	}
	if s.broken {
		return respond(req, http.StatusInternalServerError, "text/html; charset=utf-8", "<h1>Internal Server Error</h1>\n"), nil
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		resp := respond(req, http.StatusMethodNotAllowed, "text/plain; charset=utf-8", "method not allowed\n")
		resp.Header.Set("Allow", "GET, HEAD")
		return resp, nil
	}
	return s.serve(req), nil
}

// siteOf finds the site a host names, or fails as DNS would.
func (w *World) siteOf(req *http.Request, host string) (*site, error) {
	notFound := &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	name, ok := strings.CutSuffix(host, siteDomain)
	if !ok {
		return nil, notFound
	}
	labels := strings.Split(name, ".")
	if len(labels) != 2 {
		return nil, notFound
	}
	ref, b, err := w.parseToken(labels[1])
	if err != nil {
		return nil, notFound
	}
	day, err := w.day(req.Context())
	if err != nil {
		return nil, fmt.Errorf("sim web: %w", err)
	}
	if int(b.places[ref.index].birth) > day {
		return nil, notFound
	}
	s := w.site(b, ref.index, ref.cat, day)
	if s.host != host { // the place has no site, or the slug is wrong
		return nil, notFound
	}
	return &s, nil
}

// serve answers a GET or HEAD of a live site.
func (s *site) serve(req *http.Request) *http.Response {
	const htmlType = "text/html; charset=utf-8"
	switch p := strings.TrimSuffix(req.URL.Path, "/"); p {
	case "", "/index.html", "/index.php":
		return respond(req, http.StatusOK, htmlType, s.home())
	case "/contact":
		return respond(req, http.StatusOK, htmlType, s.contact())
	case "/mentions-legales":
		if s.legal != nil {
			return respond(req, http.StatusOK, htmlType, s.legalPage())
		}
	case "/logo.png":
		if s.logo {
			return respondBytes(req, "image/png", logoPNG(s.brand, s.brand2, 240, 80))
		}
	case "/favicon.png":
		if s.logo {
			return respondBytes(req, "image/png", logoPNG(s.brand, s.brand2, 32, 32))
		}
	case "/robots.txt":
		return respond(req, http.StatusOK, "text/plain; charset=utf-8", s.robots)
	case "/sitemap.xml":
		return respond(req, http.StatusOK, "application/xml", s.sitemap())
	}
	return respond(req, http.StatusNotFound, htmlType, s.notFound())
}

// respond builds a response; HEAD gets the headers without the body.
func respond(req *http.Request, status int, contentType, body string) *http.Response {
	resp := &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {contentType}, "Server": {"sim"}},
		ContentLength: int64(len(body)),
		Body:          io.NopCloser(strings.NewReader(body)),
		Request:       req,
	}
	if req.Method == http.MethodHead {
		resp.Body = http.NoBody
	}
	return resp
}

// respondBytes is respond with a binary body.
func respondBytes(req *http.Request, contentType string, body []byte) *http.Response {
	return respond(req, http.StatusOK, contentType, string(body))
}

// simAddr is the address a refused connection reports: a documentation
// address (RFC 5737), never dialled.
func simAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 443}
}
