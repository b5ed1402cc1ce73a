package registers

import (
	"fmt"
	"strings"

	"github.com/prospectdata/svc/shared/enrich/legalids"
)

// The identifiers of the French registers. A SIREN (the company) is nine
// digits and a SIRET (an establishment: SIREN + a five-digit NIC) fourteen,
// both with a Luhn check digit (La Poste's establishments excepted, which
// legalids knows). A French VAT number is "FR", a two-digit key and the
// SIREN, the key being (12 + 3 × (SIREN mod 97)) mod 97.

// ValidSIREN reports whether s is nine digits passing the Luhn check.
func ValidSIREN(s string) bool { return legalids.ValidSIREN(s) }

// ValidSIRET reports whether s is fourteen digits passing the SIRET
// check. La Poste's establishments are checked by their sum of digits,
// except its siège (35600000000048), which passes Luhn like any other
// (legalids.ValidSIRET knows only the first rule).
func ValidSIRET(s string) bool {
	return legalids.ValidSIRET(s) || len(s) == 14 && strings.HasPrefix(s, "356000000") && isDigits(s) && luhn(s)
}

func luhn(s string) bool {
	sum := 0
	for i := range len(s) {
		d := int(s[len(s)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// compactID drops the separators people write in identifiers ("732 829
// 320 00074", "FR 40-303265045", "123.456.789") and upper-cases letters.
func compactID(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r == ' ', r == '.', r == '-', r == '\u00a0', r == '\u202f':
		default:
			return "" // not an identifier
		}
	}
	return b.String()
}

// VATKey is the two-digit key of a SIREN's French VAT number.
func VATKey(siren string) string {
	n := 0
	for i := 0; i < len(siren); i++ {
		n = (n*10 + int(siren[i]-'0')) % 97
	}
	return fmt.Sprintf("%02d", (12+3*n)%97)
}

// SIRENFromVAT reads the SIREN out of a French VAT number: "FR", two key
// digits matching the SIREN, and a Luhn-valid SIREN. Separators are
// allowed ("FR 40 303 265 045").
func SIRENFromVAT(vat string) (string, bool) {
	s := compactID(vat)
	if len(s) != 13 || !strings.HasPrefix(s, "FR") || !isDigits(s[2:]) {
		return "", false
	}
	siren := s[4:]
	if !ValidSIREN(siren) || s[2:4] != VATKey(siren) {
		return "", false
	}
	return siren, true
}
