package api

import (
	"embed"
	"encoding/json"
	"path"
	"strings"
)

// examples are answers captured from the API tests (see docs/openapi.md),
// one file per operation and status: <operationId>.<status>.json. The
// document shows each beside its response; TestOpenAPIExamples fails when
// one no longer matches its schema.
//
//go:embed testdata/examples/*.json
var examples embed.FS

// loadExamples reads the captured answers by "<operationId>.<status>".
func loadExamples() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	entries, err := examples.ReadDir("testdata/examples")
	if err != nil {
		return out
	}
	for _, e := range entries {
		b, err := examples.ReadFile(path.Join("testdata/examples", e.Name()))
		if err != nil || !json.Valid(b) {
			continue
		}
		out[strings.TrimSuffix(e.Name(), ".json")] = json.RawMessage(b)
	}
	return out
}
