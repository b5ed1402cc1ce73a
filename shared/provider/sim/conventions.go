package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paulmach/orb/geo"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// localConv is what a commune's country and region impose on its places'
// addresses and phones: its postal codes, its phone area codes (national
// form, trunk digit included: "04 72", "089", "0113"), the state of a US
// address. Every field follows from the commune alone (its code, name,
// region and the tables below), so every place of a commune agrees.
type localConv struct {
	country   string
	postcodes []string // France: the commune's; GBR: outward codes
	areas     []string
	state     string
	// town is the name addresses give the commune when the table spells
	// it in the country's language ("München", "Milano") and the
	// gazetteer's name is an exonym; empty otherwise.
	town string
	// fixedArea says areas are complete codes; otherwise (the countries
	// without a table) areas are whole phone patterns (nationalPhones).
	patterns []string
}

// conventions returns the conventions of a commune (cached: they cost a
// few lookups and are asked for by every place shown).
func (w *World) conventions(country string, id gazetteer.ID) *localConv {
	if v, ok := w.convs.Load(id); ok {
		return v.(*localConv)
	}
	c := w.buildConventions(country, id)
	v, _ := w.convs.LoadOrStore(id, c)
	return v.(*localConv)
}

func (w *World) buildConventions(country string, id gazetteer.ID) *localConv {
	p := w.g.Place(id)
	c := &localConv{country: country}
	h := key(0).str(country).str(p.Code) // what the commune's codes are drawn from
	switch country {
	case "FRA":
		c.postcodes = p.Postcodes
		dept := department(p.Code)
		if pat, ok := frOverseas[dept]; ok {
			c.patterns = []string{pat}
		} else {
			c.areas = frAreas[dept]
		}
	case "DEU":
		w.germanConv(c, p, h)
	case "ESP":
		w.spanishConv(c, p, h)
	case "ITA":
		w.italianConv(c, p, h)
	case "GBR":
		w.britishConv(c, p, h)
	case "USA":
		w.usConv(c, p, h)
	default:
		// A country without tables: one of its patterns per commune, so
		// that a town's numbers at least share their area.
		if ps := nationalPhones[country]; len(ps) > 0 {
			r := h.str("pattern").rng()
			c.patterns = []string{pick(&r, ps)}
		}
	}
	return c
}

// ancestor is the code of the first place of kind k above id ("" if none).
func (w *World) ancestor(id gazetteer.ID, k gazetteer.Kind) string {
	for id != gazetteer.None {
		p := w.g.Place(id)
		if p.Kind == k {
			return p.Code
		}
		id = p.Parent
	}
	return ""
}

// bigCity is a city of a country's table, found in the gazetteer by name
// (and region, for names several cities bear).
type bigCity struct {
	name, region string
	town         string   // the name addresses give, when not name
	area         string   // phone area code, national form
	post         []string // postcode prefixes (GBR: postcode areas)
}

// tableCity returns the entry of the table naming the city, or nil. A
// city matches when the gazetteer's most populous place of that name in
// the region is this very place.
func (w *World) tableCity(country string, p *gazetteer.Place, table []bigCity) *bigCity {
	for i := range table {
		t := &table[i]
		for _, id := range w.g.Lookup(country, t.name) {
			q := w.g.Place(id)
			if q.Kind != gazetteer.City || (t.region != "" && w.ancestor(id, gazetteer.Region) != t.region) {
				continue
			}
			if id == p.ID {
				return t
			}
			break // the most populous of the name is the table's
		}
	}
	return nil
}

// nearestCity is the table city closest to p (of the same region when
// region is not empty and some city is in it).
func (w *World) nearestCity(country string, p *gazetteer.Place, table []bigCity, region string) *bigCity {
	var best *bigCity
	bestD := 0.0
	for pass := 0; pass < 2 && best == nil; pass++ {
		for i := range table {
			t := &table[i]
			if pass == 0 && region != "" && t.region != region {
				continue
			}
			ids := w.g.Lookup(country, t.name)
			if len(ids) == 0 {
				continue
			}
			if d := geo.Distance(w.g.Place(ids[0]).Center, p.Center); best == nil || d < bestD {
				best, bestD = t, d
			}
		}
	}
	return best
}

// digits draws n digits from r, the first within [lo, 9].
func digits(r *rng, n int, lo byte) string {
	b := make([]byte, n)
	for i := range b {
		if i == 0 {
			b[i] = lo + byte(r.intn(int('9'-lo)+1))
		} else {
			b[i] = byte('0' + r.intn(10))
		}
	}
	return string(b)
}

// postcodesFor draws a commune's postal codes: prefix plus digits, one
// for a town, one per 25,000 people (at most 20) for a city.
func postcodesFor(r *rng, prefixes []string, width int, pop int64, lo byte) []string {
	n := min(max(int(pop/25000), 1), 20)
	seen := map[string]bool{}
	var out []string
	for tries := 0; len(out) < n && tries < 4*n; tries++ {
		pre := pick(r, prefixes)
		pc := pre + digits(r, width-len(pre), lo)
		if !seen[pc] {
			seen[pc] = true
			out = append(out, pc)
		}
	}
	return out
}

// townArea draws a town's area code from its region's leading digits,
// never one that a table city's code begins (so no Bavarian town dials
// Hamburg's 40 or Nürnberg's 911).
func townArea(r *rng, leads []string, width int, table []bigCity) string {
	for range 50 {
		a := pick(r, leads)
		a += digits(r, width-len(a), '1')
		clash := false
		for _, t := range table {
			if strings.HasPrefix(a, t.area) {
				clash = true
				break
			}
		}
		if !clash {
			return a
		}
	}
	return leads[0] + strings.Repeat("1", width-len(leads[0]))
}

// Germany: the Vorwahl of the big cities, the Land's leading digits
// otherwise (four-digit codes, never a table city's); postal codes of
// the Land's leading digits. Codes are written with the trunk 0.
func (w *World) germanConv(c *localConv, p *gazetteer.Place, h key) {
	r := h.rng()
	if t := w.tableCity("DEU", p, deCities); t != nil {
		c.town = t.name
		c.areas = []string{"0" + t.area}
		c.postcodes = postcodesFor(&r, t.post, 5, p.Population, '0')
		return
	}
	land := deLands[w.ancestor(p.ID, gazetteer.Region)]
	// The Land's leading digits, narrowed to those of the nearest big
	// city where they share some (Alzenau, in Bavaria next to Frankfurt,
	// dials 06… and has a 63… postcode, not Munich's 8…).
	near := w.nearestCity("DEU", p, deCities, "")
	phone, post := land.phone, land.post
	if near != nil {
		phone = sameLead(phone, near.area[:1])
		post = sameLead(post, near.post[0][:1])
	}
	switch {
	case land.area != "":
		c.areas = []string{"0" + land.area}
	case len(phone) > 0:
		c.areas = []string{"0" + townArea(&r, phone, 4, deCities)}
	default:
		c.areas = []string{"0" + townArea(&r, []string{"6"}, 4, deCities)}
	}
	if len(post) == 0 {
		post = []string{"6"}
	}
	c.postcodes = postcodesFor(&r, post, 5, p.Population, '0')
}

// sameLead is the prefixes that begin with lead, or all of them if none
// does.
func sameLead(prefixes []string, lead string) []string {
	var out []string
	for _, p := range prefixes {
		if strings.HasPrefix(p, lead) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return prefixes
	}
	return out
}

// Spain: the province decides both: its two-digit postal prefix (the INE
// code) and its phone prefix; a provincial capital's codes are xx0yy, a
// town's xx1yy to xx9yy.
func (w *World) spanishConv(c *localConv, p *gazetteer.Place, h key) {
	r := h.rng()
	prov, ok := esProvinces[w.ancestor(p.ID, gazetteer.Department)]
	if !ok {
		prov = esProvinces["ES-M"]
	}
	c.areas = []string{prov.area}
	if t := w.tableCity("ESP", p, esCities); t != nil {
		c.town = t.name
	}
	if p.Population >= 150000 || c.town != "" {
		c.postcodes = postcodesFor(&r, []string{prov.post + "0"}, 5, p.Population, '0')
	} else {
		c.postcodes = postcodesFor(&r, []string{prov.post}, 5, p.Population, '1')
	}
}

// Italy: the big cities' prefissi and CAP, the region's otherwise.
func (w *World) italianConv(c *localConv, p *gazetteer.Place, h key) {
	r := h.rng()
	if t := w.tableCity("ITA", p, itCities); t != nil {
		c.town = t.name
		c.areas = []string{t.area}
		c.postcodes = postcodesFor(&r, t.post, 5, p.Population, '1')
		return
	}
	reg, ok := itRegions[w.ancestor(p.ID, gazetteer.Region)]
	if !ok {
		reg = itRegions["IT-62"]
	}
	c.areas = []string{pick(&r, reg.phone)}
	var post []string
	for _, pre := range reg.post {
		post = append(post, pre)
	}
	for tries := 0; tries < 20; tries++ { // a town's CAP is none of a big city's
		c.postcodes = postcodesFor(&r, post, 5, min(p.Population, 24999), '0')
		if !itCityCAP(c.postcodes[0]) {
			break
		}
	}
}

func itCityCAP(pc string) bool {
	for _, t := range itCities {
		for _, pre := range t.post {
			if strings.HasPrefix(pc, pre) {
				return true
			}
		}
	}
	return false
}

// United Kingdom: the cities' and towns' dialling codes and postcode
// areas (districts 1 to n of their own); a place of no table takes the
// code and postcode area of its nation's nearest listed town, with a
// district number of its own; Northern Ireland dials 028 everywhere.
func (w *World) britishConv(c *localConv, p *gazetteer.Place, h key) {
	r := h.rng()
	all := w.gbAll()
	if t := w.tableCity("GBR", p, all); t != nil {
		c.areas = []string{"0" + t.area}
		n := min(max(int(p.Population/40000), 1), 20)
		for i := 1; i <= n; i++ {
			c.postcodes = append(c.postcodes, t.post[(i-1)%len(t.post)]+fmt.Sprint(1+(i-1)/len(t.post)))
		}
		return
	}
	nation := w.ancestor(p.ID, gazetteer.Region)
	t := w.nearestCity("GBR", p, all, nation)
	c.areas = []string{"0" + t.area}
	if nation == "GB-NIR" {
		c.areas = []string{"028"}
	}
	c.postcodes = []string{t.post[0] + fmt.Sprint(20+r.intn(70))}
}

// gbAll is gbCities then gbTowns.
func (w *World) gbAll() []bigCity { return append(slices.Clip(gbCities), gbTowns...) }

// USA: the big cities' area codes and ZIP prefixes, the state's
// otherwise; addresses name the state.
func (w *World) usConv(c *localConv, p *gazetteer.Place, h key) {
	r := h.rng()
	code := w.ancestor(p.ID, gazetteer.Region)
	st, ok := usStates[code]
	if !ok {
		st = usStates["US-NY"]
	}
	c.state = strings.TrimPrefix(code, "US-")
	if t := w.tableCity("USA", p, usCities); t != nil {
		c.town = t.town
		c.areas = []string{t.area}
		c.postcodes = postcodesFor(&r, t.post, 5, p.Population, '0')
		return
	}
	c.areas = []string{pick(&r, st.areas)}
	c.postcodes = postcodesFor(&r, st.zips, 5, min(p.Population, 24999), '0')
}
