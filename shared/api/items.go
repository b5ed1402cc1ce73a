package api

import (
	"net/http"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/registry"
)

// MaxItemsBody caps the body of POST /api/jobs/{type}: 10,000 rows of an
// earlier job's CSV with room to spare. On AWS the gateway's own cap
// (Lambda's 6 MB payload) is lower; docs/enrichment.md says so.
const MaxItemsBody = 16 << 20

// Bodies of the item routes, for the OpenAPI document (items are free-form
// objects: a row of an earlier job's output).
type itemRequestDoc struct {
	Items       []map[string]any `json:"items"`
	SourceJobID *string          `json:"source_job_id,omitempty"`
}

type emailsRequestDoc struct {
	Items       []map[string]any `json:"items"`
	SourceJobID *string          `json:"source_job_id,omitempty"`
	Mode        *string          `json:"mode,omitempty"` // normal (default) or deep
}

type brandRequestDoc struct {
	Items             []map[string]any `json:"items"`
	SourceJobID       *string          `json:"source_job_id,omitempty"`
	CaptureScreenshot *bool            `json:"capture_screenshot,omitempty"`
}

type reviewsRequestDoc struct {
	Items        []map[string]any `json:"items"`
	SourceJobID  *string          `json:"source_job_id,omitempty"`
	MaxReviews   *int             `json:"max_reviews,omitempty"`   // 1 to 100, default 10
	PeriodMonths *int             `json:"period_months,omitempty"` // 0 (unlimited, default) to 120
}

type phoneInfoRequestDoc struct {
	Items       []map[string]any `json:"items"`
	SourceJobID *string          `json:"source_job_id,omitempty"`
	LiveMode    *string          `json:"live_mode,omitempty"` // cache_only, the only value
}

// itemRoutes are the typed shortcuts of POST /api/jobs/{type}: one route
// per module that runs over items here (path slug with hyphens, job_type
// with underscores), and the alpha-frozen modules' 503.
func (s *Server) itemRoutes() []Route {
	var rs []Route
	for _, e := range registry.Entries() {
		if e.APIEndpoint == nil || !strings.HasPrefix(*e.APIEndpoint, "/api/jobs/") {
			continue
		}
		slug := e.Slug
		switch {
		case e.AlphaUnavailable:
			rs = append(rs, Route{
				Method: http.MethodPost, Path: *e.APIEndpoint, Auth: Any, Tag: "jobs",
				Summary: "Frozen during the alpha: always 503 {detail}", Status: http.StatusServiceUnavailable,
				Response: ErrorBody{}, Errors: []int{401, 403},
				Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
					return apperr.New(apperr.Unavailable,
						"Ce module est gelé pendant l'alpha : il n'accepte pas de job pour l'instant.",
						"This module is frozen during the alpha: it accepts no job for now.")
				},
			})
		case jobs.ItemModule(slug):
			var doc any = itemRequestDoc{}
			switch slug {
			case "emails":
				doc = emailsRequestDoc{}
			case "brand_assets":
				doc = brandRequestDoc{}
			case "reviews":
				doc = reviewsRequestDoc{}
			case "phone_info":
				doc = phoneInfoRequestDoc{}
			}
			rs = append(rs, Route{
				Method: http.MethodPost, Path: *e.APIEndpoint, Auth: Any, Active: true, Tag: "jobs",
				MaxBody: MaxItemsBody,
				Summary: e.Label.EN + ": a " + slug + " job over 1 to 10,000 items (each with " +
					strings.Join(e.Needs, ", ") + "); requires a verified email",
				Request: doc, Response: jobs.Job{}, Status: http.StatusOK,
				Errors: []int{400, 401, 403, 404, 413, 422, 429},
				Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
					var req jobs.ItemRequest
					if err := decode(r, &req); err != nil {
						return err
					}
					j, err := s.d.Jobs.CreateItems(r.Context(), c.User, slug, req)
					if err != nil {
						return err
					}
					writeJSON(w, http.StatusOK, j)
					return nil
				},
			})
		}
	}
	return rs
}
