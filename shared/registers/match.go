package registers

import (
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/bizname"
	"github.com/prospectdata/svc/shared/gazetteer"
)

// Name matching. A listing's name ("Boulangerie Dupont") and the
// register's ("SARL BOULANGERIE DUPONT", or an enseigne "AU PAIN DORE"
// under "MARTIN ET FILS") differ by case, accents, punctuation, legal-form
// words, articles and word order, sometimes by a typo. Both are cut into
// normalised words without legal forms and articles, and compared word by
// word:
//
//   - two words match when their Jaro-Winkler similarity is at least
//     wordMatch (0.92: "dupont"/"dupond" 0.95 matches, "marche"/"marchand"
//     0.90 does not); words of three letters or less must be equal;
//   - each word pairs with at most one word of the other name, the most
//     similar pairs first; s is the sum of the paired similarities;
//   - the score is the larger of the Dice coefficient 2s/(|a|+|b|), which
//     penalises words either name lacks, and a containment score
//     s/min(|a|,|b|) weighted 0.9 (0.8 when the shorter name is a single
//     word), which credits a register name that is the listing's name
//     with an activity word added or removed ("Dupont Plomberie" and
//     "Dupont") without letting one shared word win alone.
//
// Word order does not matter (registers often put the surname first);
// Jaro-Winkler rather than an edit distance because names differ at their
// ends (plurals, Dupont/Dupond) far more than at their starts. A company
// scores the best of its names: nom_complet, raison sociale, sigle, and the
// enseignes and nom commercial of its siège and matching establishments.
const (
	wordMatch = 0.92
	// maxNameRunes bounds the text a name is read from (no business name
	// is longer; a cell may be).
	maxNameRunes = 300
	// MatchThreshold is the least score a name match is accepted at, and
	// MatchMargin the least lead it must have over the next company.
	MatchThreshold = 0.80
	MatchMargin    = 0.10
)

// nameWords are the words a name is compared by: normalised, legal forms
// and articles dropped, each once. A name made only of such words keeps
// them (a company called "Le Comptoir SA" is "comptoir", one called
// "SAS" is "sas").
func nameWords(name string) []string {
	all := strings.Fields(gazetteer.Normalize(truncate(name, maxNameRunes)))
	var out []string
	for _, w := range all {
		if !bizname.Legal(w) && !bizname.Stop(w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		for _, w := range all {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// NameScore is the similarity of two names, in [0, 1].
func NameScore(a, b string) float64 { return wordsScore(nameWords(a), nameWords(b)) }

func wordsScore(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	type pair struct {
		i, j int
		s    float64
	}
	var ps []pair
	for i, x := range a {
		for j, y := range b {
			if s := wordSimilarity(x, y); s >= wordMatch {
				ps = append(ps, pair{i, j, s})
			}
		}
	}
	slices.SortStableFunc(ps, func(p, q pair) int {
		switch {
		case p.s > q.s:
			return -1
		case p.s < q.s:
			return 1
		}
		return 0
	})
	usedA, usedB := make([]bool, len(a)), make([]bool, len(b))
	sum := 0.0
	for _, p := range ps {
		if !usedA[p.i] && !usedB[p.j] {
			usedA[p.i], usedB[p.j] = true, true
			sum += p.s
		}
	}
	dice := 2 * sum / float64(len(a)+len(b))
	short := min(len(a), len(b))
	weight := 0.9
	if short == 1 {
		weight = 0.8
	}
	return max(dice, weight*sum/float64(short))
}

// wordSimilarity is the Jaro-Winkler similarity of two words; words of
// three letters or less are equal or not.
func wordSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	if len(a) <= 3 || len(b) <= 3 {
		return 0
	}
	return jaroWinkler([]rune(a), []rune(b))
}

// jaroWinkler is the Jaro similarity of a and b raised for a common
// prefix of up to four letters (scaling 0.1).
func jaroWinkler(a, b []rune) float64 {
	window := max(len(a), len(b))/2 - 1
	window = max(window, 0)
	ma, mb := make([]bool, len(a)), make([]bool, len(b))
	m := 0
	for i := range a {
		lo, hi := max(0, i-window), min(len(b), i+window+1)
		for j := lo; j < hi; j++ {
			if !mb[j] && a[i] == b[j] {
				ma[i], mb[j] = true, true
				m++
				break
			}
		}
	}
	if m == 0 {
		return 0
	}
	t, j := 0, 0
	for i := range a {
		if !ma[i] {
			continue
		}
		for !mb[j] {
			j++
		}
		if a[i] != b[j] {
			t++
		}
		j++
	}
	fm := float64(m)
	jaro := (fm/float64(len(a)) + fm/float64(len(b)) + (fm-float64(t)/2)/fm) / 3
	prefix := 0
	for prefix < min(4, len(a), len(b)) && a[prefix] == b[prefix] {
		prefix++
	}
	return jaro + float64(prefix)*0.1*(1-jaro)
}

// companyNames are the names a company answers to.
func companyNames(a *apiCompany) []string {
	names := []string{a.NomComplet, a.NomRaisonSociale, a.Sigle, a.Siege.NomCommercial}
	names = append(names, a.Siege.ListeEnseignes...)
	for _, e := range a.MatchingEtablissements {
		names = append(names, e.NomCommercial)
		names = append(names, e.ListeEnseignes...)
	}
	return names
}

// companyScore is the best score of the query's words against the
// company's names.
func companyScore(q []string, a *apiCompany) float64 {
	best := 0.0
	seen := map[string]bool{}
	for _, n := range companyNames(a) {
		if strings.TrimSpace(n) == "" || seen[n] {
			continue
		}
		seen[n] = true
		best = max(best, wordsScore(q, nameWords(n)))
	}
	return best
}

// Street addresses, to tell namesakes apart: the house number and the
// street's words, abbreviations spelled out ("av." avenue, "bd"
// boulevard), the postcode and what follows it cut off.
var streetWords = map[string]string{
	"av": "avenue", "ave": "avenue", "bd": "boulevard", "bld": "boulevard", "boul": "boulevard", "pl": "place",
	"ch": "chemin", "che": "chemin", "chem": "chemin", "rte": "route", "imp": "impasse", "all": "allee",
	"crs": "cours", "fbg": "faubourg", "qu": "quai", "sq": "square", "r": "rue", "pass": "passage",
}

// street is a parsed street address.
type street struct {
	number string
	words  []string
}

// streetOf parses an address line ("12 bis av. Jean Jaurès, 69007 Lyon");
// nil when it has no house number and street.
func streetOf(addr string) *street {
	addr = truncate(addr, maxNameRunes)
	if loc := postcodeRe.FindStringIndex(addr); loc != nil {
		addr = addr[:loc[0]]
	}
	ws := strings.Fields(gazetteer.Normalize(addr))
	if len(ws) < 2 || !isDigits(ws[0]) {
		return nil
	}
	s := &street{number: strings.TrimLeft(ws[0], "0")}
	for _, w := range ws[1:] {
		if full, ok := streetWords[w]; ok {
			w = full
		}
		if w == "bis" || w == "ter" || bizname.Stop(w) || slices.Contains(s.words, w) {
			continue
		}
		s.words = append(s.words, w)
	}
	if len(s.words) == 0 {
		return nil
	}
	return s
}

// sameStreet tells whether an establishment's address is the street
// address s: the same number and street words scoring MatchThreshold.
func sameStreet(s *street, addr string) bool {
	o := streetOf(addr)
	return o != nil && o.number == s.number && wordsScore(s.words, o.words) >= MatchThreshold
}
