// Package pipelines holds the pipeline definitions: the node types (one Go
// table that the schema route, the normaliser, the validator and the runner
// all read), the normalisation of a posted definition and its validation
// rules (spec: Pipeline, Definition document, Node types).
package pipelines

import (
	"slices"

	"github.com/prospectdata/svc/shared/modules"
)

// SchemaVersion is the version of the definition documents.
const SchemaVersion = 1

// MaxNodes is the most nodes of a pipeline (spec: Limits).
const MaxNodes = 20

// Data types flowing between nodes (the input and output columns of the
// node table): what a stage's rows hold. The registry declares them, since
// a module's node names them.
const (
	Pois        = modules.Pois
	PoisEmail   = modules.PoisEmail
	Verified    = modules.Verified
	Reviews     = modules.ReviewRows
	PoisAny     = modules.PoisAny
	AnyPois     = modules.AnyPois
	Passthrough = modules.Passthrough
)

// Compat is the compat map: an input type and the output types it accepts.
var Compat = map[string][]string{
	PoisAny:   {Pois, PoisEmail},
	PoisEmail: {PoisEmail},
	AnyPois:   {Pois, PoisEmail, Verified},
}

// Categories of node types.
const (
	CatSource  = modules.NodeSource
	CatEnrich  = modules.NodeEnrich
	CatVerify  = modules.NodeVerify
	CatCheck   = modules.NodeCheck
	CatProcess = modules.NodeProcess
)

// Field types of a config schema.
const (
	TString  = "string"
	TStrings = "string[]"
	TInt     = "int"
	TFloat   = "float"
	TBool    = "bool"
	TEnum    = "enum"
	TObject  = "object"
)

// Field is one configuration field of a node type.
type Field struct {
	Type     string   `json:"type"`
	Required bool     `json:"required,omitempty"`
	Default  any      `json:"default"`
	Enum     []string `json:"enum,omitempty"`
	Label    string   `json:"label"`
	// Min and Max bound an int (0, 0: no bound); MaxItems a list.
	Min, Max int `json:"-"`
	MaxItems int `json:"-"`
	// order keeps the schema's field order for messages and docs.
	order int
}

// NodeType is one row of the node table.
type NodeType struct {
	Type     string   `json:"-"`
	Category string   `json:"category"`
	IsRoot   bool     `json:"is_root"`
	Input    string   `json:"input"`
	Output   string   `json:"output"`
	Needs    []string `json:"needs"`
	Produces []string `json:"produces"`
	// ConfigFreeform: the config is kept as posted (filter's rules).
	ConfigFreeform bool             `json:"config_freeform"`
	ConfigSchema   map[string]Field `json:"config_schema"`
	// Module is the registry slug of the job a node of this type runs
	// ("" for filter and sort, which run inside the pipeline).
	Module string `json:"-"`
}

// fields numbers a config schema's fields in their given order.
func fields(fs ...struct {
	name string
	f    Field
}) map[string]Field {
	out := make(map[string]Field, len(fs))
	for i, f := range fs {
		f.f.order = i
		out[f.name] = f.f
	}
	return out
}

type nf = struct {
	name string
	f    Field
}

// nodeTypes is the node table (spec: Node types), in the spec's order.
// Needs and Produces of module nodes come from the registry, so the two
// tables cannot disagree.
func nodeTypes() []NodeType {
	return slices.Concat(sourceNodes(), moduleNodes(), processNodes())
}

// moduleNode is a node type that runs a registry module, slug, with the
// module's Needs and Produces.
func moduleNode(typ, cat, in, out, slug string, schema map[string]Field) NodeType {
	e, _ := modules.Lookup(slug)
	needs, produces := e.Needs, e.Produces
	if needs == nil {
		needs = []string{}
	}
	if produces == nil {
		produces = []string{}
	}
	return NodeType{Type: typ, Category: cat, Input: in, Output: out, Needs: needs, Produces: produces,
		ConfigSchema: schema, Module: slug}
}

// sourceNodes are the root node types: scrap, import and sirene.
func sourceNodes() []NodeType {
	scrap := moduleNode(modules.Scrap, CatSource, "", Pois, modules.Scrap, fields(
		nf{"queries", Field{Type: TStrings, Required: true, Label: "Requêtes", MaxItems: 20}},
		nf{"country", Field{Type: TString, Default: "FRA", Label: "Pays"}},
		nf{"zones", Field{Type: TStrings, Required: true, Label: "Zones", MaxItems: 50}},
		nf{"extra_columns", Field{Type: TStrings, Default: []string{}, Label: "Colonnes supplémentaires"}},
		nf{"stop_at", Field{Type: TInt, Label: "Arrêter à", Min: 1, Max: 2_000_000}},
		nf{"max_per_phone", Field{Type: TInt, Default: 0, Label: "Fiches par numéro", Min: 0, Max: 10}},
	))
	scrap.Produces = []string{"nom", "site_web", "telephone", "adresse", "rating", "reviews_count", "category", "lien_maps", "aggregator_flag"}
	scrap.Needs = []string{}
	imp := moduleNode(modules.Import, CatSource, "", Pois, modules.Import, fields(
		nf{"source", Field{Type: TEnum, Required: true, Default: "paste", Enum: []string{"paste", "url", "from_job"}, Label: "Source"}},
		nf{"text", Field{Type: TString, Default: "", Label: "Texte collé"}},
		nf{"url", Field{Type: TString, Default: "", Label: "Adresse du tableur public"}},
		nf{"from_job_id", Field{Type: TString, Default: "", Label: "Job source"}},
	))
	imp.Produces = []string{}
	sirene := moduleNode(modules.Sirene, CatSource, "", Pois, modules.Sirene, fields(
		nf{"activites", Field{Type: TStrings, Required: true, Label: "Activités (métier ou code NAF)", MaxItems: 20}},
		nf{"zones", Field{Type: TStrings, Required: true, Label: "Zones", MaxItems: 50}},
		nf{"etablissements", Field{Type: TEnum, Default: "tous", Enum: []string{"tous", "sieges"}, Label: "Établissements"}},
		nf{"cree_apres", Field{Type: TString, Default: "", Label: "Créés après (AAAA-MM-JJ)"}},
		nf{"effectif_min", Field{Type: TString, Default: "", Label: "Effectif minimum"}},
		nf{"stop_at", Field{Type: TInt, Default: 5000, Label: "Arrêter à", Min: 1, Max: 50_000}},
	))
	for _, r := range []*NodeType{&scrap, &imp, &sirene} {
		r.IsRoot = true
	}
	return []NodeType{scrap, imp, sirene}
}

// moduleNodes are the enrichment, verification and check node types: one
// per registry module with a Node, its config the module's options that a
// node takes (modules.Option.InNode).
func moduleNodes() []NodeType {
	var out []NodeType
	for _, e := range modules.Entries() {
		if e.Node == nil {
			continue
		}
		var fs []nf
		for _, o := range e.Options {
			if o.InNode {
				fs = append(fs, nf{o.Name, optionField(o)})
			}
		}
		out = append(out, moduleNode(e.Type(), e.Node.Category, e.Node.Input, e.Node.Output, e.Slug, fields(fs...)))
	}
	return out
}

// optionField is a module option as a node config field.
func optionField(o modules.Option) Field {
	f := Field{Default: o.Default, Label: o.NodeLabel}
	switch o.Kind {
	case modules.Bool:
		f.Type = TBool
	case modules.Int:
		f.Type, f.Min, f.Max = TInt, o.Min, o.Max
	default:
		f.Type, f.Enum = TEnum, o.Values
	}
	return f
}

// settings are a module node's options, from its config.
func settings(e modules.Entry, config map[string]any) map[string]any {
	out := map[string]any{}
	for _, o := range e.Options {
		if v, ok := config[o.Name]; ok && o.InNode {
			out[o.Name] = v
		}
	}
	return out
}

// processNodes are the node types that run inside the pipeline: filter
// and sort.
func processNodes() []NodeType {
	filter := NodeType{Type: modules.Filter, Category: CatProcess, Input: AnyPois, Output: Passthrough, Needs: []string{},
		Produces: []string{}, ConfigFreeform: true, ConfigSchema: fields(
			nf{"rules", Field{Type: TObject, Default: map[string]any{"logic": "AND", "conditions": []any{}}, Label: "Règles"}},
		)}
	sort := NodeType{Type: modules.Sort, Category: CatProcess, Input: AnyPois, Output: Passthrough, Needs: []string{},
		Produces: []string{}, ConfigSchema: fields(
			nf{"sort_by", Field{Type: TString, Required: true, Label: "Trier par (colonne)"}},
			nf{"direction", Field{Type: TEnum, Default: "desc", Enum: []string{"asc", "desc"}, Label: "Ordre"}},
			nf{"top_n", Field{Type: TInt, Label: "Garder les N premiers", Min: 1, Max: 1_000_000}},
		)}
	return []NodeType{filter, sort}
}

// Table is the node table by type, and the types in order.
type Table struct {
	byType map[string]NodeType
	order  []string
}

// NewTable returns the node table.
func NewTable() *Table {
	t := &Table{byType: map[string]NodeType{}}
	for _, n := range nodeTypes() {
		t.byType[n.Type] = n
		t.order = append(t.order, n.Type)
	}
	return t
}

// Lookup returns a node type.
func (t *Table) Lookup(typ string) (NodeType, bool) {
	n, ok := t.byType[typ]
	return n, ok
}

// RootTypes are the types that start a pipeline.
func (t *Table) RootTypes() []string {
	var out []string
	for _, typ := range t.order {
		if t.byType[typ].IsRoot {
			out = append(out, typ)
		}
	}
	return out
}

// Schema is the body of GET /api/pipelines/schema.
type Schema struct {
	SchemaVersion int                 `json:"schema_version"`
	Compat        map[string][]string `json:"compat"`
	RootTypes     []string            `json:"root_types"`
	Nodes         map[string]NodeType `json:"nodes"`
}

// Schema is the public schema, the same for every caller.
func (t *Table) Schema() Schema {
	return Schema{SchemaVersion: SchemaVersion, Compat: Compat, RootTypes: t.RootTypes(), Nodes: t.byType}
}
