package bizname_test

import (
	"testing"

	"github.com/prospectdata/svc/shared/bizname"
)

// TestWords: legal forms and company words (French and foreign) are
// Legal, articles and prepositions are Stop, the words that tell a
// business apart are neither; words are taken normalised (lower case,
// unaccented: gazetteer.Normalize's output), as every matcher gives them.
func TestWords(t *testing.T) {
	tests := []struct {
		word        string
		legal, stop bool
	}{
		{"sarl", true, false},
		{"sasu", true, false},
		{"ets", true, false},
		{"societe", true, false},
		{"gmbh", true, false},
		{"ltd", true, false},
		{"de", false, true},
		{"l", false, true},
		{"chez", false, true},
		{"the", false, true},
		{"boulangerie", false, false},
		{"dupont", false, false},
		{"SARL", false, false},    // not normalised
		{"société", false, false}, // not normalised
		{"", false, false},
	}
	for _, tt := range tests {
		if got := bizname.Legal(tt.word); got != tt.legal {
			t.Errorf("Legal(%q) = %v", tt.word, got)
		}
		if got := bizname.Stop(tt.word); got != tt.stop {
			t.Errorf("Stop(%q) = %v", tt.word, got)
		}
	}
}
