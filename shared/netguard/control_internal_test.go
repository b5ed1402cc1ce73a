package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
)

// TestControl: the socket hook, the last check before connecting, refuses
// non-TCP networks and non-public addresses on its own.
func TestControl(t *testing.T) {
	g := New()
	open := New(WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")))
	for _, tt := range []struct {
		g                *Guard
		network, address string
		ok               bool
	}{
		{g, "tcp4", "93.184.215.14:443", true},
		{g, "tcp6", "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443", true},
		{g, "tcp4", "127.0.0.1:443", false},
		{g, "tcp6", "[::1]:443", false},
		{g, "tcp6", "[::ffff:127.0.0.1]:443", false},
		{g, "tcp4", "168.63.129.16:80", false},
		{g, "tcp4", "169.254.169.254:80", false},
		{g, "udp4", "93.184.215.14:53", false},
		{g, "tcp4", "not an address", false},
		{open, "tcp4", "127.0.0.1:443", true},
		{open, "tcp4", "127.0.0.2:443", false},
	} {
		err := tt.g.control(tt.network, tt.address, nil)
		if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrRefused)) {
			t.Errorf("control(%s, %s) = %v, want ok %v", tt.network, tt.address, err, tt.ok)
		}
	}
}

// TestDialerRefusesOnItsOwn: the Client's dialer, called directly with a
// loopback address (as if dial's own check were bypassed), connects to
// nothing.
func TestDialerRefusesOnItsOwn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	c, err := New().dialer(0).DialContext(context.Background(), "tcp", ln.Addr().String())
	if err == nil {
		c.Close()
	}
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("dial %s: %v, want a refusal", ln.Addr(), err)
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the listener accepted %d connections", n)
	}
}
