package netguard

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
)

// literal reads a host that spells an address rather than names one: an
// IPv6 literal (the URL's brackets removed, maybe with a zone), or an IPv4
// address in any numeric spelling (see numeric). ok is false for a name;
// a numeric host that does not parse is refused, never resolved.
func literal(host string) (a netip.Addr, ok bool, err error) {
	if strings.ContainsAny(host, ":%") {
		a, perr := netip.ParseAddr(host)
		if perr != nil {
			return a, false, &Refusal{
				EN: fmt.Sprintf("the host %s is not a valid IPv6 address", host),
				FR: fmt.Sprintf("l'hôte %s n'est pas une adresse IPv6 valide", host),
			}
		}
		return a, true, nil
	}
	if !numeric(host) {
		return a, false, nil
	}
	a, ok = parseInetAton(host)
	if !ok {
		return a, false, &Refusal{
			EN: fmt.Sprintf("the host %s is a malformed numeric address", host),
			FR: fmt.Sprintf("l'hôte %s est une adresse numérique malformée", host),
		}
	}
	return a, true, nil
}

// resolve looks a name up with the guard's resolver. The answers are
// unmapped: net.Resolver returns IPv4 answers as IPv4-mapped IPv6
// (::ffff:a.b.c.d), which the library reads as IPv6 and would refuse even
// for a public address, while a connection to one reaches the IPv4
// address, the one to check.
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if host == "localhost" && g.loopback {
		return loopbackAddrs, nil
	}
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		out[i] = a.Unmap()
	}
	return out, nil
}
