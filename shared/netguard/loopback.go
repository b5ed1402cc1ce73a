package netguard

import (
	"fmt"
	"net/netip"
)

// isLoopback tells whether a is a loopback address in its plain form:
// 127.0.0.0/8 or ::1, without a zone. IPv4-mapped forms (::ffff:127.0.0.1)
// are not: they stay refused under the development switch as everywhere.
func isLoopback(a netip.Addr) bool {
	return a.Zone() == "" && (a.Is4() && a.As4()[0] == 127 || a == netip.IPv6Loopback())
}

// IsLoopbackHost tells whether a URL's host names the loopback interface:
// the name localhost or an address of 127.0.0.0/8 or ::1 in any spelling
// the guard reads as one (127.1, [::1]). Callers log what they send there.
func IsLoopbackHost(host string) bool {
	host = normalHost(host)
	if host == "localhost" {
		return true
	}
	a, ok, err := literal(host)
	return err == nil && ok && isLoopback(a)
}

// devLoopbackHost tells whether the development switch allows host.
func (g *Guard) devLoopbackHost(host string) bool { return g.loopback && IsLoopbackHost(host) }

// loopbackAllowed tells whether the development switch allows connecting
// to a, an address of a host it allows.
func (g *Guard) loopbackAllowed(a netip.Addr) bool { return g.loopback && isLoopback(a) }

// loopbackAddrs answer the name localhost under the development switch:
// the loopback addresses themselves, whatever a hosts file says.
var loopbackAddrs = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}

// checkOwnPort refuses, under the development switch, a loopback host on
// one of the service's own ports: the service itself. port is "" for the
// scheme's default.
func (g *Guard) checkOwnPort(host, port string) error {
	if port == "" {
		port = "443"
	}
	if g.devLoopbackHost(host) && g.ownPorts[port] {
		return refusal(fmt.Sprintf("the host %s on port %s is this service itself", host, port),
			fmt.Sprintf("l'hôte %s sur le port %s est ce service lui-même", host, port))
	}
	return nil
}
