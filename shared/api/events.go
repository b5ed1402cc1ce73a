package api

import (
	"net/http"

	"github.com/prospectdata/svc/shared/events"
)

// eventRoutes is the account's event feed.
func (s *Server) eventRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/api/events", Auth: Any, Tag: "events", Handle: s.listEvents,
			Summary: "The account's event feed: events after since_id (types filter, limit 1..100, order asc or desc), " +
				"with last_id to resume and head_id, the newest matching event, within the 7-day window",
			Query: []Param{
				{Name: "since_id", Type: "integer", Default: 0, Min: bound(0), Doc: "events with a strictly greater id only"},
				{Name: "types", Type: "string", Doc: "comma-separated event types (GET /api/events lists them); an unknown one is a 422"},
				{Name: "limit", Type: "integer", Default: events.DefaultLimit, Min: bound(1), Max: bound(events.MaxLimit), Doc: "events at most"},
				{Name: "order", Type: "string", Enum: []string{"asc", "desc"}, Default: "asc", Doc: "by id"},
			},
			Response: events.Page{}, Status: http.StatusOK, Errors: []int{401, 403, 422}},
	}
}

// listEvents is GET /api/events.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, c *Caller) error {
	q, err := events.ParseQuery(r.URL.Query())
	if err != nil {
		return err
	}
	p, err := s.d.Events.List(r.Context(), c.User.ID, q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}
