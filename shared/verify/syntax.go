package verify

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// address is an address that passed the syntax check.
type address struct {
	local  string // as written: local parts are case-sensitive (RFC 5321 §2.4)
	domain string // lower case, A-labels, no trailing dot
}

func (a address) String() string { return a.local + "@" + a.domain }

// Length limits of RFC 5321 §4.5.3.1 (a path holds at most 256 octets
// with its angle brackets, so an address at most 254).
const (
	maxLocal   = 64
	maxDomain  = 253
	maxAddress = 254
)

// parseAddress reads a cell as one address. It accepts what mail to a
// business needs and rejects the rest as syntax errors:
//   - around it: spaces, a "mailto:" prefix, angle brackets;
//   - the local part a dot-atom of RFC 5322 (letters, digits and
//     !#$%&'*+-/=?^_`{|}~, dots between them), ASCII only: quoted local
//     parts and internationalised ones (RFC 6531) are refused;
//   - the domain a host name of two labels or more (IDN written in
//     Unicode is converted to A-labels), whose last label is not all
//     digits; no address literal ([192.0.2.1]).
func parseAddress(s string) (address, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 7 && strings.EqualFold(s[:7], "mailto:") {
		s = s[7:]
		if i := strings.IndexByte(s, '?'); i >= 0 {
			s = s[:i]
		}
	}
	if strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") {
		s = s[1 : len(s)-1]
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return address{}, false
	}
	local, dom := s[:at], s[at+1:]
	if !dotAtom(local) {
		return address{}, false
	}
	d, ok := hostName(dom)
	if !ok {
		return address{}, false
	}
	a := address{local: local, domain: d}
	if len(a.String()) > maxAddress {
		return address{}, false
	}
	return a, true
}

// dotAtom checks a local part: atext runs separated by single dots.
func dotAtom(s string) bool {
	if s == "" || len(s) > maxLocal || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '.' && !atext(c) {
			return false
		}
	}
	return true
}

// atext is RFC 5322 §3.2.3's atext, ASCII.
func atext(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

// hostName normalises a mail domain: lower case, A-labels, no trailing
// dot; ok is false for anything but a host name of two labels or more
// with a TLD that is not all digits.
func hostName(s string) (string, bool) {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 4*maxDomain || strings.HasPrefix(s, "[") {
		return "", false
	}
	if !utf8.ValidString(s) {
		return "", false
	}
	a, err := idna.Lookup.ToASCII(s)
	if err != nil || a == "" || len(a) > maxDomain {
		return "", false
	}
	// A-labels must decode to a valid name: the conversion is then
	// stable (a second pass leaves it as it is).
	if again, err := idna.Lookup.ToASCII(a); err != nil || again != a {
		return "", false
	}
	labels := strings.Split(a, ".")
	if len(labels) < 2 {
		return "", false
	}
	for _, l := range labels {
		if !ldhLabel(l) {
			return "", false
		}
	}
	if tld := labels[len(labels)-1]; strings.Trim(tld, "0123456789") == "" {
		return "", false
	}
	return a, true
}

// ldhLabel is a DNS label of letters, digits and inner hyphens.
func ldhLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
