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
	"slices"
	"sort"
	"strings"
	"sync"

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
//
// The indexes are sorted slices searched by bisection rather than maps
// keyed by name: the generated gazetteer stores them presorted (codec.go),
// so loading it hashes, normalises and sorts nothing, which keeps it off
// the cold-start budget.
type Gazetteer struct {
	places []Place
	shape  func(ID) orb.MultiPolygon

	names map[string]*nameIndex // country -> its names, sorted
	codes []ID                  // every coded place, by (Country, Kind, Code)
	posts map[string]*postIndex // country -> its postal codes, sorted
	// The children of place i are kids[kidStart[i]:kidStart[i+1]]: two
	// flat arrays rather than a slice per place, which the garbage
	// collector would have to scan.
	kidStart []int32
	kids     []ID
	// bounds of the places without a Radius, by ID; it ends after the last
	// such place (a disc's bound is computed when asked).
	bounds    []orb.Bound
	countries []ID          // by name
	alpha2    map[string]ID // two-letter upper-case country aliases
	communes  communeIndexes
}

// nameIndex is one country's names sorted by Norm, then most populous
// place first, then ID. The norms are one string cut by ends, so that
// loading allocates no string and nothing the collector scans; Names
// builds the []Name view on first use.
type nameIndex struct {
	norms string
	ends  []uint32 // norm i is norms[ends[i-1]:ends[i]]
	ids   []ID     // Lookup returns runs of it without allocating

	once  sync.Once
	names []Name
}

func (ix *nameIndex) len() int { return len(ix.ids) }

func (ix *nameIndex) norm(i int) string {
	start := uint32(0)
	if i > 0 {
		start = ix.ends[i-1]
	}
	return ix.norms[start:ix.ends[i]]
}

// newNameIndex indexes names sorted as nameLess sorts them.
func newNameIndex(ns []Name) *nameIndex {
	ix := &nameIndex{ends: make([]uint32, len(ns)), ids: make([]ID, len(ns))}
	var b strings.Builder
	for i, n := range ns {
		b.WriteString(n.Norm)
		ix.ends[i], ix.ids[i] = uint32(b.Len()), n.ID
	}
	ix.norms = b.String()
	return ix
}

// postIndex is one country's (postal code, place) pairs, sorted by code
// then most populous place first: the code of pair i is
// places[ids[i]].Postcodes[ks[i]].
type postIndex struct {
	ids []ID
	ks  []uint8
}

// ErrInvalid reports places that do not form a gazetteer.
var ErrInvalid = errors.New("gazetteer: invalid places")

// New builds a gazetteer over places, where places[i].ID == i. shape
// returns the polygon of a place without a Radius (it may decode lazily,
// and must return the same value every time); it is never called for
// disc-shaped places.
func New(places []Place, shape func(ID) orb.MultiPolygon) (*Gazetteer, error) {
	g := &Gazetteer{places: places, shape: shape}
	if err := g.link(); err != nil {
		return nil, err
	}
	g.names = buildNames(places)
	g.codes = buildCodes(places)
	if err := checkCodes(places, g.codes); err != nil {
		return nil, err
	}
	posts, err := buildPosts(places)
	if err != nil {
		return nil, err
	}
	g.posts = posts
	last := -1
	for i := range places {
		if places[i].Radius <= 0 {
			last = i
		}
	}
	g.bounds = make([]orb.Bound, last+1)
	for i := range g.bounds {
		if places[i].Radius <= 0 {
			g.bounds[i] = g.Shape(ID(i)).Bound()
		}
	}
	return g, nil
}

// link checks the places and builds what every gazetteer derives from
// them: children, the country list and the alpha-2 aliases.
func (g *Gazetteer) link() error {
	places := g.places
	nkids := make([]int32, len(places))
	for i := range places {
		p := &places[i]
		if p.ID != ID(i) {
			return fmt.Errorf("%w: place %d has ID %d", ErrInvalid, i, p.ID)
		}
		if p.Kind < Country || p.Kind > District || p.Country == "" || p.Name == "" {
			return fmt.Errorf("%w: place %d (%q): kind, country and name are required", ErrInvalid, i, p.Name)
		}
		if p.Parent != None {
			if p.Parent < 0 || int(p.Parent) >= len(places) || places[p.Parent].Kind >= p.Kind {
				return fmt.Errorf("%w: place %d (%q): parent %d is not a larger place", ErrInvalid, i, p.Name, p.Parent)
			}
			nkids[p.Parent]++
		} else if p.Kind != Country {
			return fmt.Errorf("%w: place %d (%q) has no parent", ErrInvalid, i, p.Name)
		}
		if p.Kind == Country {
			g.countries = append(g.countries, p.ID)
		}
	}
	g.kidStart = make([]int32, len(places)+1)
	for i, n := range nkids {
		g.kidStart[i+1] = g.kidStart[i] + n
	}
	g.kids = make([]ID, g.kidStart[len(places)])
	fill := nkids // reused: the next free slot of each parent
	copy(fill, g.kidStart[:len(places)])
	for i := range places {
		if par := places[i].Parent; par != None {
			g.kids[fill[par]] = ID(i)
			fill[par]++
		}
	}
	sort.SliceStable(g.countries, func(a, b int) bool { return places[g.countries[a]].Name < places[g.countries[b]].Name })
	g.alpha2 = map[string]ID{}
	for _, id := range g.countries {
		for _, a := range places[id].Aliases {
			if len(a) == 2 && a == strings.ToUpper(a) {
				if _, taken := g.alpha2[a]; !taken {
					g.alpha2[a] = id
				}
			}
		}
	}
	return nil
}

// buildNames normalises every name and alias and sorts them per country.
func buildNames(places []Place) map[string]*nameIndex {
	byCountry := map[string][]Name{}
	for i := range places {
		p := &places[i]
		for _, norm := range placeNorms(p) {
			byCountry[p.Country] = append(byCountry[p.Country], Name{norm, p.ID})
		}
	}
	out := make(map[string]*nameIndex, len(byCountry))
	for c, ns := range byCountry {
		sort.Slice(ns, func(a, b int) bool { return nameLess(places, ns[a], ns[b]) })
		out[c] = newNameIndex(ns)
	}
	return out
}

// placeNorms are the distinct non-empty normalised names of p, its name
// first.
func placeNorms(p *Place) []string {
	var out []string
	for i := -1; i < len(p.Aliases); i++ {
		n := p.Name
		if i >= 0 {
			n = p.Aliases[i]
		}
		norm := Normalize(n)
		if norm != "" && !slices.Contains(out, norm) {
			out = append(out, norm)
		}
	}
	return out
}

// nameLess orders a country's names: by Norm, then most populous first
// (the order Lookup answers in), then by ID.
func nameLess(places []Place, a, b Name) bool {
	if a.Norm != b.Norm {
		return a.Norm < b.Norm
	}
	return popLess(places, a.ID, b.ID)
}

func popLess(places []Place, a, b ID) bool {
	if pa, pb := places[a].Population, places[b].Population; pa != pb {
		return pa > pb
	}
	return a < b
}

// buildCodes sorts the places that have a code.
func buildCodes(places []Place) []ID {
	var ids []ID
	for i := range places {
		if places[i].Code != "" {
			ids = append(ids, ID(i))
		}
	}
	sort.Slice(ids, func(a, b int) bool {
		return codeCmp(&places[ids[a]], places[ids[b]].Country, places[ids[b]].Kind, places[ids[b]].Code) < 0
	})
	return ids
}

// codeCmp compares p's (country, kind, code) with the given ones.
func codeCmp(p *Place, country string, kind Kind, code string) int {
	if c := strings.Compare(p.Country, country); c != 0 {
		return c
	}
	if p.Kind != kind {
		return int(p.Kind) - int(kind)
	}
	return strings.Compare(p.Code, code)
}

// checkCodes rejects two places with one code, and an index that is not
// sorted (which bisection would silently misread).
func checkCodes(places []Place, codes []ID) error {
	for i, id := range codes {
		if int(id) < 0 || int(id) >= len(places) || places[id].Code == "" {
			return fmt.Errorf("%w: code index entry %d", ErrInvalid, i)
		}
		if i == 0 {
			continue
		}
		p := &places[id]
		switch c := codeCmp(&places[codes[i-1]], p.Country, p.Kind, p.Code); {
		case c == 0:
			return fmt.Errorf("%w: two %s places with code %s in %s", ErrInvalid, p.Kind, p.Code, p.Country)
		case c > 0:
			return fmt.Errorf("%w: code index not sorted at %d", ErrInvalid, i)
		}
	}
	return nil
}

// buildPosts sorts every (postal code, place) pair per country.
func buildPosts(places []Place) (map[string]*postIndex, error) {
	type pair struct {
		id ID
		k  uint8
	}
	code := func(p pair) string { return places[p.id].Postcodes[p.k] }
	byCountry := map[string][]pair{}
	for i := range places {
		p := &places[i]
		if len(p.Postcodes) > math.MaxUint8+1 {
			return nil, fmt.Errorf("%w: place %d (%q) has %d postal codes", ErrInvalid, i, p.Name, len(p.Postcodes))
		}
		for k := range p.Postcodes {
			byCountry[p.Country] = append(byCountry[p.Country], pair{p.ID, uint8(k)})
		}
	}
	out := make(map[string]*postIndex, len(byCountry))
	for c, ps := range byCountry {
		sort.Slice(ps, func(a, b int) bool {
			if ca, cb := code(ps[a]), code(ps[b]); ca != cb {
				return ca < cb
			}
			return popLess(places, ps[a].id, ps[b].id)
		})
		ix := &postIndex{make([]ID, len(ps)), make([]uint8, len(ps))}
		for i, p := range ps {
			ix.ids[i], ix.ks[i] = p.id, p.k
		}
		out[c] = ix
	}
	return out, nil
}

// Len is the number of places.
func (g *Gazetteer) Len() int { return len(g.places) }

// Place returns the place with id; it panics on an ID of another gazetteer.
func (g *Gazetteer) Place(id ID) *Place { return &g.places[id] }

// Children are the places whose parent is id.
func (g *Gazetteer) Children(id ID) []ID {
	lo, hi := g.kidStart[id], g.kidStart[id+1]
	if lo == hi {
		return nil
	}
	return g.kids[lo:hi:hi]
}

// Countries are the countries of the gazetteer, by name.
func (g *Gazetteer) Countries() []ID { return slices.Clone(g.countries) }

// Country returns the country with the ISO 3166-1 alpha-3 or alpha-2 code
// (any case).
func (g *Gazetteer) Country(code string) (ID, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if id, ok := g.ByCode(code, Country, code); ok {
		return id, true
	}
	if id, ok := g.alpha2[code]; ok && len(code) == 2 {
		return id, true
	}
	return None, false
}

// Lookup returns the places of country (alpha-3) whose name or an alias
// normalises to Normalize(name), most populous first. The slice is shared:
// do not modify it.
func (g *Gazetteer) Lookup(country, name string) []ID {
	ix := g.names[country]
	if ix == nil {
		return nil
	}
	norm := Normalize(name)
	lo, hi := equalRun(ix.len(), func(i int) int { return strings.Compare(ix.norm(i), norm) })
	if lo == hi {
		return nil
	}
	return ix.ids[lo:hi:hi]
}

// equalRun returns the bounds of the run of a sorted sequence of n items
// that cmp (item i against the sought key) finds equal.
func equalRun(n int, cmp func(i int) int) (lo, hi int) {
	lo = sort.Search(n, func(i int) bool { return cmp(i) >= 0 })
	hi = lo + sort.Search(n-lo, func(i int) bool { return cmp(lo+i) > 0 })
	return lo, hi
}

// ByCode returns the place of country with the kind and code.
func (g *Gazetteer) ByCode(country string, kind Kind, code string) (ID, bool) {
	i := sort.Search(len(g.codes), func(i int) bool { return codeCmp(&g.places[g.codes[i]], country, kind, code) >= 0 })
	if i < len(g.codes) && codeCmp(&g.places[g.codes[i]], country, kind, code) == 0 {
		return g.codes[i], true
	}
	return None, false
}

// ByPostcode returns the places of country with the postal code, most
// populous first. The slice is shared: do not modify it.
func (g *Gazetteer) ByPostcode(country, code string) []ID {
	ix := g.posts[country]
	if ix == nil {
		return nil
	}
	lo, hi := equalRun(len(ix.ids), func(i int) int {
		return strings.Compare(g.places[ix.ids[i]].Postcodes[ix.ks[i]], code)
	})
	if lo == hi {
		return nil
	}
	return ix.ids[lo:hi:hi]
}

// Names returns the normalised names of the places of country, sorted by
// Norm (then most populous place first), for fuzzy matching. The slice is
// shared: do not modify it.
func (g *Gazetteer) Names(country string) []Name {
	ix := g.names[country]
	if ix == nil {
		return nil
	}
	// Built on first use: loading the gazetteer does not pay for the
	// names of countries nobody asks about.
	ix.once.Do(func() {
		ix.names = make([]Name, ix.len())
		for i := range ix.names {
			ix.names[i] = Name{ix.norm(i), ix.ids[i]}
		}
	})
	return ix.names
}

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
func (g *Gazetteer) Bound(id ID) orb.Bound {
	p := &g.places[id]
	if p.Radius > 0 {
		return discBound(p.Center, p.Radius)
	}
	return g.bounds[id]
}

// discBound is Disc(center, km).Bound() without the other 44 vertices: the
// disc's extremes are its vertices due north, east, south and west (the
// bearings 0, 90, 180 and 270 of Disc), which a test checks over the
// generated cities.
func discBound(center orb.Point, km float64) orb.Bound {
	n := geo.PointAtBearingAndDistance(center, 0, km*1000)
	e := geo.PointAtBearingAndDistance(center, 90, km*1000)
	s := geo.PointAtBearingAndDistance(center, 180, km*1000)
	w := geo.PointAtBearingAndDistance(center, 270, km*1000)
	return orb.Bound{Min: orb.Point{w[0], s[1]}, Max: orb.Point{e[0], n[1]}}
}

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
	for _, r := range g.Children(c) {
		if g.places[r].Kind != Region || !g.Contains(r, pt) {
			continue
		}
		region = r
		for _, d := range g.Children(r) {
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
