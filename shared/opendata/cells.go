package opendata

import (
	"strconv"
	"strings"
)

// Columns are the opendata module's Produces list, in order: a row's
// Cells (enrich.OpendataModule binds the module).
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

// Cells are a row's cells once looked up: for no element (e nil), the
// kind of match alone (MatchNone); for a match, the element's website,
// phone and email (each empty when OSM has none), its other useful tags,
// the kind of match and its reference behind source ("openstreetmap
// node/123").
func Cells(e *Element, kind, source string) []string {
	out := make([]string, len(Columns))
	out[colMatch] = kind
	if e == nil {
		return out
	}
	out[colSite], out[colPhone], out[colEmail] = e.Website(), e.Phone(), e.Email()
	out[colChamps] = e.Champs()
	out[colSource] = source + " " + e.Ref()
	return out
}

// RowOf reads the cells of a row: its name, its coordinates (latitude and
// longitude, else lat and lon), the house number, street, postcode and
// commune of its adresse (code_postal and commune overriding the
// address's), its telephone and site_web. ok is false when the row has no name or nothing to place it.
func RowOf(in map[string]string) (Row, bool) {
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
