package rowdiff

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Signal is a reputation signal (spec "Reputation signal"): a modified
// place whose rating dropped or whose reviews surged.
type Signal struct {
	Nom       string  `json:"nom"`
	Adresse   string  `json:"adresse"`
	Telephone string  `json:"telephone"`
	SiteWeb   string  `json:"site_web"`
	Email     string  `json:"email"`
	LienMaps  string  `json:"lien_maps"`
	NoteAvant float64 `json:"note_avant"`
	NoteApres float64 `json:"note_apres"`
	DeltaNote float64 `json:"delta_note"`
	AvisAvant int     `json:"avis_avant"`
	AvisApres int     `json:"avis_apres"`
	DeltaAvis int     `json:"delta_avis"`
	Score     float64 `json:"score"`
}

// Thresholds (spec "Limits": a rating drop of at least 0.2, a review
// increase of at least 3). The drop is in hundredths of a point: ratings
// are compared as integers, so 4.5 → 4.3 is a drop of exactly 20, never
// 19.999999.
const (
	RatingDropThreshold   = 20 // hundredths of a rating point
	ReviewGrowthThreshold = 3
)

// Score parameters (docs/veille-diff.md): 10 points per rating point
// dropped, plus a review boost below maxReviewBoost, computed on the growth
// relative to the previous count, counted as at least reviewCountFloor.
const (
	scorePerPoint    = 10
	maxReviewBoost   = 0.9
	reviewCountFloor = 10
	scoreDecimals    = 1e6
)

// SignalOf tells whether the change from before to after, the two rows of
// a modified key, is a reputation signal, and returns it. The rating drop
// counts when both rows have a rating, the review growth when both have a
// count. Text fields are after's (as values: formula guard undone,
// trimmed), before's when after's is empty or absent; a rating or count
// absent from a row is 0, and its delta 0.
func SignalOf(before, after Row) (Signal, bool) {
	hb, okb := parseHundredths(before.Value("rating"))
	ha, oka := parseHundredths(after.Value("rating"))
	rb, okrb := parseInteger([]byte(before.Value("reviews_count")))
	ra, okra := parseInteger([]byte(after.Value("reviews_count")))
	var drop, growth int64
	if okb && oka {
		drop = hb - ha
	}
	if okrb && okra {
		growth = ra - rb
	}
	if drop < RatingDropThreshold && growth < ReviewGrowthThreshold {
		return Signal{}, false
	}
	field := func(name string) string {
		if v := after.Value(name); v != "" {
			return v
		}
		return before.Value(name)
	}
	s := Signal{
		Nom: field("nom"), Adresse: field("adresse"), Telephone: field("telephone"), SiteWeb: field("site_web"),
		Email: field("email"), LienMaps: field("lien_maps"),
		DeltaNote: float64(-drop) / 100, DeltaAvis: int(growth),
		Score: score(max(drop, 0), growth, rb),
	}
	if okb {
		s.NoteAvant = float64(hb) / 100
	}
	if oka {
		s.NoteApres = float64(ha) / 100
	}
	if okrb {
		s.AvisAvant = int(rb)
	}
	if okra {
		s.AvisApres = int(ra)
	}
	return s, true
}

// score ranks a signal: drop in hundredths of a point, growth in reviews
// over a previous count of before.
//
//	score = 10 × drop (points) + boost
//	boost = 0.9 × L / (1 + L),  L = ln(1 + growth / max(before, 10))
//	        when growth >= 3, else 0
//
// The boost grows with the surge relative to the place's size and stays
// below 0.9, less than the 1.0 that 0.1 point of drop is worth: a drop
// larger by 0.1 point or more always ranks first.
func score(drop, growth, before int64) float64 {
	s := float64(drop) * scorePerPoint / 100
	if growth >= ReviewGrowthThreshold {
		l := math.Log1p(float64(growth) / float64(max(before, reviewCountFloor)))
		s += maxReviewBoost * l / (1 + l)
	}
	// Rounded for readable files: the order it could merge is a tie of
	// less than a millionth, broken by SortSignals.
	return math.Round(s*scoreDecimals) / scoreDecimals
}

// parseHundredths reads a rating as an integer number of hundredths of a
// point, '.' or ',' as the decimal mark, rounding half up on the third
// decimal, without going through a float: 4.3 is 430 exactly.
func parseHundredths(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexAny(s, ".,"); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	if (intPart == "" && frac == "") || len(intPart) > 15 || !allDigits(intPart) || !allDigits(frac) {
		return 0, false
	}
	var h int64
	for _, c := range intPart {
		h = h*10 + int64(c-'0')
	}
	for i := range 2 {
		h *= 10
		if i < len(frac) {
			h += int64(frac[i] - '0')
		}
	}
	if len(frac) > 2 && frac[2] >= '5' {
		h++
	}
	if neg {
		h = -h
	}
	return h, true
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// SortSignals orders signals by score, highest first (spec: "Signals are
// sorted by score descending"). Ties go to the larger drop, then the
// larger review growth, then nom, adresse, telephone, site_web,
// lien_maps and email in byte order: the order depends on the signals
// only, not on the order they came in.
func SortSignals(signals []Signal) {
	slices.SortStableFunc(signals, func(a, b Signal) int {
		return cmp.Or(
			cmp.Compare(b.Score, a.Score),
			cmp.Compare(a.DeltaNote, b.DeltaNote),
			cmp.Compare(b.DeltaAvis, a.DeltaAvis),
			strings.Compare(a.Nom, b.Nom),
			strings.Compare(a.Adresse, b.Adresse),
			strings.Compare(a.Telephone, b.Telephone),
			strings.Compare(a.SiteWeb, b.SiteWeb),
			strings.Compare(a.LienMaps, b.LienMaps),
			strings.Compare(a.Email, b.Email),
		)
	})
}
