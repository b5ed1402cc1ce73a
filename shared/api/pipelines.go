package api

import (
	"encoding/json"
	"errors"
	"net/http"

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
		{
			Method: http.MethodGet, Path: "/api/pipelines/schema", Auth: Public, Tag: "pipelines",
			Summary:  "The node types of pipelines: compat map, root types, each type's category, input, output, needs, produces and config schema",
			Response: pipelines.Schema{}, Status: http.StatusOK,
			Handle: func(w http.ResponseWriter, r *http.Request, _ *Caller) error {
				writeJSON(w, http.StatusOK, s.d.Pipelines.Table().Schema())
				return nil
			},
		},
		{
			Method: http.MethodPost, Path: "/api/pipelines/validate", Auth: Any, Tag: "pipelines", MaxBody: MaxPipelineBody,
			Summary: "Check a definition as its creation would (structure, zones, worst-case cost, room for its root jobs) " +
				"without creating anything; an invalid definition is still a 200 with ok false, its reason and message",
			Request: ValidateRequest{}, Response: ValidateBody{}, Status: http.StatusOK, Errors: []int{400, 401, 413},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
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
					if !contains(sum.Types, n.Type) {
						sum.Types = append(sum.Types, n.Type)
					}
				}
				writeJSON(w, http.StatusOK, ValidateBody{OK: true, Definition: d, Summary: sum})
				return nil
			},
		},
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
