package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/modules"
)

// MaxItemsBody caps the body of POST /api/jobs/{type}: 10,000 rows of an
// earlier job's CSV with room to spare. On AWS the gateway's own cap
// (Lambda's 6 MB payload) is lower; docs/enrichment.md says so.
const MaxItemsBody = 16 << 20

// itemRequestDocOf is the documented body of a module's item route: the
// items (free-form objects: rows of an earlier job's output), the source
// job, and the module's options.
func itemRequestDocOf(e modules.Entry) any {
	return docStruct(append([]reflect.StructField{
		{Name: "Items", Type: reflect.TypeFor[[]map[string]any](), Tag: `json:"items"`},
		{Name: "SourceJobID", Type: reflect.TypeFor[*string](), Tag: `json:"source_job_id,omitempty"`},
	}, optionFields(e.Options)...))
}

// itemEstimateDoc is the documented body of POST /api/estimate/items: the
// module, the count, and every option that changes a price.
func itemEstimateDoc() any {
	var priced []modules.Option
	for _, e := range modules.Entries() {
		for _, o := range e.Options {
			if len(o.Factor) > 0 {
				priced = append(priced, o)
			}
		}
	}
	return docStruct(append([]reflect.StructField{
		{Name: "Module", Type: reflect.TypeFor[string](), Tag: `json:"module"`},
		{Name: "Count", Type: reflect.TypeFor[int](), Tag: `json:"count"`},
	}, optionFields(priced)...))
}

// optionFields are options as the optional fields of a documented body.
func optionFields(os []modules.Option) []reflect.StructField {
	out := make([]reflect.StructField, 0, len(os))
	for i, o := range os {
		out = append(out, reflect.StructField{Name: fmt.Sprintf("Option%d", i), Type: reflect.PointerTo(o.Kind.Type()),
			Tag: reflect.StructTag(`json:"` + o.Name + `,omitempty"`)})
	}
	return out
}

// docStruct is a value of a struct type made of the fields, which the
// OpenAPI document describes as it describes any request type.
func docStruct(fs []reflect.StructField) any {
	return reflect.New(reflect.StructOf(fs)).Elem().Interface()
}

// itemRoutes are the typed shortcuts of POST /api/jobs/{type}: one route
// per module that runs over items here (path slug with hyphens, job_type
// with underscores), and the alpha-frozen modules' 503.
func (s *Server) itemRoutes() []Route {
	var rs []Route
	for _, e := range modules.Entries() {
		if e.APIEndpoint == nil || !strings.HasPrefix(*e.APIEndpoint, "/api/jobs/") {
			continue
		}
		slug := e.Slug
		switch {
		case e.AlphaUnavailable:
			rs = append(rs, Route{Method: http.MethodPost, Path: *e.APIEndpoint, Auth: Any, Tag: "jobs", Handle: frozenModule,
				Summary:  "Frozen during the alpha: always 503 {detail}",
				Response: ErrorBody{}, Status: http.StatusServiceUnavailable, Errors: []int{401, 403}})
		case jobs.ItemModule(slug):
			rs = append(rs, Route{Method: http.MethodPost, Path: *e.APIEndpoint, Auth: Any, Active: true, Tag: "jobs", MaxBody: MaxItemsBody, Handle: forModule(slug, s.createItemJob),
				Summary: e.Label.EN + ": a " + slug + " job over 1 to 10,000 items (each with " +
					strings.Join(e.Needs, ", ") + "); requires a verified email",
				Request: itemRequestDocOf(e), Response: jobs.Job{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404, 413, 422, 429}})
		}
	}
	return rs
}

// frozenModule is the POST /api/jobs/{type} of a module frozen during the
// alpha.
func frozenModule(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	return apperr.New(apperr.Unavailable,
		"Ce module est gelé pendant l'alpha : il n'accepte pas de job pour l'instant.",
		"This module is frozen during the alpha: it accepts no job for now.")
}

// forModule binds a handler to the module slug its route was built for.
func forModule(slug string, f func(w http.ResponseWriter, r *http.Request, c *Caller, slug string) error) func(http.ResponseWriter, *http.Request, *Caller) error {
	return func(w http.ResponseWriter, r *http.Request, c *Caller) error {
		return f(w, r, c, slug)
	}
}

// createItemJob is POST /api/jobs/{type} for the module slug.
func (s *Server) createItemJob(w http.ResponseWriter, r *http.Request, c *Caller, slug string) error {
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
}

// ItemModule is one module a job of items can run (GET /api/modules).
type ItemModule struct {
	Slug string `json:"slug"`
	// Endpoint is its POST /api/jobs/{type} route.
	Endpoint string `json:"endpoint"`
	Label    string `json:"label"`
	// Needs are the columns each item must hold.
	Needs []string `json:"needs"`
	// Produces are the columns it adds.
	Produces []string `json:"produces"`
	// EFPerItem is the price of one item with the default options.
	EFPerItem float64 `json:"ef_per_item"`
}

// ItemModules is the answer of GET /api/modules.
type ItemModules struct {
	Modules []ItemModule `json:"modules"`
}

// ItemEstimateRequest is the body of POST /api/estimate/items.
type ItemEstimateRequest struct {
	Module string `json:"module"`
	Count  int    `json:"count"`
	// Options are the fields that are some module's option
	// (jobs.ReadOptions).
	Options map[string]any `json:"-"`
}

// UnmarshalJSON reads the module, the count and the options.
func (r *ItemEstimateRequest) UnmarshalJSON(b []byte) error {
	type plain ItemEstimateRequest
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	opts, err := jobs.ReadOptions(b)
	if err != nil {
		return err
	}
	*r = ItemEstimateRequest(p)
	r.Options = opts
	return nil
}

// ItemEstimate is what a job of items would cost.
type ItemEstimate struct {
	Module string  `json:"module"`
	Count  int     `json:"count"`
	EFCost float64 `json:"ef_cost"`
}

// moduleRoutes list the modules a job of items can run and price one
// before it starts: what a client shows before the person confirms.
func (s *Server) moduleRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/api/modules", Auth: Any, Tag: "reference", Handle: listItemModules,
			Summary: "The modules a job of items can run (POST /api/jobs/{type}): slug, route, label in the caller's " +
				"language, the columns each item needs and those it adds, the EF per item",
			Response: ItemModules{}, Status: http.StatusOK, Errors: []int{401, 403}},
		{Method: http.MethodPost, Path: "/api/estimate/items", Auth: Any, Tag: "jobs", Handle: estimateItems,
			Summary: "What a job of items would cost: the module, the count of items (1 to 10,000) and its options " +
				"(emails: mode; brand_assets: capture_screenshot), priced as POST /api/jobs/{type} charges",
			Request: itemEstimateDoc(), Response: ItemEstimate{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 422}},
	}
}

// listItemModules is GET /api/modules: the registry's modules that run
// over items here and are not frozen.
func listItemModules(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	en := english(r)
	out := ItemModules{Modules: []ItemModule{}}
	for _, e := range modules.Entries() {
		if e.APIEndpoint == nil || e.AlphaUnavailable || !jobs.ItemModule(e.Slug) {
			continue
		}
		label := e.Label.FR
		if en {
			label = e.Label.EN
		}
		out.Modules = append(out.Modules, ItemModule{Slug: e.Slug, Endpoint: *e.APIEndpoint, Label: label,
			Needs: e.Needs, Produces: e.Produces, EFPerItem: e.EFPerItem})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// estimateItems is POST /api/estimate/items; the module may be named with
// the path's hyphens or the job type's underscores.
func estimateItems(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	var req ItemEstimateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	module := strings.ReplaceAll(req.Module, "-", "_")
	ef, err := jobs.ItemPrice(module, req.Count, jobs.ItemRequest{Options: req.Options})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ItemEstimate{Module: module, Count: req.Count, EFCost: ef})
	return nil
}
