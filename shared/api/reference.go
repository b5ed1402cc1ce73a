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
	ref := apiref.New(apiref.Embedded())
	return []Route{
		{
			Method: http.MethodGet, Path: "/api/reference", Auth: Public, Tag: "reference", ResponseType: "text/html",
			Summary: "Human-readable reference of the API (Swagger UI over /api/openapi.json)",
			Status:  http.StatusOK, Errors: []int{http.StatusServiceUnavailable},
			Handle: func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
				ref.ServePage(w, r)
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/reference/{file}", Auth: Public, Tag: "reference", ResponseType: "text/javascript",
			Summary: "A file of the reference page: the renderer's bundle, stylesheet, start script and licences",
			Status:  http.StatusOK,
			Handle: func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
				return ref.ServeFile(w, r, r.PathValue("file"))
			},
		},
	}
}
