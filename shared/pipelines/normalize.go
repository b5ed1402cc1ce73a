package pipelines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/jsonerr"
)

// Node is one node of a definition.
type Node struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	Config map[string]any `json:"config"`
	X      *float64       `json:"x,omitempty"`
	Y      *float64       `json:"y,omitempty"`
}

// Edge is one edge of a definition.
type Edge struct {
	ID   string `json:"id"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Definition is a pipeline's graph.
type Definition struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Envelope is the portable envelope of a definition.
type Envelope struct {
	SchemaVersion int        `json:"schema_version"`
	Name          string     `json:"name"`
	Definition    Definition `json:"definition"`
	Meta          struct {
		ExportedFrom string `json:"exported_from"`
		Kind         string `json:"kind"`
	} `json:"meta"`
}

// Limits of a posted definition, before its rules are checked.
const (
	MaxDefinitionBytes = 1 << 20
	maxEdges           = 4 * MaxNodes
	maxIDLen           = 64
)

// Layout of auto-placed nodes: columns by depth, rows within a column.
const (
	layoutDX = 280.0
	layoutDY = 140.0
)

// ParseDefinition reads a posted definition: the full envelope or a bare
// {nodes, edges} (spec: Portable envelope). It only decodes; Normalize
// and Validate come after.
func ParseDefinition(raw json.RawMessage) (*Definition, string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || len(raw) > MaxDefinitionBytes {
		return nil, "", ruleErr("Définition absente ou trop grande", "Definition missing or too large")
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, "", ruleErr("Définition illisible : un objet JSON est attendu", "Unreadable definition: a JSON object is expected")
	}
	name := ""
	if inner, ok := probe["definition"]; ok {
		var env struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(raw, &env)
		name = env.Name
		raw = inner
	}
	var d Definition
	if err := json.Unmarshal(raw, &d); err != nil {
		msg := jsonerr.Message(err, &d)
		return nil, "", ruleErr("Définition illisible : "+msg, "Unreadable definition: "+msg)
	}
	if len(d.Nodes) > 4*MaxNodes || len(d.Edges) > maxEdges {
		return nil, "", ruleErr(fmt.Sprintf("Trop de nodes (max %d)", MaxNodes), fmt.Sprintf("Too many nodes (max %d)", MaxNodes))
	}
	return &d, name, nil
}

// Normalize completes a definition as the spec lists, before validation:
// missing edge ids generated, nodes without x and y laid out, config
// defaults applied, newline-separated strings turned into arrays for
// string[] fields, config fields not in the schema stripped (a free-form
// config is kept as posted). Unknown types are left for Validate to name.
func (t *Table) Normalize(d *Definition) {
	used := map[string]bool{}
	for _, e := range d.Edges {
		used[e.ID] = true
	}
	for i := range d.Edges {
		if d.Edges[i].ID != "" {
			continue
		}
		id := "e-" + d.Edges[i].From + "-" + d.Edges[i].To
		for n := 2; used[id]; n++ {
			id = "e-" + d.Edges[i].From + "-" + d.Edges[i].To + "-" + strconv.Itoa(n)
		}
		used[id] = true
		d.Edges[i].ID = id
	}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		if n.Config == nil {
			n.Config = map[string]any{}
		}
		nt, ok := t.Lookup(n.Type)
		if !ok || nt.ConfigFreeform {
			if ok {
				for name, f := range nt.ConfigSchema {
					if _, set := n.Config[name]; !set && f.Default != nil {
						n.Config[name] = f.Default
					}
				}
			}
			continue
		}
		for k := range n.Config {
			if _, known := nt.ConfigSchema[k]; !known {
				delete(n.Config, k)
			}
		}
		for name, f := range nt.ConfigSchema {
			v, set := n.Config[name]
			if !set || v == nil {
				if f.Default != nil {
					n.Config[name] = f.Default
				} else if set {
					delete(n.Config, name)
				}
				continue
			}
			if s, ok := v.(string); ok && f.Type == TStrings {
				n.Config[name] = splitLines(s)
			}
		}
	}
	t.layout(d)
}

// splitLines turns "Lyon\nVilleurbanne" into its non-empty trimmed lines.
func splitLines(s string) []any {
	out := []any{}
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// layout places the nodes without coordinates: a column per depth from
// the roots, the nodes of a column one under the other.
func (t *Table) layout(d *Definition) {
	pred := map[string]string{}
	for _, e := range d.Edges {
		if _, seen := pred[e.To]; !seen {
			pred[e.To] = e.From
		}
	}
	depth := func(id string) int {
		n := 0
		for seen := map[string]bool{id: true}; ; n++ {
			p, ok := pred[id]
			if !ok || seen[p] || n > MaxNodes {
				return n
			}
			seen[p] = true
			id = p
		}
	}
	rows := map[int]int{}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		col := depth(n.ID)
		row := rows[col]
		rows[col]++
		if n.X == nil || n.Y == nil {
			x, y := float64(col)*layoutDX, float64(row)*layoutDY
			n.X, n.Y = &x, &y
		}
	}
}
