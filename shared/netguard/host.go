package netguard

import (
	"net/netip"
	"strconv"
	"strings"
)

// specialSuffixes are names that never reach a public host: local
// resolvers answer them (localhost, RFC 6761; .local, mDNS, RFC 6762;
// .home.arpa, RFC 8375; .localdomain, by convention) or clouds keep them
// for internal services (.internal: metadata.google.internal). The name
// itself ("home.arpa") is refused as well as its subdomains.
var specialSuffixes = []string{"localhost", "local", "internal", "home.arpa", "localdomain"}

// normalHost is a host in the form the checks compare: lower case, without
// the trailing dot of a fully qualified name (example.com. is example.com,
// localhost. is localhost).
func normalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// specialName returns the special-use suffix a name falls under, or "".
func specialName(host string) string {
	for _, s := range specialSuffixes {
		if host == s || strings.HasSuffix(host, "."+s) {
			return s
		}
	}
	return ""
}

// numeric tells whether a host would be read as an IPv4 address rather
// than looked up as a name. inet_aton (the C resolvers) and the WHATWG URL
// parser (browsers, many libraries) both do so when the last label is a
// number in any base; no top-level domain starts with a digit, so such a
// host is never a public name. It is parsed by parseInetAton, and refused
// when malformed rather than handed to a resolver that may read it its own
// way.
func numeric(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	return last != "" && last[0] >= '0' && last[0] <= '9'
}

// parseInetAton reads the IPv4 spellings inet_aton accepts: 1 to 4 parts,
// each decimal, octal (leading 0) or hex (0x), the last filling the
// remaining bytes: 127.1 is 127.0.0.1, 2130706433 and 0x7f000001 are too.
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := atonPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	// The last part fills the bytes left: 4 bytes alone, 1 byte after 3.
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// atonPart reads one part: 0x1f (hex, "0x" alone is 0 for glibc), 017
// (octal), 17 (decimal). Signs, spaces and empty parts are refused.
func atonPart(p string) (uint64, bool) {
	base := 10
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p == "" || p[0] == '+' || p[0] == '-' {
		return 0, false
	}
	v, err := strconv.ParseUint(p, base, 32)
	return v, err == nil
}

// validName tells whether a host is a DNS name made of letters, digits,
// hyphens and underscores, in labels of 1 to 63 bytes, 253 at most in
// all. Anything else (an empty label, a sub-delimiter the URL parser lets
// through) would be read differently by different resolvers.
func validName(host string) bool {
	if len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
