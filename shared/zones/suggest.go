package zones

import (
	"sort"
	"strings"
	"unicode"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// maxDistance is how many edits a suggestion may be from the input, by
// the input's normalised length in bytes: none below 3, 1 up to 4, 2 up to
// 8, 3 beyond. Short inputs get fewer edits, or every 3-letter typo would
// "suggest" an unrelated village.
func maxDistance(n int) int {
	switch {
	case n < 3:
		return 0
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// Suggest returns the known zone closest to zone in country: a string
// Resolve accepts, with the input's radius kept ("Lyonn 15km" suggests
// "Lyon 15 km"). It reports false when no name is close enough (see the
// package doc) or the country or input is invalid.
func (r *Resolver) Suggest(country, zone string) (string, bool) {
	c, ok := r.country(country)
	if !ok {
		return "", false
	}
	q, err := prepare(c, zone)
	if err != nil {
		return "", false
	}
	return r.suggest(q)
}

// guess is one suggestion, its edit distance, and the weight (see
// weight) of its place, which breaks ties between readings: "Alsac" is
// one edit from Alsace and from Arsac, a village.
type guess struct {
	text   string
	dist   int
	weight float64
}

// suggest tries a fuzzy match for each reading with a name and keeps the
// closest; between equally close ones, the heavier place, then the first.
func (r *Resolver) suggest(q *query) (string, bool) {
	best := guess{dist: -1}
	consider := func(g guess, ok bool) {
		if !ok || g.text == "" || best.dist >= 0 && (g.dist > best.dist || g.dist == best.dist && g.weight <= best.weight) {
			return
		}
		if q.radius > 0 {
			g.text += " " + formatKm(q.radius) + " km"
		}
		// A suggestion must be a zone the user can send as it is; a
		// qualifier copied from a garbled input may not be.
		if _, ok := r.pick(q.country, g.text); ok {
			best = g
		}
	}
	// limit is the distance still worth searching: a later reading can
	// only tie with the best so far.
	limit := func() int {
		if best.dist < 0 {
			return maxDistance(len(q.norm))
		}
		return best.dist
	}
	// Qualified readings first: their name parts are shorter, so their
	// searches are cheaper, and a close match there bounds the others.
	rds := q.readings()
	for _, rd := range rds {
		if rd.form == FormQualified {
			consider(r.guessQualified(q, rd, limit()))
		}
	}
	for _, rd := range rds {
		// An input ending in "(...)" is read with its qualifier only, as
		// Resolve does.
		if rd.form == FormName && !rd.exact {
			consider(r.guessName(q, rd.name, limit()))
			consider(r.guessDistrict(q, rd.name, limit()))
		}
	}
	consider(r.guessFormer(q))
	if q.fr && q.norm == "20" {
		consider(r.guessCorsica(q))
	}
	if best.dist < 0 {
		return "", false
	}
	return best.text, true
}

// guessCorsica suggests the region Corse for "20", Corsica's department
// number until 1976, still the start of its postal codes.
func (r *Resolver) guessCorsica(q *query) (guess, bool) {
	d, ok := r.g.ByCode(q.country.Code, gazetteer.Department, "2A")
	if !ok {
		return guess{}, false
	}
	reg := r.enclosing(d, gazetteer.Region)
	if reg == gazetteer.None {
		return guess{}, false
	}
	s, ok := r.nameFor(reg)
	return guess{s, 1, weight(r.g.Place(reg))}, ok
}

// accept tells which places a suggestion may name: with a radius, only
// cities and arrondissements.
func (q *query) accept(g *gazetteer.Gazetteer, id gazetteer.ID) bool {
	return q.radius == 0 || isPoint(g.Place(id).Kind)
}

// guessName suggests the place whose name is closest to the input.
func (r *Resolver) guessName(q *query, name string, limit int) (guess, bool) {
	accept := func(id gazetteer.ID) bool { return q.accept(r.g, id) }
	n, d, ok := r.fuzzy(q.country.Code, name, limit, accept)
	if !ok {
		return guess{}, false
	}
	s, ok := r.spell(q, n.Norm, accept)
	return guess{s, d, weight(r.g.Place(n.ID))}, ok
}

// guessDistrict suggests an arrondissement whose city's name is closest
// ("Pari 11e": "Paris 11e").
func (r *Resolver) guessDistrict(q *query, name string, limit int) (guess, bool) {
	if !q.fr {
		return guess{}, false
	}
	city, num, ok := parseDistrict(name)
	if !ok {
		return guess{}, false
	}
	accept := func(id gazetteer.ID) bool {
		_, has := r.district(id, num)
		return has
	}
	n, d, ok := r.fuzzy(q.country.Code, city, limit, accept)
	if !ok {
		return guess{}, false
	}
	s, ok := r.spell(q, n.Norm, accept)
	return guess{s + " " + ordinalText(num), d, weight(r.g.Place(n.ID))}, ok
}

// guessQualified suggests, for "<name> (<qualifier>)", the closest name
// among the qualifier's places, or when the name exists but not there,
// the name alone (one edit: the qualifier dropped).
func (r *Resolver) guessQualified(q *query, rd reading, limit int) (guess, bool) {
	quals, postal := r.qualifiers(q, rd.qual)
	if len(quals) > 0 && !postal {
		accept := func(id gazetteer.ID) bool { return q.accept(r.g, id) && r.inAny(id, quals) }
		if n, d, ok := r.fuzzy(q.country.Code, rd.name, limit, accept); ok {
			return guess{spelling(r.g.Place(n.ID), n.Norm) + " (" + clean(rd.qual) + ")", d, weight(r.g.Place(n.ID))}, true
		}
	}
	ids := r.g.Lookup(q.country.Code, rd.name)
	if len(ids) == 0 {
		return guess{}, false
	}
	s, ok := r.spell(q, rd.name, func(id gazetteer.ID) bool { return q.accept(r.g, id) })
	return guess{s, 1, weight(r.g.Place(ids[0]))}, ok
}

// spell returns how to write the place a suggested name stands for: the
// one the ambiguity rule picks among the places of that name accept
// allows, in the spelling of its name or alias the suggestion matched
// ("Bavière", not "Bayern", for "Bavierre"), or qualified when that
// spelling alone would name another place ("Vienne (38)").
func (r *Resolver) spell(q *query, norm string, accept func(gazetteer.ID) bool) (string, bool) {
	var ids []gazetteer.ID
	for _, id := range r.g.Lookup(q.country.Code, norm) {
		if accept(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", false
	}
	pick, _, _ := r.choose(ids)
	s := spelling(r.g.Place(pick), norm)
	if got, ok := r.pick(q.country, s); ok && got == pick {
		return s, true
	}
	return r.nameFor(pick)
}

// spelling is the name or alias of p that normalises to norm.
func spelling(p *gazetteer.Place, norm string) string {
	for _, n := range append([]string{shortName(p), p.Name}, p.Aliases...) {
		if gazetteer.Normalize(n) == norm {
			return n
		}
	}
	return p.Name
}

// clean is a qualifier copied into a suggestion: valid UTF-8, no control
// characters, single spaces.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// inAny tells whether id is one of quals or inside one.
func (r *Resolver) inAny(id gazetteer.ID, quals []gazetteer.ID) bool {
	for _, q := range quals {
		if q == id || r.above(q, id) {
			return true
		}
	}
	return false
}

// fuzzy finds the name of country closest to query (normalised) by
// optimal string alignment distance (Damerau-Levenshtein with adjacent
// transpositions), within maxDistance and limit, among the places accept
// allows; among equally close names the most populous place wins.
//
// Names(country) is sorted, so it is walked as an implicit trie: the
// dynamic-programming rows of a name's prefix are kept for the next name
// sharing it, and when every cell of a row exceeds the bound no name with
// that prefix can come closer, so the walk jumps past all of them.
func (r *Resolver) fuzzy(country, query string, limit int, accept func(gazetteer.ID) bool) (gazetteer.Name, int, bool) {
	k := min(maxDistance(len(query)), limit)
	if k <= 0 {
		return gazetteer.Name{}, 0, false
	}
	t := newTable(query, k)
	// Most typos are one edit, and a walk bounded by 1 visits far fewer
	// prefixes than one bounded by 3: widen the bound only when needed.
	for bound := 1; bound <= k; bound++ {
		if n, d, ok := r.walk(r.g.Names(country), t, bound, accept); ok {
			return n, d, true
		}
	}
	return gazetteer.Name{}, 0, false
}

// walk is one pass of fuzzy over the sorted names, within bound edits.
func (r *Resolver) walk(names []gazetteer.Name, t *table, bound int, accept func(gazetteer.ID) bool) (gazetteer.Name, int, bool) {
	best := gazetteer.Name{ID: gazetteer.None}
	prev := "" // the prefix t holds rows for
	for i := 0; i < len(names); {
		s := names[i].Norm
		p := commonPrefix(prev, s)
		dead := 0
		if p > 0 && t.mins[p] > bound {
			dead = p
		}
		// Row d's minimum is at least d-len(query), so this ends by
		// t.depth = len(query)+k+1 at the latest.
		for d := p + 1; dead == 0 && d <= len(s); d++ {
			if t.row(s, d, bound) > bound {
				dead = d
			}
		}
		if dead > 0 {
			prev = s[:dead]
			i = skipPrefix(names, i, prev)
			continue
		}
		prev = s
		// bound becomes the best distance so far: a farther name cannot
		// win, an equally close one can if more populous.
		if dist := t.last(len(s), bound); dist <= bound && accept(names[i].ID) && r.better(names[i], dist, best, bound) {
			best, bound = names[i], dist
		}
		i++
	}
	return best, bound, best.ID != gazetteer.None
}

// table holds the dynamic-programming rows of one fuzzy search: row d is
// the distance from each prefix of the query to the d first bytes of the
// current name.
type table struct {
	query string
	w     int   // row width: len(query)+1
	depth int   // deepest row: beyond len(query)+k every cell exceeds k
	cells []int // depth+1 rows
	mins  []int // the minimum of each row
}

func newTable(query string, k int) *table {
	w := len(query) + 1
	t := &table{query: query, w: w, depth: len(query) + k + 1}
	t.cells = make([]int, (t.depth+1)*w)
	t.mins = make([]int, t.depth+1)
	for j := range w {
		t.cells[j] = j
	}
	return t
}

// row computes row d for name s from the rows above it and returns its
// minimum. No cell of a later row can be below it, so a row whose
// minimum exceeds the bound ends the prefix.
//
// Only the band of cells j with |d-j| <= bound is computed (a cell's
// distance is at least |d-j|); the cells just outside it are set to
// bound+1, so every value at most bound is exact and every other one
// exceeds bound. A long input then costs 2·bound+1 cells a row, not its
// length. The bound only shrinks within a walk, and each walk starts
// afresh, so rows reused from a wider band stay valid.
func (t *table) row(s string, d, bound int) int {
	w, q := t.w, t.query
	up := t.cells[(d-1)*w : d*w]
	cur := t.cells[d*w : (d+1)*w]
	c := s[d-1]
	far := bound + 1
	cur[0] = d
	m := far
	if d <= bound {
		m = d
	}
	lo, hi := max(1, d-bound), min(w-1, d+bound)
	if lo > 1 {
		cur[lo-1] = far
	}
	for j := lo; j <= hi; j++ {
		v := up[j-1]
		if q[j-1] != c {
			v++
		}
		v = min(v, up[j]+1, cur[j-1]+1)
		if d > 1 && j > 1 && c == q[j-2] && s[d-2] == q[j-1] {
			v = min(v, t.cells[(d-2)*w+j-2]+1)
		}
		cur[j] = v
		m = min(m, v)
	}
	if hi+1 < w {
		cur[hi+1] = far
	}
	t.mins[d] = m
	return m
}

// last is the distance from the query to the name whose row d is the
// last, or bound+1 when it is farther than bound.
func (t *table) last(d, bound int) int {
	if abs(d-(t.w-1)) > bound {
		return bound + 1
	}
	return t.cells[d*t.w+t.w-1]
}

// better tells whether a match beats the best so far: closer; as close
// and more populous; or another name of the same place, as close, that is
// its own name ("Parsi" is one edit from "Pari", an alias of Paris, and
// from "Paris": suggest "Paris").
func (r *Resolver) better(n gazetteer.Name, dist int, best gazetteer.Name, bestDist int) bool {
	if best.ID == gazetteer.None || dist < bestDist {
		return true
	}
	if dist != bestDist {
		return false
	}
	if n.ID == best.ID {
		return n.Norm == gazetteer.Normalize(shortName(r.g.Place(n.ID)))
	}
	return weight(r.g.Place(n.ID)) > weight(r.g.Place(best.ID))
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// skipPrefix returns the index of the first name after i that does not
// start with prefix; names[i] does, and names sharing it are contiguous.
// It gallops before bisecting: the names under a dead prefix are most
// often a handful.
func skipPrefix(names []gazetteer.Name, i int, prefix string) int {
	lo, step := i, 1 // names[lo] has the prefix
	hi := lo + step
	for hi < len(names) && strings.HasPrefix(names[hi].Norm, prefix) {
		lo, step = hi, step*2
		hi = lo + step
	}
	hi = min(hi, len(names))
	return lo + 1 + sort.Search(hi-lo-1, func(j int) bool { return !strings.HasPrefix(names[lo+1+j].Norm, prefix) })
}
