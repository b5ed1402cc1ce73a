// Package accent folds accents away: the one way the service's comparison
// forms (place names, row keys, filter values, folder names, file names)
// make "Lefèvre" and "Lefevre" one word. It depends on
// golang.org/x/text/unicode/norm only, so that any package can import it.
package accent

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold returns s without its accents and the other nonspacing marks:
// é e, Ç C, ñ n, ő o. Each character is split into its base and marks
// (canonical decomposition, NFD), the nonspacing marks (Unicode category
// Mn) are dropped and what is left is composed again (NFC), so a Hangul
// syllable stays one character. Case, punctuation and the letters that do
// not decompose (ß, œ, æ, ø, ł, đ) are kept; each byte of invalid UTF-8
// becomes U+FFFD. Text in ASCII is returned as it is.
func Fold(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// FoldBytes is Fold over bytes, for callers that read bytes on a
// hot path. It may return b itself, which it never modifies.
func FoldBytes(b []byte) []byte {
	if isASCII(b) {
		return b
	}
	d := norm.NFD.Bytes(b)
	if !utf8.Valid(d) {
		// Each invalid byte grows into U+FFFD, which dropping marks in
		// place cannot make room for.
		return []byte(Fold(string(b)))
	}
	if !hasMark(d) {
		return norm.NFC.Bytes(d)
	}
	if len(d) > 0 && &d[0] == &b[0] {
		d = append([]byte(nil), d...) // b is the caller's
	}
	// Dropping marks in place: the write position never passes the read.
	w := 0
	for i := 0; i < len(d); {
		r, size := utf8.DecodeRune(d[i:])
		if !unicode.Is(unicode.Mn, r) {
			w += copy(d[w:], d[i:i+size])
		}
		i += size
	}
	return norm.NFC.Bytes(d[:w])
}

func hasMark(b []byte) bool {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if unicode.Is(unicode.Mn, r) {
			return true
		}
		i += size
	}
	return false
}

func isASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
