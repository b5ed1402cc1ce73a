package opendata

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// unquoteQL reads a QL string literal as Overpass's tokenizer does
// (tokenizer_utils.cc, get_text_token): the reference Quote is tested
// against.
func unquoteQL(t testing.TB, lit string) string {
	t.Helper()
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		t.Fatalf("not a string literal: %q", lit)
	}
	body := lit[1 : len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '"':
			t.Fatalf("unescaped quote inside %q: the string would end there", lit)
		case c == '\\':
			if i+1 >= len(body) {
				t.Fatalf("dangling backslash in %q: it would escape the closing quote", lit)
			}
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				v, err := strconv.ParseUint(body[i+1:i+5], 16, 32)
				if err != nil {
					t.Fatalf("bad \\u in %q", lit)
				}
				b.WriteRune(rune(v))
				i += 4
			default:
				b.WriteByte(body[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// dropControls is s without the control characters Quote drops.
func dropControls(s string) string {
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`Boulangerie du Marché`, `"Boulangerie du Marché"`},
		{`Le "Bon" Pain`, `"Le \"Bon\" Pain"`},
		{`C:\temp\`, `"C:\\temp\\"`},
		{"a\nb\tc", `"a\nb\tc"`},
		{"bell\x07 and del\x7f", `"bell and del"`},
		{`"];out;node(1);out;("`, `"\"];out;node(1);out;(\""`},
		{`'single'`, `"'single'"`},
		{``, `""`},
	}
	for _, tt := range tests {
		got := Quote(tt.in)
		if got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if back := unquoteQL(t, got); back != dropControls(tt.in) {
			t.Errorf("Quote(%q) reads back as %q", tt.in, back)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{`a"b`, `\`, `\"`, "x\ny", `é\u0041`, "\x00", `"];out;`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		if back := unquoteQL(t, Quote(s)); back != dropControls(s) {
			t.Fatalf("Quote(%q) reads back as %q", s, back)
		}
	})
}

func TestRegexpLiteral(t *testing.T) {
	for _, s := range []string{`a.b`, `(x)|[y]`, `^$`, `1+1*2?`, `{3}`, `back\slash`, `Chez Léa`, `a|b`} {
		lit := RegexpLiteral(s)
		// Go's regexp reads these escapes as POSIX ERE does.
		re, err := regexp.Compile("^" + lit + "$")
		if err != nil {
			t.Fatalf("RegexpLiteral(%q) = %q: %v", s, lit, err)
		}
		if !re.MatchString(s) {
			t.Errorf("RegexpLiteral(%q) = %q does not match it", s, lit)
		}
		if s != "" && re.MatchString(s+"x") {
			t.Errorf("RegexpLiteral(%q) matches more", s)
		}
	}
	if got := RegexpLiteral(`a.b|c`); got != `a\.b\|c` {
		t.Errorf("got %q", got)
	}
}

func FuzzRegexpLiteral(f *testing.F) {
	for _, s := range []string{`a.b`, `(x)`, `\`, `[`, `*`, `Léa`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		re, err := regexp.Compile("^" + RegexpLiteral(s) + "$")
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if !re.MatchString(s) {
			t.Fatalf("%q does not match itself", s)
		}
	})
}

func TestNamePattern(t *testing.T) {
	tests := []struct {
		name    string
		match   []string
		nomatch []string
	}{
		{"Boulangerie du Marché", []string{"BOULANGERIE DU MARCHE", "Le Marché", "boulangerie", "Au MARCHÉ"}, []string{"Pâtisserie Dupont", "Du"}},
		{"Pâtisserie Léa", []string{"Patisserie", "PÂTISSERIE", "Chez Lea"}, []string{"Boulangerie"}},
		{"Le Cœur de Lyon", []string{"coeur", "Cœur", "CŒUR", "Lyon"}, []string{"Paris"}},
		{"Garage A.B.C. SARL", []string{"Garage", "garage"}, []string{"ABC"}},
		{"A&B", []string{"A & B", "a-b", "A B", "AB"}, []string{"BA", "C"}},
		{"Café (le) [bar] *", []string{"café", "CAFE", "Bar"}, []string{"le"}},
	}
	for _, tt := range tests {
		p, ok := namePattern(tt.name)
		if !ok {
			t.Fatalf("no pattern for %q", tt.name)
		}
		re := regexp.MustCompile("(?i)" + p) // the ,i flag
		for _, s := range tt.match {
			if !re.MatchString(s) {
				t.Errorf("pattern of %q (%s) does not match %q", tt.name, p, s)
			}
		}
		for _, s := range tt.nomatch {
			if re.MatchString(s) {
				t.Errorf("pattern of %q (%s) matches %q", tt.name, p, s)
			}
		}
	}
	for _, s := range []string{"", "  ", "---", "SARL"} {
		if p, ok := namePattern(s); ok && s != "SARL" {
			t.Errorf("pattern %q for %q", p, s)
		}
	}
}

// User input reaches the QL only quoted, and the regular expression only
// as letter classes: a name written to break out of its string, or full
// of regex metacharacters, still gives one well-formed filter.
func TestQLEscapesUserInput(t *testing.T) {
	nasty := []string{
		`Le "Bistrot"`,
		`x"];out;node(1);out;("`,
		`Back\slash \" café`,
		`(.*)+[a-z]{2,}$^|?`,
		"Line\nbreak\tand\x00nul",
	}
	for _, name := range nasty {
		for _, s := range []Search{
			{Name: name, Point: &LatLon{45.79, 4.85}, Radius: 300},
			{Name: name, Postcode: "69300", Commune: `Caluire"];out;`},
		} {
			ql, err := s.QL(25, 100)
			if err != nil {
				t.Fatalf("%q: %v", name, err)
			}
			lits := qlStrings(t, ql)
			for _, l := range lits {
				v := unquoteQL(t, l)
				if strings.HasPrefix(v, "(") || strings.HasPrefix(v, "[") || strings.Contains(v, "[") {
					// a name pattern: it must compile and hold no raw
					// metacharacter of the name.
					if _, err := regexp.Compile(v); err != nil {
						t.Errorf("%q: pattern %q: %v", name, v, err)
					}
				}
			}
			if n := strings.Count(ql, "out tags center 100;"); n != 1 {
				t.Errorf("%q: %d out statements:\n%s", name, n, ql)
			}
			if s.Commune != "" && !strings.Contains(ql, `["name"="Caluire\"];out;"]`) {
				t.Errorf("commune not quoted:\n%s", ql)
			}
		}
	}
}

// qlStrings returns the string literals of a QL text, failing on an
// unterminated one.
func qlStrings(t *testing.T, ql string) []string {
	var out []string
	for i := 0; i < len(ql); i++ {
		if ql[i] != '"' {
			continue
		}
		j := i + 1
		for ; j < len(ql) && ql[j] != '"'; j++ {
			if ql[j] == '\\' {
				j++
			}
		}
		if j >= len(ql) {
			t.Fatalf("unterminated string in:\n%s", ql)
		}
		out = append(out, ql[i:j+1])
		i = j
	}
	return out
}

func TestSearchQL(t *testing.T) {
	around, err := Search{Name: "Boulangerie Dupont", Point: &LatLon{45.79, 4.85}, Radius: 300}.QL(25, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := `[out:json][timeout:25];
nwr(around:300,45.7900000,4.8500000)[~"^(shop|amenity|craft|office|tourism|healthcare|leisure)$"~"."]["name"~"b[oôöóòõøOÔÖÓÒÕØ][uùûüúUÙÛÜÚ]l[aàâäáãåAÀÂÄÁÃÅ][nñNÑ]g[eéèêëEÉÈÊË]r[iîïíìIÎÏÍÌ][eéèêëEÉÈÊË]",i]["name"~"d[uùûüúUÙÛÜÚ]p[oôöóòõøOÔÖÓÒÕØ][nñNÑ]t",i];
out tags center 100;
`
	if around != want {
		t.Errorf("around:\n%s\nwant:\n%s", around, want)
	}
	area, err := Search{Name: "Dupont", Postcode: "69300", Commune: "Caluire-et-Cuire"}.QL(25, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{
		`area["postal_code"="69300"];`, `area["addr:postcode"="69300"];`,
		`area["boundary"="administrative"]["admin_level"="8"]["name"="Caluire-et-Cuire"];`, `)->.a;`,
		`nwr(area.a)[~"^(shop|`, `nwr["addr:postcode"="69300"][~"^(shop|`,
	} {
		if !strings.Contains(area, part) {
			t.Errorf("area query lacks %q:\n%s", part, area)
		}
	}
	// A longer name asks for any of its three longest words.
	long, _ := Search{Name: "Boulangerie Pâtisserie du Marché Martin", Point: &LatLon{45.79, 4.85}, Radius: 300}.QL(25, 100)
	if strings.Count(long, `["name"~`) != 1 || strings.Count(long, ")|(") != 2 || strings.Contains(long, "m[aàâäáãåAÀÂÄÁÃÅ]rt[iîïíìIÎÏÍÌ][nñNÑ]") {
		t.Errorf("long name:\n%s", long)
	}
	commune, _ := Search{Name: "Dupont", Commune: "Lyon"}.QL(25, 100)
	if strings.Contains(commune, "postal_code") || !strings.Contains(commune, `["name"="Lyon"]`) {
		t.Errorf("commune only:\n%s", commune)
	}
	for _, s := range []Search{
		{Name: "", Postcode: "69300"},
		{Name: "SARL", Point: &LatLon{0, 0}, Radius: 300},
		{Name: "Dupont"},
		{Name: "Dupont", Postcode: "69;00"},
		{Name: "Dupont", Point: &LatLon{95, 4}, Radius: 300},
		{Name: "Dupont", Point: &LatLon{45, 4}, Radius: 50000},
	} {
		if ql, err := s.QL(25, 100); err == nil {
			t.Errorf("%+v gave a query:\n%s", s, ql)
		}
	}
}
