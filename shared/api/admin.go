package api

import (
	"fmt"
	"net/http"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
)

// SimAdvance is the body of POST /api/admin/sim/advance.
type SimAdvance struct {
	Days int `json:"days"`
}

// SimDay is the simulated world's day after an advance: days since the
// world's epoch.
type SimDay struct {
	Day int `json:"day"`
}

func (s *Server) adminRoutes() []Route {
	a := s.d.Accounts
	setActive := func(active bool) func(http.ResponseWriter, *http.Request, *Caller) error {
		return func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
			id, err := pathID(r, "id")
			if err != nil {
				return err
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
			Method: http.MethodPost, Path: "/api/admin/sim/advance", Auth: Admin, Tag: "admin",
			Summary: "Move the simulated world forward by days (sim provider only; 404 otherwise)",
			Request: SimAdvance{}, Response: SimDay{}, Status: http.StatusOK, Errors: []int{401, 403, 404, 422},
			Handle: func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
				if s.d.World == nil {
					return apperr.New(apperr.NotFound, "Route inconnue : le fournisseur de carte n'est pas simulé",
						"Unknown route: the map provider is not the simulated one")
				}
				var req SimAdvance
				if err := decode(r, &req); err != nil {
					return err
				}
				if most := s.d.World.MaxAdvance(); req.Days < 1 || req.Days > most {
					return apperr.Fields(apperr.Field("days",
						fmt.Sprintf("entre 1 et %d", most), fmt.Sprintf("between 1 and %d", most)))
				}
				day, err := s.d.World.Advance(r.Context(), req.Days)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, SimDay{Day: day})
				return nil
			},
		},
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
