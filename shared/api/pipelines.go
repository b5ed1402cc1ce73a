package api

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/pipelines"
)

// ValidateRequest is the body of POST /api/pipelines/validate.
type ValidateRequest struct {
	Definition    json.RawMessage `json:"definition"`
	SchemaVersion int             `json:"schema_version"`
	StructureOnly bool            `json:"structure_only,omitempty"`
}

// ValidateSummary sums a valid definition up.
type ValidateSummary struct {
	NNodes int      `json:"n_nodes"`
	NEdges int      `json:"n_edges"`
	Types  []string `json:"types"`
}

// ValidateBody is the answer of validate: ok with the normalised
// definition, or the reason and message of the first refusal (still 200).
type ValidateBody struct {
	OK         bool                  `json:"ok"`
	Definition *pipelines.Definition `json:"definition,omitempty"`
	Summary    *ValidateSummary      `json:"summary,omitempty"`
	Reason     string                `json:"reason,omitempty"`
	Error      string                `json:"error,omitempty"`
}

// MaxPipelineBody caps a pipeline's body.
const MaxPipelineBody = pipelines.MaxDefinitionBytes + 64<<10

func (s *Server) pipelineRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/api/pipelines/schema", Auth: Public, Tag: "pipelines", Handle: s.pipelineSchema,
			Summary:  "The node types of pipelines: compat map, root types, each type's category, input, output, needs, produces and config schema",
			Response: pipelines.Schema{}, Status: http.StatusOK},
		{Method: http.MethodPost, Path: "/api/pipelines/validate", Auth: Any, Tag: "pipelines", MaxBody: MaxPipelineBody, Handle: s.validatePipeline,
			Summary: "Check a definition as its creation would (structure, zones, worst-case cost, room for its root jobs) " +
				"without creating anything; an invalid definition is still a 200 with ok false, its reason and message",
			Request: validateRequestDoc{}, Response: ValidateBody{}, Status: http.StatusOK, Errors: []int{400, 401, 413, 429}},
	}
}

// pipelineSchema is GET /api/pipelines/schema.
func (s *Server) pipelineSchema(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	writeJSON(w, http.StatusOK, s.d.Pipelines.Table().Schema())
	return nil
}

// validatePipeline is POST /api/pipelines/validate: a refused definition
// is still a 200, with the reason and the message in the caller's
// language.
func (s *Server) validatePipeline(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req ValidateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.SchemaVersion != 0 && req.SchemaVersion != pipelines.SchemaVersion {
		return apperr.Fields(apperr.Field("schema_version", "schema_version vaut 1.", "schema_version is 1."))
	}
	checked, err := s.d.Pipelines.Check(r.Context(), c.User, req.Definition, req.StructureOnly)
	var ref *pipelines.Refusal
	switch {
	case errors.As(err, &ref):
		msg := ref.Err.FR
		if english(r) {
			msg = ref.Err.EN
		}
		writeJSON(w, http.StatusOK, ValidateBody{Reason: ref.Reason, Error: msg})
		return nil
	case err != nil:
		return err
	}
	d := checked.Definition
	sum := &ValidateSummary{NNodes: len(d.Nodes), NEdges: len(d.Edges), Types: []string{}}
	for _, n := range d.Nodes {
		if !slices.Contains(sum.Types, n.Type) {
			sum.Types = append(sum.Types, n.Type)
		}
	}
	writeJSON(w, http.StatusOK, ValidateBody{OK: true, Definition: d, Summary: sum})
	return nil
}

// pipelineCreateDoc is the body of POST /api/pipelines, for the OpenAPI
// document (the full envelope is accepted too).
type pipelineCreateDoc struct {
	Name        string               `json:"name,omitempty"`
	Definition  pipelines.Definition `json:"definition"`
	LowPriority bool                 `json:"low_priority,omitempty"`
}

// pipelineRunRoutes are the caller's pipelines: creation, the list, each
// pipeline's reading, cancellation and continuation, its nodes' input
// columns and filter preview, and the 405s of what a pipeline refuses
// (it is immutable).
func (s *Server) pipelineRunRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/api/pipelines", Auth: Any, Tag: "pipelines", MaxBody: MaxPipelineBody, Handle: s.createPipeline,
			Summary: "Create and start a pipeline: every check (structure, zones, cost, room for its root jobs) before " +
				"anything is written; one job per root",
			Request: pipelineCreateDoc{}, Response: pipelines.Created{}, Status: http.StatusCreated, Errors: []int{400, 401, 403, 413, 429}},
		{Method: http.MethodGet, Path: "/api/pipelines", Auth: Any, Tag: "pipelines", Handle: s.listPipelines,
			Summary:  "The caller's 50 latest pipelines, most recent first",
			Response: []pipelines.Summary{}, Status: http.StatusOK, Errors: []int{401}},
		{Method: http.MethodGet, Path: "/api/pipelines/{id}", Auth: Any, Tag: "pipelines", Handle: s.getPipeline,
			Summary:  "A pipeline with its jobs, its duration-weighted progress and its output job",
			Response: pipelines.Detail{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
		{Method: http.MethodPost, Path: "/api/pipelines/{id}/cancel", Auth: Any, Tag: "pipelines", Handle: s.cancelPipeline,
			Summary:  "Cancel a pipeline: its running stage stops, the rest never starts, partial results stay downloadable",
			Response: okBody{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404}},
		{Method: http.MethodPost, Path: "/api/pipelines/{id}/nodes/{node_id}/continue", Auth: Any, Tag: "pipelines", Handle: s.continuePipeline,
			Summary: "Continue a pipeline paused on a failed or cancelled stage: its successors start from the stage's " +
				"partial rows (none: the branch ends)",
			Response: okBody{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404}},
		{Method: http.MethodGet, Path: "/api/pipelines/{id}/nodes/{node_id}/input-columns", Auth: Any, Tag: "pipelines", Handle: s.nodeInputColumns,
			Summary: "The columns a node receives: its predecessor's output (5,000 rows read) with each column's type, fill " +
				"rate, samples and categories, or the reason there is none yet",
			Response: pipelines.InputColumnsBody{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
		{Method: http.MethodPost, Path: "/api/pipelines/{id}/nodes/{node_id}/filter-preview", Auth: Any, Tag: "pipelines", MaxBody: 64 << 10, Handle: s.filterPreview,
			Summary: "Apply rules to a filter node's input (5,000 rows) with the worker's function: counts and 5 matched rows; " +
				"creates nothing",
			Request: filterPreviewDoc{}, Response: pipelines.PreviewBody{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404}},
		immutableRoute(http.MethodPatch, "/api/pipelines/{id}", "Un pipeline est immuable : reposte une définition modifiée comme nouveau pipeline.",
			"A pipeline is immutable: post a changed definition as a new pipeline."),
		immutableRoute(http.MethodDelete, "/api/pipelines/{id}", "Les pipelines ne se suppriment pas.", "Pipelines cannot be deleted."),
		immutableRoute(http.MethodPost, "/api/pipelines/{id}/run", "Un pipeline démarre à sa création : reposte le graphe pour le relancer.",
			"Pipelines start on creation: post the graph again to run it again."),
	}
}

// immutableRoute is a route a pipeline refuses: always 405 with its
// message (fr, en), which the document's summary repeats.
func immutableRoute(method, path, fr, en string) Route {
	return Route{Method: method, Path: path, Auth: Any, Tag: "pipelines", Summary: "405: " + en,
		Status: http.StatusMethodNotAllowed, Response: ErrorBody{}, Errors: []int{401},
		Handle: func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
			return apperr.New(apperr.MethodNotAllowed, fr, en)
		}}
}

// createPipeline is POST /api/pipelines. The body is a bare definition or
// the envelope {name, definition, low_priority}; it is read whole, since
// both readings need it.
func (s *Server) createPipeline(w http.ResponseWriter, r *http.Request, c *Caller) error {
	raw, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return apperr.New(apperr.TooLarge, "Corps de requête trop volumineux", "Request body too large")
	}
	if err != nil {
		return err
	}
	var req pipelines.CreateRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return apperr.New(apperr.Invalid, "JSON invalide", "Invalid JSON")
	}
	if len(req.Definition) == 0 {
		// A bare definition: the body itself.
		req.Definition = raw
	} else if probe := (struct {
		SchemaVersion int `json:"schema_version"`
	}{}); json.Unmarshal(raw, &probe) == nil && probe.SchemaVersion != 0 {
		// The envelope: its name with its definition.
		req.Definition = raw
	}
	created, err := s.d.Pipelines.Create(r.Context(), c.User, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, created)
	return nil
}

// listPipelines is GET /api/pipelines.
func (s *Server) listPipelines(w http.ResponseWriter, r *http.Request, c *Caller) error {
	list, err := s.d.Pipelines.List(r.Context(), c.User.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// getPipeline is GET /api/pipelines/{id}.
func (s *Server) getPipeline(w http.ResponseWriter, r *http.Request, c *Caller) error {
	d, err := s.d.Pipelines.Get(r.Context(), c.User.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// cancelPipeline is POST /api/pipelines/{id}/cancel.
func (s *Server) cancelPipeline(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if err := s.d.Pipelines.Cancel(r.Context(), c.User.ID, r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, okBody{OK: true})
	return nil
}

// continuePipeline is POST /api/pipelines/{id}/nodes/{node_id}/continue.
func (s *Server) continuePipeline(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if err := s.d.Pipelines.Continue(r.Context(), c.User.ID, r.PathValue("id"), r.PathValue("node_id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, okBody{OK: true})
	return nil
}

// nodeInputColumns is GET /api/pipelines/{id}/nodes/{node_id}/input-columns.
func (s *Server) nodeInputColumns(w http.ResponseWriter, r *http.Request, c *Caller) error {
	body, err := s.d.Pipelines.InputColumns(r.Context(), c.User.ID, r.PathValue("id"), r.PathValue("node_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// filterPreview is POST /api/pipelines/{id}/nodes/{node_id}/filter-preview.
func (s *Server) filterPreview(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req filterPreviewRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	rules, err := pipelines.ParseRules(req.Rules)
	if err != nil {
		return err
	}
	body, err := s.d.Pipelines.FilterPreview(r.Context(), c.User.ID, r.PathValue("id"), r.PathValue("node_id"), rules)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// filterPreviewRequest is the body of filter-preview.
type filterPreviewRequest struct {
	Rules json.RawMessage `json:"rules"`
}

type okBody struct {
	OK bool `json:"ok"`
}
