package accent

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

func TestFold(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"ascii as it is", "Boulangerie MARTIN, 12 rue X", "Boulangerie MARTIN, 12 rue X"},
		{"french accents", "Lefèvre Hôtel Ça où Noël", "Lefevre Hotel Ca ou Noel"},
		{"case kept", "ÉTIENNE étienne", "ETIENNE etienne"},
		{"other latin marks", "Ångström Łódź Dvořák Győr São Tomé", "Angstrom Łodz Dvorak Gyor Sao Tome"},
		{"letters that do not decompose", "Straße Œuvre Æsir Ørsted Đakovo", "Straße Œuvre Æsir Ørsted Đakovo"},
		{"already decomposed input", "Le\u0301on", "Leon"},
		{"vietnamese stacked marks", "Hà Nội Phở", "Ha Noi Pho"},
		{"greek and cyrillic", "Αθήνα Йошкар-Ола", "Αθηνα Иошкар-Ола"},
		{"hangul stays composed", "서울", "서울"},
		{"punctuation and spaces kept", "d’Hôte – « Prix »\u00a0!", "d’Hote – « Prix »\u00a0!"},
		{"invalid utf-8 byte by byte", "caf\xe9\xff", "caf\ufffd\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fold(tt.in); got != tt.want {
				t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
			}
			in := []byte(tt.in)
			if got := FoldBytes(in); string(got) != tt.want {
				t.Errorf("FoldBytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if string(in) != tt.in {
				t.Errorf("FoldBytes modified its input: %q", in)
			}
		})
	}
}

// reference is the transform chain the folding sites used before this
// package: Fold must give the same bytes.
func reference(s string) string {
	out, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s)
	if err != nil {
		return s
	}
	return out
}

// TestFoldMatchesChain compares Fold with the chain over every
// assigned rune up to the CJK compatibility ideographs (the last that
// decompose), alone and between a letter and a mark, and over samples.
func TestFoldMatchesChain(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want := reference(s)
		if got := Fold(s); got != want {
			t.Fatalf("Fold(%+q) = %+q, chain gives %+q", s, got, want)
		}
		if got := FoldBytes([]byte(s)); string(got) != want {
			t.Fatalf("FoldBytes(%+q) = %+q, chain gives %+q", s, got, want)
		}
		for _, r := range want {
			if unicode.Is(unicode.Mn, r) {
				t.Fatalf("Fold(%+q) keeps the mark %U", s, r)
			}
		}
	}
	for r := rune(0); r < 0x2FA20; r++ {
		if !utf8.ValidRune(r) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C) ||
			unicode.Is(unicode.Unified_Ideograph, r) { // they neither decompose nor compose
			continue
		}
		c := string(r)
		check(c)
		check("a" + c + "\u0301")
	}
	for _, s := range []string{
		"\u1100\u1161\u11a8", "\u0b47\u0b3e", "\u0bc6\u0bbe", "e\xcc", "\xcc\x81e", "a\xff\u0301",
		"Sainte-Cécile-les-Vignes", strings.Repeat("é", 40) + "\u0323\u0302", "ǅ ǈ ﬁ ℌ Ω K Å",
	} {
		check(s)
	}
}

func TestFoldBytesReturnsInput(t *testing.T) {
	for _, s := range []string{"plain ascii", "Straße"} {
		in := []byte(s)
		if out := FoldBytes(in); &out[0] != &in[0] {
			t.Errorf("FoldBytes(%q) copied a text with nothing to fold", s)
		}
	}
	in := []byte("cafe\u0301")
	out := FoldBytes(in)
	if !bytes.Equal(in, []byte("cafe\u0301")) || string(out) != "cafe" {
		t.Errorf("FoldBytes(cafe + mark) = %q, input now %q", out, in)
	}
}

func BenchmarkFold(b *testing.B) {
	names := []string{"Boulangerie Martin", "Saint-Étienne", "Hôtel de la Gare", "Lefèvre & Fils", "Zürich"}
	for b.Loop() {
		for _, n := range names {
			Fold(n)
		}
	}
}
