package api

import (
	"net/http"

	"github.com/prospectdata/svc/shared/webhooks"
)

// WebhookCreate is the body of POST /api/webhooks. Secret is optional: a
// generated one (whsec_...) is returned when it is absent.
type WebhookCreate struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Secret *string  `json:"secret,omitempty"`
}

// WebhookList is the body of GET /api/webhooks.
type WebhookList struct {
	Webhooks []*webhooks.Endpoint `json:"webhooks"`
}

// DeliveryList is the body of GET /api/webhooks/{id}/deliveries.
type DeliveryList struct {
	Deliveries []webhooks.Attempt `json:"deliveries"`
}

// webhookRoutes are the account's webhook endpoints and their deliveries.
func (s *Server) webhookRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/api/webhooks", Auth: Any, Active: true, Tag: "webhooks", Handle: s.createWebhook,
			Summary: "Create a webhook endpoint: https, public host, at least one event type; " +
				"the secret is shown only in this answer (at most 5 active endpoints)",
			Request: WebhookCreate{}, Response: webhooks.Endpoint{}, Status: http.StatusCreated, Errors: []int{400, 401, 403, 422}},
		{Method: http.MethodGet, Path: "/api/webhooks", Auth: Any, Tag: "webhooks", Handle: s.listWebhooks,
			Summary:  "The account's webhook endpoints, without secrets",
			Response: WebhookList{}, Status: http.StatusOK, Errors: []int{401, 403}},
		{Method: http.MethodGet, Path: "/api/webhooks/{id}/deliveries", Auth: Any, Tag: "webhooks", Handle: s.webhookDeliveries,
			Summary:  "The endpoint's last 20 delivery attempts, newest first (status, attempts, HTTP code, error, times)",
			Response: DeliveryList{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
		{Method: http.MethodDelete, Path: "/api/webhooks/{id}", Auth: Any, Tag: "webhooks", Handle: s.deleteWebhook,
			Summary: "Delete a webhook endpoint for good",
			Status:  http.StatusNoContent, Errors: []int{401, 403, 404}},
	}
}

// createWebhook is POST /api/webhooks.
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req WebhookCreate
	if err := decode(r, &req); err != nil {
		return err
	}
	e, err := s.d.Webhooks.Create(r.Context(), c.User.ID, req.URL, req.Events, req.Secret)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, e)
	return nil
}

// listWebhooks is GET /api/webhooks.
func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, c *Caller) error {
	es, err := s.d.Webhooks.List(r.Context(), c.User.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, WebhookList{Webhooks: es})
	return nil
}

// webhookDeliveries is GET /api/webhooks/{id}/deliveries.
func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request, c *Caller) error {
	ds, err := s.d.Webhooks.Deliveries(r.Context(), c.User.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, DeliveryList{Deliveries: ds})
	return nil
}

// deleteWebhook is DELETE /api/webhooks/{id}.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if err := s.d.Webhooks.Delete(r.Context(), c.User.ID, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
