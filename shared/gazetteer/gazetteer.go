// Package gazetteer holds the places a scrape zone can name: countries,
// their first-level regions, French departments (and the second level of
// other countries where the data has one), cities (every French commune)
// and French municipal arrondissements, each with its names in the usual
// languages, codes, population, centre and shape.
//
// A Gazetteer is immutable once built and safe for concurrent use. The
// service loads the generated one (docs/gazetteer.md); tests build small
// ones with New.
package gazetteer

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/planar"
)

// ID identifies a place within one gazetteer: its index in Places.
type ID int32

// None is the ID of no place (the parent of a country).
const None ID = -1

// Kind is the level of a place.
type Kind uint8

// The kinds, from the largest. Each place's Parent is of a larger kind.
const (
	// Country: a whole country (ISO 3166-1).
	Country Kind = iota + 1
	// Region: the first administrative level: French région, German Land,
	// US state, Spanish comunidad autónoma.
	Region
	// Department: the second level where the country has one: French
	// département, Spanish or Italian provincia.
	Department
	// City: a French commune, or a city elsewhere.
	City
	// District: a municipal arrondissement (Paris, Lyon, Marseille).
	District
)

var kindNames = [...]string{Country: "country", Region: "region", Department: "department", City: "city", District: "district"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Place is one entry of the gazetteer.
type Place struct {
	ID   ID
	Kind Kind
	// Country is the ISO 3166-1 alpha-3 code of the place's country.
	Country string
	// Code identifies the place within its country and kind: for France
	// the INSEE code (commune "69123", arrondissement "75111", department
	// "69", "2A", "971", region "84"), for a country its alpha-3 code,
	// elsewhere the ISO 3166-2 code of a region or department ("DE-BY")
	// and the GeoNames id of a city.
	Code string
	// Name is the name shown to users, in the country's own language.
	Name string
	// Aliases are the other names the place answers to: other languages,
	// ASCII spellings, short forms.
	Aliases []string
	// Parent is the enclosing place: a district's city, a city's
	// department (its region where the country has no departments), a
	// department's region, a region's country; None for a country.
	Parent ID
	// Population is the latest census population; 0 when unknown.
	Population int64
	// Center is a point inside the place (lon, lat, WGS 84): the town
	// hall of a city, the label point of an area.
	Center orb.Point
	// Radius, in kilometres, is set on places whose shape is a disc around
	// Center (cities and districts, whose outlines the data lacks); 0 on
	// places with a polygon.
	Radius float64
	// AreaKm2 is the area of the place's shape.
	AreaKm2 float64
	// Postcodes are the postal codes of a French commune or district.
	Postcodes []string
}

// Name is one normalised name of a place, for fuzzy matching.
type Name struct {
	Norm string
	ID   ID
}

// Gazetteer is a loaded set of places with its lookup indexes.
type Gazetteer struct {
	places []Place
	shape  func(ID) orb.MultiPolygon

	byName map[nameKey][]ID // normalised name -> places, most populous first
	byCode map[codeKey]ID
	byPost map[nameKey][]ID
	names  map[string][]Name // country -> its places' names, sorted by Norm
	kids   [][]ID
	bounds []orb.Bound
}

type nameKey struct{ country, norm string }

type codeKey struct {
	country string
	kind    Kind
	code    string
}

// ErrInvalid reports places that do not form a gazetteer.
var ErrInvalid = errors.New("gazetteer: invalid places")

// New builds a gazetteer over places, where places[i].ID == i. shape
// returns the polygon of a place without a Radius (it may decode lazily,
// and must return the same value every time); it is never called for
// disc-shaped places.
func New(places []Place, shape func(ID) orb.MultiPolygon) (*Gazetteer, error) {
	g := &Gazetteer{
		places: places,
		shape:  shape,
		byName: make(map[nameKey][]ID, len(places)*2),
		byCode: make(map[codeKey]ID, len(places)),
		byPost: map[nameKey][]ID{},
		names:  map[string][]Name{},
		kids:   make([][]ID, len(places)),
	}
	for i := range places {
		p := &places[i]
		if p.ID != ID(i) {
			return nil, fmt.Errorf("%w: place %d has ID %d", ErrInvalid, i, p.ID)
		}
		if p.Kind < Country || p.Kind > District || p.Country == "" || p.Name == "" {
			return nil, fmt.Errorf("%w: place %d (%q): kind, country and name are required", ErrInvalid, i, p.Name)
		}
		if p.Parent != None {
			if p.Parent < 0 || int(p.Parent) >= len(places) || places[p.Parent].Kind >= p.Kind {
				return nil, fmt.Errorf("%w: place %d (%q): parent %d is not a larger place", ErrInvalid, i, p.Name, p.Parent)
			}
			g.kids[p.Parent] = append(g.kids[p.Parent], p.ID)
		} else if p.Kind != Country {
			return nil, fmt.Errorf("%w: place %d (%q) has no parent", ErrInvalid, i, p.Name)
		}
		ck := codeKey{p.Country, p.Kind, p.Code}
		if _, dup := g.byCode[ck]; dup && p.Code != "" {
			return nil, fmt.Errorf("%w: two %s places with code %s in %s", ErrInvalid, p.Kind, p.Code, p.Country)
		}
		if p.Code != "" {
			g.byCode[ck] = p.ID
		}
		seen := map[string]bool{}
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			norm := Normalize(n)
			if norm == "" || seen[norm] {
				continue
			}
			seen[norm] = true
			k := nameKey{p.Country, norm}
			g.byName[k] = append(g.byName[k], p.ID)
			g.names[p.Country] = append(g.names[p.Country], Name{norm, p.ID})
		}
		for _, pc := range p.Postcodes {
			k := nameKey{p.Country, pc}
			g.byPost[k] = append(g.byPost[k], p.ID)
		}
	}
	byPop := func(ids []ID) {
		sort.SliceStable(ids, func(a, b int) bool { return places[ids[a]].Population > places[ids[b]].Population })
	}
	for _, ids := range g.byName {
		byPop(ids)
	}
	for _, ids := range g.byPost {
		byPop(ids)
	}
	for _, ns := range g.names {
		sort.Slice(ns, func(a, b int) bool {
			if ns[a].Norm != ns[b].Norm {
				return ns[a].Norm < ns[b].Norm
			}
			return ns[a].ID < ns[b].ID
		})
	}
	g.bounds = make([]orb.Bound, len(places))
	for i := range places {
		g.bounds[i] = g.Shape(ID(i)).Bound()
	}
	return g, nil
}

// Len is the number of places.
func (g *Gazetteer) Len() int { return len(g.places) }

// Place returns the place with id; it panics on an ID of another gazetteer.
func (g *Gazetteer) Place(id ID) *Place { return &g.places[id] }

// Children are the places whose parent is id.
func (g *Gazetteer) Children(id ID) []ID { return g.kids[id] }

// Countries are the countries of the gazetteer, by name.
func (g *Gazetteer) Countries() []ID {
	var out []ID
	for i := range g.places {
		if g.places[i].Kind == Country {
			out = append(out, ID(i))
		}
	}
	sort.Slice(out, func(a, b int) bool { return g.places[out[a]].Name < g.places[out[b]].Name })
	return out
}

// Country returns the country with the ISO 3166-1 alpha-3 or alpha-2 code
// (any case).
func (g *Gazetteer) Country(code string) (ID, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if id, ok := g.byCode[codeKey{code, Country, code}]; ok {
		return id, true
	}
	if len(code) == 2 {
		for _, id := range g.Countries() {
			for _, a := range g.places[id].Aliases {
				if a == code {
					return id, true
				}
			}
		}
	}
	return None, false
}

// Lookup returns the places of country (alpha-3) whose name or an alias
// normalises to Normalize(name), most populous first.
func (g *Gazetteer) Lookup(country, name string) []ID {
	return g.byName[nameKey{country, Normalize(name)}]
}

// ByCode returns the place of country with the kind and code.
func (g *Gazetteer) ByCode(country string, kind Kind, code string) (ID, bool) {
	id, ok := g.byCode[codeKey{country, kind, code}]
	return id, ok
}

// ByPostcode returns the places of country with the postal code, most
// populous first.
func (g *Gazetteer) ByPostcode(country, code string) []ID {
	return g.byPost[nameKey{country, code}]
}

// Names returns the normalised names of the places of country, sorted,
// for fuzzy matching. The slice is shared: do not modify it.
func (g *Gazetteer) Names(country string) []Name { return g.names[country] }

// Shape returns the outline of a place: its polygons, or for a place with
// a Radius a 48-sided polygon approximating its disc.
func (g *Gazetteer) Shape(id ID) orb.MultiPolygon {
	p := &g.places[id]
	if p.Radius > 0 {
		return orb.MultiPolygon{Disc(p.Center, p.Radius)}
	}
	if g.shape == nil {
		return nil
	}
	return g.shape(id)
}

// Bound is the bounding box of the place's shape.
func (g *Gazetteer) Bound(id ID) orb.Bound { return g.bounds[id] }

// Contains tells whether pt (lon, lat) lies in the place: within Radius of
// its centre, or inside its polygons.
func (g *Gazetteer) Contains(id ID, pt orb.Point) bool {
	p := &g.places[id]
	if p.Radius > 0 {
		return geo.DistanceHaversine(p.Center, pt) <= p.Radius*1000
	}
	if !g.bounds[id].Contains(pt) {
		return false
	}
	return planar.MultiPolygonContains(g.Shape(id), pt)
}

// Locate returns the department and region of country that contain pt
// (None where there is none, as for a point at sea or in a country without
// departments).
func (g *Gazetteer) Locate(country string, pt orb.Point) (department, region ID) {
	department, region = None, None
	c, ok := g.Country(country)
	if !ok {
		return
	}
	for _, r := range g.kids[c] {
		if g.places[r].Kind != Region || !g.Contains(r, pt) {
			continue
		}
		region = r
		for _, d := range g.kids[r] {
			if g.places[d].Kind == Department && g.Contains(d, pt) {
				return d, r
			}
		}
		return None, r
	}
	return
}

// Disc is a 48-sided polygon approximating the disc of radius km around
// center, on the sphere.
func Disc(center orb.Point, km float64) orb.Polygon {
	const sides = 48
	ring := make(orb.Ring, 0, sides+1)
	for i := 0; i < sides; i++ {
		ring = append(ring, geo.PointAtBearingAndDistance(center, float64(i)*360/sides, km*1000))
	}
	ring = append(ring, ring[0])
	return orb.Polygon{ring}
}

// DiscAreaKm2 is the area of a disc of radius km.
func DiscAreaKm2(km float64) float64 { return math.Pi * km * km }
