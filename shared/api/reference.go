package api

import (
	"net/http"

	"github.com/prospectdata/svc/shared/apiref"
)

// referenceRoutes serve the human-readable reference of the API (Swagger UI
// over /api/openapi.json, docs/api-reference.md). Public like the document;
// not in it, since the document describes what an API key calls and these
// are pages for a person's browser.
func (s *Server) referenceRoutes() []Route {
	ref := referencePages{apiref.New(apiref.Embedded())}
	return []Route{
		{Method: http.MethodGet, Path: "/api/reference", Auth: Public, Tag: "reference", ResponseType: "text/html", Handle: ref.page,
			Summary: "Human-readable reference of the API (Swagger UI over /api/openapi.json)",
			Status:  http.StatusOK, Errors: []int{http.StatusServiceUnavailable}},
		{Method: http.MethodGet, Path: "/api/reference/{file}", Auth: Public, Tag: "reference", ResponseType: "text/javascript", Handle: ref.file,
			Summary: "A file of the reference page: the renderer's bundle, stylesheet, start script and licences",
			Status:  http.StatusOK},
	}
}

// referencePages serves the reference's embedded page and files.
type referencePages struct {
	*apiref.Reference
}

// page is GET /api/reference.
func (p referencePages) page(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	p.ServePage(w, r)
	return nil
}

// file is GET /api/reference/{file}.
func (p referencePages) file(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	return p.ServeFile(w, r, r.PathValue("file"))
}
