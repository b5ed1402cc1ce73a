package api

import (
	"net/http"

	"github.com/prospectdata/svc/shared/keys"
)

// KeyCreate is the body of POST /api/keys.
type KeyCreate struct {
	Name string `json:"name"`
}

// KeyList is the body of GET /api/keys.
type KeyList struct {
	Keys []*keys.Key `json:"keys"`
}

// keyRoutes are the account's API keys, managed from a session only.
func (s *Server) keyRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/api/keys", Auth: SessionOnly, Active: true, Tag: "keys", Handle: s.createKey,
			Summary: "Create an API key (the key is shown only in this answer)",
			Request: KeyCreate{}, Response: keys.Created{}, Status: http.StatusCreated, Errors: []int{400, 401, 403, 422, 429}},
		{Method: http.MethodGet, Path: "/api/keys", Auth: SessionOnly, Tag: "keys", Handle: s.listKeys,
			Summary:  "List the API keys, without secrets",
			Response: KeyList{}, Status: http.StatusOK, Errors: []int{401, 403}},
		{Method: http.MethodDelete, Path: "/api/keys/{id}", Auth: SessionOnly, Tag: "keys", Handle: s.revokeKey,
			Summary: "Revoke an API key",
			Status:  http.StatusNoContent, Errors: []int{401, 403, 404}},
	}
}

// createKey is POST /api/keys.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req KeyCreate
	if err := decode(r, &req); err != nil {
		return err
	}
	created, err := s.d.Keys.Create(r.Context(), c.User.ID, req.Name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, created)
	return nil
}

// listKeys is GET /api/keys.
func (s *Server) listKeys(w http.ResponseWriter, r *http.Request, c *Caller) error {
	ks, err := s.d.Keys.List(r.Context(), c.User.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, KeyList{Keys: ks})
	return nil
}

// revokeKey is DELETE /api/keys/{id}.
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if err := s.d.Keys.Revoke(r.Context(), c.User.ID, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
