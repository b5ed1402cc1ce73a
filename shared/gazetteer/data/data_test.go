package data_test

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
)

func load(t testing.TB) *gazetteer.Gazetteer {
	t.Helper()
	g, err := data.Load()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// placesOf returns the IDs of the places of a country and kind.
func placesOf(g *gazetteer.Gazetteer, country string, kind gazetteer.Kind) []gazetteer.ID {
	var out []gazetteer.ID
	for id := range gazetteer.ID(g.Len()) {
		if p := g.Place(id); p.Country == country && p.Kind == kind {
			out = append(out, id)
		}
	}
	return out
}

// TestFrenchCounts pins the French content to the sources' (INSEE's
// 2026 geography): a regeneration that loses places fails here.
func TestFrenchCounts(t *testing.T) {
	g := load(t)
	want := map[gazetteer.Kind]int{gazetteer.Country: 1, gazetteer.Region: 26, gazetteer.Department: 109, gazetteer.City: 34969, gazetteer.District: 45}
	for kind, n := range want {
		if got := len(placesOf(g, "FRA", kind)); got != n {
			t.Errorf("France has %d %s places, want %d", got, kind, n)
		}
	}
	if n := len(g.Countries()); n < 240 {
		t.Errorf("%d countries, want at least 240", n)
	}
	t.Logf("%d places, %d countries, %d bytes", g.Len(), len(g.Countries()), data.Size())
}

// TestFrenchCommunes checks every current commune: found by its INSEE
// code, by its name and by each of its postal codes, its centre in its
// department, or in its outline where it has one.
func TestFrenchCommunes(t *testing.T) {
	g := load(t)
	outlined := 0
	for _, id := range placesOf(g, "FRA", gazetteer.City) {
		p := g.Place(id)
		if got, ok := g.ByCode("FRA", gazetteer.City, p.Code); !ok || got != id {
			t.Errorf("ByCode(FRA, city, %s) = %d %v, want %d", p.Code, got, ok, id)
		}
		if !slices.Contains(g.Lookup("FRA", p.Name), id) {
			t.Errorf("Lookup(FRA, %q) lacks %s", p.Name, p.Code)
		}
		if len(p.Postcodes) == 0 && p.Population > 0 {
			t.Errorf("%s %s: no postal code", p.Code, p.Name)
		}
		for _, pc := range p.Postcodes {
			if !slices.Contains(g.ByPostcode("FRA", pc), id) {
				t.Errorf("ByPostcode(FRA, %s) lacks %s %s", pc, p.Code, p.Name)
			}
		}
		dept := g.Place(p.Parent)
		if dept.Kind != gazetteer.Department {
			t.Errorf("%s %s: parent %s is a %s", p.Code, p.Name, dept.Name, dept.Kind)
			continue
		}
		// A commune is its outline (IGN), or a disc where it has none;
		// its centre lies in its outline, else in its department's.
		if p.Radius <= 0 {
			if len(g.Shape(id)) == 0 || p.AreaKm2 <= 0 {
				t.Errorf("%s %s: neither a radius nor an outline", p.Code, p.Name)
			} else if !g.Contains(id, p.Center) {
				t.Errorf("%s %s: centre %v outside its outline", p.Code, p.Name, p.Center)
			} else {
				outlined++
			}
		} else if !g.Contains(p.Parent, p.Center) {
			t.Errorf("%s %s: centre %v outside its department %s", p.Code, p.Name, p.Center, dept.Code)
		}
	}
	// All but the communes created since 2018 from part of another (about
	// a hundred) have IGN's outline: a generator run without the outlines
	// (tools/gazetteer -communes) fails here.
	if outlined < 34800 {
		t.Errorf("%d communes have an outline, want at least 34800", outlined)
	}
}

// TestFrenchAdministrative checks that every department and region has a
// shape holding its centre, and hangs where INSEE puts it.
func TestFrenchAdministrative(t *testing.T) {
	g := load(t)
	for _, kind := range []gazetteer.Kind{gazetteer.Region, gazetteer.Department} {
		for _, id := range placesOf(g, "FRA", kind) {
			p := g.Place(id)
			if len(g.Shape(id)) == 0 || p.AreaKm2 <= 0 {
				t.Errorf("%s %s %s: no shape", kind, p.Code, p.Name)
				continue
			}
			if !g.Contains(id, p.Center) {
				t.Errorf("%s %s %s: centre %v outside its shape", kind, p.Code, p.Name, p.Center)
			}
		}
	}
	for _, c := range []struct{ dept, region string }{
		{"69", "84"}, {"2A", "94"}, {"2B", "94"}, {"971", "01"}, {"972", "02"}, {"973", "03"},
		{"974", "04"}, {"976", "06"}, {"75", "11"}, {"988", "988"},
	} {
		d, ok := g.ByCode("FRA", gazetteer.Department, c.dept)
		if !ok {
			t.Errorf("no department %s", c.dept)
			continue
		}
		if r := g.Place(g.Place(d).Parent); r.Kind != gazetteer.Region || r.Code != c.region {
			t.Errorf("department %s is in %s %s, want region %s", c.dept, r.Kind, r.Code, c.region)
		}
	}
}

// TestDistricts checks the arrondissements and the ways users name them.
func TestDistricts(t *testing.T) {
	g := load(t)
	tests := []struct{ name, code string }{
		{"Paris 11e", "75111"}, {"Paris 11", "75111"}, {"Paris 11e arrondissement", "75111"}, {"paris 11ème", "75111"},
		{"11e arrondissement de Paris", "75111"}, {"Paris Popincourt", "75111"}, {"Paris 1er", "75101"}, {"Paris 01", "75101"},
		{"Lyon 1er", "69381"}, {"Lyon 1", "69381"}, {"Lyon 9e", "69389"}, {"Marseille 8e arrondissement", "13208"},
		{"Marseille 8e", "13208"}, {"Marseille 16", "13216"},
	}
	for _, tt := range tests {
		ids := g.Lookup("FRA", tt.name)
		if len(ids) == 0 || g.Place(ids[0]).Code != tt.code || g.Place(ids[0]).Kind != gazetteer.District {
			t.Errorf("Lookup(FRA, %q) = %v, want district %s first", tt.name, ids, tt.code)
		}
	}
	for _, id := range placesOf(g, "FRA", gazetteer.District) {
		p := g.Place(id)
		if city := g.Place(p.Parent); city.Kind != gazetteer.City || p.Code[:2] != city.Code[:2] {
			t.Errorf("%s %s: parent %s %s", p.Code, p.Name, city.Code, city.Name)
		}
		// An arrondissement is its share of its city's outline (the
		// outlines of 2018 have none of their own): its centre in it.
		if !g.Contains(id, p.Center) || !g.Contains(p.Parent, p.Center) || p.Radius != 0 || len(p.Postcodes) == 0 {
			t.Errorf("%s %s: centre %v, radius %v, postcodes %v", p.Code, p.Name, p.Center, p.Radius, p.Postcodes)
		}
	}
	// The arrondissements partition their city: they cover its area, and
	// a point of the city lies in one of them, never in two.
	for _, city := range []string{"75056", "69123", "13055"} {
		id, _ := g.ByCode("FRA", gazetteer.City, city)
		c := g.Place(id)
		sum := 0.0
		kids := g.Children(id)
		for _, k := range kids {
			sum += g.Place(k).AreaKm2
		}
		if math.Abs(sum-c.AreaKm2) > 0.005*c.AreaKm2 {
			t.Errorf("%s: arrondissements cover %.2f km² of %.2f", c.Name, sum, c.AreaKm2)
		}
		b := g.Bound(id)
		in, missed := 0, 0
		for i := range 60 {
			for j := range 60 {
				pt := orb.Point{b.Min[0] + (b.Max[0]-b.Min[0])*(float64(i)+0.5)/60, b.Min[1] + (b.Max[1]-b.Min[1])*(float64(j)+0.5)/60}
				if !g.Contains(id, pt) {
					continue
				}
				in++
				n := 0
				for _, k := range kids {
					if g.Contains(k, pt) {
						n++
					}
				}
				if n > 1 {
					t.Errorf("%s: %v in %d arrondissements", c.Name, pt, n)
				}
				if n == 0 {
					t.Logf("%s: %v in no arrondissement", c.Name, pt)
					missed++
				}
			}
		}
		if in == 0 || missed > 0 {
			t.Errorf("%s: %d of %d points of the city in no arrondissement", c.Name, missed, in)
		}
	}
}

// countryNamed is the country one of whose names is name.
func countryNamed(g *gazetteer.Gazetteer, name string) string {
	for _, id := range g.Countries() {
		code := g.Place(id).Code
		if slices.Contains(g.Lookup(code, name), id) {
			return code
		}
	}
	return ""
}

func TestNames(t *testing.T) {
	g := load(t)
	for name, want := range map[string]string{
		"Allemagne": "DEU", "Germany": "DEU", "Deutschland": "DEU", "Espagne": "ESP", "España": "ESP", "Spain": "ESP",
		"Royaume-Uni": "GBR", "United Kingdom": "GBR", "Italie": "ITA", "Italia": "ITA", "États-Unis d'Amérique": "USA", "United States": "USA",
		"Belgique": "BEL", "Suisse": "CHE", "Schweiz": "CHE", "France": "FRA", "Polska": "POL",
	} {
		if got := countryNamed(g, name); got != want {
			t.Errorf("country named %q = %q, want %s", name, got, want)
		}
	}
	tests := []struct {
		country, name string
		kind          gazetteer.Kind
		code          string
	}{
		{"DEU", "Bavière", gazetteer.Region, "DE-BY"}, {"DEU", "Bavaria", gazetteer.Region, "DE-BY"}, {"DEU", "Bayern", gazetteer.Region, "DE-BY"},
		{"ESP", "Catalogne", gazetteer.Region, "ES-CT"}, {"ESP", "Cataluña", gazetteer.Region, "ES-CT"}, {"ESP", "Catalonia", gazetteer.Region, "ES-CT"},
		{"ESP", "Barcelone", gazetteer.Department, "ES-B"},
		{"ITA", "Lombardie", gazetteer.Region, "IT-25"}, {"ITA", "Sicile", gazetteer.Region, "IT-82"}, {"ITA", "Turin", gazetteer.Department, "IT-TO"},
		{"GBR", "Écosse", gazetteer.Region, "GB-SCT"}, {"BEL", "Wallonia", gazetteer.Region, "BE-WAL"}, {"BEL", "Région wallonne", gazetteer.Region, "BE-WAL"},
		{"USA", "Californie", gazetteer.Region, "US-CA"}, {"USA", "California", gazetteer.Region, "US-CA"},
		{"DEU", "Munich", gazetteer.City, "2867714"}, {"DEU", "München", gazetteer.City, "2867714"}, {"DEU", "Múnich", gazetteer.City, "2867714"},
		{"GBR", "Londres", gazetteer.City, "2643743"}, {"GBR", "London", gazetteer.City, "2643743"},
		{"FRA", "Bretagne", gazetteer.Region, "53"}, {"FRA", "Brittany", gazetteer.Region, "53"}, {"FRA", "Corsica", gazetteer.Region, "94"},
		{"FRA", "Rhône", gazetteer.Department, "69"}, {"FRA", "Corse-du-Sud", gazetteer.Department, "2A"},
		{"FRA", "Saint-Étienne", gazetteer.City, "42218"}, {"FRA", "st etienne", gazetteer.City, "42218"},
		{"FRA", "Lyon", gazetteer.City, "69123"},
	}
	for _, tt := range tests {
		found := false
		for _, id := range g.Lookup(tt.country, tt.name) {
			if p := g.Place(id); p.Kind == tt.kind && p.Code == tt.code {
				found = true
			}
		}
		if !found {
			t.Errorf("Lookup(%s, %q) = %v, lacks %s %s", tt.country, tt.name, g.Lookup(tt.country, tt.name), tt.kind, tt.code)
		}
	}
	for code, want := range map[string]string{"FR": "FRA", "fra": "FRA", "DE": "DEU", "GB": "GBR", "ES": "ESP"} {
		if id, ok := g.Country(code); !ok || g.Place(id).Code != want {
			t.Errorf("Country(%q) = %v %v, want %s", code, id, ok, want)
		}
	}
}

func TestLocate(t *testing.T) {
	g := load(t)
	tests := []struct {
		country      string
		pt           orb.Point
		dept, region string
	}{
		{"FRA", orb.Point{4.8357, 45.7640}, "69", "84"}, // Lyon, place Bellecour
		{"FRA", orb.Point{2.3522, 48.8566}, "75", "11"}, // Paris, Hôtel de Ville
		{"FRA", orb.Point{9.4500, 42.7000}, "2B", "94"}, // Haute-Corse
		{"FRA", orb.Point{55.4500, -20.8800}, "974", "04"},
		{"DEU", orb.Point{11.5755, 48.1374}, "", "DE-BY"}, // Munich: Länder have no departments
		{"ESP", orb.Point{2.1734, 41.3851}, "ES-B", "ES-CT"},
	}
	for _, tt := range tests {
		d, r := g.Locate(tt.country, tt.pt)
		gotD, gotR := "", ""
		if d != gazetteer.None {
			gotD = g.Place(d).Code
		}
		if r != gazetteer.None {
			gotR = g.Place(r).Code
		}
		if gotD != tt.dept || gotR != tt.region {
			t.Errorf("Locate(%s, %v) = %q %q, want %q %q", tt.country, tt.pt, gotD, gotR, tt.dept, tt.region)
		}
	}
	lyon, _ := g.ByCode("FRA", gazetteer.City, "69123")
	if d, r := g.Locate("FRA", g.Place(lyon).Center); g.Place(d).Code != "69" || g.Place(r).Code != "84" {
		t.Errorf("Locate(FRA, Lyon's centre) = %s %s, want 69 84", g.Place(d).Code, g.Place(r).Code)
	}
}

// TestRadiusVersusRealArea measures the communes' disc rule (docs/
// gazetteer.md) against the real areas of 20 large French cities (INSEE):
// most within a factor of 2, none beyond 4, no bias beyond 1.5.
func TestRadiusVersusRealArea(t *testing.T) {
	g := load(t)
	real := map[string]float64{
		"75056": 105.4, "13055": 240.6, "69123": 47.87, "31555": 118.3, "06088": 71.92, "44109": 65.19, "34172": 56.88,
		"67482": 78.26, "33063": 49.36, "59350": 34.51, "35238": 50.39, "51454": 46.9, "42218": 79.97, "83137": 42.84,
		"76351": 46.95, "38185": 18.13, "21231": 40.41, "49007": 42.7, "30189": 161.85, "69266": 14.52,
	}
	within2, logSum := 0, 0.0
	for code, km2 := range real {
		id, ok := g.ByCode("FRA", gazetteer.City, code)
		if !ok {
			t.Fatalf("no commune %s", code)
		}
		p := g.Place(id)
		ratio := p.AreaKm2 / km2
		logSum += math.Log(ratio)
		if ratio <= 2 && ratio >= 0.5 {
			within2++
		}
		if ratio > 4 || ratio < 0.25 {
			t.Errorf("%s: disc of %.1f km² for %.1f km² (×%.2f)", p.Name, p.AreaKm2, km2, ratio)
		}
		t.Logf("%-15s r=%5.2f km  disc %6.1f km²  real %6.1f km²  ×%.2f", p.Name, p.Radius, p.AreaKm2, km2, ratio)
	}
	bias := math.Exp(logSum / float64(len(real)))
	t.Logf("%d of %d within a factor of 2; geometric mean ratio %.2f", within2, len(real), bias)
	if within2 < 15 || bias > 1.5 || bias < 1/1.5 {
		t.Errorf("%d of %d within a factor of 2 (want 15), mean ratio %.2f", within2, len(real), bias)
	}
	// World cities: population over a density of 4,000 per km²; their
	// real (municipal) areas spread wider.
	world := map[string]float64{"2950159": 891.8, "2867714": 310.7, "3117735": 604.3, "2761369": 414.8, "3169070": 1285, "2911298": 755.2}
	for code, km2 := range world {
		for _, c := range []string{"DEU", "ESP", "AUT", "ITA"} {
			if id, ok := g.ByCode(c, gazetteer.City, code); ok {
				p := g.Place(id)
				ratio := p.AreaKm2 / km2
				t.Logf("%-15s r=%5.2f km  disc %6.1f km²  real %6.1f km²  ×%.2f", p.Name, p.Radius, p.AreaKm2, km2, ratio)
				if ratio > 3 || ratio < 1.0/3 {
					t.Errorf("%s: disc of %.1f km² for %.1f km²", p.Name, p.AreaKm2, km2)
				}
			}
		}
	}
}

// TestShapes decodes every polygon and checks the stored bounds, and the
// disc bounds computed without the polygon.
func TestShapes(t *testing.T) {
	g := load(t)
	for id := range gazetteer.ID(g.Len()) {
		p := g.Place(id)
		if p.Radius > 0 {
			if id%7 == 0 { // a sample: a disc costs 48 trigonometric points
				if got, want := g.Bound(id), gazetteer.Disc(p.Center, p.Radius).Bound(); got != want {
					t.Errorf("%s %s: Bound = %v, disc's %v", p.Kind, p.Name, got, want)
				}
			}
			continue
		}
		mp := g.Shape(id)
		if len(mp) == 0 {
			t.Errorf("%s %s %s: no shape", p.Kind, p.Code, p.Name)
			continue
		}
		if g.Bound(id) != mp.Bound() {
			t.Errorf("%s %s: Bound = %v, shape's %v", p.Kind, p.Name, g.Bound(id), mp.Bound())
		}
	}
	for _, kind := range []gazetteer.Kind{gazetteer.City, gazetteer.District} {
		for _, id := range placesOf(g, "DEU", kind) {
			if p := g.Place(id); p.Parent == gazetteer.None || g.Place(p.Parent).Kind >= kind {
				t.Errorf("%s %s: parent %d", kind, p.Name, p.Parent)
			}
		}
	}
}

// BenchmarkLoad measures data.Load, on the Lambda cold-start path: the
// decoding and the indexes, and (MiB-in-use) the heap the gazetteer holds.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := data.Load(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g := load(b)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "MiB-in-use")
	runtime.KeepAlive(g)
}

func BenchmarkLookup(b *testing.B) {
	g := load(b)
	for b.Loop() {
		if len(g.Lookup("FRA", "Saint-Étienne")) == 0 {
			b.Fatal("no Saint-Étienne")
		}
	}
}
