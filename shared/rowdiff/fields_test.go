package rowdiff

import (
	"slices"
	"testing"
)

func TestTrackedFields(t *testing.T) {
	want := []string{"nom", "adresse", "telephone", "site_web", "rating", "reviews_count", "category"}
	if got := TrackedFields(); !slices.Equal(got, want) {
		t.Errorf("TrackedFields = %q, want %q", got, want)
	}
}

func TestEqualValues(t *testing.T) {
	tests := []struct {
		field string
		a, b  string
		equal bool
	}{
		{"rating", "4.3", "4.30", true},
		{"rating", "4,3", "4.3", true},
		{"rating", " 4.3", "4.3 ", true},
		{"rating", "4", "4.0", true},
		{"rating", "4.3", "4.4", false},
		{"rating", "4.31", "4.3", false},
		{"rating", "", "", true},
		{"rating", "", "0", false},
		{"rating", "4.3", "", false},
		{"rating", "n/a", "n/a", true},
		{"rating", "n/a", "N/A", false},
		{"rating", "NaN", "nan", false},
		{"reviews_count", "12", "012", true},
		{"reviews_count", "1234", "1 234", true},
		{"reviews_count", "1234", "1\u00a0234", true},
		{"reviews_count", "1234", "1\u202f234", true},
		{"reviews_count", "12", "12.0", true},
		{"reviews_count", "12", "13", false},
		{"reviews_count", "12", "12.5", false},
		{"reviews_count", "", "0", false},
		{"telephone", "'+33 4 78", "+33 4 78", true},
		{"nom", "  Café  ", "Café", true},
		{"nom", "Café", "café", false},
		{"nom", "Café de la gare", "Café  de la gare", false},
		{"site_web", "'=x", "=x", true},
	}
	for _, tt := range tests {
		t.Run(tt.field+" "+tt.a+" vs "+tt.b, func(t *testing.T) {
			if got := equalValues(kindOf(tt.field), []byte(tt.a), []byte(tt.b)); got != tt.equal {
				t.Errorf("equal = %v, want %v", got, tt.equal)
			}
			if got := equalValues(kindOf(tt.field), []byte(tt.b), []byte(tt.a)); got != tt.equal {
				t.Errorf("reversed: equal = %v, want %v", got, tt.equal)
			}
		})
	}
}

func TestChangedFields(t *testing.T) {
	h := []string{"nom", "rating", "reviews_count", "category", "query"}
	before := NewRow(h, []string{"A", "4.3", "10", "Bar", "q1"})
	tests := []struct {
		name  string
		after Row
		want  []string
	}{
		{"same values in other forms", NewRow(h, []string{" A ", "4,30", "010", "Bar", "q2"}), nil},
		{"in tracked order", NewRow(h, []string{"B", "4.3", "11", "Café", "q1"}), []string{"nom", "reviews_count", "category"}},
		{"a column only one side has", NewRow([]string{"nom", "rating"}, []string{"A", "4.1"}), []string{"rating"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ChangedFields(before, tt.after); !slices.Equal(got, tt.want) {
				t.Errorf("ChangedFields = %q, want %q", got, tt.want)
			}
		})
	}
}
