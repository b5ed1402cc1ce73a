package legalids

// laPosteSIREN is La Poste's SIREN: its establishments are too many for the
// Luhn key, so INSEE checks their SIRET by a sum of digits divisible by 5.
const laPosteSIREN = "356000000"

// ValidSIREN reports whether s is nine digits passing the Luhn check.
func ValidSIREN(s string) bool {
	return len(s) == 9 && allDigits(s) && luhn(s)
}

// ValidSIRET reports whether s is fourteen digits passing the Luhn check, or
// for La Poste's establishments, digits summing to a multiple of 5.
func ValidSIRET(s string) bool {
	if len(s) != 14 || !allDigits(s) {
		return false
	}
	if s[:9] == laPosteSIREN {
		sum := 0
		for i := 0; i < len(s); i++ {
			sum += int(s[i] - '0')
		}
		return sum%5 == 0
	}
	return luhn(s)
}

func luhn(s string) bool {
	sum := 0
	double := false
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

// vatKey returns the French VAT key of a SIREN: (12 + 3 × (SIREN mod 97))
// mod 97, two digits.
func vatKey(siren string) int {
	n := 0
	for i := 0; i < len(siren); i++ {
		n = (n*10 + int(siren[i]-'0')) % 97
	}
	return (12 + 3*n) % 97
}
