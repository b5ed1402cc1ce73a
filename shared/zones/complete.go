package zones

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// Completion is a zone a person may mean by what they typed so far: its
// label reads back as the same zone (Resolve), so a form can put it in the
// request as it is.
type Completion struct {
	Label string `json:"label"`
	// Kind is country, region, department, city or district.
	Kind string `json:"kind"`
}

// MaxCompletions bounds one answer of Complete.
const MaxCompletions = 20

// completeScan bounds the names read for one prefix: a one-letter prefix
// matches thousands of communes, and the most populous are wanted, not
// all.
const completeScan = 5000

// Complete returns up to limit zones of country whose name starts with
// prefix (any case and accents, as Resolve reads names), the most populous
// first; none for a prefix of fewer than 2 characters or an unknown
// country.
func (r *Resolver) Complete(country, prefix string, limit int) []Completion {
	c, ok := r.country(country)
	if !ok {
		return nil
	}
	norm := gazetteer.Normalize(prefix)
	if len([]rune(norm)) < 2 {
		return nil
	}
	limit = min(max(limit, 1), MaxCompletions)
	names := r.g.Names(c.Code)
	first := sort.Search(len(names), func(i int) bool { return names[i].Norm >= norm })
	type found struct {
		id     gazetteer.ID
		weight float64
	}
	var fs []found
	seen := map[gazetteer.ID]bool{}
	for i := first; i < len(names) && i-first < completeScan && strings.HasPrefix(names[i].Norm, norm); i++ {
		id := names[i].ID
		if seen[id] {
			continue
		}
		seen[id] = true
		p := r.g.Place(id)
		w := weight(p)
		if p.Kind <= gazetteer.Department {
			// A region or department before the towns of its name.
			w += 1e9
		}
		fs = append(fs, found{id, w})
	}
	slices.SortStableFunc(fs, func(a, b found) int { return cmp.Compare(b.weight, a.weight) })
	out := make([]Completion, 0, limit)
	labels := map[string]bool{}
	for _, f := range fs {
		if len(out) == limit {
			break
		}
		p := r.g.Place(f.id)
		l := r.label(f.id)
		if p.Kind == gazetteer.Country {
			l = p.Name
		}
		// The label as the resolver reads it back (an overseas
		// collectivity gains its code): what the form will send.
		z, err := r.Resolve(c.Code, l)
		if err != nil || labels[z.Label] {
			continue
		}
		labels[z.Label] = true
		out = append(out, Completion{Label: z.Label, Kind: p.Kind.String()})
	}
	return out
}
