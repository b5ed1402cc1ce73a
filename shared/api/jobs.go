package api

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/scrape"
)

// jobCreate is the body of POST /api/jobs: the scrape request, and a
// "type" field read only to refuse it (spec: not supported here).
type jobCreate struct {
	scrape.Request
	Type json.RawMessage `json:"type,omitempty"`
}

func (s *Server) jobRoutes() []Route {
	js := s.d.Jobs
	return []Route{
		{
			Method: http.MethodPost, Path: "/api/jobs", Auth: Any, Active: true, Tag: "jobs",
			Summary: "Create a scrape job (EF debited at creation); requires a verified email",
			Request: scrape.Request{}, Response: jobs.Job{}, Status: http.StatusOK,
			Errors: []int{400, 401, 403, 422, 429},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				var req jobCreate
				if err := decode(r, &req); err != nil {
					return err
				}
				if req.Type != nil {
					return apperr.New(apperr.Invalid,
						"Le champ type n'est pas accepté ici : utilise POST /api/jobs/{type}.",
						"The type field is not supported here: use POST /api/jobs/{type}.")
				}
				j, err := js.Create(r.Context(), c.User, req.Request)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, j)
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/jobs", Auth: Any, Tag: "jobs",
			Summary:  "Your jobs, most recent first (limit 1..500, default 100; offset)",
			Response: []jobs.Job{}, Status: http.StatusOK, Errors: []int{401, 403, 422},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				limit, err := intParam(r, "limit", 100)
				if err != nil {
					return err
				}
				offset, err := intParam(r, "offset", 0)
				if err != nil {
					return err
				}
				list, err := js.List(r.Context(), c.User.ID, limit, offset)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, list)
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/jobs/{id}", Auth: Any, Tag: "jobs",
			Summary: "One job, with its live counters", Response: jobs.Job{}, Status: http.StatusOK,
			Errors: []int{401, 403, 404},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				j, err := js.Get(r.Context(), c.User.ID, r.PathValue("id"))
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, j)
				return nil
			},
		},
	}
}

// intParam reads an integer query parameter; absent is def, not an
// integer is a 422 naming it. Range rules (clamping) are the route's.
func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, apperr.Fields(apperr.Field(name, "entier attendu", "expected an integer"))
	}
	return n, nil
}
