package gazetteer

import (
	"math"
	"sync"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
)

// communeCell is the side, in degrees, of the cells of the commune index:
// about 5.5 km north-south, a few communes per cell in France.
const communeCell = 0.05

// communeIndex lists, per cell of a country's grid, the cities (communes)
// whose bounds meet the cell.
type communeIndex struct {
	cells map[int64][]ID
}

// communeIndexes holds the per-country commune indexes, built on first
// use: loading the gazetteer does not pay for them (the service's zones
// never ask; the simulated world does, once per generated place).
type communeIndexes struct {
	mu sync.Mutex
	by map[string]*communeIndex
}

func cellOf(pt orb.Point) (int64, int64) {
	return int64(math.Floor(pt[0] / communeCell)), int64(math.Floor(pt[1] / communeCell))
}

func cellKey(x, y int64) int64 { return x<<32 ^ (y & 0xffffffff) }

func (g *Gazetteer) communeIndex(country string) *communeIndex {
	g.communes.mu.Lock()
	defer g.communes.mu.Unlock()
	if ix, ok := g.communes.by[country]; ok {
		return ix
	}
	if g.communes.by == nil {
		g.communes.by = map[string]*communeIndex{}
	}
	ix := &communeIndex{cells: map[int64][]ID{}}
	for i := range g.places {
		p := &g.places[i]
		if p.Kind != City || p.Country != country {
			continue
		}
		b := g.Bound(p.ID)
		x0, y0 := cellOf(b.Min)
		x1, y1 := cellOf(b.Max)
		// A degenerate bound (a city spanning the antimeridian) would
		// cover the whole row: such a city keeps only its centre's cell.
		if x1-x0 > 100 || y1-y0 > 100 {
			x0, y0 = cellOf(p.Center)
			x1, y1 = x0, y0
		}
		for x := x0; x <= x1; x++ {
			for y := y0; y <= y1; y++ {
				k := cellKey(x, y)
				ix.cells[k] = append(ix.cells[k], p.ID)
			}
		}
	}
	g.communes.by[country] = ix
	return ix
}

// CommuneAt returns the commune of country (alpha-3) containing pt (lon,
// lat), or the municipal arrondissement (District) where the commune has
// them: the innermost place of the gazetteer's City and District levels.
//
// A commune with an outline contains pt when the outline does; one that is
// a disc (Radius) when pt lies within it, and where discs overlap the one
// whose centre is nearest relative to its radius wins, which shares the
// overlap between neighbours rather than giving it to the larger one.
// Within a commune that has arrondissements, the arrondissement whose
// outline holds pt is chosen, else the one whose centre is nearest
// relative to its radius, so that every point of the commune belongs to
// one. The answer is false where no commune contains pt (at sea, abroad).
func (g *Gazetteer) CommuneAt(country string, pt orb.Point) (ID, bool) {
	ix := g.communeIndex(country)
	city, ok := g.bestAt(ix.cells[cellKey(cellOf(pt))], pt, false)
	if !ok {
		return None, false
	}
	if kids := g.Children(city); len(kids) > 0 {
		if d, ok := g.bestAt(kids, pt, true); ok && g.places[d].Kind == District {
			return d, true
		}
	}
	return city, true
}

// bestAt picks among ids the place containing pt: an outline holding it
// first, else the disc with the smallest distance-to-radius ratio (at most
// 1 unless nearest is set, when any disc competes). Ties go to the lower ID.
func (g *Gazetteer) bestAt(ids []ID, pt orb.Point, nearest bool) (ID, bool) {
	best, bestScore := None, math.Inf(1)
	for _, id := range ids {
		p := &g.places[id]
		var score float64
		if p.Radius > 0 {
			score = geo.DistanceHaversine(p.Center, pt) / (p.Radius * 1000)
			if score > 1 && !nearest {
				continue
			}
		} else {
			if !g.Contains(id, pt) {
				continue
			}
			// An outline holding pt beats every disc.
			score = -1
		}
		if score < bestScore || score == bestScore && id < best {
			best, bestScore = id, score
		}
	}
	return best, best != None
}
