package api

import (
	"net/http"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/zones"

	"github.com/prospectdata/svc/shared/scrape"
)

// EstimateBody is the spec's JobEstimateResponse.
type EstimateBody struct {
	Valid                    bool         `json:"valid"`
	GridPoints               int          `json:"grid_points"`
	TotalRequests            int          `json:"total_requests"`
	QueriesCount             int          `json:"queries_count"`
	EFCost                   float64      `json:"ef_cost"`
	EstimatedDurationSeconds int          `json:"estimated_duration_seconds"`
	Errors                   []FieldError `json:"errors"`
	Warnings                 []string     `json:"warnings"`
}

func (s *Server) scrapeRoutes() []Route {
	sc := s.d.Scrape
	return []Route{
		{
			Method: http.MethodPost, Path: "/api/estimate", Auth: Any, Tag: "jobs",
			Summary: "Estimate a scrape: tiles, requests, EF cost and duration; unknown zones and a cost over the quota make it not valid",
			Request: scrape.Request{}, Response: EstimateBody{}, Status: http.StatusOK,
			Errors: []int{400, 401, 403, 422, 429},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				var req scrape.Request
				if err := decode(r, &req); err != nil {
					return err
				}
				p, err := sc.Estimate(r.Context(), c.User, req)
				if err != nil {
					return err
				}
				en := english(r)
				body := EstimateBody{
					Valid: p.Valid(), TotalRequests: p.Estimate.Requests, QueriesCount: len(p.Settings.Queries),
					EFCost: p.Estimate.EF, EstimatedDurationSeconds: p.Estimate.DurationSeconds,
					Errors: []FieldError{}, Warnings: []string{},
				}
				if p.Grid != nil {
					body.GridPoints = p.Grid.Len()
				}
				for _, f := range p.Problems {
					m := f.FR
					if en {
						m = f.EN
					}
					body.Errors = append(body.Errors, FieldError{Field: f.Field, Message: m})
				}
				writeJSON(w, http.StatusOK, body)
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/countries", Auth: Any, Tag: "reference",
			Summary:  "The scrapable countries, the caller's last country and five pinned countries",
			Response: scrape.Countries{}, Status: http.StatusOK, Errors: []int{401, 403},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				cs, err := sc.Countries(c.User, english(r))
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, cs)
				return nil
			},
		},
		{
			Method: http.MethodPost, Path: "/api/estimate/map", Auth: Any, Tag: "jobs",
			Summary: "What a scrape would cover, to draw: each resolved zone's outline (simplified) and the grid's base tiles " +
				"(at most 10,000; tiles_total counts them all); the estimate's rate limit applies",
			Request: scrape.Request{}, Response: scrape.EstimateMap{}, Status: http.StatusOK,
			Errors: []int{400, 401, 403, 422, 429},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				var req scrape.Request
				if err := decode(r, &req); err != nil {
					return err
				}
				m, _, err := sc.Map(r.Context(), c.User, req)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, m)
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/zones/complete", Auth: Any, Tag: "reference",
			Summary: "Zones whose name starts with what was typed, the most populous first: each label reads back as " +
				"that zone in a scrape request",
			Query: []Param{
				{Name: "q", Type: "string", Doc: "what was typed: at least 2 characters for an answer, at most 100"},
				{Name: "country", Type: "string", Default: "FRA", Doc: "ISO 3166-1 alpha-3 or alpha-2 code"},
				{Name: "limit", Type: "integer", Default: 10, Doc: "completions; clamped to 1..20"},
			},
			Response: ZoneCompletions{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 422},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				q := r.URL.Query().Get("q")
				if len(q) > 100 {
					return apperr.New(apperr.Invalid, "q : 100 caractères au plus.", "q: at most 100 characters.")
				}
				limit, err := intParam(r, "limit", 10)
				if err != nil {
					return err
				}
				out, err := sc.Complete(r.URL.Query().Get("country"), q, limit)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, ZoneCompletions{Completions: out})
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/ef/usage", Auth: Any, Tag: "jobs",
			Summary:  "The caller's EF spending this month (UTC) and monthly quota",
			Response: scrape.Usage{}, Status: http.StatusOK, Errors: []int{401, 403},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				u, err := sc.Usage(r.Context(), c.User)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, u)
				return nil
			},
		},
	}
}

// ZoneCompletions is the answer of GET /api/zones/complete.
type ZoneCompletions struct {
	Completions []zones.Completion `json:"completions"`
}
