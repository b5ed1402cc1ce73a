package placerow

import "testing"

// TestSiteURL: a site_web cell as the address to fetch, or nothing.
func TestSiteURL(t *testing.T) {
	for _, tt := range []struct {
		cell, want string
	}{
		{"www.boulangerie-durand.fr", "https://www.boulangerie-durand.fr/"},
		{"  http://x.fr/contact#top ", "http://x.fr/contact"},
		{"https://x.fr", "https://x.fr/"},
		{"", ""},
		{"ftp://x.fr", ""},
		{"https://user:pw@x.fr/", ""},
		{"x .fr", ""},
		{"https://", ""},
	} {
		u, ok := SiteURL(tt.cell)
		got := ""
		if ok {
			got = u.String()
		}
		if got != tt.want {
			t.Errorf("SiteURL(%q) = %q, want %q", tt.cell, got, tt.want)
		}
	}
}
