// Package grid turns the zones of a request into the tiles a scrape
// searches: base tiles of a quadtree over Web Mercator (z/x/y, as
// orb/maptile) that cover the zones' shapes, not their bounding boxes.
//
// Rules:
//
//   - Coverage. Every point of a zone (of its Shape, and of its Within
//     when set) lies in a base tile, and every base tile intersects a zone
//     with a positive area: a tile that only touches a zone along an edge,
//     or lies wholly outside every zone, never appears. Base tiles never
//     overlap; zones that overlap share their tiles, counted once. Shapes
//     are lon/lat (WGS 84) polygons; parts beyond Web Mercator's ±85.05°
//     cannot be covered, and polygons running past ±180° (a disc drawn
//     around a place near the antimeridian) are covered on both sides.
//
//   - Zoom. The tree is walked down from the tile holding every zone,
//     clipping the zones' polygons to each tile (orb/clip), to tiles of
//     Options.MinZoom (z10 by default, about 27 km in France). A tile is
//     split further while it is dense and above Options.MaxZoom (z16):
//     dense means it holds more than Options.PeoplePerTile people (40,000)
//     on average over its 3×3 neighbourhood in the Population index (for
//     tiles finer than z13, the neighbourhood of their z13 ancestor). The
//     neighbourhood, not the tile alone, is measured because the index
//     holds a town's people at its centre while they live around it:
//     without it a city would get one fine tile at its centre ringed by
//     coarse ones. So a whole-country grid has small tiles over Paris and
//     large ones over the countryside, even within one zone; a tile with
//     nobody in it is kept when it intersects a zone (rural land is
//     scraped too).
//
//   - Tolerance. Tiles on a zone's edge overshoot it (the sea, the
//     neighbouring department). An edge tile of which only one child
//     reaches the zones is replaced by that child: the same single search
//     over less outside. Then edge tiles are split, the most outside area
//     removed per added tile first, while one of their zones overshoots
//     Options.AreaTolerance (20%) of its area, until the tiles reach
//     MaxZoom. A zone's overshoot is the area of the tiles holding it that
//     lies outside every zone. With a single zone the total base-tile area
//     is thus between the zone's area and 1.2 times it; only a zone too
//     small or jagged for MaxZoom tiles ends above. Finer tiles would hug
//     the shapes closer, but every base tile is a search the request pays
//     for, while the outside part of an edge tile costs nothing in itself:
//     hence a tolerance, not tiles refined to the edge. The part of a tile
//     outside every zone is estimated from the zones' shares of it added
//     up, exact for zones that do not overlap (neighbouring departments;
//     gaps between them count as outside) and low where they do, so
//     overlapping zones are refined less. With Within, a tile's share in
//     the zone is taken as the smaller of its shares in Shape and Within
//     when neither covers the whole tile.
//
//   - Determinism. The same zones, population and options give the same
//     tiles in the same order: base tiles are sorted in quadkey order
//     (Z-order, which puts a tile's descendants right after it), and
//     splits happen in an order with no ties (outside area removed per
//     added tile, then quadkey). Results may differ in the last bits of
//     floating point between platforms, and so by a split or two.
//
// A Grid is immutable once built and safe for concurrent use. The scrape
// engine searches the base tiles; when a search saturates it splits the
// tile into Children, up to the scrape mode's depth (pricing.Mode.MaxDepth) levels below the base tile, and
// keeps the places that Locate puts in a zone.
package grid

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/maptile"
)

// Errors returned by Build, wrapped with context.
var (
	// ErrNoZones: Build was given no zone.
	ErrNoZones = errors.New("grid: no zones")
	// ErrEmptyZone: a zone's shape (within its Within) has no area any
	// tile can cover.
	ErrEmptyZone = errors.New("grid: zone covers no tile")
	// ErrTooManyTiles: the grid would exceed Options.MaxTiles.
	ErrTooManyTiles = errors.New("grid: too many tiles")
	// ErrOptions: the options are inconsistent.
	ErrOptions = errors.New("grid: invalid options")
)

// Defaults of Options; a zero field takes its default.
const (
	// DefaultMinZoom is z10: tiles of about 27 km at France's latitudes
	// (730 km²), as coarse as rural land needs. Coarser starts would only
	// save the split work, since any populated tile splits anyway.
	DefaultMinZoom maptile.Zoom = 10
	// DefaultMaxZoom is z16: tiles of about 420 m (0.18 km²). Density
	// hardly splits below z15 (about 0.7 km², some 14,000 people in
	// central Paris); z16 is there for edges, so that a city disc of a few
	// kilometres meets the area tolerance.
	DefaultMaxZoom maptile.Zoom = 16
	// DefaultPeoplePerTile: a base tile holds up to about 40,000 people,
	// so that the densest common category (restaurants, about one per 330
	// people) about fills one search, the map returning at most some 120
	// places; rarer categories then never saturate, denser ones split at
	// run time as the scrape mode allows. A smaller value buys more
	// searches everywhere for what splits would only find where needed.
	DefaultPeoplePerTile int64 = 40000
	// DefaultAreaTolerance: edge tiles may overshoot a zone by half its
	// area. Refining edges costs searches, which are what a scrape pays
	// for, while the outside part of an edge tile costs nothing in itself,
	// so the refinement only trims what would be gross: a coastal
	// department whose large edge tiles reach far over the sea. Measured
	// on the real gazetteer (tiles, tile area / real area): Finistère 61 /
	// 1.83 unrefined, 66 / 1.50 at 0.5, 134 / 1.20 at 0.2; Corse-du-Sud
	// 13 / 2.40, 34 / 1.48, 89 / 1.19; the Rhône 126 / 1.48 at 0.5 and
	// 161 / 1.20 at 0.2; France 4,401 / 1.13 whatever the tolerance.
	// math.Inf(1) turns the refinement off.
	DefaultAreaTolerance = 0.5
	// DefaultMaxTiles: a safety cap. France as 101 departments takes a few
	// thousand tiles; 250,000 base tiles is far beyond any sensible
	// request and still builds in well under a second.
	DefaultMaxTiles = 250000
)

// smoothZoom is the finest zoom at which density is measured. Its 3×3
// blocks are about 10 km wide (100 km² in France, the size of Paris), the
// area over which a city's people, indexed at its centre, actually live;
// finer tiles take their share of the block around their ancestor at that
// zoom. Measured finer, a city indexed as one point (Paris's 2.1 million
// at its centre) would look far denser around that point than it is, and
// differently so than the same city indexed by its districts; at z13 both
// give Paris the same tiles.
const smoothZoom maptile.Zoom = 13

// MaxZoomLimit is the deepest MaxZoom Options accept: tiles of a few
// metres, with room below for the scrape mode's run-time splits.
const MaxZoomLimit maptile.Zoom = 24

// Options tune Build; zero fields take the Default* values.
type Options struct {
	// MinZoom is the zoom of the coarsest base tiles.
	MinZoom maptile.Zoom
	// MaxZoom is the zoom of the finest base tiles; at most MaxZoomLimit.
	MaxZoom maptile.Zoom
	// PeoplePerTile is the population above which a tile is split (on
	// average over its 3×3 neighbourhood).
	PeoplePerTile int64
	// AreaTolerance is the share of a zone's area its edge tiles may
	// overshoot by; must not be negative.
	AreaTolerance float64
	// MaxTiles caps the number of base tiles; Build fails beyond it.
	MaxTiles int
}

// withDefaults fills the zero fields and checks the result.
func (o Options) withDefaults() (Options, error) {
	if o.MinZoom == 0 {
		o.MinZoom = DefaultMinZoom
	}
	if o.MaxZoom == 0 {
		o.MaxZoom = max(DefaultMaxZoom, o.MinZoom)
	}
	if o.PeoplePerTile == 0 {
		o.PeoplePerTile = DefaultPeoplePerTile
	}
	if o.AreaTolerance == 0 {
		o.AreaTolerance = DefaultAreaTolerance
	}
	if o.MaxTiles == 0 {
		o.MaxTiles = DefaultMaxTiles
	}
	switch {
	case o.MinZoom > o.MaxZoom:
		return o, fmt.Errorf("%w: MinZoom %d above MaxZoom %d", ErrOptions, o.MinZoom, o.MaxZoom)
	case o.MaxZoom > MaxZoomLimit:
		return o, fmt.Errorf("%w: MaxZoom %d above %d", ErrOptions, o.MaxZoom, MaxZoomLimit)
	case o.PeoplePerTile < 0:
		return o, fmt.Errorf("%w: negative PeoplePerTile %d", ErrOptions, o.PeoplePerTile)
	case o.AreaTolerance < 0 || math.IsNaN(o.AreaTolerance):
		return o, fmt.Errorf("%w: AreaTolerance %v", ErrOptions, o.AreaTolerance)
	case o.MaxTiles < 0:
		return o, fmt.Errorf("%w: negative MaxTiles %d", ErrOptions, o.MaxTiles)
	}
	return o, nil
}

// Zone is one resolved zone of a request.
type Zone struct {
	// Label is shown in breakdowns, e.g. "Lyon (69)".
	Label string
	// Shape is the zone's outline in lon/lat (WGS 84); a city may be a
	// disc (a 48-gon). Overlapping polygons and shared borders are fine.
	Shape orb.MultiPolygon
	// Within, when not empty, limits the zone further: its tiles must also
	// intersect Within and its points lie in it (a coastal city's disc is
	// limited to its department's land).
	Within orb.MultiPolygon
	// Nested says the zone lies wholly inside another zone of the same
	// Build (an arrondissement beside its city): its points are located
	// as any zone's, but the tiles are its container's. It adds nothing
	// to a tile's cover and never asks for a split, so that naming a part
	// of a zone beside it changes no tile; without it the parts' shares
	// would be added to the container's and an edge tile counted covered.
	Nested bool
}

// Grid is the set of base tiles covering the zones of a request.
type Grid struct {
	cells []cell // sorted by lo; disjoint
	area  float64
	opt   Options
	// members lists, for each distinct outline (Shape and Within), the
	// zones that have it, ascending: a zone given twice is one outline.
	members [][]int
}

// cell is one base tile with the parts of the zones it holds.
type cell struct {
	tile   maptile.Tile
	lo, hi uint64 // span of the tile's descendants at keyZoom
	area   float64
	pieces []piece
	split  *split // while building: how an edge cell would split
}

// Build covers zones with base tiles sized by pop (nil: no density
// splits, every tile stays at MinZoom unless on an edge). It fails with
// ErrNoZones, ErrEmptyZone, ErrTooManyTiles or ErrOptions, wrapped.
func Build(zones []Zone, pop *Population, opt Options) (*Grid, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(zones) == 0 {
		return nil, ErrNoZones
	}
	b := &builder{pop: pop, opt: opt}
	if pop == nil || pop.Len() == 0 {
		b.pop = nil
	}

	// One quadtree for all zones, so that they share tiles: its root is
	// the smallest tile (at MinZoom or above) holding every zone's bound.
	// Zones with the same outline are one piece: their overshoot is the
	// same, and adding their shares of a tile would count it twice.
	var top []piece
	var bound orb.Bound
	// Nested zones need their container beside them: without one, none
	// is taken as nested.
	outer := slices.ContainsFunc(zones, func(z Zone) bool { return !z.Nested })
	for i, z := range zones {
		z.Nested = z.Nested && outer
		same := slices.IndexFunc(b.members, func(m []int) bool {
			o := zones[m[0]]
			return o.Shape.Equal(z.Shape) && o.Within.Equal(z.Within) && (o.Nested && outer) == z.Nested
		})
		if same >= 0 {
			b.members[same] = append(b.members[same], i)
			continue
		}
		p := piece{outline: int32(len(b.members)), shape: parts(z.Shape), frac: 1, nested: z.Nested}
		if len(z.Within) > 0 {
			p.within = parts(z.Within)
		}
		pb, ok := pieceBound(p)
		if !ok {
			return nil, fmt.Errorf("zone %d %q: %w", i, z.Label, ErrEmptyZone)
		}
		if len(top) == 0 {
			bound = pb
		} else {
			bound = bound.Union(pb)
		}
		top = append(top, p)
		b.members = append(b.members, []int{i})
	}
	b.budget = make([]float64, len(b.members))
	b.over = make([]float64, len(b.members))
	root := tileAt(bound.Min, opt.MinZoom).SharedParent(tileAt(bound.Max, opt.MinZoom))
	if ps := clipPieces(top, root.Bound(), nil); len(ps) > 0 {
		if err := b.descend(root, ps); err != nil {
			return nil, err
		}
	}
	if err := b.refine(); err != nil {
		return nil, err
	}
	return b.grid(zones, opt)
}

// pieceBound is the bound of the part of p tiles can hold; false when
// there is none.
func pieceBound(p piece) (orb.Bound, bool) {
	b, ok := partsBound(p.shape)
	if p.within != nil {
		w, wok := partsBound(p.within)
		if !ok || !wok || !b.Intersects(w) {
			return b, false
		}
		b = clip.Bound(b, w)
	}
	world := orb.Bound{Min: orb.Point{-180, -maxLat}, Max: orb.Point{180, maxLat}}
	if !ok || !b.Intersects(world) {
		return b, false
	}
	return clip.Bound(b, world), true
}

// builder holds the state of one Build.
type builder struct {
	pop     *Population
	opt     Options
	cells   []cell
	dead    []bool    // cells split by refine
	live    int       // cells not dead
	members [][]int   // per outline: its zones (see Grid)
	budget  []float64 // per outline: overshoot allowed, m²
	over    []float64 // per outline: overshoot of the current cells, m²
}

// descend splits t while it is above MinZoom or dense, then records it as
// a cell. ps are the zones' parts in t, none empty.
func (b *builder) descend(t maptile.Tile, ps []piece) error {
	if t.Z < b.opt.MinZoom || (t.Z < b.opt.MaxZoom && b.dense(t)) {
		for _, c := range children(t) {
			cps := clipPieces(ps, c.Bound(), nil)
			if len(cps) == 0 {
				continue
			}
			if err := b.descend(c, cps); err != nil {
				return err
			}
		}
		return nil
	}
	return b.leaf(t, ps)
}

// leaf records t as a cell. An edge tile of which a single child reaches
// the zones is replaced by that child, repeatedly: the same one search
// over less of the outside.
func (b *builder) leaf(t maptile.Tile, ps []piece) error {
	for {
		var s *split
		if t.Z < b.opt.MaxZoom && uncovered(ps) {
			s = new(split)
			n, last := 0, 0
			for i, c := range children(t) {
				cb := c.Bound()
				if s.pieces[i] = clipPieces(ps, cb, nil); len(s.pieces[i]) > 0 {
					n, last = n+1, i
					s.over[i] = overshoot(s.pieces[i], tileArea(cb))
				}
			}
			switch n {
			case 0: // parts too small to divide: t stays whole
				s = nil
			case 1:
				t, ps = children(t)[last], s.pieces[last]
				continue
			}
		}
		return b.add(t, ps, s)
	}
}

// split is the zones' parts in the children of an edge cell and their
// overshoots, m², computed once for leaf and used again by refine.
type split struct {
	pieces [4][]piece
	over   [4]float64
}

// uncovered reports whether the zones leave part of a tile outside.
func uncovered(ps []piece) bool { return cover(ps) < 1-eps }

// cover is the share of a tile the zones whose parts in it are ps cover,
// added up; a nested zone's part lies in its container's and adds none.
func cover(ps []piece) float64 {
	c := 0.0
	for _, p := range ps {
		if !p.nested {
			c += p.frac
		}
	}
	return c
}

// dense reports whether t holds more than PeoplePerTile people on
// average over its neighbourhood: the 3×3 block of tiles around it, or
// for tiles finer than smoothZoom the block around its ancestor at
// smoothZoom, shared out evenly (see the package comment for why).
func (b *builder) dense(t maptile.Tile) bool {
	if b.pop == nil {
		return false
	}
	z := min(t.Z, smoothZoom)
	a := maptile.Tile{X: t.X >> (t.Z - z), Y: t.Y >> (t.Z - z), Z: z}
	// 9 tiles at z make 9 × 4^(t.Z-z) tiles at t.Z. Capping the people
	// per tile (at 30 times the world's population) keeps this in range.
	limit := 9 * min(b.opt.PeoplePerTile, 1<<38) << (2 * (t.Z - z))
	n := uint32(1) << z
	var sum int64
	for dy := -1; dy <= 1; dy++ {
		y := int64(a.Y) + int64(dy)
		if y < 0 || y >= int64(n) {
			continue
		}
		for dx := -1; dx <= 1; dx++ {
			// x wraps around the antimeridian; y does not cross the poles.
			x := (a.X + uint32(dx) + n) % n
			if sum += b.pop.In(maptile.Tile{X: x, Y: uint32(y), Z: z}); sum > limit {
				return true
			}
		}
	}
	return false
}

// add records a cell; s is its split, nil when it will not be split.
func (b *builder) add(t maptile.Tile, ps []piece, s *split) error {
	if b.live >= b.opt.MaxTiles {
		return fmt.Errorf("%w: more than %d", ErrTooManyTiles, b.opt.MaxTiles)
	}
	lo, hi := span(t)
	b.cells = append(b.cells, cell{tile: t, lo: lo, hi: hi, area: tileArea(t.Bound()), pieces: ps, split: s})
	b.dead = append(b.dead, false)
	b.live++
	return nil
}

// overshoot is the area of a tile of area m² outside the zones whose
// parts in it are ps, m². The zones' shares are added up: parts of
// different zones rarely overlap within a tile (neighbours share an edge),
// and where they do the overshoot is underestimated, never invented.
func overshoot(ps []piece, area float64) float64 {
	cover := cover(ps)
	if cover >= 1-eps {
		return 0
	}
	return area * (1 - cover)
}

// attribute adds sign × c's overshoot to each of its zones: a zone's
// overshoot is the part of its tiles outside every zone, whichever other
// zones share them (a zone given twice is refined as if once).
func (b *builder) attribute(c *cell, sign float64) {
	over := overshoot(c.pieces, c.area)
	if over == 0 {
		return
	}
	for _, p := range c.pieces {
		if !p.nested {
			b.over[p.outline] += sign * over
		}
	}
}

// refine splits edge cells, best first (see queue.push), while one of
// their zones overshoots its budget (see the package comment).
func (b *builder) refine() error {
	for i := range b.cells {
		c := &b.cells[i]
		for _, p := range c.pieces {
			if !p.nested {
				b.budget[p.outline] += b.opt.AreaTolerance * p.frac * c.area
			}
		}
		b.attribute(c, 1)
	}
	q := &queue{cells: &b.cells}
	for i := range b.cells {
		q.push(i)
	}
	heap.Init(q)
	for q.Len() > 0 {
		i := heap.Pop(q).(int)
		if !b.overBudget(&b.cells[i]) {
			continue
		}
		parent := b.cells[i]
		b.attribute(&parent, -1)
		b.dead[i] = true
		b.cells[i].split = nil
		b.live--
		for k, t := range children(parent.tile) {
			if len(parent.split.pieces[k]) == 0 {
				continue
			}
			if err := b.leaf(t, parent.split.pieces[k]); err != nil {
				return err
			}
			j := len(b.cells) - 1
			b.attribute(&b.cells[j], 1)
			if q.push(j) {
				heap.Fix(q, q.Len()-1)
			}
		}
	}
	return nil
}

// overBudget reports whether one of c's zones overshoots its budget.
func (b *builder) overBudget(c *cell) bool {
	for _, p := range c.pieces {
		// The relative slack absorbs rounding in the running sums.
		if b.over[p.outline] > b.budget[p.outline]*(1+1e-9) {
			return true
		}
	}
	return false
}

// grid assembles the result and checks that every zone got a tile.
func (b *builder) grid(zones []Zone, opt Options) (*Grid, error) {
	g := &Grid{opt: opt, members: b.members, cells: make([]cell, 0, b.live)}
	seen := make([]bool, len(b.members))
	for i := range b.cells {
		if b.dead[i] {
			continue
		}
		c := b.cells[i]
		c.split = nil
		g.cells = append(g.cells, c)
		g.area += c.area
		for _, p := range c.pieces {
			seen[p.outline] = true
		}
	}
	for o, ok := range seen {
		if !ok {
			i := b.members[o][0]
			return nil, fmt.Errorf("zone %d %q: %w", i, zones[i].Label, ErrEmptyZone)
		}
	}
	slices.SortFunc(g.cells, func(a, b cell) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	return g, nil
}

// queue is a max-heap of cell indexes by priority, then by quadkey order
// so that the order of splits, and thus the grid, has no ties.
type queue struct {
	cells *[]cell
	idx   []int
	key   []float64
}

// push adds cell i if it overshoots and may be split (its split is
// known); it reports whether it did (heap.Fix must follow outside
// heap.Init).
func (q *queue) push(i int) bool {
	c := &(*q.cells)[i]
	if c.split == nil {
		return false
	}
	over := overshoot(c.pieces, c.area)
	if over <= eps*c.area {
		return false
	}
	// The key is the outside area a split removes per search it adds,
	// since base tiles are what a scrape pays for. A tile whose outside
	// lies in all its children removes none at once but its descendants
	// will: it ranks by a quarter of its overshoot.
	n, left := 0, 0.0
	for k := range c.split.pieces {
		if len(c.split.pieces[k]) > 0 {
			n++
			left += c.split.over[k]
		}
	}
	q.idx = append(q.idx, i)
	q.key = append(q.key, max(over-left, over/4)/float64(n-1))
	return true
}

func (q *queue) Len() int { return len(q.idx) }
func (q *queue) Less(i, j int) bool {
	if q.key[i] != q.key[j] {
		return q.key[i] > q.key[j]
	}
	return (*q.cells)[q.idx[i]].lo < (*q.cells)[q.idx[j]].lo
}
func (q *queue) Swap(i, j int) {
	q.idx[i], q.idx[j] = q.idx[j], q.idx[i]
	q.key[i], q.key[j] = q.key[j], q.key[i]
}

// Push is unused: push appends, then heap.Fix sifts.
func (q *queue) Push(any) { panic("grid: queue.Push") }
func (q *queue) Pop() any {
	n := len(q.idx) - 1
	i := q.idx[n]
	q.idx, q.key = q.idx[:n], q.key[:n]
	return i
}

// Len is the number of base tiles.
func (g *Grid) Len() int { return len(g.cells) }

// Tiles returns the base tiles in quadkey order (a new slice).
func (g *Grid) Tiles() []maptile.Tile {
	ts := make([]maptile.Tile, len(g.cells))
	for i := range g.cells {
		ts[i] = g.cells[i].tile
	}
	return ts
}

// AreaKm2 is the total area of the base tiles, km².
func (g *Grid) AreaKm2() float64 { return g.area / 1e6 }

// Options returns the options the grid was built with, defaults filled.
func (g *Grid) Options() Options { return g.opt }

// find returns the index of the cell whose span holds key, or -1.
func (g *Grid) find(key uint64) int {
	i := sort.Search(len(g.cells), func(i int) bool { return g.cells[i].lo > key }) - 1
	if i < 0 || key >= g.cells[i].hi {
		return -1
	}
	return i
}

// ZonesOf returns the indexes (into the zones given to Build, ascending)
// of the zones that intersect t with a positive area: for a base tile,
// the zones it was built for; for a descendant of a base tile (a run-time
// split), those of its base tile that still reach it; for an ancestor of
// base tiles, those of the base tiles within it. Nil when t is outside
// the grid.
func (g *Grid) ZonesOf(t maptile.Tile) []int {
	if t.Z > keyZoom || !t.Valid() {
		return nil
	}
	lo, hi := span(t)
	if i := g.find(lo); i >= 0 {
		c := &g.cells[i]
		switch {
		case c.tile == t:
			return g.zonesOf(nil, c.pieces)
		case c.tile.Z < t.Z:
			return g.zonesOf(nil, clipPieces(c.pieces, t.Bound(), nil))
		}
	}
	j := sort.Search(len(g.cells), func(j int) bool { return g.cells[j].lo >= lo })
	var zs []int
	for ; j < len(g.cells) && g.cells[j].lo < hi; j++ {
		zs = g.zonesOf(zs, g.cells[j].pieces)
	}
	return slices.Compact(zs)
}

// zonesOf adds the zones of ps to zs and sorts them; nil when none.
func (g *Grid) zonesOf(zs []int, ps []piece) []int {
	for _, p := range ps {
		zs = append(zs, g.members[p.outline]...)
	}
	slices.Sort(zs)
	return zs
}

// Children returns the children of t, in quadkey order, that intersect a
// zone: the tiles a split of a saturated t searches. t is a base tile or
// one of its descendants (or an ancestor of base tiles).
func (g *Grid) Children(t maptile.Tile) []maptile.Tile {
	if t.Z >= keyZoom {
		return nil
	}
	var out []maptile.Tile
	for _, c := range children(t) {
		if len(g.ZonesOf(c)) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Locate returns the zones (ascending indexes) containing pt, respecting
// Within; none means pt is outside the request. Points on a zone's edge
// are inside it; longitudes are taken modulo 360°.
func (g *Grid) Locate(pt orb.Point) []int {
	if math.IsNaN(pt[0]) || math.IsNaN(pt[1]) || math.IsInf(pt[0], 0) || pt[1] < -maxLat || pt[1] > maxLat {
		return nil
	}
	if pt[0] < -180 || pt[0] > 180 {
		pt[0] = math.Remainder(pt[0], 360)
	}
	i := g.find(pointKey(pt))
	if i < 0 {
		return nil
	}
	var zs []int
	for _, p := range g.cells[i].pieces {
		// The parts are clipped to the tile, so each test is against a
		// few edges rather than the whole outline.
		if (p.shape == nil || contains(p.shape, pt)) && (p.within == nil || contains(p.within, pt)) {
			zs = append(zs, g.members[p.outline]...)
		}
	}
	slices.Sort(zs)
	return zs
}
