package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

func TestCheckHost(t *testing.T) {
	g := New(WithOwnHosts("api.example.com"))
	loop := New(WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")))
	for _, tc := range []struct {
		g    *Guard
		host string
		ok   bool
	}{
		{g, "example.org", true},
		{g, "Docs.Google.com.", true},
		{g, "93.184.216.34", true},
		{g, "localhost", false},
		{g, "127.0.0.1", false},
		{g, "127.1", false},
		{g, "0x7f000001", false},
		{g, "10.1.2.3", false},
		{g, "169.254.169.254", false},
		{g, "::1", false},
		{g, "intranet", false},
		{g, "printer.local", false},
		{g, "x.internal", false},
		{g, "api.example.com", false},
		{g, "exämple.org", false},
		{g, "", false},
		{loop, "127.0.0.1", true},
		{loop, "127.0.0.2", false},
	} {
		err := tc.g.CheckHost(tc.host)
		if (err == nil) != tc.ok {
			t.Errorf("CheckHost(%q) = %v, want ok %v", tc.host, err, tc.ok)
		}
		var r *Refusal
		if err != nil && (!errors.As(err, &r) || r.EN == "" || r.FR == "") {
			t.Errorf("CheckHost(%q): %v is not a worded refusal", tc.host, err)
		}
	}
}
