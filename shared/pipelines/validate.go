package pipelines

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/modules"
)

// ruleErr is a broken definition rule: 400 with its message (spec:
// Validation rules), French for the web app, English for keys.
func ruleErr(fr, en string) error { return apperr.New(apperr.Invalid, fr, en) }

// Validate checks a normalised definition's structure, rule by rule in
// the spec's order; the first broken rule is the error. Beyond the spec's
// table: a node needs an id, a node that is not a root needs a
// predecessor, and the graph has no cycle (docs/pipelines.md).
func (t *Table) Validate(d *Definition) error {
	if len(d.Nodes) == 0 {
		return ruleErr("Pipeline vide", "Empty pipeline")
	}
	if len(d.Nodes) > MaxNodes {
		return ruleErr(fmt.Sprintf("Trop de nodes (max %d)", MaxNodes), fmt.Sprintf("Too many nodes (max %d)", MaxNodes))
	}
	nodes := map[string]*Node{}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		if n.ID == "" || len(n.ID) > maxIDLen {
			return ruleErr(fmt.Sprintf("Node sans id valide (1 à %d caractères)", maxIDLen),
				fmt.Sprintf("A node has no valid id (1 to %d characters)", maxIDLen))
		}
		if nodes[n.ID] != nil {
			return ruleErr("IDs de nodes en doublon", "Duplicate node ids")
		}
		nodes[n.ID] = n
	}
	for _, n := range d.Nodes {
		if _, ok := t.Lookup(n.Type); !ok {
			return ruleErr("Type de node inconnu : "+n.Type, "Unknown node type: "+n.Type)
		}
	}
	for _, e := range d.Edges {
		if nodes[e.From] == nil || nodes[e.To] == nil {
			return ruleErr("Edge référence un node inexistant", "An edge references a missing node")
		}
	}
	for _, e := range d.Edges {
		if e.From == e.To {
			return ruleErr("Edge vers soi-même interdit", "An edge to the node itself is not allowed")
		}
	}
	pred := map[string]string{}
	for _, e := range d.Edges {
		if nt, _ := t.Lookup(nodes[e.To].Type); nt.IsRoot {
			return ruleErr(fmt.Sprintf("Le node '%s' ne peut pas avoir de prédécesseur", e.To),
				fmt.Sprintf("Node '%s' cannot have a predecessor", e.To))
		}
	}
	for _, e := range d.Edges {
		if p, ok := pred[e.To]; ok && p != e.From {
			return ruleErr(fmt.Sprintf("Le node %s a plusieurs prédécesseurs", e.To),
				fmt.Sprintf("Node %s has several predecessors", e.To))
		}
		pred[e.To] = e.From
	}
	g := &graph{t: t, nodes: nodes, pred: pred}
	for _, n := range d.Nodes {
		nt, _ := t.Lookup(n.Type)
		if _, ok := pred[n.ID]; !ok && !nt.IsRoot {
			return ruleErr(fmt.Sprintf("Le node '%s' n'a pas de prédécesseur : il doit suivre une source (%s)", n.ID,
				strings.Join(t.RootTypes(), ", ")),
				fmt.Sprintf("Node '%s' has no predecessor: it must follow a source (%s)", n.ID, strings.Join(t.RootTypes(), ", ")))
		}
		if g.cyclic(n.ID) {
			return ruleErr("Le pipeline contient un cycle", "The pipeline has a cycle")
		}
	}
	for _, e := range d.Edges {
		from, to := nodes[e.From], nodes[e.To]
		if !g.accepts(to, from) {
			return ruleErr(fmt.Sprintf("Connexion %s → %s incompatible", from.Type, to.Type),
				fmt.Sprintf("Connection %s → %s is incompatible", from.Type, to.Type))
		}
	}
	for _, n := range d.Nodes {
		if err := t.checkConfig(n); err != nil {
			return err
		}
	}
	return nil
}

// graph answers questions about a definition whose nodes have at most one
// predecessor each.
type graph struct {
	t     *Table
	nodes map[string]*Node
	pred  map[string]string
}

// cyclic tells whether walking back from id comes back to it.
func (g *graph) cyclic(id string) bool {
	seen := map[string]bool{}
	for cur := id; ; {
		p, ok := g.pred[cur]
		if !ok {
			return false
		}
		if p == id || seen[p] {
			return true
		}
		seen[p] = true
		cur = p
	}
}

// Output resolves a node's output type: a passthrough node (filter,
// sort) has its nearest non-passthrough ancestor's.
func (g *graph) output(id string) string {
	for cur, hops := id, 0; hops <= MaxNodes; hops++ {
		nt, _ := g.t.Lookup(g.nodes[cur].Type)
		if nt.Output != Passthrough {
			return nt.Output
		}
		p, ok := g.pred[cur]
		if !ok {
			return ""
		}
		cur = p
	}
	return ""
}

// hasEmail tells whether the rows leaving id carry an email column: a
// node on the way produced it, or the chain starts from an import (whose
// columns are the user's).
func (g *graph) hasEmail(id string) bool {
	for cur, hops := id, 0; hops <= MaxNodes; hops++ {
		nt, _ := g.t.Lookup(g.nodes[cur].Type)
		if slices.Contains(nt.Produces, "email") || nt.Type == modules.Import {
			return true
		}
		p, ok := g.pred[cur]
		if !ok {
			return false
		}
		cur = p
	}
	return false
}

// accepts tells whether to may follow from: the compat map, and verify
// after any businesses once an email column exists upstream (spec: Node
// types).
func (g *graph) accepts(to, from *Node) bool {
	nt, _ := g.t.Lookup(to.Type)
	out := g.output(from.ID)
	if slices.Contains(Compat[nt.Input], out) {
		return true
	}
	return nt.Input == PoisEmail && out == Pois && g.hasEmail(from.ID)
}

// checkConfig checks a node's config against its type's schema.
func (t *Table) checkConfig(n Node) error {
	nt, _ := t.Lookup(n.Type)
	names := make([]string, 0, len(nt.ConfigSchema))
	for name := range nt.ConfigSchema {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return nt.ConfigSchema[a].order - nt.ConfigSchema[b].order })
	for _, name := range names {
		f := nt.ConfigSchema[name]
		v, set := n.Config[name]
		if !set || v == nil || v == "" || isEmptyList(v) {
			if f.Required {
				return ruleErr(fmt.Sprintf("Node '%s' : champ requis manquant « %s »", n.ID, name),
					fmt.Sprintf("Node '%s': missing required field \"%s\"", n.ID, name))
			}
			continue
		}
		if fr, en := checkField(f, v); fr != "" {
			return ruleErr(fmt.Sprintf("Node '%s', champ « %s » : %s", n.ID, name, fr),
				fmt.Sprintf("Node '%s', field \"%s\": %s", n.ID, name, en))
		}
	}
	return nil
}

func isEmptyList(v any) bool {
	switch l := v.(type) {
	case []any:
		return len(l) == 0
	case []string:
		return len(l) == 0
	}
	return false
}

// checkField returns what is wrong with a value of a field, "" when
// nothing.
func checkField(f Field, v any) (fr, en string) {
	switch f.Type {
	case TString:
		if _, ok := v.(string); !ok {
			return "doit être du texte", "must be text"
		}
	case TStrings:
		n := 0
		switch l := v.(type) {
		case []string:
			n = len(l)
		case []any:
			for _, e := range l {
				if _, ok := e.(string); !ok {
					return "doit être une liste de textes", "must be a list of texts"
				}
			}
			n = len(l)
		default:
			return "doit être une liste de textes", "must be a list of texts"
		}
		if f.MaxItems > 0 && n > f.MaxItems {
			return fmt.Sprintf("au plus %d éléments", f.MaxItems), fmt.Sprintf("at most %d items", f.MaxItems)
		}
	case TInt:
		x, ok := number(v)
		if !ok || x != math.Trunc(x) {
			return "doit être un entier", "must be an integer"
		}
		if (f.Min != 0 || f.Max != 0) && (x < float64(f.Min) || x > float64(f.Max)) {
			return fmt.Sprintf("entre %d et %d", f.Min, f.Max), fmt.Sprintf("between %d and %d", f.Min, f.Max)
		}
	case TFloat:
		if _, ok := number(v); !ok {
			return "doit être un nombre", "must be a number"
		}
	case TBool:
		if _, ok := v.(bool); !ok {
			return "doit être vrai ou faux", "must be true or false"
		}
	case TEnum:
		s, ok := v.(string)
		if !ok || !slices.Contains(f.Enum, s) {
			return "doit valoir " + strings.Join(f.Enum, ", "), "must be one of " + strings.Join(f.Enum, ", ")
		}
	case TObject:
		if _, ok := v.(map[string]any); !ok {
			return "doit être un objet", "must be an object"
		}
	}
	return "", ""
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}
