package enrich

import (
	"context"
	"errors"

	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/opendata"
)

// OpendataModule is the opendata module over the client. source names
// the dataset as the job and the opendata_source cells show it:
// opendata.DefaultSource ("openstreetmap") when "", "openstreetmap (sim)"
// for the sim twin, so that simulated data is never passed off as OSM's.
func OpendataModule(c *opendata.Client, source string) Module {
	if source == "" {
		source = opendata.DefaultSource
	}
	return &opendataModule{c: c, source: source}
}

type opendataModule struct {
	c      *opendata.Client
	source string
}

var _ Sourced = (*opendataModule)(nil)

func (m *opendataModule) Slug() string      { return modules.Opendata }
func (m *opendataModule) Columns() []string { return opendata.Columns }
func (m *opendataModule) Source() string    { return m.source }

// Reads: nom, then the cells that place the row (a scrape with the gps
// extra column writes latitude and longitude; an import may say lat and
// lon), then the row's own telephone and site_web, which tell its
// business from a homonym's (opendata's match.go, rule 5).
func (m *opendataModule) Reads() []string {
	return []string{"nom", "adresse", "code_postal", "commune", "latitude", "longitude", "lat", "lon", "telephone", "site_web"}
}

// Run enriches one row:
//
//   - no name, or nothing that places it (coordinates, a postcode, a
//     commune): every cell empty, neither found nor unreachable;
//   - Overpass unreachable after the client's attempts: every cell empty,
//     unreachable;
//   - no element is the business: opendata_match "none", the rest empty;
//   - a match: opendata.Cells; found.
func (m *opendataModule) Run(ctx context.Context, _ *Env, in Input) (Result, error) {
	empty := make([]string, len(opendata.Columns))
	r, ok := opendata.RowOf(in)
	if !ok {
		return Result{Values: empty}, nil
	}
	e, kind, err := m.c.Lookup(ctx, r)
	switch {
	case errors.Is(err, opendata.ErrNoQuery):
		return Result{Values: empty}, nil
	case err != nil:
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{Values: empty, Unreachable: true}, nil
	case e == nil:
		return Result{Values: opendata.Cells(nil, opendata.MatchNone, m.source)}, nil
	}
	return Result{Values: opendata.Cells(e, kind, m.source), Found: true}, nil
}
