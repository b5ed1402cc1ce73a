package api

import (
	"net/http"

	"github.com/prospectdata/svc/shared/features"
	"github.com/prospectdata/svc/shared/modules"
)

// registryRoutes are the module registry and the feature-interest votes
// of the modules to come.
func (s *Server) registryRoutes() []Route {
	// The registry is static: its body is built once per server.
	flat := flatRegistry(modules.Flatten(modules.Entries()))
	return []Route{
		{Method: http.MethodGet, Path: "/api/modules-registry", Auth: Public, Tag: "reference", Handle: flat.serve,
			Summary:  "Every module: active, frozen, coming soon",
			Response: modules.Flat{}, Status: http.StatusOK},
		{Method: http.MethodGet, Path: "/api/features", Auth: SessionOnly, Tag: "features", Handle: s.getFeatures,
			Summary:  "Your feature-interest votes and every feature's count",
			Response: features.Summary{}, Status: http.StatusOK, Errors: []int{401, 403}},
		{Method: http.MethodPost, Path: "/api/features/{feature_id}/interest", Auth: SessionOnly, Active: true, Tag: "features", Handle: s.voteFeature,
			Summary: "Vote interest for a coming-soon feature (idempotent)",
			Status:  http.StatusNoContent, Errors: []int{401, 403, 404}},
		{Method: http.MethodDelete, Path: "/api/features/{feature_id}/interest", Auth: SessionOnly, Tag: "features", Handle: s.retractFeature,
			Summary: "Retract a vote",
			Status:  http.StatusNoContent, Errors: []int{401, 403, 404}},
	}
}

// flatRegistry is the body of GET /api/modules-registry.
type flatRegistry modules.Flat

// serve is GET /api/modules-registry.
func (f flatRegistry) serve(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	writeJSON(w, http.StatusOK, modules.Flat(f))
	return nil
}

// getFeatures is GET /api/features.
func (s *Server) getFeatures(w http.ResponseWriter, r *http.Request, c *Caller) error {
	sum, err := s.d.Features.Get(r.Context(), c.User.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sum)
	return nil
}

// voteFeature is POST /api/features/{feature_id}/interest.
func (s *Server) voteFeature(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if err := s.d.Features.Vote(r.Context(), c.User.ID, r.PathValue("feature_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// retractFeature is DELETE /api/features/{feature_id}/interest.
func (s *Server) retractFeature(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if err := s.d.Features.Retract(r.Context(), c.User.ID, r.PathValue("feature_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
