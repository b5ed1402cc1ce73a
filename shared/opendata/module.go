package opendata

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/registry"
)

// Columns are the registry's Produces list, in order.
var Columns = []string{"site_web", "telephone", "email", "opendata_champs", "opendata_match", "opendata_source"}

// Positions of the columns.
const (
	colSite = iota
	colPhone
	colEmail
	colChamps
	colMatch
	colSource
)

// DefaultSource names the real dataset, as jobs and opendata_source cells
// show it.
const DefaultSource = "openstreetmap"

// Module is the opendata module over the client. source names the
// dataset as the job and the opendata_source cells show it:
// DefaultSource ("openstreetmap") when "", "openstreetmap (sim)" for the
// sim twin, so that simulated data is never passed off as OSM's.
func Module(c *Client, source string) enrich.Module {
	if source == "" {
		source = DefaultSource
	}
	return &module{c: c, source: source}
}

type module struct {
	c      *Client
	source string
}

var _ enrich.Sourced = (*module)(nil)

func (m *module) Slug() string      { return registry.Opendata }
func (m *module) Columns() []string { return Columns }
func (m *module) Source() string    { return m.source }

// Reads: nom, then the cells that place the row (a scrape with the gps
// extra column writes latitude and longitude; an import may say lat and
// lon), then the row's own telephone and site_web, which tell its
// business from a homonym's (match.go, rule 5).
func (m *module) Reads() []string {
	return []string{"nom", "adresse", "code_postal", "commune", "latitude", "longitude", "lat", "lon", "telephone", "site_web"}
}

// Run enriches one row:
//
//   - no name, or nothing that places it (coordinates, a postcode, a
//     commune): every cell empty, neither found nor unreachable;
//   - Overpass unreachable after the client's attempts: every cell empty,
//     unreachable;
//   - no element is the business: opendata_match "none", the rest empty;
//   - a match: the element's website, phone and email (each empty when OSM
//     has none), its other useful tags, the kind of match and its
//     reference ("openstreetmap node/123"); found.
func (m *module) Run(ctx context.Context, _ *enrich.Env, in enrich.Input) (enrich.Result, error) {
	out := make([]string, len(Columns))
	r, ok := RowOf(in)
	if !ok {
		return enrich.Result{Values: out}, nil
	}
	e, kind, err := m.c.Lookup(ctx, r)
	switch {
	case errors.Is(err, ErrNoQuery):
		return enrich.Result{Values: out}, nil
	case err != nil:
		if ctx.Err() != nil {
			return enrich.Result{}, ctx.Err()
		}
		return enrich.Result{Values: out, Unreachable: true}, nil
	case e == nil:
		out[colMatch] = MatchNone
		return enrich.Result{Values: out}, nil
	}
	out[colSite], out[colPhone], out[colEmail] = e.Website(), e.Phone(), e.Email()
	out[colChamps] = e.Champs()
	out[colMatch] = kind
	out[colSource] = m.source + " " + e.Ref()
	return enrich.Result{Values: out, Found: true}, nil
}

// RowOf reads the cells of a row: its name, its coordinates (latitude and
// longitude, else lat and lon), the house number, street, postcode and
// commune of its adresse (code_postal and commune overriding the
// address's), its telephone and site_web. ok is false when the row has no name or nothing to place it.
func RowOf(in enrich.Input) (Row, bool) {
	r := Row{Name: cut(strings.TrimSpace(in["nom"]), maxName)}
	if normName(r.Name) == "" {
		return r, false
	}
	for _, k := range [][2]string{{"latitude", "longitude"}, {"lat", "lon"}} {
		lat, ok1 := coord(in[k[0]])
		lon, ok2 := coord(in[k[1]])
		if p := (LatLon{lat, lon}); ok1 && ok2 && p.Valid() {
			r.Point = &p
			break
		}
	}
	r.HouseNumber, r.Street, r.Postcode, r.Commune = ParseAddress(in["adresse"])
	if pc := strings.TrimSpace(in["code_postal"]); pc != "" {
		r.Postcode = pc
	}
	if c := strings.TrimSpace(in["commune"]); c != "" {
		r.Commune = c
	}
	r.Commune = cut(r.Commune, maxCommune)
	if !validPostcode(r.Postcode) {
		r.Postcode = ""
	}
	r.Phone = cut(strings.TrimSpace(in["telephone"]), maxName)
	r.Website = cut(strings.TrimSpace(in["site_web"]), 2048)
	return r, r.Point != nil || r.Postcode != "" || r.Commune != ""
}

// Bounds of the cells a query carries, in characters: no business or
// commune name is longer.
const (
	maxName    = 200
	maxCommune = 100
)

// cut is s cut to n runes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// coord reads a coordinate cell; a decimal comma ("45,79", a French
// spreadsheet's) is read as a point.
func coord(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	x, err := strconv.ParseFloat(s, 64)
	return x, err == nil
}
