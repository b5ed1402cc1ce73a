package zones

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/apperr"
)

// FuzzResolve feeds arbitrary strings to Resolve and Suggest: they never
// panic, a refusal is an apperr.Invalid with both messages, and a zone has
// places, a label and a shape.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"Lyon", "Lyon 15km", "Lyon, 2,5 km", "Paris 11e", "Paris XIe", "11e arrondissement de Paris",
		"Saint-Denis (974)", "Saint-Denis, Seine-Saint-Denis", "93200 Saint-Denis", "75011", "INSEE 69001",
		"2A", "1", "dép 93", "Pari", "Allemagne", "DE-BY", "(", ")", "()", "( )", "Lyon ()", "a (b (c))",
		",", ", ,", "15km", "0km", "Lyon 1e5km", "Lyon 99999999999999999999.5km", "insee", "insee insee",
		"11e", "arrondissement", "Paris 0e", "xie", "\x00", "\xff\xfe", "Ⅺe", "ǅ", "ß", "İstanbul",
	} {
		f.Add("FRA", s)
	}
	f.Add("DEU", "Bavierre")
	f.Add("ES", "Barcelone 5 km")
	f.Add("", "")
	r, _ := testWorld(f)
	f.Fuzz(func(t *testing.T, country, zone string) {
		z, err := r.Resolve(country, zone)
		if err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.Invalid || ae.FR == "" || ae.EN == "" {
				t.Fatalf("Resolve(%q, %q): %#v", country, zone, err)
			}
			if !utf8.ValidString(ae.FR) || !utf8.ValidString(ae.EN) {
				t.Fatalf("Resolve(%q, %q): invalid UTF-8 in %q", country, zone, ae.EN)
			}
		} else if len(z.Places) == 0 || z.Label == "" || len(z.Shape) == 0 {
			t.Fatalf("Resolve(%q, %q) = %+v", country, zone, z)
		}
		if s, ok := r.Suggest(country, zone); ok {
			if _, err := r.Resolve(country, s); err != nil {
				t.Fatalf("Suggest(%q, %q) = %q, which does not resolve: %v", country, zone, s, err)
			}
		}
	})
}
