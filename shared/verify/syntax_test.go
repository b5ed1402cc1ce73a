package verify

import (
	"strings"
	"testing"
)

func TestParseAddress(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when refused
	}{
		{"alice@example.com", "alice@example.com"},
		{"  Alice.Martin@Example.COM  ", "Alice.Martin@example.com"},
		{"mailto:contact@boulangerie.fr", "contact@boulangerie.fr"},
		{"MAILTO:contact@boulangerie.fr?subject=Devis", "contact@boulangerie.fr"},
		{"<contact@boulangerie.fr>", "contact@boulangerie.fr"},
		{"contact@boulangerie.fr.", "contact@boulangerie.fr"},
		{"info+site@example.co.uk", "info+site@example.co.uk"},
		{"o'brien@example.ie", "o'brien@example.ie"},
		{"a!#$%&'*+-/=?^_`{|}~z@example.com", "a!#$%&'*+-/=?^_`{|}~z@example.com"},
		{"contact@pâtisserie-dupont.fr", "contact@xn--ptisserie-dupont-wmb.fr"},
		{"contact@ÉLYSÉE.fr", "contact@xn--lyse-9oad.fr"},
		{"x@123.example", "x@123.example"},
		{"x@a-b.example", "x@a-b.example"},
		// Refused.
		{"", ""},
		{"alice", ""},
		{"alice@", ""},
		{"@example.com", ""},
		{"alice@example", ""},                        // one label
		{"alice@localhost", ""},                      // one label
		{"alice@192.168.0.1", ""},                    // numeric TLD
		{"alice@[192.0.2.1]", ""},                    // address literal
		{"alice@@example.com", ""},                   // '@' in the local part
		{"al ice@example.com", ""},                   // space
		{".alice@example.com", ""},                   // leading dot
		{"alice.@example.com", ""},                   // trailing dot
		{"al..ice@example.com", ""},                  // two dots
		{`"al ice"@example.com`, ""},                 // quoted local part: not accepted here
		{"élise@example.com", ""},                    // non-ASCII local part (SMTPUTF8)
		{"alice@-example.com", ""},                   // label starts with a hyphen
		{"alice@example-.com", ""},                   // label ends with a hyphen
		{"alice@exa_mple.com", ""},                   // underscore
		{"alice@example..com", ""},                   // empty label
		{"alice@example.com\r\nRCPT TO:<x@y.z>", ""}, // command injection
		{strings.Repeat("a", 65) + "@example.com", ""},
		{"a@" + strings.Repeat("b", 64) + ".com", ""},
		{"a@" + strings.Repeat(strings.Repeat("b", 63)+".", 4) + "com", ""},
	}
	for _, tt := range tests {
		a, ok := parseAddress(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("parseAddress(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"alice@example.com", "mailto:x@y.fr?a=b", "<a@b.c>", "a@[1.2.3.4]", "é@ü.de", "a@b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := parseAddress(s)
		if !ok {
			return
		}
		e := a.String()
		if len(e) > maxAddress || strings.ContainsAny(e, " \r\n<>\x00") {
			t.Fatalf("parseAddress(%q) = %q", s, e)
		}
		// What it returns, it accepts again unchanged.
		if b, ok := parseAddress(e); !ok || b != a {
			t.Fatalf("parseAddress(%q) = %q, which reparses as %q, %v", s, e, b.String(), ok)
		}
	})
}

func TestIsRole(t *testing.T) {
	tests := []struct {
		local string
		want  bool
	}{
		{"contact", true},
		{"Contact", true},
		{"info", true},
		{"admin", true},
		{"support", true},
		{"sales", true},
		{"noreply", true},
		{"no-reply", true},
		{"No_Reply", true},
		{"ne-pas-repondre", true},
		{"postmaster", true},
		{"webmaster", true},
		{"accueil", true},
		{"bonjour", true},
		{"secretariat", true},
		{"service.client", true},
		{"contact2", true},
		{"info+web", true},
		{"alice", false},
		{"marie.martin", false},
		{"jean-pierre.roux", false},
		{"m.dupont", false},
		{"contactdupont", false},
		{"boulangerie.martin", false},
	}
	for _, tt := range tests {
		if got := IsRole(tt.local); got != tt.want {
			t.Errorf("IsRole(%q) = %v, want %v", tt.local, got, tt.want)
		}
	}
}
