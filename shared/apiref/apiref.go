// Package apiref serves a human-readable reference of the API from the
// service itself: Swagger UI, vendored at build time into assets/ by `make
// apiref` (docs/api-reference.md), rendering the OpenAPI document of
// /api/openapi.json. Every file the page loads comes from the service, so
// it works offline and under a Content-Security-Policy of 'self'.
package apiref

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"sync"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/static"
)

// The vendored files (gitignored; only assets/README.md is committed, so
// the embed pattern matches in a clean clone) and the page's own script.
//
//go:embed assets
var embedded embed.FS

//go:embed reference.js
var startScript []byte

// Vendored names the files `make apiref` copies into assets/, each with
// its media type. Bundle and Stylesheet are the two the page loads; the
// licence files are served so the Apache-2.0 notice travels with the code.
const (
	Bundle     = "swagger-ui-bundle.js"
	Stylesheet = "swagger-ui.css"
	Start      = "reference.js"
)

func mediaTypes() map[string]string {
	return map[string]string{
		Bundle:                             "text/javascript; charset=utf-8",
		Stylesheet:                         "text/css; charset=utf-8",
		"swagger-ui-bundle.js.LICENSE.txt": "text/plain; charset=utf-8",
		"swagger-ui-LICENSE.txt":           "text/plain; charset=utf-8",
		"swagger-ui-NOTICE.txt":            "text/plain; charset=utf-8",
	}
}

// CSP is the page's Content-Security-Policy: scripts, styles, images and
// fetches from the service only, no inline script or style, nothing
// evaluated (Swagger UI sets styles through the DOM, which the policy
// allows). The data: images are Swagger UI's icons, inlined in its CSS.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// DocumentURL is where the page points the renderer, relative to the page
// (GET /api/reference), so a gateway stage prefix is kept.
const DocumentURL = "openapi.json"

// Prefix is what the page puts before a file name: the file routes are
// /api/reference/{file}, relative to the page.
const Prefix = "reference/"

// Missing is the body of the page when the bundle was not vendored.
const Missing = "The API reference's renderer (Swagger UI) is not in this build: run `make apiref` " +
	"(make run, make build, make test and make bench do it), then rebuild or restart. " +
	"The OpenAPI document itself is served at /api/openapi.json.\n"

// Embedded returns the assets compiled into the binary.
func Embedded() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // "assets" is a valid path: unreachable
	}
	return sub
}

// Reference serves the page and its files. Files are read, hashed and
// compressed on the first request rather than at start: every API Lambda
// builds the route table, and only the one serving this page pays for it.
type Reference struct {
	assets  fs.FS
	once    sync.Once
	files   map[string]*static.File
	missing []string
	page    []byte
}

// New serves the files of assets (Embedded() in the service).
func New(assets fs.FS) *Reference { return &Reference{assets: assets} }

const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer">
<title>API reference</title>
<link rel="stylesheet" href="{{.CSS}}">
</head><body>
<noscript><p>This reference is rendered by JavaScript. The document it shows is <a href="{{.Doc}}">openapi.json</a>.</p></noscript>
<div id="swagger-ui" data-url="{{.Doc}}"></div>
<p>Rendered by Swagger UI (Apache-2.0:
<a href="{{.Prefix}}swagger-ui-LICENSE.txt">licence</a>, <a href="{{.Prefix}}swagger-ui-NOTICE.txt">notice</a>,
<a href="{{.Prefix}}swagger-ui-bundle.js.LICENSE.txt">bundled libraries</a>) from <a href="{{.Doc}}">openapi.json</a>.</p>
<script src="{{.JS}}"></script>
<script src="{{.Start}}"></script>
</body></html>
`

func (r *Reference) load() {
	r.files = map[string]*static.File{Start: static.NewFile("text/javascript; charset=utf-8", startScript)}
	for name, mt := range mediaTypes() {
		b, err := fs.ReadFile(r.assets, name)
		if err != nil {
			r.missing = append(r.missing, name)
			continue
		}
		r.files[name] = static.NewFile(mt, b)
	}
	if r.files[Bundle] == nil || r.files[Stylesheet] == nil {
		return
	}
	// A file's URL carries its hash: the files can be cached for a year,
	// and a new bundle gets new URLs.
	url := func(name string) string { return Prefix + name + "?v=" + r.files[name].Version }
	var buf bytes.Buffer
	err := template.Must(template.New("page").Parse(pageHTML)).Execute(&buf, map[string]string{
		"CSS": url(Stylesheet), "JS": url(Bundle), "Start": url(Start), "Doc": DocumentURL, "Prefix": Prefix,
	})
	if err != nil {
		panic(fmt.Sprintf("apiref: page template: %v", err)) // fixed template and strings: unreachable
	}
	r.page = buf.Bytes()
}

// Ready reports whether the bundle was vendored into the build.
func (r *Reference) Ready() bool {
	r.once.Do(r.load)
	return r.page != nil
}

// ServePage answers the reference page, or 503 with what to run when the
// build carries no bundle.
func (r *Reference) ServePage(w http.ResponseWriter, req *http.Request) {
	r.once.Do(r.load)
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.page == nil {
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Length", strconv.Itoa(len(Missing)))
		w.WriteHeader(http.StatusServiceUnavailable)
		if req.Method != http.MethodHead {
			w.Write([]byte(Missing))
		}
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", CSP)
	// Revalidated every time: it is small, and names the files' versions.
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(r.page)))
	w.WriteHeader(http.StatusOK)
	if req.Method != http.MethodHead {
		w.Write(r.page)
	}
}

// ServeFile answers one of the page's files (GET /api/reference/{file});
// any other name, or a vendored file missing from the build, is a 404.
func (r *Reference) ServeFile(w http.ResponseWriter, req *http.Request, name string) error {
	r.once.Do(r.load)
	f := r.files[name]
	if f == nil {
		return apperr.Missing()
	}
	// Versioned by its name's ?v=: kept a year.
	f.Serve(w, req, name, "public, max-age=31536000, immutable")
	return nil
}
