package socials

import "strings"

// pick keeps one profile per network: the highest total score over all the
// links to it (a profile linked from the header and the footer adds both),
// ties to the first seen. A network's LinkedIn company page is preferred to
// a person's in/ profile whatever the scores: the row is a business.
func pick(cands []candidate) Result {
	type total struct {
		score float64
		first int
	}
	totals := make(map[string]*total)
	best := make([]string, numNetworks)
	for i, c := range cands {
		t, ok := totals[c.url]
		if !ok {
			t = &total{first: i}
			totals[c.url] = t
		}
		t.score += c.score
	}
	for i, c := range cands {
		t := totals[c.url]
		if t.first != i {
			continue
		}
		cur := best[c.network]
		if cur == "" || better(c, t.score, cur, totals[cur].score) {
			best[c.network] = c.url
		}
	}
	var r Result
	for n, u := range best {
		r.set(Network(n), u)
	}
	return r
}

func better(c candidate, score float64, cur string, curScore float64) bool {
	if c.network == LinkedIn {
		cc, oc := isCompany(c.url), isCompany(cur)
		if cc != oc {
			return cc
		}
	}
	return score > curScore
}

func isCompany(u string) bool {
	const p = "https://www.linkedin.com/"
	return len(u) > len(p) && (strings.HasPrefix(u, p+"company/") || strings.HasPrefix(u, p+"showcase/"))
}
