package scrape

import (
	"cmp"
	"slices"

	"github.com/paulmach/orb/maptile"
)

// MergeLevels is how many zoom levels above a base tile a merged search
// may reach: up to 4^MergeLevels base tiles of the finest zoom in one
// search. It bounds the tasks a merged search that reaches the cap falls
// back to, which its task writes in one transaction with its own children
// (at most 100 items in a DynamoDB transaction: 64 + 4 + 2).
const MergeLevels = 3

// MergeSaturation is the most likely a merged search may be to reach the
// cap. The Poisson count of the density model is surer of a wide tile than
// the world is (where places lie within towns is only modelled), and a
// merged search at the cap pays its pages and its base tiles' searches
// too: on the simulated world, without it, the Creuse's plumbers made 17
// searches for 14 expected, a merged search having fallen back to its 4
// base tiles; with it, 14 (docs/pricing.md).
const MergeSaturation = 0.2

// Merge is one search of a query over an ancestor of several base tiles,
// made by the task of the first of them (Leader) in place of each one's
// own search of the query: where a query is sparse, one request lists
// what several base tiles' requests would have listed a few places each.
// A merged search that reaches the provider's cap falls back to the
// searches it replaced: one task per member base tile, planned as roots.
type Merge struct {
	Tile maptile.Tile
	// Members are the indexes (grid order) of the base tiles under Tile:
	// a contiguous run, as the grid's order is the quadkeys'. The first is
	// the leader.
	Members []int
	// Searches is the searches it is expected to cost, those of its
	// fallback included.
	Searches float64
}

// Leader is the index of the base tile whose task makes the search.
func (m Merge) Leader() int { return m.Members[0] }

// Merges returns the merged searches of a query of density rate over the
// plan's grid, the same in every process (the job's rates and the plan
// decide them, so that a task, its resume and the estimate agree). A run
// of base tiles under one ancestor tile A (at most MergeLevels above them,
// none of A's base tiles deeper) is merged when searching A once, and its
// base tiles if A reaches the cap, is expected to cost fewer searches than
// the cheapest plan of A's quarters:
//
//	merged(A) = E[pages(N_A)] + P(N_A ≥ cap) · Σ_members E(t, 0)
//	best(A)   = min(merged(A), Σ_quarters best(q))
//
// with best of a base tile its own E(t, 0) (ExpectedSearches). Without a
// density (rate 0) nothing merges.
func (p *Plan) Merges(rate float64) []Merge {
	if rate <= 0 || p.Grid == nil || p.people == nil {
		return nil
	}
	_, ms := p.mergePlan(rate)
	return ms
}

// mergePlan returns, for a query of density rate, each base tile's own
// expected searches (E(t, 0)) and the merges (see Merges).
func (p *Plan) mergePlan(rate float64) ([]float64, []Merge) {
	tiles := p.Grid.Tiles()
	depth := p.Settings.Mode.MaxDepth()
	own := make([]float64, len(tiles))
	index := make(map[maptile.Tile]int, len(tiles))
	for i, t := range tiles {
		own[i], _ = p.cheapest(rate, t, 0, depth)
		index[t] = i
	}
	if p.people == nil {
		return own, nil
	}
	nodes := mergeNodes(tiles)
	order := mergeOrder(nodes)
	p.settleMerges(rate, order, nodes, index, own)
	return own, chosenMerges(order, nodes)
}

// mergeNode is an ancestor of base tiles, a candidate for a merged search.
type mergeNode struct {
	members []int
	tooDeep bool // a base tile more than MergeLevels below
	best    float64
	merged  bool
}

// mergeNodes are the ancestors of the base tiles up to MergeLevels above
// them, each with the base tiles (indices in tiles) below it.
func mergeNodes(tiles []maptile.Tile) map[maptile.Tile]*mergeNode {
	nodes := map[maptile.Tile]*mergeNode{}
	for i, t := range tiles {
		a := t
		for range MergeLevels {
			if a.Z == 0 {
				break
			}
			a = a.Parent()
			n := nodes[a]
			if n == nil {
				n = &mergeNode{}
				nodes[a] = n
			}
			n.members = append(n.members, i)
		}
	}
	// A candidate over a base tile farther below than MergeLevels would
	// leave that tile out of its members: it is not merged.
	for _, t := range tiles {
		a := t
		for up := 1; a.Z > 0; up++ {
			a = a.Parent()
			if n := nodes[a]; n != nil && up > MergeLevels {
				n.tooDeep = true
			}
		}
	}
	return nodes
}

// mergeOrder lists the nodes finest first, so that a node's quarters are
// settled before it.
func mergeOrder(nodes map[maptile.Tile]*mergeNode) []maptile.Tile {
	order := make([]maptile.Tile, 0, len(nodes))
	for a := range nodes {
		order = append(order, a)
	}
	slices.SortFunc(order, func(x, y maptile.Tile) int {
		if c := cmp.Compare(y.Z, x.Z); c != 0 {
			return c
		}
		return cmp.Compare(x.Quadkey(), y.Quadkey())
	})
	return order
}

// settleMerges sets each node's best expected searches, in order, and
// marks it merged when its merged search beats its quarters' plans.
func (p *Plan) settleMerges(rate float64, order []maptile.Tile, nodes map[maptile.Tile]*mergeNode, index map[maptile.Tile]int, own []float64) {
	for _, a := range order {
		n := nodes[a]
		split := 0.0
		for _, c := range a.Children() {
			if i, ok := index[c]; ok {
				split += own[i]
			} else if cn := nodes[c]; cn != nil {
				split += cn.best
			}
		}
		n.best = split
		if n.tooDeep || len(n.members) < 2 {
			continue
		}
		pages, sat := poissonPages(rate * p.People(a))
		fallback := 0.0
		for _, i := range n.members {
			fallback += own[i]
		}
		if m := pages + sat*fallback; m < split && sat < MergeSaturation {
			n.best, n.merged = m, true
		}
	}
}

// chosenMerges are the merges kept, by leader: the coarsest chosen, as a
// chosen node's quarters are inside its search.
func chosenMerges(order []maptile.Tile, nodes map[maptile.Tile]*mergeNode) []Merge {
	var out []Merge
	for _, a := range order {
		n := nodes[a]
		if !n.merged {
			continue
		}
		covered := false
		for b := a; b.Z > 0 && !covered; {
			b = b.Parent()
			if bn := nodes[b]; bn != nil && bn.merged {
				covered = true
			}
		}
		if !covered {
			out = append(out, Merge{Tile: a, Members: slices.Sorted(slices.Values(n.members)), Searches: n.best})
		}
	}
	slices.SortFunc(out, func(x, y Merge) int { return cmp.Compare(x.Leader(), y.Leader()) })
	return out
}

// Under returns the indexes (grid order) of the base tiles under tile a:
// a merged search's members.
func (p *Plan) Under(a maptile.Tile) []int {
	var out []int
	for i, t := range p.Grid.Tiles() {
		if t.Z > a.Z && a.Contains(t) {
			out = append(out, i)
		}
	}
	return out
}
