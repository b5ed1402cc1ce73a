package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Client returns an HTTP client for user-given URLs. Every connection goes
// only to addresses the guard allows: the dialer resolves the host itself
// and checks each address, and the socket's Control hook checks the
// address actually dialled again. No proxy (an environment proxy would
// dial for us, unchecked) and no redirect followed (a 3xx comes back as
// the answer: its Location was never checked). timeout bounds the whole
// exchange; 0 means none.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	dialer := g.dialer(timeout)
	tr := &http.Transport{
		// Explicitly nil, not http.ProxyFromEnvironment: HTTP(S)_PROXY is
		// never read.
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return g.dial(ctx, dialer, network, addr)
		},
		TLSClientConfig:        &tls.Config{RootCAs: g.roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 64 << 10, // a receiver's headers are not ours to buffer without bound
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        90 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	if g.loopback {
		tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			return g.dialTLS(ctx, dialer, network, addr, timeout)
		}
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// dialer is the Client's dialer: its Control hook refuses any address the
// guard does not allow, whoever calls it with whatever address.
func (g *Guard) dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: g.control}
}

// dial applies the host rules, resolves a name with the guard's resolver
// (not the dialer's, so the answer checked is the answer used) and
// connects to the first allowed address that answers. Refused addresses are skipped; if every address is
// refused the error is a *Refusal, otherwise a network error.
func (g *Guard) dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	if network != "tcp" && network != "tcp4" && network != "tcp6" {
		return nil, refusal(fmt.Sprintf("the network %s is not tcp", network), fmt.Sprintf("le réseau %s n'est pas tcp", network))
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("netguard: dial %s: %w", addr, err)
	}
	// The name rules again: a client given a URL CheckURL never saw (a
	// crawler's link) still never asks a resolver about localhost.
	host = normalHost(host)
	a, isLiteral, err := g.hostRules(host)
	if err != nil {
		return nil, err
	}
	if err := g.checkOwnPort(host, port); err != nil {
		return nil, err
	}
	addrs := []netip.Addr{a}
	if !isLiteral {
		if addrs, err = g.resolve(ctx, host); err != nil {
			return nil, fmt.Errorf("netguard: resolve %s: %w", host, err)
		}
	}
	var refused error
	var failed []error
	for _, a := range addrs {
		if en, fr := g.refused(a); en != "" && !(g.devLoopbackHost(host) && g.loopbackAllowed(a)) {
			switch {
			case refused != nil:
			case isLiteral:
				refused = literalRefusal(host, a, en, fr)
			default:
				refused = refusal(fmt.Sprintf("the host %s resolves to %s, %s", host, a, en),
					fmt.Sprintf("l'hôte %s se résout en %s, %s", host, a, fr))
			}
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		failed = append(failed, err)
	}
	switch {
	case len(failed) > 0:
		return nil, errors.Join(failed...)
	case refused != nil:
		return nil, refused
	}
	return nil, refusal(fmt.Sprintf("the host %s resolves to no address", host), fmt.Sprintf("l'hôte %s ne se résout en aucune adresse", host))
}

// control runs on the socket before it connects, with the address actually
// dialled: defence in depth should dial ever be given an address it did
// not check.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return refusal(fmt.Sprintf("the network %s is not tcp4 or tcp6", network),
			fmt.Sprintf("le réseau %s n'est ni tcp4 ni tcp6", network))
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: dial %s: %w", ErrRefused, address, err)
	}
	if g.loopbackAllowed(ap.Addr()) {
		return nil // dial allowed it for a loopback host (the development switch)
	}
	return g.CheckAddr(ap.Addr())
}

// dialTLS is the client's TLS connection under the development switch
// (WithDevLoopback): the certificate of a loopback receiver, self-signed at
// its start, is not verified; any other peer's is, as without the switch.
// The decision is taken on the address actually connected to, so a name
// cannot earn the exemption. The receiver still authenticates the sender
// by the signature of each delivery.
func (g *Guard) dialTLS(ctx context.Context, d *net.Dialer, network, addr string, timeout time.Duration) (net.Conn, error) {
	raw, err := g.dial(ctx, d, network, addr)
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(addr) // dial parsed it already
	cfg := &tls.Config{RootCAs: g.roots, MinVersion: tls.VersionTLS12, ServerName: host, NextProtos: []string{"http/1.1"}}
	if ap, perr := netip.ParseAddrPort(raw.RemoteAddr().String()); perr == nil && isLoopback(ap.Addr()) {
		cfg.InsecureSkipVerify = true
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	c := tls.Client(raw, cfg)
	if err := c.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, fmt.Errorf("netguard: tls handshake with %s: %w", addr, err)
	}
	return c, nil
}
