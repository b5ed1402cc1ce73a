package mentions

import (
	"regexp"
	"strings"
)

// legalForms maps the ways a legal form is written to its short form, the
// longer spellings first so SASU is never read as SAS nor SELARL as SARL.
var legalForms = []struct {
	re   *regexp.Regexp
	form string
}{
	{regexp.MustCompile(`(?i:soci[ée]t[ée] d'exercice lib[ée]ral [àa] responsabilit[ée] limit[ée]e)|\bSELARL\b|\bSELURL\b`), "SELARL"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] d'exercice lib[ée]ral par actions simplifi[ée]e)|\bSELAS\b|\bSELASU\b`), "SELAS"},
	{regexp.MustCompile(`\bSELAFA\b`), "SELAFA"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] par actions simplifi[ée]e unipersonnelle)|\bSASU\b`), "SASU"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] par actions simplifi[ée]e)|\bSAS\b`), "SAS"},
	{regexp.MustCompile(`(?i:entreprise unipersonnelle [àa] responsabilit[ée] limit[ée]e)|\bEURL\b`), "EURL"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] [àa] responsabilit[ée] limit[ée]e)|\bSARL\b|\bSàRL\b`), "SARL"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] civile immobili[èe]re)|\bSCI\b`), "SCI"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] civile professionnelle)|\bSCP\b`), "SCP"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] coop[ée]rative)|\bSCOP\b|\bSCIC\b`), "SCOP"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] en nom collectif)|\bSNC\b`), "SNC"},
	{regexp.MustCompile(`(?i:soci[ée]t[ée] anonyme)|\bSA\b`), "SA"},
	{regexp.MustCompile(`(?i:entreprise individuelle [àa] responsabilit[ée] limit[ée]e)|\bEIRL\b`), "EIRL"},
	{regexp.MustCompile(`(?i:entreprise individuelle|entrepreneur individuel|auto[\- ]?entrepr\p{L}+|micro[\- ]?entrepr\p{L}+)|\bEI\b`), "EI"},
	{regexp.MustCompile(`(?i:\bassociation\b)`), "Association"},
}

// dottedRe is a legal form written with dots (S.A.R.L., S.A.S.).
var dottedRe = regexp.MustCompile(`\b(?:[A-Z]\.){2,5}[A-Z]?\b\.?`)

// undot writes S.A.R.L. as SARL so one pattern reads both.
func undot(s string) string {
	return dottedRe.ReplaceAllStringFunc(s, func(m string) string {
		return strings.ReplaceAll(m, ".", "")
	})
}

// findForm returns the first legal form written in s and where it is.
func findForm(s string) (form string, at []int) {
	best := -1
	for _, f := range legalForms {
		if m := f.re.FindStringIndex(s); m != nil && (best < 0 || m[0] < best) {
			best, form, at = m[0], f.form, m
		}
	}
	return form, at
}

// stripForm removes a legal form written at either end of a name
// ("SARL Boulangerie Martin", "Martin & Fils SAS", "la société X").
func stripForm(name string) string {
	name = strings.TrimSpace(name)
	for changed := true; changed; {
		changed = false
		for _, f := range legalForms {
			if f.form == "Association" {
				// "Association Sportive de Brest" is the name itself.
				continue
			}
			for _, m := range f.re.FindAllStringIndex(name, -1) {
				switch {
				case m[0] == 0 && m[1] < len(name):
					name = strings.TrimLeft(name[m[1]:], " ,-–")
				case m[1] == len(name) && m[0] > 0:
					name = strings.TrimRight(name[:m[0]], " ,-–")
				default:
					continue
				}
				changed = true
				break
			}
		}
	}
	return name
}
