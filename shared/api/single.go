package api

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/placement"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/viewport"
)

// MaxSingleBody caps the bodies of the single-run job routes.
const MaxSingleBody = 16 << 10

// singleRoutes are the single-run jobs (one call, a JSON result, no
// reusable CSV): viewport_test here, delivery_check with its checker.
func (s *Server) singleRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/api/jobs/viewport-test", Auth: Any, Active: true, Tag: "jobs", MaxBody: MaxSingleBody, Handle: s.createViewportTest,
			Summary: "Viewport test: one query searched over one rectangle of the map, every page, with the results and " +
				"whether the rectangle is saturated; no reusable CSV (read GET /api/jobs/{id}/viewport-result)",
			Request: viewport.Request{}, Response: jobs.Job{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 413, 422, 429}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}/viewport-result", Auth: Any, Tag: "jobs", Handle: s.viewportResult,
			Summary:  "The report of a done viewport_test job: listings, pages, requests, saturation",
			Response: viewport.Report{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404, 410}},
		{Method: http.MethodPost, Path: "/api/jobs/delivery-check", Auth: Any, Active: true, Tag: "jobs", MaxBody: MaxSingleBody, Handle: s.createDeliveryCheck,
			Summary: "Delivery check: where the latest message from a domain whose subject contains subject_filter landed " +
				"(inbox, promotions, spam) in the configured seed mailboxes; no items, no reusable CSV (read GET " +
				"/api/jobs/{id}/delivery-result)",
			Request: deliveryRequest{}, Response: jobs.Job{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 413, 422, 429, 503}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}/delivery-result", Auth: Any, Tag: "jobs", Handle: s.deliveryResult,
			Summary:  "The result of a done delivery_check job: each seed mailbox's placement, the authentication results, a summary",
			Response: placement.Result{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404, 410}},
	}
}

// createViewportTest is POST /api/jobs/viewport-test.
func (s *Server) createViewportTest(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req viewport.Request
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	j, err := s.d.Jobs.CreateSingle(r.Context(), c.User, jobs.TypeViewportTest, req, pricing.EFPerSearch)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// viewportResult is GET /api/jobs/{id}/viewport-result.
func (s *Server) viewportResult(w http.ResponseWriter, r *http.Request, c *Caller) error {
	return s.singleResult(w, r, c, jobs.TypeViewportTest)
}

// createDeliveryCheck is POST /api/jobs/delivery-check: the request is
// checked before the seed mailboxes are, so that a bad one is a 422 even
// where checks are unavailable.
func (s *Server) createDeliveryCheck(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req deliveryRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if len(req.Items) > 0 {
		return apperr.Fields(apperr.Field("items", "delivery-check ne prend pas d'items : domain et subject_filter.",
			"delivery-check takes no items: domain and subject_filter."))
	}
	norm, err := placement.NormalizeRequest(placement.Request{Domain: req.Domain, SubjectFilter: req.SubjectFilter})
	if err != nil {
		return err
	}
	if s.d.Delivery == nil || !s.d.Delivery.Ready() {
		return apperr.New(apperr.Unavailable, "Aucune boîte témoin n'est configurée : le test de délivrabilité est indisponible.",
			"No seed mailbox is configured: delivery checks are unavailable.")
	}
	j, err := s.d.Jobs.CreateSingle(r.Context(), c.User, jobs.TypeDeliveryCheck, norm, DeliveryEF)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// deliveryResult is GET /api/jobs/{id}/delivery-result.
func (s *Server) deliveryResult(w http.ResponseWriter, r *http.Request, c *Caller) error {
	return s.singleResult(w, r, c, jobs.TypeDeliveryCheck)
}

// deliveryRequest is the body of POST /api/jobs/delivery-check (spec: no
// items).
type deliveryRequest struct {
	Domain        string `json:"domain"`
	SubjectFilter string `json:"subject_filter"`
	// Items is refused: a check reads mailboxes, not rows.
	Items json.RawMessage `json:"items,omitempty"`
}

// DeliveryEF is the price of a delivery check: IMAP reads of a few seed
// mailboxes, no provider bill (docs/data-sources.md).
const DeliveryEF = 0.1

// singleResult answers a single-run job's result document, read whole
// first so that a missing or expired one is still a {detail}.
func (s *Server) singleResult(w http.ResponseWriter, r *http.Request, c *Caller, jobType string) error {
	var buf bytes.Buffer
	if err := s.d.Jobs.Result(r.Context(), c.User.ID, r.PathValue("id"), jobType, &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(buf.Bytes())
	return abortOnly(err)
}
