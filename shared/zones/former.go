package zones

import "github.com/prospectdata/svc/shared/gazetteer"

// formerRegion is a French region merged away in 2016, still a usual way
// to name an area: its name and its departments.
type formerRegion struct {
	name  string
	depts []string
}

// formerRegions, by normalised name. Regions whose name and extent did not
// change (Bretagne, Corse, Île-de-France...) are in the gazetteer.
var formerRegions = map[string]formerRegion{
	"alsace":               {"Alsace", []string{"67", "68"}},
	"aquitaine":            {"Aquitaine", []string{"24", "33", "40", "47", "64"}},
	"auvergne":             {"Auvergne", []string{"03", "15", "43", "63"}},
	"basse normandie":      {"Basse-Normandie", []string{"14", "50", "61"}},
	"bourgogne":            {"Bourgogne", []string{"21", "58", "71", "89"}},
	"champagne ardenne":    {"Champagne-Ardenne", []string{"08", "10", "51", "52"}},
	"franche comte":        {"Franche-Comté", []string{"25", "39", "70", "90"}},
	"haute normandie":      {"Haute-Normandie", []string{"27", "76"}},
	"languedoc roussillon": {"Languedoc-Roussillon", []string{"11", "30", "34", "48", "66"}},
	"limousin":             {"Limousin", []string{"19", "23", "87"}},
	"lorraine":             {"Lorraine", []string{"54", "55", "57", "88"}},
	"midi pyrenees":        {"Midi-Pyrénées", []string{"09", "12", "31", "32", "46", "65", "81", "82"}},
	"nord pas de calais":   {"Nord-Pas-de-Calais", []string{"59", "62"}},
	"picardie":             {"Picardie", []string{"02", "60", "80"}},
	"poitou charentes":     {"Poitou-Charentes", []string{"16", "17", "79", "86"}},
	"rhone alpes":          {"Rhône-Alpes", []string{"01", "07", "26", "38", "42", "69", "73", "74"}},
}

// former reads a former French region: all its departments. A current
// region, department or country of the name wins over it; a commune does
// not (there is a "Bourgogne" commune).
func (r *Resolver) former(q *query, norm string) (match, bool) {
	fr, ok := formerRegions[norm]
	if !ok || !q.fr {
		return match{}, false
	}
	for _, id := range r.g.Lookup(q.country.Code, norm) {
		if !isPoint(r.g.Place(id).Kind) {
			return match{}, false
		}
	}
	var ids []gazetteer.ID
	for _, code := range fr.depts {
		if id, ok := r.g.ByCode(q.country.Code, gazetteer.Department, code); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return match{}, false
	}
	return match{form: FormName, ids: ids, all: true, label: fr.name}, true
}

// guessFormer suggests the former region whose name is closest.
func (r *Resolver) guessFormer(q *query) (guess, bool) {
	k := maxDistance(len(q.norm))
	if !q.fr || k == 0 {
		return guess{}, false
	}
	best := guess{dist: k + 1}
	for norm, fr := range formerRegions {
		if abs(len(norm)-len(q.norm)) > k {
			continue // farther than k edits, without computing
		}
		if d := osa(q.norm, norm); d < best.dist || d == best.dist && fr.name < best.text {
			best = guess{text: fr.name, dist: d}
		}
	}
	if best.dist > k {
		return guess{}, false
	}
	for _, code := range formerRegions[gazetteer.Normalize(best.text)].depts {
		if id, ok := r.g.ByCode(q.country.Code, gazetteer.Department, code); ok {
			best.weight += weight(r.g.Place(id))
		}
	}
	return best, true
}

// osa is the optimal string alignment distance between a and b, for the
// few names not in the gazetteer's sorted lists.
func osa(a, b string) int {
	w := len(b) + 1
	d := make([]int, (len(a)+1)*w)
	for j := range w {
		d[j] = j
	}
	for i := 1; i <= len(a); i++ {
		d[i*w] = i
		for j := 1; j < w; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(d[(i-1)*w+j]+1, d[i*w+j-1]+1, d[(i-1)*w+j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, d[(i-2)*w+j-2]+1)
			}
			d[i*w+j] = v
		}
	}
	return d[len(d)-1]
}

func abs(n int) int { return max(n, -n) }
