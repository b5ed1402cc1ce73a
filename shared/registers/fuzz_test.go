package registers

import (
	"strings"
	"testing"
)

// FuzzRowCells feeds the parsers of a row's cells (identifiers, address,
// name, activity) with arbitrary text: none may panic, and what they
// accept must be well formed.
func FuzzRowCells(f *testing.F) {
	for _, s := range []string{"FR 78 790000129", "790 000 129 00029", "12 bis av. Jean-Jaurès, 69007 Lyon",
		"SARL Le Petit Bistrot (SASU)", "boulangeries", "56.10A", "2A004 Ajaccio", "", "\xff\xfe", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if siren, ok := SIRENFromVAT(s); ok && !ValidSIREN(siren) {
			t.Errorf("SIRENFromVAT(%q) accepted %q", s, siren)
		}
		q := Query{Address: s, Name: s}.place()
		if q.Postcode != "" && len(q.Postcode) != 5 {
			t.Errorf("postcode %q from %q", q.Postcode, s)
		}
		if st := streetOf(s); st != nil && (st.number == "" && !strings.Contains(s, "0") || len(st.words) == 0) {
			t.Errorf("street %+v from %q", st, s)
		}
		if sc := NameScore(s, s); sc != 0 && (sc < 0.999 || sc > 1.001) {
			t.Errorf("NameScore(s, s) = %v for %q", sc, s)
		}
		if codes, err := ResolveActivity(s); err == nil {
			for _, c := range codes {
				if !isNAF(c) {
					t.Errorf("ResolveActivity(%q) gave %q", s, c)
				}
			}
		}
		_ = compactID(s)
		_ = TrancheLabel(s)
		_ = LegalFormOf(s)
	})
}
