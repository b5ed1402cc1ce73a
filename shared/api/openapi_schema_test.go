package api

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type schemaInner struct {
	Preview string `json:"preview"`
}

type schemaOuter struct {
	schemaInner
	Name     string          `json:"name"`
	Note     string          `json:"note,omitempty"`
	Hidden   string          `json:"-"`
	Dash     string          `json:"-,"`
	Extra    []string        `json:"extra_columns"`
	Labels   map[string]int  `json:"labels"`
	Parent   *schemaInner    `json:"parent"`
	At       time.Time       `json:"at"`
	Raw      json.RawMessage `json:"raw"`
	Count    int64           `json:"count,string"`
	Untagged bool
	private  int
}

// schemaOf describes what encoding/json writes: json names, no Go field
// names, embedded fields promoted, nil-able fields nullable, omitempty not
// required; and in a request nothing required.
func TestSchemaOf(t *testing.T) {
	_ = schemaOuter{}.private
	got := schemaOf(reflect.TypeFor[schemaOuter](), false)
	props := got["properties"].(map[string]any)
	tests := []struct {
		name string
		want any // nil: absent
	}{
		{"preview", map[string]any{"type": "string"}},
		{"schemaInner", nil},
		{"Hidden", nil},
		{"-", map[string]any{"type": "string"}},
		{"note", map[string]any{"type": "string"}},
		{"extra_columns", map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "string"}}},
		{"labels", map[string]any{"type": []any{"object", "null"}, "additionalProperties": map[string]any{"type": "integer"}}},
		{"parent", map[string]any{"type": []any{"object", "null"}, "properties": map[string]any{"preview": map[string]any{"type": "string"}}, "required": []any{"preview"}}},
		{"at", map[string]any{"type": "string", "format": "date-time"}},
		{"raw", map[string]any{}},
		{"count", map[string]any{"type": "string"}},
		{"Untagged", map[string]any{"type": "boolean"}},
		{"private", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := props[tt.name]
			if tt.want == nil {
				if ok {
					t.Errorf("%s present: %v", tt.name, p)
				}
				return
			}
			if !reflect.DeepEqual(p, tt.want) {
				t.Errorf("%s = %v, want %v", tt.name, p, tt.want)
			}
		})
	}
	want := []any{"name", "-", "extra_columns", "labels", "parent", "at", "raw", "count", "Untagged", "preview"}
	if !reflect.DeepEqual(got["required"], want) {
		t.Errorf("required %v, want %v", got["required"], want)
	}
	if req := schemaOf(reflect.TypeFor[schemaOuter](), true); req["required"] != nil {
		t.Errorf("a request schema requires %v", req["required"])
	}
}

// A type that holds itself does not recurse forever.
func TestSchemaOfRecursive(t *testing.T) {
	type node struct {
		Children []node `json:"children"`
	}
	got := schemaOf(reflect.TypeFor[node](), false)
	items := got["properties"].(map[string]any)["children"].(map[string]any)["items"]
	if !reflect.DeepEqual(items, map[string]any{}) {
		t.Errorf("recursive items %v", items)
	}
}
