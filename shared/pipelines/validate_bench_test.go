package pipelines_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/prospectdata/svc/shared/pipelines"
)

// wideGraph builds a valid definition of n nodes (20 is the spec's
// maximum): one scrap root fanning out to four chains, one of which fans
// out again below a filter, so that validation walks every rule on a graph
// as large as a user may post: passthrough types resolved through filter
// and sort, verify after emails, enum, bool, int and string[] configs (the
// zones as a newline-separated string the normaliser splits). Edges have
// no ids and nodes no coordinates, so the normaliser does its whole work.
// n above 20 appends sorts to the last chain: the same graph, too big.
// n below 20 is not built.
func wideGraph(tb testing.TB, n int) json.RawMessage {
	tb.Helper()
	if n < pipelines.MaxNodes {
		tb.Fatalf("wideGraph builds %d nodes or more, not %d", pipelines.MaxNodes, n)
	}
	rules := map[string]any{"logic": "AND", "conditions": []any{
		map[string]any{"column": "rating", "op": ">=", "value": 4},
		map[string]any{"logic": "OR", "conditions": []any{
			map[string]any{"column": "category", "op": "contains", "value": "boulangerie"},
			map[string]any{"column": "email", "op": "is_not_empty"}}}}}
	nodes := []map[string]any{{"id": "s", "type": "scrap", "config": map[string]any{
		"queries": []string{"boulangerie", "pâtisserie"}, "zones": "Lyon\nVilleurbanne", "stop_at": 500}}}
	var edges []map[string]any
	add := func(from, id, typ string, config map[string]any) {
		nodes = append(nodes, map[string]any{"id": id, "type": typ, "config": config})
		edges = append(edges, map[string]any{"from": from, "to": id})
	}
	// Chain A: emails, then what reads its verified output.
	add("s", "e1", "emails", map[string]any{"mode": "deep"})
	add("e1", "v1", "verify", nil)
	add("v1", "f1", "filter", map[string]any{"rules": rules})
	add("f1", "o1", "sort", map[string]any{"sort_by": "rating", "top_n": 100})
	// Chain B: a filter fanning out to a sort chain and an enrichment.
	add("s", "so", "socials", nil)
	add("so", "ts", "techstack", nil)
	add("ts", "f2", "filter", map[string]any{"rules": rules})
	add("f2", "o2", "sort", map[string]any{"sort_by": "reviews_count", "direction": "asc"})
	add("o2", "ba", "brand_assets", map[string]any{"capture_screenshot": true})
	add("f2", "ad", "ads_intelligence", nil)
	// Chain C: the legal modules.
	add("s", "dc", "dead_check", nil)
	add("dc", "li", "legal_ids", nil)
	add("li", "ld", "legal_data", nil)
	add("ld", "lm", "legal_mentions", nil)
	// Chain D: site and phone modules, down to the 20th node.
	add("s", "sf", "site_finder", nil)
	add("sf", "px", "phones_extra", nil)
	add("px", "pi", "phone_info", map[string]any{"live_mode": "cache_only"})
	add("pi", "pr", "pricing", nil)
	add("pr", "ps", "pagespeed", nil)
	if len(nodes) != pipelines.MaxNodes {
		tb.Fatalf("the base graph has %d nodes, want %d", len(nodes), pipelines.MaxNodes)
	}
	for last := "ps"; len(nodes) < n; {
		id := fmt.Sprintf("x%d", len(nodes))
		add(last, id, "sort", map[string]any{"sort_by": "rating"})
		last = id
	}
	raw, err := json.Marshal(map[string]any{"nodes": nodes, "edges": edges})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// TestValidate20NodesGraph pins what BenchmarkValidate20Nodes measures:
// the 20-node graph passes the structure check whole (a refusal stops
// early, and the benchmark would time the wrong thing), and the same graph
// with a 21st node is refused with the spec's message.
func TestValidate20NodesGraph(t *testing.T) {
	chk := pipelines.NewChecker(pipelines.NewTable(), pipelines.Deps{})
	ctx := context.Background()
	got, err := chk.Check(ctx, nil, wideGraph(t, pipelines.MaxNodes), true)
	if err != nil {
		t.Fatalf("the 20-node graph is refused: %v", err)
	}
	d := got.Definition
	if len(d.Nodes) != 20 || len(d.Edges) != 19 || !slices.Equal(got.Roots, []string{"s"}) {
		t.Fatalf("checked %d nodes, %d edges, roots %q", len(d.Nodes), len(d.Edges), got.Roots)
	}
	// The normaliser did its work on every node and edge.
	for _, e := range d.Edges {
		if e.ID != "e-"+e.From+"-"+e.To {
			t.Errorf("edge %s→%s has id %q", e.From, e.To, e.ID)
		}
	}
	for _, n := range d.Nodes {
		if n.X == nil || n.Y == nil {
			t.Errorf("node %s not laid out", n.ID)
		}
	}
	if z := d.Nodes[0].Config["zones"]; fmt.Sprint(z) != "[Lyon Villeurbanne]" {
		t.Errorf("zones not split: %#v", z)
	}

	_, err = chk.Check(ctx, nil, wideGraph(t, pipelines.MaxNodes+1), true)
	var ref *pipelines.Refusal
	if !errors.As(err, &ref) || ref.Reason != pipelines.ReasonDefinition ||
		ref.Err.FR != "Trop de nodes (max 20)" || ref.Err.EN != "Too many nodes (max 20)" {
		t.Fatalf("21 nodes: %v", err)
	}
}

// BenchmarkValidate20Nodes times the definition step of POST
// /api/pipelines/validate on a graph of the spec's maximum size, through
// the entry point the route calls (Checker.Check with structure_only:
// ParseDefinition, Normalize, Validate). Zones, cost and room need the
// grid and the tables, so they are left out: this is the part whose cost
// grows with the graph.
func BenchmarkValidate20Nodes(b *testing.B) {
	chk := pipelines.NewChecker(pipelines.NewTable(), pipelines.Deps{})
	raw := wideGraph(b, pipelines.MaxNodes)
	ctx := context.Background()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := chk.Check(ctx, nil, raw, true); err != nil {
			b.Fatal(err)
		}
	}
}
