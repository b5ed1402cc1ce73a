package emails

import (
	"net/url"
	"strings"
	"unicode"
)

// Pick chooses the module's columns from what Find returned. email is the
// address a prospect should write to: on the site's own domain first, then
// a free mailbox, then any other domain; a role address (contact@, info@,
// bonjour@...) before anything else on the same domain; never a no-reply
// box nor a host's or site builder's address. personal is a person's
// address (marie.martin@, m.martin@, marie@), "" when none is shown.
func Pick(site *url.URL, found []Found) (email, personal string) {
	siteDomain := registrable(siteHost(site))
	bestEmail, bestPersonal := -1, -1
	for _, f := range found {
		at := strings.LastIndexByte(f.Address, '@')
		if at <= 0 {
			continue
		}
		local, domain := strings.ToLower(f.Address[:at]), f.Address[at+1:]
		if isNoReply(local) {
			continue
		}
		tier := domainTier(siteDomain, registrable(domain))
		if tier == 0 {
			continue
		}
		person := isPersonal(local)
		if s := tier*10 + localTier(local, person); s > bestEmail {
			bestEmail, email = s, f.Address
		}
		if person && tier > bestPersonal {
			bestPersonal, personal = tier, f.Address
		}
	}
	return email, personal
}

// domainTier ranks where an address lives for this site: 3 its own domain
// (or one spelled the same way under another TLD), 2 a free mailbox, 1
// another domain, 0 a service provider that is never the business.
func domainTier(site, domain string) int {
	switch {
	case serviceDomains[domain]:
		return 0
	case site != "" && (domain == site || sameName(site, domain)):
		return 3
	case freeMailDomains[domain]:
		return 2
	default:
		return 1
	}
}

// sameName says whether two registrable domains carry the same name
// ("boulangerie-martin.fr" and "boulangeriemartin.com").
func sameName(a, b string) bool {
	na, nb := squash(a[:strings.IndexByte(a, '.')]), squash(b[:strings.IndexByte(b, '.')])
	return len(na) >= 4 && na == nb
}

func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

// localTier ranks a local part within a domain tier.
func localTier(local string, person bool) int {
	base := baseLocal(local)
	switch {
	case genericLocals[base] && !weakGeneric[base]:
		return 4
	case weakGeneric[base]:
		return 1
	case person:
		return 2
	default:
		return 3
	}
}

// baseLocal drops a "+tag" and a trailing number ("contact2", "info+site").
func baseLocal(local string) string {
	if i := strings.IndexByte(local, '+'); i > 0 {
		local = local[:i]
	}
	return strings.TrimRight(local, "0123456789")
}

func isNoReply(local string) bool {
	base := baseLocal(local)
	if noReplyLocals[base] {
		return true
	}
	return strings.HasPrefix(base, "noreply") || strings.HasPrefix(base, "no-reply") || strings.HasPrefix(base, "ne-pas-repondre")
}

// isPersonal tells a person's local part: first name and last name
// ("marie.martin", "martin.marie", "jean-pierre.roux"), initial and last name
// ("m.martin"), or a first name alone or glued to a last name ("marie",
// "mariemartin").
func isPersonal(local string) bool {
	base := baseLocal(local)
	tokens := strings.FieldsFunc(base, func(r rune) bool { return r == '.' || r == '_' || r == '-' })
	if len(tokens) == 0 {
		return false
	}
	for _, t := range tokens {
		if !isLetters(t) || genericLocals[t] || noReplyLocals[t] || tradeWords[t] {
			return false
		}
	}
	if len(tokens) == 1 {
		t := tokens[0]
		if firstNames[t] {
			return true
		}
		for i := 3; i <= len(t)-4; i++ {
			if firstNames[t[:i]] && !containsTradeWord(t[i:]) {
				return true
			}
		}
		return false
	}
	first, second := tokens[0], tokens[len(tokens)-1]
	switch {
	case firstNames[first] || len(first) == 1:
		return len(second) >= 2
	case firstNames[second]:
		return len(first) >= 2
	}
	// "given.family" is how organisations mint their staff's addresses,
	// even when the given name is not one of the common ones.
	parts := strings.Split(base, ".")
	return len(parts) == 2 && len(parts[0]) >= 3 && len(parts[1]) >= 2 && !functionWords[parts[0]]
}

// functionWords start shop names ("chez.paul", "les.delices"), not people.
var functionWords = map[string]bool{
	"chez": true, "les": true, "aux": true, "des": true, "mon": true, "votre": true,
	"notre": true, "nos": true, "vos": true, "the": true, "our": true, "your": true,
}

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return s != ""
}

func containsTradeWord(s string) bool {
	for w := range tradeWords {
		if len(w) >= 4 && strings.Contains(s, w) {
			return true
		}
	}
	for w := range genericLocals {
		if len(w) >= 4 && strings.Contains(s, w) {
			return true
		}
	}
	return false
}
