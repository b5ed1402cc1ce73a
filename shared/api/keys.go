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

func (s *Server) keyRoutes() []Route {
	k := s.d.Keys
	return []Route{
		{
			Method: http.MethodPost, Path: "/api/keys", Auth: SessionOnly, Active: true, Tag: "keys",
			Summary: "Create an API key (the key is shown only in this answer)",
			Request: KeyCreate{}, Response: keys.Created{}, Status: http.StatusCreated,
			Errors: []int{400, 401, 403, 422, 429},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				var req KeyCreate
				if err := decode(r, &req); err != nil {
					return err
				}
				created, err := k.Create(r.Context(), c.User.ID, req.Name)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusCreated, created)
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/keys", Auth: SessionOnly, Tag: "keys",
			Summary: "List the API keys, without secrets", Response: KeyList{}, Status: http.StatusOK,
			Errors: []int{401, 403},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				ks, err := k.List(r.Context(), c.User.ID)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, KeyList{Keys: ks})
				return nil
			},
		},
		{
			Method: http.MethodDelete, Path: "/api/keys/{id}", Auth: SessionOnly, Tag: "keys",
			Summary: "Revoke an API key", Status: http.StatusNoContent, Errors: []int{401, 403, 404},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				if err := k.Revoke(r.Context(), c.User.ID, r.PathValue("id")); err != nil {
					return err
				}
				w.WriteHeader(http.StatusNoContent)
				return nil
			},
		},
	}
}
