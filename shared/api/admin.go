package api

import (
	"net/http"
	"strconv"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
)

func (s *Server) adminRoutes() []Route {
	a := s.d.Accounts
	setActive := func(active bool) func(http.ResponseWriter, *http.Request, *Caller) error {
		return func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
			id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
			if err != nil || id <= 0 {
				return apperr.Missing()
			}
			u, err := a.SetActive(r.Context(), id, active)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, u)
			return nil
		}
	}
	return []Route{
		{
			Method: http.MethodPost, Path: "/api/admin/users/{id}/deactivate", Auth: Admin, Tag: "admin",
			Summary: "Deactivate an account", Response: accounts.User{}, Status: http.StatusOK,
			Errors: []int{401, 403, 404}, Handle: setActive(false),
		},
		{
			Method: http.MethodPost, Path: "/api/admin/users/{id}/activate", Auth: Admin, Tag: "admin",
			Summary: "Activate an account", Response: accounts.User{}, Status: http.StatusOK,
			Errors: []int{401, 403, 404}, Handle: setActive(true),
		},
	}
}
