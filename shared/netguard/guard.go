// Package netguard keeps the service's outbound HTTP away from internal
// hosts (SSRF): a URL check for addresses users give (webhook endpoints),
// and an HTTP client whose dialer checks again every address it connects
// to, after name resolution, so a name that later resolves to an internal
// address (DNS rebinding) reaches nothing.
//
// Which addresses are public is code.dny.dev/ssrf's answer (generated from
// the IANA special-purpose registries: loopback, private, shared CGNAT,
// link-local, multicast, documentation, benchmarking, reserved, 6to4,
// everything outside IPv6 global unicast, which covers IPv4-mapped, NAT64
// and unique-local IPv6), plus the cloud metadata addresses it does not
// cover (cloudMetadata).
package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// ErrRefused matches every refusal (errors.Is), at the URL check and at
// connection time, so callers tell a refused address from a network
// failure.
var ErrRefused = errors.New("netguard: refused")

// Refusal is a refused URL or address, with the reason in both languages
// of the product.
type Refusal struct {
	EN, FR string
}

func (r *Refusal) Error() string { return r.EN }
func (r *Refusal) Unwrap() error { return ErrRefused }

func refuse(en, fr string, args ...any) *Refusal {
	return &Refusal{EN: fmt.Sprintf(en, args...), FR: fmt.Sprintf(fr, args...)}
}

// cloudMetadata are metadata endpoints outside the registries' special
// ranges. AWS's 169.254.169.254, GCP's and Azure IMDS's (the same address)
// are link-local; AWS's fd00:ec2::254 is unique-local; Alibaba's
// 100.100.100.200 is in the shared CGNAT range; Oracle's 192.0.0.192 is in
// the IETF protocol range: all denied already. Azure's wire server is a
// public address.
var cloudMetadata = []netip.Prefix{netip.MustParsePrefix("168.63.129.16/32")}

// Resolver resolves host names (*net.Resolver is one).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard checks URLs and addresses. It is safe for concurrent use.
type Guard struct {
	resolver Resolver
	own      map[string]bool
	allowed  []netip.Prefix
	roots    *x509.CertPool
	ssrf     *ssrf.Guardian
}

// Option configures a Guard.
type Option func(*Guard)

// WithResolver resolves names with r (default net.DefaultResolver).
func WithResolver(r Resolver) Option { return func(g *Guard) { g.resolver = r } }

// WithOwnHosts refuses the service's own host names.
func WithOwnHosts(hosts ...string) Option {
	return func(g *Guard) {
		for _, h := range hosts {
			g.own[normalHost(h)] = true
		}
	}
}

// WithAllowedPrefixes allows addresses the guard would refuse. For tests
// only (an httptest receiver on 127.0.0.1): no runtime sets it.
func WithAllowedPrefixes(p ...netip.Prefix) Option {
	return func(g *Guard) { g.allowed = append(g.allowed, p...) }
}

// WithRootCAs makes the client trust these roots instead of the system's.
// For tests only (an httptest TLS server's certificate).
func WithRootCAs(pool *x509.CertPool) Option { return func(g *Guard) { g.roots = pool } }

// New returns a guard.
func New(opts ...Option) *Guard {
	g := &Guard{resolver: net.DefaultResolver, own: map[string]bool{}}
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
	g.ssrf = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...),
		ssrf.WithDeniedV4Prefixes(cloudMetadata...))
	return g
}

// CheckAddr refuses an address that is not public.
func (g *Guard) CheckAddr(a netip.Addr) error {
	if a.Zone() != "" {
		return refuse("the address %s has a zone: a link-local address", "l'adresse %s a une zone : adresse lien-local", a)
	}
	if err := g.ssrf.SafeAddr(a); err != nil {
		return &Refusal{EN: fmt.Sprintf("%s is %s, not a public address", a, kindEN(a)),
			FR: fmt.Sprintf("%s est %s, pas une adresse publique", a, kindFR(a))}
	}
	return nil
}

// kindEN and kindFR name the class of a refused address.
func kindEN(a netip.Addr) string {
	u := a.Unmap()
	switch {
	case u.IsLoopback():
		return "a loopback address"
	case u.IsUnspecified():
		return "the unspecified address"
	case u.IsPrivate():
		return "a private address"
	case u.IsLinkLocalUnicast():
		return "a link-local address (where cloud metadata lives)"
	case u.IsMulticast():
		return "a multicast address"
	case a.Is4In6():
		return "an IPv4-mapped IPv6 address"
	case cloudMetadata[0].Contains(u):
		return "a cloud metadata address"
	}
	return "a reserved or special-purpose address"
}

func kindFR(a netip.Addr) string {
	u := a.Unmap()
	switch {
	case u.IsLoopback():
		return "une adresse de bouclage"
	case u.IsUnspecified():
		return "l'adresse non spécifiée"
	case u.IsPrivate():
		return "une adresse privée"
	case u.IsLinkLocalUnicast():
		return "une adresse lien-local (celle des métadonnées cloud)"
	case u.IsMulticast():
		return "une adresse multicast"
	case a.Is4In6():
		return "une adresse IPv6 contenant une IPv4"
	case cloudMetadata[0].Contains(u):
		return "une adresse de métadonnées cloud"
	}
	return "une adresse réservée ou à usage spécial"
}

// Client returns an HTTP client for user-given URLs: every connection goes
// only to addresses the guard allows (checked after resolution and again
// by the dialer's Control), no proxy, no redirect followed (a 3xx comes
// back as the answer), timeout for the whole exchange.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{
		Timeout: timeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: dial %s: %w", ErrRefused, address, err)
			}
			return g.CheckAddr(ap.Addr())
		},
	}
	tr := &http.Transport{
		Proxy: nil, // never an environment proxy: it would dial for us, unchecked
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return g.dial(ctx, dialer, network, addr)
		},
		TLSClientConfig:       &tls.Config{RootCAs: g.roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// dial resolves the host with the guard's resolver and connects to the
// first allowed address that answers.
func (g *Guard) dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = g.resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	var errs []error
	for _, ip := range ips {
		if err := g.CheckAddr(ip); err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("%w: %s resolves to no address", ErrRefused, host)
	}
	return nil, errors.Join(errs...)
}
