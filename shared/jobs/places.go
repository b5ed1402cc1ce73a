package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/prospectdata/svc/shared/blob"
)

// MaxMapPlaces bounds the places a scrape keeps to be drawn on its map.
const MaxMapPlaces = 5000

// PlacesKey is the file of a scrape's places to draw: the first
// MaxMapPlaces rows of its output with their coordinates, which the CSV
// does not carry (the finalizer writes it beside the output).
func PlacesKey(id string) string { return "jobs/" + id + "/places.json" }

// MapPlace is one place of a scrape's map.
type MapPlace struct {
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
	Name string  `json:"nom"`
}

// MapPlaces is the body of GET /api/jobs/{id}/places.
type MapPlaces struct {
	Places []MapPlace `json:"places"`
	// Total is the rows of the output; more than len(Places) when the
	// map was cut at MaxMapPlaces.
	Total int `json:"total"`
}

// Places returns a scrape's places to draw; none for a job without them
// (not a scrape, not finalized, or finalized before they were kept).
func (s *Service) Places(ctx context.Context, uid int64, id string) (*MapPlaces, error) {
	j, err := s.Get(ctx, uid, id)
	if err != nil {
		return nil, err
	}
	out := &MapPlaces{Places: []MapPlace{}, Total: j.ResultsCount}
	if s.d.Files == nil {
		return out, nil
	}
	rc, _, err := s.d.Files.Open(ctx, PlacesKey(id))
	if errors.Is(err, blob.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("places of %s: %w", id, err)
	}
	defer rc.Close()
	if err := json.NewDecoder(io.LimitReader(rc, 1<<20)).Decode(&out.Places); err != nil {
		return nil, fmt.Errorf("places of %s: %w", id, err)
	}
	return out, nil
}
