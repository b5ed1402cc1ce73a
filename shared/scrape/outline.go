package scrape

import (
	"context"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/simplify"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/zones"
)

// Caps of an estimate's map: the points of one zone's outline and the
// tiles drawn (a whole country is about 4,400 base tiles).
const (
	MaxOutlinePoints = 20_000
	MaxMapTiles      = 10_000
)

// EstimateMap is what a scrape would cover, to draw: each zone's outline
// (simplified for the screen) and the base tiles of its grid.
type EstimateMap struct {
	Zones []ZoneOutline `json:"zones"`
	// Tiles are the base tiles' bounds, [west, south, east, north] in
	// degrees, at most MaxMapTiles.
	Tiles [][4]float64 `json:"tiles"`
	// TilesTotal is the grid's count of base tiles; more than len(Tiles)
	// when the map was cut.
	TilesTotal int `json:"tiles_total"`
}

// ZoneOutline is a zone's label and outline: GeoJSON MultiPolygon
// coordinates, [longitude, latitude].
type ZoneOutline struct {
	Label    string           `json:"label"`
	Polygons [][][][2]float64 `json:"polygons"`
}

// Map is the estimate's map of a request (POST /api/estimate/map): the
// same admission as Estimate (rate limit, cleaning); a request whose zones
// do not all resolve answers the estimate's problems instead.
func (s *Service) Map(ctx context.Context, u *accounts.User, r Request) (*EstimateMap, *Plan, error) {
	p, err := s.Estimate(ctx, u, r)
	if err != nil {
		return nil, nil, err
	}
	m := &EstimateMap{Zones: []ZoneOutline{}, Tiles: [][4]float64{}}
	for _, z := range p.Zones {
		m.Zones = append(m.Zones, ZoneOutline{Label: z.Label, Polygons: outline(z.Shape)})
	}
	if p.Grid != nil {
		tiles := p.Grid.Tiles()
		m.TilesTotal = len(tiles)
		for _, t := range tiles[:min(len(tiles), MaxMapTiles)] {
			b := t.Bound()
			m.Tiles = append(m.Tiles, [4]float64{b.Min[0], b.Min[1], b.Max[0], b.Max[1]})
		}
	}
	return m, p, nil
}

// outline simplifies a shape until it has at most MaxOutlinePoints points,
// from a tolerance of a two-thousandth of its size (a pixel of a large
// screen).
func outline(shape orb.MultiPolygon) [][][][2]float64 {
	if len(shape) == 0 {
		return [][][][2]float64{}
	}
	b := shape.Bound()
	tol := max(b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]) / 2000
	mp := shape
	for range 12 {
		mp = simplify.DouglasPeucker(tol).MultiPolygon(shape.Clone())
		if points(mp) <= MaxOutlinePoints {
			break
		}
		tol *= 2
	}
	out := make([][][][2]float64, 0, len(mp))
	for _, poly := range mp {
		var rings [][][2]float64
		for _, ring := range poly {
			if len(ring) < 4 {
				continue
			}
			rs := make([][2]float64, len(ring))
			for i, pt := range ring {
				rs[i] = [2]float64{pt[0], pt[1]}
			}
			rings = append(rings, rs)
		}
		if len(rings) > 0 {
			out = append(out, rings)
		}
	}
	return out
}

func points(mp orb.MultiPolygon) int {
	n := 0
	for _, p := range mp {
		for _, r := range p {
			n += len(r)
		}
	}
	return n
}

// Complete is the zones of country whose name starts with prefix
// (zones.Resolver.Complete), for a form's suggestions as one types.
func (s *Service) Complete(country, prefix string, limit int) ([]zones.Completion, error) {
	geo, err := s.geo()
	if err != nil {
		return nil, err
	}
	out := geo.r.Complete(country, prefix, limit)
	if out == nil {
		out = []zones.Completion{}
	}
	return out, nil
}
