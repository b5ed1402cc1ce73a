package provider_test

import (
	"testing"

	"github.com/prospectdata/svc/shared/provider"
)

// TestPageCount: a page counts what the provider listed, the places the
// adapter dropped included, and never fewer than it kept.
func TestPageCount(t *testing.T) {
	three := make([]provider.Place, 3)
	tests := []struct {
		name string
		page provider.Page
		want int
	}{
		{"an empty page", provider.Page{}, 0},
		{"Listed unset: the places kept", provider.Page{Places: three}, 3},
		{"two closed businesses dropped", provider.Page{Places: three, Listed: 5}, 5},
		{"Listed below the places kept", provider.Page{Places: three, Listed: 1}, 3},
	}
	for _, tt := range tests {
		if got := tt.page.Count(); got != tt.want {
			t.Errorf("%s: Count() = %d, want %d", tt.name, got, tt.want)
		}
	}
}
