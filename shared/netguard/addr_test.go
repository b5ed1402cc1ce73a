package netguard_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"code.dny.dev/ssrf"

	"github.com/prospectdata/svc/shared/netguard"
)

// TestMetadataCoverage checks the claims of the cloudMetadata comment
// against the library: which metadata addresses it denies by itself, and
// that the one it allows (Azure's wire server) is refused by the guard.
func TestMetadataCoverage(t *testing.T) {
	lib := ssrf.New(ssrf.WithAnyPort())
	g := netguard.New()
	for _, tt := range []struct {
		addr      string
		libDenies bool
		want      string
	}{
		{"169.254.169.254", true, "cloud metadata"}, // AWS, GCP, Azure IMDS, Oracle
		{"169.254.170.2", true, "AWS container metadata"},
		{"fd00:ec2::254", true, "AWS IPv6 metadata"},
		{"fd20:ce::254", true, "GCP IPv6 metadata"},
		{"100.100.100.200", true, "Alibaba Cloud metadata"},
		{"192.0.0.192", true, "Oracle Cloud metadata"},
		{"168.63.129.16", false, "Azure platform"},
	} {
		a := netip.MustParseAddr(tt.addr)
		if denied := lib.SafeAddr(a) != nil; denied != tt.libDenies {
			t.Errorf("ssrf denies %s: %v, the comment says %v", a, denied, tt.libDenies)
		}
		err := g.CheckAddr(a)
		var r *netguard.Refusal
		if !errors.As(err, &r) || !errors.Is(err, netguard.ErrRefused) || !strings.Contains(r.EN, tt.want) {
			t.Errorf("CheckAddr(%s) = %v, want a refusal naming %q", a, err, tt.want)
		}
	}
}

// TestCheckAddr: the guard refuses everything the library's registries
// deny (so the naming table can never let one through) and allows public
// addresses; an allowance opens exactly its prefix.
func TestCheckAddr(t *testing.T) {
	g := netguard.New()
	var denied []netip.Addr
	for _, p := range append(append([]netip.Prefix{}, ssrf.IPv4DeniedPrefixes...), ssrf.IPv6DeniedPrefixes...) {
		denied = append(denied, p.Addr(), p.Addr().Next())
	}
	for _, a := range denied {
		if err := g.CheckAddr(a); !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("CheckAddr(%s) = %v, want refused", a, err)
		}
	}
	for _, s := range []string{"93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "2a00:1450:4007:80f::200e"} {
		if err := g.CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("CheckAddr(%s) = %v, want allowed", s, err)
		}
	}
	for _, a := range []netip.Addr{{}, netip.MustParseAddr("2606:2800:21f:cb07::1%eth0")} {
		if err := g.CheckAddr(a); !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("CheckAddr(%#v) = %v, want refused", a, err)
		}
	}
	open := netguard.New(netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")))
	if err := open.CheckAddr(netip.MustParseAddr("127.0.0.1")); err != nil {
		t.Errorf("allowed 127.0.0.1: %v", err)
	}
	if err := open.CheckAddr(netip.MustParseAddr("127.0.0.2")); !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("127.0.0.2 outside the allowance: %v", err)
	}
}
