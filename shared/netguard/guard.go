package netguard

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strings"

	"code.dny.dev/ssrf"
)

// ErrRefused matches every refusal (errors.Is), at the URL check and at
// connection time, so callers tell a refused destination from a network
// failure.
var ErrRefused = errors.New("netguard: refused")

// Refusal is a refused URL or address, with the reason in both languages
// of the product, naming the rule that refused it.
type Refusal struct {
	EN, FR string
}

// Error returns the English reason.
func (r *Refusal) Error() string { return r.EN }

// Unwrap makes every Refusal match ErrRefused.
func (r *Refusal) Unwrap() error { return ErrRefused }

// Resolver resolves host names (*net.Resolver is one).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard checks URLs and addresses and makes clients that connect only to
// allowed addresses. It is immutable once built and safe for concurrent
// use.
type Guard struct {
	resolver Resolver
	own      map[string]bool
	allowed  []netip.Prefix
	roots    *x509.CertPool
	ssrf     *ssrf.Guardian
	// loopback is the local server's development switch (WithDevLoopback):
	// literal loopback hosts and "localhost" are allowed, except on the
	// service's own ports.
	loopback bool
	ownPorts map[string]bool
}

// Option configures a Guard.
type Option func(*Guard)

// WithResolver resolves names with r instead of net.DefaultResolver (tests
// use a fake one).
func WithResolver(r Resolver) Option { return func(g *Guard) { g.resolver = r } }

// WithOwnHosts refuses the service's own host names: a webhook to the
// service itself would let a user make it call its own API.
func WithOwnHosts(hosts ...string) Option {
	return func(g *Guard) {
		for _, h := range hosts {
			if h = ownHost(h); h != "" {
				g.own[h] = true
			}
		}
	}
}

// WithAllowedPrefixes allows addresses the guard would otherwise refuse.
// For tests only (an httptest receiver on 127.0.0.1/32): New never sets
// it, and no runtime configuration may.
func WithAllowedPrefixes(p ...netip.Prefix) Option {
	return func(g *Guard) { g.allowed = append(g.allowed, p...) }
}

// WithRootCAs makes the client trust these roots instead of the system's.
// For tests only (an httptest TLS server's certificate).
func WithRootCAs(pool *x509.CertPool) Option { return func(g *Guard) { g.roots = pool } }

// WithDevLoopback is the local server's development switch for webhook
// receivers (docs/webhooks.md, "Seeing a signed delivery locally"): a host
// that is a loopback address (127.0.0.0/8 or ::1, in any spelling the
// guard reads as that address, IPv4-mapped forms excepted) or the name
// localhost is allowed, answered by the loopback addresses themselves, never
// by a resolver. Everything else keeps its rules: a name that resolves to
// loopback is still refused, and so are private and metadata addresses.
// The service itself is refused by port: ownPorts are the ports the
// service listens on, refused on every loopback address. Loopback
// receivers' TLS certificates are not verified (a development receiver's is
// self-signed, made at its start); every other connection is verified as
// always. Only functions/local sets it, and only when
// SVC_DEV_LOOPBACK_WEBHOOKS is on; no AWS wiring can.
func WithDevLoopback(ownPorts ...string) Option {
	return func(g *Guard) {
		g.loopback = true
		for _, p := range ownPorts {
			if p = strings.TrimSpace(p); p != "" {
				g.ownPorts[p] = true
			}
		}
	}
}

// New returns a guard; without options it refuses every non-public
// address and resolves with net.DefaultResolver.
func New(opts ...Option) *Guard {
	g := &Guard{resolver: net.DefaultResolver, own: map[string]bool{}, ownPorts: map[string]bool{}}
	for _, o := range opts {
		o(g)
	}
	var v4, v6 []netip.Prefix
	for _, p := range g.allowed {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	g.ssrf = ssrf.New(
		// Webhook receivers often listen on custom ports; the address is
		// what matters. Networks stay the library's default, tcp4 and tcp6.
		ssrf.WithAnyPort(),
		ssrf.WithAllowedV4Prefixes(v4...),
		ssrf.WithAllowedV6Prefixes(v6...),
		// Cloned: the library appends its own list to the slice it is given.
		ssrf.WithDeniedV4Prefixes(slices.Clone(cloudMetadata)...),
	)
	return g
}

// ownHost is a configured host name in the form CheckURL compares: lower
// case, no port, no brackets, no trailing dot.
func ownHost(h string) string {
	h = strings.TrimSpace(h)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return normalHost(strings.Trim(h, "[]"))
}
