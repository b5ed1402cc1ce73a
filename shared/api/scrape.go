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

// scrapeRoutes are what a scrape is prepared with: its estimate and map,
// the countries and zones it can name, and the caller's EF usage.
func (s *Server) scrapeRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/api/estimate", Auth: Any, Tag: "jobs", Handle: s.estimate,
			Summary: "Estimate a scrape: tiles, requests, EF cost and duration; unknown zones and a cost over the quota make it not valid",
			Request: scrape.Request{}, Response: EstimateBody{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 422, 429}},
		{Method: http.MethodGet, Path: "/api/countries", Auth: Any, Tag: "reference", Handle: s.countries,
			Summary:  "The scrapable countries, the caller's last country and five pinned countries",
			Response: scrape.Countries{}, Status: http.StatusOK, Errors: []int{401, 403}},
		{Method: http.MethodPost, Path: "/api/estimate/map", Auth: Any, Tag: "jobs", Handle: s.estimateMap,
			Summary: "What a scrape would cover, to draw: each resolved zone's outline (simplified) and the grid's base tiles " +
				"(at most 10,000; tiles_total counts them all); the estimate's rate limit applies",
			Request: scrape.Request{}, Response: scrape.EstimateMap{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 422, 429}},
		{Method: http.MethodGet, Path: "/api/zones/complete", Auth: Any, Tag: "reference", Handle: s.completeZones,
			Summary: "Zones whose name starts with what was typed, the most populous first: each label reads back as " +
				"that zone in a scrape request",
			Query: []Param{
				{Name: "q", Type: "string", Doc: "what was typed: at least 2 characters for an answer, at most 100"},
				{Name: "country", Type: "string", Default: "FRA", Doc: "ISO 3166-1 alpha-3 or alpha-2 code"},
				{Name: "limit", Type: "integer", Default: 10, Doc: "completions; clamped to 1..20"},
			},
			Response: ZoneCompletions{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 422}},
		{Method: http.MethodGet, Path: "/api/ef/usage", Auth: Any, Tag: "jobs", Handle: s.efUsage,
			Summary:  "The caller's EF spending this month (UTC) and monthly quota",
			Response: scrape.Usage{}, Status: http.StatusOK, Errors: []int{401, 403}},
	}
}

// estimate is POST /api/estimate: the plan's problems are the answer's
// errors (still a 200), in the caller's language.
func (s *Server) estimate(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req scrape.Request
	if err := decode(r, &req); err != nil {
		return err
	}
	p, err := s.d.Scrape.Estimate(r.Context(), c.User, req)
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
}

// countries is GET /api/countries.
func (s *Server) countries(w http.ResponseWriter, r *http.Request, c *Caller) error {
	cs, err := s.d.Scrape.Countries(c.User, english(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cs)
	return nil
}

// estimateMap is POST /api/estimate/map.
func (s *Server) estimateMap(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req scrape.Request
	if err := decode(r, &req); err != nil {
		return err
	}
	m, _, err := s.d.Scrape.Map(r.Context(), c.User, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// completeZones is GET /api/zones/complete.
func (s *Server) completeZones(w http.ResponseWriter, r *http.Request, c *Caller) error {
	q := r.URL.Query().Get("q")
	if len(q) > 100 {
		return apperr.New(apperr.Invalid, "q : 100 caractères au plus.", "q: at most 100 characters.")
	}
	limit, err := intParam(r, "limit", 10)
	if err != nil {
		return err
	}
	out, err := s.d.Scrape.Complete(r.URL.Query().Get("country"), q, limit)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ZoneCompletions{Completions: out})
	return nil
}

// efUsage is GET /api/ef/usage.
func (s *Server) efUsage(w http.ResponseWriter, r *http.Request, c *Caller) error {
	u, err := s.d.Scrape.Usage(r.Context(), c.User)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// ZoneCompletions is the answer of GET /api/zones/complete.
type ZoneCompletions struct {
	Completions []zones.Completion `json:"completions"`
}
