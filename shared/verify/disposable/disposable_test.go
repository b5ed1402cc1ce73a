package disposable

import "testing"

func TestHas(t *testing.T) {
	tests := []struct {
		domain string
		want   bool
	}{
		{"mailinator.com", true},
		{"yopmail.com", true},
		{"yopmail.fr", true},
		{"0-180.com", true},
		// Wildcard entries: the domain and every name under it.
		{"33mail.com", true},
		{"someone.33mail.com", true},
		{"a.b.33mail.com", true},
		// Exact entries do not extend to subdomains.
		{"sub.0-180.com", false},
		// Ordinary mail domains.
		{"gmail.com", false},
		{"orange.fr", false},
		{"free.fr", false},
		{"laposte.net", false},
		{"outlook.com", false},
		{"boulangerie-martin.fr", false},
		{"", false},
		{"com", false},
	}
	for _, tt := range tests {
		if got := Has(tt.domain); got != tt.want {
			t.Errorf("Has(%q) = %v, want %v", tt.domain, got, tt.want)
		}
	}
}

// TestListMatchesSource: the embedded list holds what source.go says it
// does, sorted, and names its package.
func TestListMatchesSource(t *testing.T) {
	exact, wild := Len()
	if exact != exactCount || wild != wildcardCount {
		t.Fatalf("Len() = %d, %d; source.go says %d, %d", exact, wild, exactCount, wildcardCount)
	}
	if exact < 100000 {
		t.Errorf("only %d domains: the list looks truncated", exact)
	}
	if Package != "disposable-email-domains" || Version == "" || License != "MIT" {
		t.Errorf("source: %s@%s (%s)", Package, Version, License)
	}
}

func TestParse(t *testing.T) {
	l := parse("# comment\r\nb.com\r\na.com\n*.w.org\n\n")
	if len(l.exact) != 2 || l.exact[0] != "a.com" || l.exact[1] != "b.com" || !l.wild["w.org"] {
		t.Fatalf("parse = %+v", l)
	}
}

func BenchmarkHas(b *testing.B) {
	Has("warm.up")
	for b.Loop() {
		Has("boulangerie-martin.fr")
	}
}
