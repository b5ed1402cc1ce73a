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

// adminRoutes are the admin's: the simulated world's clock and the
// accounts' activation.
func (s *Server) adminRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/api/admin/sim/advance", Auth: Admin, Tag: "admin", Handle: s.advanceSim,
			Summary: "Move the simulated world forward by days (sim provider only; 404 otherwise)",
			Request: SimAdvance{}, Response: SimDay{}, Status: http.StatusOK, Errors: []int{401, 403, 404, 422}},
		{Method: http.MethodPost, Path: "/api/admin/users/{id}/deactivate", Auth: Admin, Tag: "admin", Handle: s.deactivateUser,
			Summary:  "Deactivate an account",
			Response: accounts.User{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
		{Method: http.MethodPost, Path: "/api/admin/users/{id}/activate", Auth: Admin, Tag: "admin", Handle: s.activateUser,
			Summary:  "Activate an account",
			Response: accounts.User{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
	}
}

// advanceSim is POST /api/admin/sim/advance: a route of the simulated
// world only, unknown (404) with a real map provider.
func (s *Server) advanceSim(w http.ResponseWriter, r *http.Request, _ *Caller) error {
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
}

// deactivateUser is POST /api/admin/users/{id}/deactivate.
func (s *Server) deactivateUser(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	return s.setActive(w, r, false)
}

// activateUser is POST /api/admin/users/{id}/activate.
func (s *Server) activateUser(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	return s.setActive(w, r, true)
}

// setActive sets the active flag of the account {id} and answers it.
func (s *Server) setActive(w http.ResponseWriter, r *http.Request, active bool) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	u, err := s.d.Accounts.SetActive(r.Context(), id, active)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}
