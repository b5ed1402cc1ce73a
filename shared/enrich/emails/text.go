package emails

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// Obfuscated addresses, as small businesses write them to dodge harvesters.
// bracketedRe needs a bracketed "at" ("nom [at] domaine.fr", "nom(at)
// domaine [dot] fr"); spelledRe takes a spelled-out "at" or a plain "@" but
// then needs every dot spelled out ("nom at domaine dot fr"), so English
// prose such as "find us at market.com" is not read as an address.
var (
	bracketedRe = regexp.MustCompile(`(?i)([a-z0-9][a-z0-9._%+-]*)\s*[\[\(\{<]\s*(?:at|arobase|@)\s*[\]\)\}>]\s*([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:(?:\s*[\[\(\{<]\s*(?:dot|point|\.)\s*[\]\)\}>]\s*|\s+(?:dot|point)\s+|\.)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)\b`)
	spelledRe   = regexp.MustCompile(`(?i)([a-z0-9][a-z0-9._%+-]*)(?:\s+(?:at|arobase)\s+|\s*@\s*)([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:(?:\s*[\[\(\{<]\s*(?:dot|point)\s*[\]\)\}>]\s*|\s+(?:dot|point)\s+|\.)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)\b`)
	dotRe       = regexp.MustCompile(`(?i)\s*[\[\(\{<]\s*(?:dot|point|\.)\s*[\]\)\}>]\s*|\s+(?:dot|point)\s+`)
	// obfuscationHint is a cheap first look before the two patterns above.
	obfuscationHint = regexp.MustCompile(`(?i)[\[\(\{<]\s*(?:at|@|arobase)\b|\sat\s|arobase|\s(?:dot|point)\s|[\[\(\{<]\s*(?:dot|point)`)
)

type textHit struct {
	pos  int
	raw  string
	kind string
}

// scanText finds the plain and obfuscated addresses of a block of visible
// text, in reading order.
func (c *collector) scanText(t string) {
	var hits []textHit
	if strings.IndexByte(t, '@') >= 0 {
		for _, m := range addressRe.FindAllStringIndex(t, -1) {
			hits = append(hits, textHit{m[0], cutGlued(t[m[0]:m[1]]), KindText})
		}
	}
	if obfuscationHint.MatchString(t) {
		for _, re := range []*regexp.Regexp{bracketedRe, spelledRe} {
			for _, m := range re.FindAllStringSubmatchIndex(t, -1) {
				local, domain := t[m[2]:m[3]], t[m[4]:m[5]]
				if re == spelledRe && !dotRe.MatchString(domain) {
					continue
				}
				domain = dotRe.ReplaceAllString(domain, ".")
				hits = append(hits, textHit{m[0], local + "@" + domain, KindObfuscated})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b textHit) int { return cmp.Compare(a.pos, b.pos) })
	for _, h := range hits {
		c.add(h.raw, h.kind)
	}
}

// cutGlued ends an address where a capitalised word glued to it starts:
// "contact@x.frTél" is "contact@x.fr" followed by "Tél".
func cutGlued(a string) string {
	dot := strings.LastIndexByte(a, '.')
	for i := dot + 2; i < len(a); i++ {
		if a[i] >= 'A' && a[i] <= 'Z' && a[i-1] >= 'a' && a[i-1] <= 'z' {
			return a[:i]
		}
	}
	return a
}
