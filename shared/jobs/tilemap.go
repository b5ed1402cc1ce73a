package jobs

import "context"

// MapTile is one base tile of a job's grid on GET /api/jobs/{id}/map.
type MapTile struct {
	Z uint32 `json:"z"`
	X uint32 `json:"x"`
	Y uint32 `json:"y"`
	// Bounds are west, south, east, north in degrees (WGS 84).
	Bounds [4]float64 `json:"bounds"`
	// Processed is 1 once every query was searched on the tile (its
	// subdivisions may still run), else 0.
	Processed float64 `json:"processed"`
}

// TileMap is the body of GET /api/jobs/{id}/map.
type TileMap struct {
	Tiles          []MapTile `json:"tiles"`
	ProcessedRatio float64   `json:"processed_ratio"`
}

// Map returns the job's base tiles with their bounds and whether each was
// processed: the grid comes from the job's own settings, the progress from
// the engine's ledger (root task r<n+1> done for the n-th tile).
func (s *Service) Map(ctx context.Context, uid int64, id string) (*TileMap, error) {
	j, err := s.Get(ctx, uid, id)
	if err != nil {
		return nil, err
	}
	_, p, err := s.plan(requestOf(j))
	if err != nil {
		return nil, err
	}
	done, _, err := s.rootProgress(ctx, id)
	if err != nil {
		return nil, err
	}
	roots := map[int]bool{}
	for _, n := range j.Roots {
		roots[n] = true
	}
	out := &TileMap{Tiles: []MapTile{}}
	processed := 0
	for n, t := range p.Grid.Tiles() {
		if j.Roots != nil && !roots[n] {
			continue // a resume covers only what its source left
		}
		b := t.Bound()
		mt := MapTile{Z: uint32(t.Z), X: t.X, Y: t.Y, Bounds: [4]float64{b.Min[0], b.Min[1], b.Max[0], b.Max[1]}}
		if done[n] || j.Status == Done {
			mt.Processed = 1
			processed++
		}
		out.Tiles = append(out.Tiles, mt)
	}
	if len(out.Tiles) > 0 {
		out.ProcessedRatio = float64(processed) / float64(len(out.Tiles))
	}
	return out, nil
}
