package zones

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// fixture builds a small gazetteer: places get square shapes (areas) or
// discs (cities), and a key for tests to find them by.
type fixture struct {
	places []gazetteer.Place
	boxes  map[gazetteer.ID]orb.Bound
	ids    map[string]gazetteer.ID
}

func newFixtureBuilder() *fixture {
	return &fixture{boxes: map[gazetteer.ID]orb.Bound{}, ids: map[string]gazetteer.ID{}}
}

// area adds a country, region or department with a square shape
// (minLon, minLat, maxLon, maxLat).
func (f *fixture) area(key string, kind gazetteer.Kind, parent, country, code, name string, pop int64, box [4]float64, aliases ...string) {
	b := orb.Bound{Min: orb.Point{box[0], box[1]}, Max: orb.Point{box[2], box[3]}}
	id := f.add(key, gazetteer.Place{
		Kind: kind, Country: country, Code: code, Name: name, Aliases: aliases,
		Parent: f.parent(parent), Population: pop, Center: b.Center(), AreaKm2: geo.Area(b.ToPolygon()) / 1e6,
	})
	f.boxes[id] = b
}

// town adds a city or an arrondissement: a disc.
func (f *fixture) town(key string, kind gazetteer.Kind, parent, country, code, name string, pop int64, lon, lat, radius float64, postcodes []string, aliases ...string) {
	f.add(key, gazetteer.Place{
		Kind: kind, Country: country, Code: code, Name: name, Aliases: aliases,
		Parent: f.parent(parent), Population: pop, Center: orb.Point{lon, lat}, Radius: radius,
		AreaKm2: gazetteer.DiscAreaKm2(radius), Postcodes: postcodes,
	})
}

func (f *fixture) parent(key string) gazetteer.ID {
	if key == "" {
		return gazetteer.None
	}
	id, ok := f.ids[key]
	if !ok {
		panic("fixture: unknown parent " + key)
	}
	return id
}

func (f *fixture) add(key string, p gazetteer.Place) gazetteer.ID {
	p.ID = gazetteer.ID(len(f.places))
	f.places = append(f.places, p)
	if key != "" {
		if _, dup := f.ids[key]; dup {
			panic("fixture: duplicate key " + key)
		}
		f.ids[key] = p.ID
	}
	return p.ID
}

func (f *fixture) build(tb testing.TB) *gazetteer.Gazetteer {
	tb.Helper()
	g, err := gazetteer.New(f.places, func(id gazetteer.ID) orb.MultiPolygon {
		b, ok := f.boxes[id]
		if !ok {
			return nil
		}
		return orb.MultiPolygon{b.ToPolygon()}
	})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// testWorld is the fixture the tests share: France with the places the
// rules need, Germany, Spain and the United States.
func testWorld(tb testing.TB) (*Resolver, map[string]gazetteer.ID) {
	tb.Helper()
	f := newFixtureBuilder()
	addFrance(f)
	addGermany(f)
	addSpain(f)
	addUSA(f)
	addBritain(f)
	return NewResolver(f.build(tb)), f.ids
}

const (
	country    = gazetteer.Country
	region     = gazetteer.Region
	department = gazetteer.Department
	city       = gazetteer.City
	district   = gazetteer.District
)

func addFrance(f *fixture) {
	f.area("FRA", country, "", "FRA", "FRA", "France", 68_000_000, [4]float64{-5, 41, 10, 51.5}, "FR", "Frankreich", "Francia")

	f.area("ARA", region, "FRA", "FRA", "84", "Auvergne-Rhône-Alpes", 8_000_000, [4]float64{2, 44, 7.2, 46.6})
	f.area("d01", department, "ARA", "FRA", "01", "Ain", 660_000, [4]float64{5.15, 45.6, 6.2, 46.5})
	f.area("d69", department, "ARA", "FRA", "69", "Rhône", 1_900_000, [4]float64{4.2, 45.45, 5.15, 46.3})
	f.area("d38", department, "ARA", "FRA", "38", "Isère", 1_270_000, [4]float64{4.7, 44.7, 6.4, 45.45})
	f.area("d26", department, "ARA", "FRA", "26", "Drôme", 520_000, [4]float64{4.6, 44.1, 5.8, 44.7})
	f.town("bourg", city, "d01", "FRA", "01053", "Bourg-en-Bresse", 41_000, 5.225, 46.205, 3, []string{"01000"})
	f.town("lyon", city, "d69", "FRA", "69123", "Lyon", 522_250, 4.835, 45.758, 6, nil)
	for n := 1; n <= 9; n++ {
		f.town(fmt.Sprintf("lyon%d", n), district, "lyon", "FRA", fmt.Sprintf("6938%d", n),
			fmt.Sprintf("Lyon %s Arrondissement", ordinalText(n)), int64(30_000+n*10_000), 4.835, 45.758, 1.5,
			[]string{fmt.Sprintf("6900%d", n)})
	}
	f.town("affoux", city, "d69", "FRA", "69001", "Affoux", 380, 4.41, 45.85, 2, []string{"69170"})
	f.town("villeurbanne", city, "d69", "FRA", "69266", "Villeurbanne", 156_000, 4.88, 45.77, 3, []string{"69100"})
	f.town("saintefoy", city, "d69", "FRA", "69202", "Sainte-Foy-lès-Lyon", 22_000, 4.79, 45.73, 2, []string{"69110"})
	f.town("vienne38", city, "d38", "FRA", "38544", "Vienne", 30_000, 4.874, 45.525, 3, []string{"38200"})
	f.town("seyssuel", city, "d38", "FRA", "38487", "Seyssuel", 2_000, 4.84, 45.56, 2, []string{"38200"})
	f.town("jardin", city, "d38", "FRA", "38199", "Jardin", 2_600, 4.91, 45.5, 2, []string{"38200"})
	f.town("barcelonne", city, "d26", "FRA", "26024", "Barcelonne", 400, 5.0, 44.85, 2, []string{"26120"})

	f.area("IDF", region, "FRA", "FRA", "11", "Île-de-France", 12_300_000, [4]float64{1.4, 48.1, 3.6, 49.25})
	f.area("d75", department, "IDF", "FRA", "75", "Paris", 2_133_111, [4]float64{2.22, 48.81, 2.47, 48.91})
	f.area("d93", department, "IDF", "FRA", "93", "Seine-Saint-Denis", 1_660_000, [4]float64{2.28, 48.91, 2.61, 49.02})
	// Paris the commune also carries all its arrondissements' postal codes,
	// as postal data often does: a postal code means the arrondissement.
	var parisCodes []string
	for n := 1; n <= 20; n++ {
		parisCodes = append(parisCodes, fmt.Sprintf("750%02d", n))
	}
	f.town("paris", city, "d75", "FRA", "75056", "Paris", 2_133_111, 2.3522, 48.8566, 8, append(parisCodes, "75116"))
	for n := 1; n <= 20; n++ {
		codes := []string{fmt.Sprintf("750%02d", n)}
		if n == 16 {
			codes = append(codes, "75116")
		}
		f.town(fmt.Sprintf("paris%d", n), district, "paris", "FRA", fmt.Sprintf("751%02d", n),
			fmt.Sprintf("Paris %s Arrondissement", ordinalText(n)), int64(20_000+n*8_000), 2.3522, 48.8566, 1.5, codes)
	}
	f.town("stdenis93", city, "d93", "FRA", "93066", "Saint-Denis", 113_942, 2.36, 48.936, 3, []string{"93200", "93210"})

	f.area("BRE", region, "FRA", "FRA", "53", "Bretagne", 3_400_000, [4]float64{-5, 47.2, -1, 48.9}, "Brittany", "Breizh")
	f.area("d29", department, "BRE", "FRA", "29", "Finistère", 915_000, [4]float64{-5, 47.7, -3.4, 48.8})
	f.town("brest", city, "d29", "FRA", "29019", "Brest", 140_000, -4.486, 48.39, 4, []string{"29200"})

	f.area("NAQ", region, "FRA", "FRA", "75", "Nouvelle-Aquitaine", 6_000_000, [4]float64{-1.8, 42.7, 2.6, 47.2})
	f.area("d86", department, "NAQ", "FRA", "86", "Vienne", 438_000, [4]float64{-0.1, 46.0, 1.2, 47.2})
	f.town("poitiers", city, "d86", "FRA", "86194", "Poitiers", 89_000, 0.34, 46.58, 4, []string{"86000"})

	f.area("PDL", region, "FRA", "FRA", "52", "Pays de la Loire", 3_800_000, [4]float64{-2.6, 46.3, 0.9, 48.6})
	f.area("d53", department, "PDL", "FRA", "53", "Mayenne", 307_000, [4]float64{-1.3, 47.7, -0.05, 48.6})
	f.town("mayenne", city, "d53", "FRA", "53147", "Mayenne", 13_000, -0.614, 48.3, 2, []string{"53100"})

	f.area("PAC", region, "FRA", "FRA", "93", "Provence-Alpes-Côte d'Azur", 5_100_000, [4]float64{4.2, 42.9, 7.7, 44.1}, "PACA")
	f.area("d13", department, "PAC", "FRA", "13", "Bouches-du-Rhône", 2_000_000, [4]float64{4.2, 43.15, 5.8, 43.9})
	f.town("marseille", city, "d13", "FRA", "13055", "Marseille", 870_000, 5.37, 43.296, 10, nil)
	for n := 1; n <= 16; n++ {
		f.town(fmt.Sprintf("marseille%d", n), district, "marseille", "FRA", fmt.Sprintf("132%02d", n),
			fmt.Sprintf("Marseille %s Arrondissement", ordinalText(n)), int64(40_000+n*1_000), 5.37, 43.296, 2,
			[]string{fmt.Sprintf("130%02d", n)})
	}

	f.area("COR", region, "FRA", "FRA", "94", "Corse", 350_000, [4]float64{8.5, 41.3, 9.6, 43.0}, "Corsica")
	f.area("d2A", department, "COR", "FRA", "2A", "Corse-du-Sud", 160_000, [4]float64{8.5, 41.3, 9.4, 42.4})
	f.area("d2B", department, "COR", "FRA", "2B", "Haute-Corse", 180_000, [4]float64{8.5, 42.4, 9.6, 43.0})
	f.town("ajaccio", city, "d2A", "FRA", "2A004", "Ajaccio", 71_000, 8.74, 41.93, 4, []string{"20000", "20090"})
	f.town("bastia", city, "d2B", "FRA", "2B033", "Bastia", 48_000, 9.45, 42.7, 3, []string{"20200", "20600"})

	f.area("REU", region, "FRA", "FRA", "04", "La Réunion", 870_000, [4]float64{55.2, -21.4, 55.85, -20.85}, "Réunion")
	f.area("d974", department, "REU", "FRA", "974", "La Réunion", 870_000, [4]float64{55.2, -21.4, 55.85, -20.85}, "Réunion")
	f.town("stdenis974", city, "d974", "FRA", "97411", "Saint-Denis", 153_810, 55.45, -20.88, 5, []string{"97400", "97490"})
}

func addGermany(f *fixture) {
	f.area("DEU", country, "", "DEU", "DEU", "Deutschland", 83_000_000, [4]float64{5.9, 47.3, 15, 55}, "DE", "Allemagne", "Germany", "Alemania")
	f.area("BY", region, "DEU", "DEU", "DE-BY", "Bayern", 13_000_000, [4]float64{9, 47.3, 13.8, 50.6}, "Bavière", "Bavaria")
	f.town("munchen", city, "BY", "DEU", "2867714", "München", 1_500_000, 11.576, 48.137, 10, nil, "Munich", "Monaco di Baviera")
	f.area("BE", region, "DEU", "DEU", "DE-BE", "Berlin", 3_700_000, [4]float64{13.1, 52.3, 13.8, 52.7})
	f.town("berlin", city, "BE", "DEU", "2950159", "Berlin", 3_700_000, 13.405, 52.52, 15, nil)
}

func addSpain(f *fixture) {
	f.area("ESP", country, "", "ESP", "ESP", "España", 47_000_000, [4]float64{-9.3, 36, 3.3, 43.8}, "ES", "Espagne", "Spain")
	f.area("CT", region, "ESP", "ESP", "ES-CT", "Cataluña", 7_700_000, [4]float64{0.15, 40.5, 3.3, 42.9}, "Catalogne", "Catalonia", "Catalunya")
	f.area("pB", department, "CT", "ESP", "ES-B", "Barcelona", 5_700_000, [4]float64{1.3, 41.2, 2.8, 42.3}, "Barcelone")
	f.town("barcelona", city, "pB", "ESP", "3128760", "Barcelona", 1_660_000, 2.17, 41.387, 8, nil, "Barcelone")
	f.area("MD", region, "ESP", "ESP", "ES-MD", "Comunidad de Madrid", 6_700_000, [4]float64{-4.6, 39.9, -3.0, 41.2}, "Madrid", "Communauté de Madrid")
	f.area("pM", department, "MD", "ESP", "ES-M", "Madrid", 6_700_000, [4]float64{-4.6, 39.9, -3.0, 41.2})
	f.town("madrid", city, "pM", "ESP", "3117735", "Madrid", 3_300_000, -3.70, 40.42, 10, nil)
}

func addUSA(f *fixture) {
	f.area("USA", country, "", "USA", "USA", "United States", 331_000_000, [4]float64{-125, 24, -66, 49}, "US", "États-Unis", "Estados Unidos")
	f.area("CA", region, "USA", "USA", "US-CA", "California", 39_000_000, [4]float64{-124.4, 32.5, -114.1, 42}, "Californie")
	f.town("la", city, "CA", "USA", "5368361", "Los Angeles", 3_900_000, -118.24, 34.05, 20, nil)
	f.area("NY", region, "USA", "USA", "US-NY", "New York", 19_600_000, [4]float64{-79.8, 40.5, -71.8, 45}, "État de New York", "New York State")
	f.town("nyc", city, "NY", "USA", "5128581", "New York", 8_300_000, -74.006, 40.713, 20, nil, "New York City", "NYC")
	// Regions of unknown population, as the gazetteer has them outside
	// France, and a town named after another state.
	f.area("OH", region, "USA", "USA", "US-OH", "Ohio", 0, [4]float64{-84.8, 38.4, -80.5, 42})
	f.town("delawareoh", city, "OH", "USA", "4152000", "Delaware", 41_000, -83.07, 40.3, 4, nil)
	f.area("DE", region, "USA", "USA", "US-DE", "Delaware", 0, [4]float64{-75.8, 38.4, -75, 39.9})
	f.area("TX", region, "USA", "USA", "US-TX", "Texas", 0, [4]float64{-106.6, 25.8, -93.5, 36.5})
	f.town("houston", city, "TX", "USA", "4699066", "Houston", 2_300_000, -95.37, 29.76, 20, nil)
	f.area("WA", region, "USA", "USA", "US-WA", "Washington", 0, [4]float64{-124.8, 45.5, -116.9, 49})
	f.town("seattle", city, "WA", "USA", "5809844", "Seattle", 750_000, -122.33, 47.6, 10, nil)
	f.area("DC", region, "USA", "USA", "US-DC", "District of Columbia", 0, [4]float64{-77.12, 38.8, -76.9, 39})
	f.town("washington", city, "DC", "USA", "4140963", "Washington", 690_000, -77.04, 38.9, 8, nil, "Washington DC")
}

// addBritain has London as the gazetteer has it: the 3 km² City of
// London (ISO GB-LND), of unknown population, and the city of London,
// placed in Westminster.
func addBritain(f *fixture) {
	f.area("GBR", country, "", "GBR", "GBR", "Royaume-Uni", 67_000_000, [4]float64{-8, 50, 2, 59}, "GB", "United Kingdom")
	f.area("ENG", region, "GBR", "GBR", "GB-ENG", "England", 0, [4]float64{-5.7, 50, 1.8, 55.8}, "Angleterre")
	f.area("LND", department, "ENG", "GBR", "GB-LND", "London", 0, [4]float64{-0.113, 51.507, -0.073, 51.523})
	f.area("WSM", department, "ENG", "GBR", "GB-WSM", "Westminster", 0, [4]float64{-0.216, 51.484, -0.111, 51.539})
	f.town("london", city, "WSM", "GBR", "2643743", "London", 8_961_989, -0.1257, 51.5085, 30, nil, "Londres")
}

// syntheticFrance is France with n made-up communes besides Paris and
// Lyon: the size of the real list of French names, for benchmarks.
func syntheticFrance(tb testing.TB, n int) (*Resolver, []string) {
	tb.Helper()
	f := newFixtureBuilder()
	f.area("FRA", country, "", "FRA", "FRA", "France", 68_000_000, [4]float64{-5, 41, 10, 51.5}, "FR")
	f.area("R", region, "FRA", "FRA", "84", "Région", 8_000_000, [4]float64{-5, 41, 10, 51.5})
	f.area("D", department, "R", "FRA", "69", "Département", 1_000_000, [4]float64{-5, 41, 10, 51.5})
	f.town("paris", city, "D", "FRA", "75056", "Paris", 2_133_111, 2.35, 48.85, 8, nil)
	f.town("lyon", city, "D", "FRA", "69123", "Lyon", 522_250, 4.83, 45.76, 6, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	names := make([]string, 0, n)
	for i := 0; len(names) < n; i++ {
		name := syntheticName(rng)
		names = append(names, name)
		f.town("", city, "D", "FRA", fmt.Sprintf("S%06d", i), name, rng.Int64N(50_000), rng.Float64()*10-5, 41+rng.Float64()*10, 2, nil)
	}
	return NewResolver(f.build(tb)), names
}

// syntheticName strings syllables into names shaped like French commune
// names: "Saint-Morlanville", "Bertignac-sur-Vaulx".
func syntheticName(rng *rand.Rand) string {
	syll := []string{"ber", "mor", "lan", "vil", "le", "ta", "gnac", "vaulx", "cour", "mont", "ro", "che", "fon", "tai", "ne", "bois", "sur", "pier", "re", "gné", "ay", "lès", "quin", "ville", "court", "ac", "in", "ieu", "dun", "mar", "sa", "lon", "ges", "ma", "rie"}
	word := func() string {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		w := b.String()
		return strings.ToUpper(w[:1]) + w[1:]
	}
	switch rng.IntN(6) {
	case 0:
		return "Saint-" + word()
	case 1:
		return word() + "-sur-" + word()
	case 2:
		return word() + "-les-" + word()
	}
	return word()
}
