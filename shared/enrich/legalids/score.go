package legalids

// choose keeps the business's identifiers from every candidate seen: each
// number's scores add up over the pages; the best SIRET wins unless a
// better-scored SIREN disagrees with it (a stray 14-digit number that
// happens to pass the check against a labelled RCS number), in which case
// the SIREN wins and a SIRET is kept only if it extends it.
func choose(cands []candidate) Result {
	type total struct {
		score  int
		first  int
		source string
	}
	totals := make(map[string]*total)
	var order []string
	for i, c := range cands {
		t, ok := totals[c.number]
		if !ok {
			t = &total{first: i, source: c.source}
			totals[c.number] = t
			order = append(order, c.number)
		}
		t.score += c.score
	}
	bestOf := func(length int, prefix string) string {
		best := ""
		for _, n := range order {
			if len(n) != length || n[:len(prefix)] != prefix {
				continue
			}
			if best == "" || totals[n].score > totals[best].score {
				best = n
			}
		}
		return best
	}
	siret, siren := bestOf(14, ""), bestOf(9, "")
	switch {
	case siret != "" && (siren == "" || siret[:9] == siren || totals[siret].score >= totals[siren].score):
		return Result{SIRET: siret, SIREN: siret[:9], SourceURL: totals[siret].source}
	case siren != "":
		if s := bestOf(14, siren); s != "" {
			return Result{SIRET: s, SIREN: siren, SourceURL: totals[s].source}
		}
		return Result{SIREN: siren, SourceURL: totals[siren].source}
	}
	return Result{}
}
