package api

import (
	"net/http"

	"github.com/prospectdata/svc/shared/features"
	"github.com/prospectdata/svc/shared/registry"
)

func (s *Server) registryRoutes() []Route {
	f := s.d.Features
	// The registry is static: its body is built once per server.
	flat := registry.Flatten(registry.Entries())
	return []Route{
		{
			Method: http.MethodGet, Path: "/api/modules-registry", Auth: Public, Tag: "reference",
			Summary: "Every module: active, frozen, coming soon", Response: registry.Flat{}, Status: http.StatusOK,
			Handle: func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
				writeJSON(w, http.StatusOK, flat)
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/features", Auth: SessionOnly, Tag: "features",
			Summary: "Your feature-interest votes and every feature's count", Response: features.Summary{},
			Status: http.StatusOK, Errors: []int{401, 403},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				sum, err := f.Get(r.Context(), c.User.ID)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, sum)
				return nil
			},
		},
		{
			Method: http.MethodPost, Path: "/api/features/{feature_id}/interest", Auth: SessionOnly, Active: true,
			Tag: "features", Summary: "Vote interest for a coming-soon feature (idempotent)",
			Status: http.StatusNoContent, Errors: []int{401, 403, 404},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				if err := f.Vote(r.Context(), c.User.ID, r.PathValue("feature_id")); err != nil {
					return err
				}
				w.WriteHeader(http.StatusNoContent)
				return nil
			},
		},
		{
			Method: http.MethodDelete, Path: "/api/features/{feature_id}/interest", Auth: SessionOnly,
			Tag: "features", Summary: "Retract a vote", Status: http.StatusNoContent, Errors: []int{401, 403, 404},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				if err := f.Retract(r.Context(), c.User.ID, r.PathValue("feature_id")); err != nil {
					return err
				}
				w.WriteHeader(http.StatusNoContent)
				return nil
			},
		},
	}
}
