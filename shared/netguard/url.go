package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// MaxURL is the longest URL CheckURL accepts.
const MaxURL = 2048

// specialSuffixes are names that never reach a public host: local
// resolvers answer them (RFC 6761, 6762, 8375) or clouds keep them for
// internal services (metadata.google.internal).
var specialSuffixes = []string{".localhost", ".local", ".internal", ".home.arpa", ".localdomain"}

func normalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
}

// CheckURL checks a user-given https URL whose host must be public; it
// returns the URL with its host in lower case, or a *Refusal.
func (g *Guard) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	if len(raw) > MaxURL {
		return nil, refuse("the URL is longer than %d characters", "l'URL dépasse %d caractères", MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refuse("the URL cannot be read", "l'URL est illisible")
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return nil, refuse("only https:// URLs are accepted", "seules les URL https:// sont acceptées")
	}
	u.Scheme = "https"
	if u.User != nil {
		return nil, refuse("the URL may not carry a user name or password", "l'URL ne doit pas contenir d'identifiant ni de mot de passe")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, refuse("the port %s is not 1 to 65535", "le port %s n'est pas entre 1 et 65535", p)
		}
	}
	host := normalHost(u.Hostname())
	if host == "" {
		return nil, refuse("the URL has no host", "l'URL n'a pas d'hôte")
	}
	if strings.Contains(host, "%") {
		return nil, refuse("the host %s has a zone: a link-local address", "l'hôte %s a une zone : adresse lien-local", host)
	}
	if g.own[host] {
		return nil, refuse("the host %s is this service itself", "l'hôte %s est ce service lui-même", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.accept(u, host, g.CheckAddr(ip))
	}
	if numeric(host) {
		ip, ok := parseInetAton(host)
		if !ok {
			return nil, refuse("the host %s is a malformed numeric address", "l'hôte %s est une adresse numérique malformée", host)
		}
		if err := g.CheckAddr(ip); err != nil {
			return nil, &Refusal{EN: fmt.Sprintf("the host %s is %s (%s), not a public address", host, ip, kindEN(ip)),
				FR: fmt.Sprintf("l'hôte %s est %s (%s), pas une adresse publique", host, ip, kindFR(ip))}
		}
		return g.accept(u, host, nil)
	}
	if host == "localhost" || !strings.Contains(host, ".") {
		return nil, refuse("the host %s is a local name, not a public one", "l'hôte %s est un nom local, pas un nom public", host)
	}
	for _, s := range specialSuffixes {
		if strings.HasSuffix(host, s) {
			return nil, refuse("the host %s is a special-use name (%s), not a public one", "l'hôte %s est un nom à usage spécial (%s), pas un nom public", host, s)
		}
	}
	ips, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return nil, refuse("the host %s does not resolve", "l'hôte %s ne se résout pas", host)
	}
	for _, ip := range ips {
		if err := g.CheckAddr(ip); err != nil {
			return nil, &Refusal{EN: fmt.Sprintf("the host %s resolves to %s, which is %s", host, ip, kindEN(ip)),
				FR: fmt.Sprintf("l'hôte %s se résout en %s, qui est %s", host, ip, kindFR(ip))}
		}
	}
	return g.accept(u, host, nil)
}

func (g *Guard) accept(u *url.URL, host string, err error) (*url.URL, error) {
	if err != nil {
		return nil, err
	}
	if p := u.Port(); p != "" {
		host = net.JoinHostPort(host, p)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	u.Host = host
	return u, nil
}

// numeric tells whether a host would be read as an IPv4 address by a
// resolver or a URL parser (inet_aton, WHATWG): every label starts with a
// digit. Such a host is never looked up as a name.
func numeric(host string) bool {
	for _, label := range strings.Split(host, ".") {
		if label == "" || label[0] < '0' || label[0] > '9' {
			return false
		}
	}
	return true
}

// parseInetAton reads the IPv4 spellings inet_aton accepts: 1 to 4 parts,
// each decimal, octal (leading 0) or hex (0x), the last filling the
// remaining bytes (127.1 is 127.0.0.1, 2130706433 is 127.0.0.1).
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, p = 16, p[2:]
		case p == "0x" || p == "0X":
			p = "0"
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
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
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
