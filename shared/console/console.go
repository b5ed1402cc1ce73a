// Package console serves the web console: the page and the bundle that
// `make console` builds from web/console into assets/ (docs/console.md),
// embedded in the binary. Every path that is not a file of the bundle is a
// page of the console, answered with its one HTML document, so that links
// such as /verify-email?token=… and /jobs/{id} open it; the console then
// reads the path itself. It talks to the API on the same origin only.
package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/prospectdata/svc/shared/static"
)

//go:embed assets
var embedded embed.FS

// Missing is the body of every page when the bundle was not built.
const Missing = "The web console is not in this build: run `make console` " +
	"(make run, make build, make test and make bench do it), then rebuild or restart. " +
	"The API itself is served under /api/ (its reference at /api/reference).\n"

// Options configure the console.
type Options struct {
	// Tiles is a basemap's tile URL template ({z}/{x}/{y}), empty for
	// none: the maps then draw the zones' outlines alone, which works
	// offline. Its origin is added to the page's image sources.
	Tiles string
	// CaptchaSiteKey, when set, makes the signup page render the captcha
	// widget of CaptchaScript (a Turnstile-compatible script: it defines
	// turnstile.render) and send its token; the script's origin is added
	// to the page's script and frame sources.
	CaptchaSiteKey, CaptchaScript string
}

// Handler serves the console.
type Handler struct {
	files map[string]*static.File
	page  []byte // the HTML document of every page
	csp   string
}

// New returns the console of the embedded bundle.
func New(o Options) (*Handler, error) { return newHandler(embedded, o) }

func newHandler(fsys fs.FS, o Options) (*Handler, error) {
	sub, err := fs.Sub(fsys, "assets")
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	set, err := settings(o)
	if err != nil {
		return nil, err
	}
	h := &Handler{files: map[string]*static.File{}, csp: policy(set)}
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "README.md" {
			return err
		}
		b, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		if p == "index.html" {
			h.page, err = render(b, set)
			return err
		}
		h.files["/"+p] = static.NewFile(typeOf(p), b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("console: reading the bundle: %w", err)
	}
	return h, nil
}

// tileSetting checks a basemap's tile URL template: an https (or, for a
// local tile server, http) URL with {z}, {x} and {y}.
func tileSetting(t string) (tmpl, origin string, err error) {
	if t == "" {
		return "", "", nil
	}
	u, err := url.Parse(strings.NewReplacer("{z}", "0", "{x}", "0", "{y}", "0", "{s}", "a").Replace(t))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		!strings.Contains(t, "{z}") || !strings.Contains(t, "{x}") || !strings.Contains(t, "{y}") {
		return "", "", fmt.Errorf("console: the basemap %q is not an http(s) tile URL with {z}, {x} and {y}", t)
	}
	if strings.Contains(t, "{s}") {
		return "", "", fmt.Errorf("console: the basemap %q names subdomains ({s}): give one host, which the page's policy allows", t)
	}
	return t, u.Scheme + "://" + u.Host, nil
}

// pageSettings are what the document and its policy carry.
type pageSettings struct {
	Tiles          string // the basemap's template
	CaptchaSiteKey string
	CaptchaScript  string
	tilesOrigin    string
	captchaOrigin  string
}

// settings checks the options.
func settings(o Options) (pageSettings, error) {
	var s pageSettings
	var err error
	if s.Tiles, s.tilesOrigin, err = tileSetting(o.Tiles); err != nil {
		return s, err
	}
	if o.CaptchaSiteKey != "" {
		u, err := url.Parse(o.CaptchaScript)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return s, fmt.Errorf("console: the captcha script %q is not an http(s) URL", o.CaptchaScript)
		}
		s.CaptchaSiteKey, s.CaptchaScript, s.captchaOrigin = o.CaptchaSiteKey, o.CaptchaScript, u.Scheme+"://"+u.Host
	}
	return s, nil
}

// render is the console's HTML document (index.html, a template) with its
// settings.
func render(index []byte, s pageSettings) ([]byte, error) {
	t, err := template.New("page").Parse(string(index))
	if err != nil {
		return nil, fmt.Errorf("console: index.html: %w", err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, s); err != nil {
		return nil, fmt.Errorf("console: index.html: %w", err)
	}
	return out.Bytes(), nil
}

// Page is the console's HTML document and its Content-Security-Policy for
// the options (the basemap, the captcha): what a static host (the AWS
// stack's bucket and CloudFront) serves, the same as Handler.
func Page(index []byte, o Options) (page []byte, csp string, err error) {
	s, err := settings(o)
	if err != nil {
		return nil, "", err
	}
	page, err = render(index, s)
	if err != nil {
		return nil, "", err
	}
	return page, policy(s), nil
}

// policy is the pages' Content-Security-Policy: the console's own script
// and style only, nothing inline or evaluated, calls to the same origin,
// images from it (and a basemap's tile server when one is set), no framing;
// a captcha's script and frame from its provider when one is set.
func policy(s pageSettings) string {
	img := "img-src 'self' data:"
	if s.tilesOrigin != "" {
		img += " " + s.tilesOrigin
	}
	script, frame := "script-src 'self'", ""
	if s.captchaOrigin != "" {
		script += " " + s.captchaOrigin
		frame = "frame-src " + s.captchaOrigin + "; "
	}
	return "default-src 'none'; " + script + "; style-src 'self'; " + img + "; connect-src 'self'; " + frame +
		"font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

func typeOf(p string) string {
	switch path.Ext(p) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".txt":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Built tells whether the bundle is in this build.
func (h *Handler) Built() bool { return h.page != nil && h.files["/app.js"] != nil }

// ServeHTTP answers a file of the bundle, or the console's page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	// Reset and verification tokens travel in the page's address: no
	// request the page makes may carry it elsewhere.
	hd.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !h.Built() {
		hd.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(Missing))
		return
	}
	p := path.Clean("/" + r.URL.Path)
	if f, ok := h.files[p]; ok {
		// The bundle's names do not change with its content: revalidated
		// each time, answered 304 when unchanged.
		f.Serve(w, r, p, "no-cache")
		return
	}
	if path.Ext(p) != "" {
		// A file the bundle does not have: not a page.
		http.NotFound(w, r)
		return
	}
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	w.Write(h.page)
}

// WithAPI serves the API under /api/ (and its health check, /healthz) and
// the console everywhere else: one origin for the session cookie, as
// CloudFront gives on AWS (docs/console.md). The mailed links' paths
// (/verify-email, /reset-password) are the console's pages: the API's own
// plain pages for them answer only where no console is served.
func WithAPI(api, console http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "/api" || strings.HasPrefix(p, "/api/") || p == "/healthz" {
			api.ServeHTTP(w, r)
			return
		}
		console.ServeHTTP(w, r)
	})
}
