package gazetteer

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/paulmach/orb"
)

// smallPlaces is a gazetteer of every kind: shapes of their own (with a
// hole, an open ring and two polygons), shapes made of parts, discs.
func smallPlaces() ([]Place, map[ID]orb.MultiPolygon, map[ID][]ID) {
	sq := func(x, y, s float64) orb.Ring {
		return orb.Ring{{x, y}, {x + s, y}, {x + s, y + s}, {x, y + s}, {x, y}}
	}
	places := []Place{
		{ID: 0, Kind: Country, Country: "FRA", Code: "FRA", Name: "France", Aliases: []string{"FR", "Frankreich"}, Parent: None, Center: orb.Point{2.5, 46.5}},
		{ID: 1, Kind: Country, Country: "DEU", Code: "DEU", Name: "Allemagne", Aliases: []string{"DE", "Germany", "Deutschland"}, Parent: None, Center: orb.Point{10, 51}},
		{ID: 2, Kind: Region, Country: "FRA", Code: "84", Name: "Auvergne-Rhône-Alpes", Parent: 0, Center: orb.Point{4.5, 45.5}, AreaKm2: 1000},
		{ID: 3, Kind: Region, Country: "DEU", Code: "DE-BY", Name: "Bayern", Aliases: []string{"Bavière", "Bavaria"}, Parent: 1, Center: orb.Point{11.5, 48.5}, AreaKm2: 70550.123},
		{ID: 4, Kind: Department, Country: "FRA", Code: "69", Name: "Rhône", Aliases: []string{"Rodano"}, Parent: 2, Population: 1900000, Center: orb.Point{4.6, 45.8}, AreaKm2: 3249.5},
		{ID: 5, Kind: Department, Country: "FRA", Code: "01", Name: "Ain", Parent: 2, Population: 650000, Center: orb.Point{5.3, 46.1}, AreaKm2: 5762},
		{ID: 6, Kind: City, Country: "FRA", Code: "69123", Name: "Lyon", Aliases: []string{"Lyons", "Lione"}, Parent: 4, Population: 519127,
			Center: orb.Point{4.834277123, 45.763420987}, Radius: 4.3321234, Postcodes: []string{"69001", "69002", "69003"}},
		{ID: 7, Kind: City, Country: "FRA", Code: "69266", Name: "Villeurbanne", Parent: 4, Population: 163684, Center: orb.Point{4.88, 45.77}, Radius: 3.65, Postcodes: []string{"69100"}},
		{ID: 8, Kind: City, Country: "FRA", Code: "01001", Name: "Lyon", Parent: 5, Population: 12, Center: orb.Point{5.1, 46.2}, Radius: 1.2, Postcodes: []string{"01400", "69001"}},
		{ID: 9, Kind: District, Country: "FRA", Code: "69381", Name: "Lyon 1er Arrondissement", Aliases: []string{"Lyon 1er", "Lyon 1"}, Parent: 6, Population: 29000, Center: orb.Point{4.83, 45.77}, Radius: 1.1, Postcodes: []string{"69001"}},
		{ID: 10, Kind: City, Country: "DEU", Code: "2867714", Name: "Munich", Aliases: []string{"München", "Múnich"}, Parent: 3, Population: 1260391, Center: orb.Point{11.57549, 48.13743}, Radius: 10.0},
	}
	shapes := map[ID]orb.MultiPolygon{
		3: {{sq(9, 47, 4)}},
		4: {{sq(4.2, 45.4, 0.9), sq(4.5, 45.6, 0.1)}, {orb.Ring{{4.0, 45.0}, {4.1, 45.0}, {4.1, 45.1}}}},
		5: {{sq(4.73456789, 45.6012345, 1.5)}},
	}
	parts := map[ID][]ID{0: {4, 5}, 1: {3}, 2: {4, 5}}
	for id, ps := range parts {
		for _, p := range ps {
			shapes[id] = append(shapes[id], shapes[p]...)
		}
	}
	return places, shapes, parts
}

func smallGazetteer(t *testing.T) (*Gazetteer, func(ID) []ID) {
	t.Helper()
	places, shapes, parts := smallPlaces()
	g, err := New(places, func(id ID) orb.MultiPolygon { return shapes[id] })
	if err != nil {
		t.Fatal(err)
	}
	return g, func(id ID) []ID { return parts[id] }
}

func quantShape(mp orb.MultiPolygon) orb.MultiPolygon {
	out := orb.MultiPolygon{}
	for _, poly := range mp {
		var p orb.Polygon
		for _, r := range poly {
			var q orb.Ring
			for _, pt := range r {
				q = append(q, Quantize(pt))
			}
			p = append(p, q)
		}
		out = append(out, p)
	}
	return out
}

// roundTrip encodes the small gazetteer and decodes it back; it also
// returns the encoding and the parts of composite shapes.
func roundTrip(t *testing.T) (g, d *Gazetteer, data []byte, parts func(ID) []ID) {
	t.Helper()
	g, parts = smallGazetteer(t)
	data, err := Encode(g, parts)
	if err != nil {
		t.Fatal(err)
	}
	d, err = Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return g, d, data, parts
}

func TestCodecRoundTrip(t *testing.T) {
	g, d, data, parts := roundTrip(t)
	if d.Len() != g.Len() {
		t.Fatalf("Len = %d, want %d", d.Len(), g.Len())
	}
	for id := range ID(g.Len()) {
		want, got := *g.Place(id), *d.Place(id)
		checkPlace(t, want, got)
		if ws, gs := quantShape(g.Shape(id)), quantShape(d.Shape(id)); got.Radius == 0 && !reflect.DeepEqual(ws, gs) {
			t.Errorf("%s: Shape = %v, want %v", want.Name, gs, ws)
		}
		if got.Radius == 0 && d.Bound(id) != d.Shape(id).Bound() {
			t.Errorf("%s: Bound = %v, shape's %v", want.Name, d.Bound(id), d.Shape(id).Bound())
		}
		if !slices.Equal(d.Children(id), g.Children(id)) {
			t.Errorf("%s: Children = %v, want %v", want.Name, d.Children(id), g.Children(id))
		}
	}
	// Stored values re-encode to the same bytes: nothing is lost twice.
	again, err := Encode(d, parts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Error("decoding and encoding again changes the bytes")
	}
	checkSameIndexes(t, g, d)
}

func checkPlace(t *testing.T, want, got Place) {
	t.Helper()
	near := func(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
	if got.ID != want.ID || got.Kind != want.Kind || got.Country != want.Country || got.Code != want.Code ||
		got.Name != want.Name || got.Parent != want.Parent || got.Population != want.Population ||
		!slices.Equal(got.Aliases, want.Aliases) || !slices.Equal(got.Postcodes, want.Postcodes) {
		t.Errorf("place %d = %+v, want %+v", want.ID, got, want)
	}
	if got.Center != Quantize(want.Center) {
		t.Errorf("%s: Center = %v, want %v", want.Name, got.Center, Quantize(want.Center))
	}
	if !near(got.Radius, want.Radius, 0.0005) {
		t.Errorf("%s: Radius = %v, want %v", want.Name, got.Radius, want.Radius)
	}
	wantArea := want.AreaKm2
	if want.Radius > 0 {
		wantArea = DiscAreaKm2(got.Radius)
	}
	if !near(got.AreaKm2, wantArea, 0.005) {
		t.Errorf("%s: AreaKm2 = %v, want %v", want.Name, got.AreaKm2, wantArea)
	}
}

// checkSameIndexes compares every lookup of two gazetteers over the names
// and codes of a's places.
func checkSameIndexes(t *testing.T, a, b *Gazetteer) {
	t.Helper()
	if !slices.Equal(a.Countries(), b.Countries()) {
		t.Errorf("Countries = %v, want %v", b.Countries(), a.Countries())
	}
	for id := range ID(a.Len()) {
		p := a.Place(id)
		for _, n := range append([]string{p.Name, "nowhere"}, p.Aliases...) {
			if w, g := a.Lookup(p.Country, n), b.Lookup(p.Country, n); !slices.Equal(w, g) {
				t.Errorf("Lookup(%s, %q) = %v, want %v", p.Country, n, g, w)
			}
		}
		for _, pc := range append([]string{"00000"}, p.Postcodes...) {
			if w, g := a.ByPostcode(p.Country, pc), b.ByPostcode(p.Country, pc); !slices.Equal(w, g) {
				t.Errorf("ByPostcode(%s, %q) = %v, want %v", p.Country, pc, g, w)
			}
		}
		wid, wok := a.ByCode(p.Country, p.Kind, p.Code)
		gid, gok := b.ByCode(p.Country, p.Kind, p.Code)
		if wid != gid || wok != gok {
			t.Errorf("ByCode(%s, %s, %s) = %d %v, want %d %v", p.Country, p.Kind, p.Code, gid, gok, wid, wok)
		}
		if !reflect.DeepEqual(a.Names(p.Country), b.Names(p.Country)) {
			t.Errorf("Names(%s) differ", p.Country)
		}
	}
}

func TestLookups(t *testing.T) {
	g, _ := smallGazetteer(t)
	tests := []struct {
		name string
		got  []ID
		want []ID
	}{
		{"by name, most populous first", g.Lookup("FRA", "LYON"), []ID{6, 8}},
		{"by alias", g.Lookup("DEU", "munchen"), []ID{10}},
		{"alias in another language", g.Lookup("DEU", "Bavière"), []ID{3}},
		{"other country's name", g.Lookup("DEU", "Lyon"), nil},
		{"unknown country", g.Lookup("XXX", "Lyon"), nil},
		{"district alias", g.Lookup("FRA", "lyon 1er"), []ID{9}},
		{"postcode shared, most populous first", g.ByPostcode("FRA", "69001"), []ID{6, 9, 8}},
		{"postcode", g.ByPostcode("FRA", "69100"), []ID{7}},
		{"unknown postcode", g.ByPostcode("FRA", "75001"), nil},
		{"children", g.Children(4), []ID{6, 7}},
		{"no children", g.Children(7), nil},
		{"countries by name", g.Countries(), []ID{1, 0}},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	codes := []struct {
		country string
		kind    Kind
		code    string
		want    ID
		ok      bool
	}{
		{"FRA", City, "69123", 6, true},
		{"FRA", Department, "69", 4, true},
		{"FRA", City, "69", None, false},
		{"DEU", Region, "DE-BY", 3, true},
		{"DEU", Region, "DE-BE", None, false},
	}
	for _, c := range codes {
		if id, ok := g.ByCode(c.country, c.kind, c.code); id != c.want || ok != c.ok {
			t.Errorf("ByCode(%s, %s, %s) = %d %v, want %d %v", c.country, c.kind, c.code, id, ok, c.want, c.ok)
		}
	}
	for code, want := range map[string]ID{"fra": 0, "FR": 0, " de ": 1, "DEU": 1, "ES": None, "": None} {
		if id, ok := g.Country(code); id != want || ok != (want != None) {
			t.Errorf("Country(%q) = %d %v, want %d", code, id, ok, want)
		}
	}
	ns := g.Names("FRA")
	if !slices.IsSortedFunc(ns, func(a, b Name) int {
		if a.Norm < b.Norm {
			return -1
		}
		if a.Norm > b.Norm {
			return 1
		}
		return 0
	}) || len(ns) == 0 {
		t.Errorf("Names(FRA) not sorted: %v", ns)
	}
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name   string
		modify func(ps []Place)
	}{
		{"wrong ID", func(ps []Place) { ps[3].ID = 7 }},
		{"no name", func(ps []Place) { ps[4].Name = "" }},
		{"no parent", func(ps []Place) { ps[4].Parent = None }},
		{"parent not larger", func(ps []Place) { ps[6].Parent = 7 }},
		{"parent out of range", func(ps []Place) { ps[6].Parent = 99 }},
		{"duplicate code", func(ps []Place) { ps[7].Code = "69123" }},
		{"unknown kind", func(ps []Place) { ps[7].Kind = 9 }},
	}
	for _, tt := range tests {
		places, shapes, _ := smallPlaces()
		tt.modify(places)
		if _, err := New(places, func(id ID) orb.MultiPolygon { return shapes[id] }); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: New = %v, want ErrInvalid", tt.name, err)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	g, parts := smallGazetteer(t)
	data, err := Encode(g, parts)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{
		"empty":          nil,
		"magic":          append([]byte("XYZ"), data[3:]...),
		"version":        append(append([]byte(magic), version+1), data[4:]...),
		"trailing bytes": append(slices.Clone(data), 0),
	}
	for n := 5; n < len(data); n += 7 {
		bad["truncated"] = data[:n]
		if _, err := Decode(data[:n]); !errors.Is(err, ErrFormat) {
			t.Errorf("Decode(first %d of %d bytes) = %v, want ErrFormat", n, len(data), err)
		}
	}
	for name, b := range bad {
		if _, err := Decode(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Decode = %v, want ErrFormat", name, err)
		}
	}
}

func TestEncodeRejectsNestedParts(t *testing.T) {
	g, parts := smallGazetteer(t)
	nested := func(id ID) []ID {
		if id == 0 {
			return []ID{2} // a region whose own shape is made of parts
		}
		return parts(id)
	}
	if _, err := Encode(g, nested); err == nil {
		t.Error("Encode accepted a shape made of a shape made of parts")
	}
}

// TestShapeConcurrent asks for every shape from several goroutines at once
// (run with -race): each place's shape is decoded once and shared.
func TestShapeConcurrent(t *testing.T) {
	_, d, _, _ := roundTrip(t)
	const workers = 8
	got := make([][]orb.MultiPolygon, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range ID(d.Len()) {
				got[w] = append(got[w], d.Shape(id))
			}
		}()
	}
	wg.Wait()
	for id := range d.Len() {
		if d.Place(ID(id)).Radius > 0 {
			continue // a disc is computed on each call
		}
		for w := 1; w < workers; w++ {
			if len(got[0][id]) == 0 || &got[w][id][0] != &got[0][id][0] {
				t.Fatalf("place %d: goroutines got different shape values", id)
			}
		}
	}
}

func TestDiscBound(t *testing.T) {
	for _, c := range []struct {
		pt orb.Point
		km float64
	}{
		{orb.Point{4.83, 45.76}, 4.3}, {orb.Point{-149.57, -17.53}, 2}, {orb.Point{18.07, 59.33}, 25},
		{orb.Point{179.99, -16.5}, 1}, {orb.Point{-0.1, 51.5}, 0.5}, {orb.Point{24.9, 60.2}, 40},
	} {
		if got, want := discBound(c.pt, c.km), Disc(c.pt, c.km).Bound(); got != want {
			t.Errorf("discBound(%v, %v) = %v, want %v", c.pt, c.km, got, want)
		}
	}
}
