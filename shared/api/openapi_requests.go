package api

import "github.com/prospectdata/svc/shared/pipelines"

// The request types below describe, for the document, bodies the routes
// read as raw JSON (json.RawMessage, checked by the pipelines package): the
// contract's shapes, objects where the raw bytes would read as an array.

// validateRequestDoc is the body of POST /api/pipelines/validate.
type validateRequestDoc struct {
	// Definition is {nodes, edges}, or the portable envelope
	// {schema_version, name, definition}.
	Definition    pipelines.Definition `json:"definition"`
	SchemaVersion int                  `json:"schema_version,omitempty"`
	StructureOnly bool                 `json:"structure_only,omitempty"`
}

// filterPreviewDoc is the body of POST .../filter-preview.
type filterPreviewDoc struct {
	Rules pipelines.Group `json:"rules"`
}
