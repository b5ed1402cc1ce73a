package api

import (
	"slices"
	"strings"
	"testing"
)

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"01HZX3J5K8", true},
		{"42", true},
		{"n1", true},
		{"logo café.png", true},
		{strings.Repeat("a", MaxIDLen), true},
		{"", false},
		{"\x00", false},
		{"a\x00b", false},
		{"\xff\xfe", false},
		{"a\nb", false},
		{"a\tb", false},
		{"\x7f", false},
		{"a\u0085b", false}, // C1 next line
		{"a\ufffdb", false}, // what a JSON decoder leaves of invalid UTF-8
		{strings.Repeat("a", MaxIDLen+1), false},
	} {
		if got := ValidID(tc.id); got != tc.want {
			t.Errorf("ValidID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

func TestWildcards(t *testing.T) {
	for path, want := range map[string][]string{
		"/api/jobs":                             nil,
		"/api/jobs/{id}":                        {"id"},
		"/api/pipelines/{id}/nodes/{node_id}/x": {"id", "node_id"},
		"/files/{rest...}":                      {"rest"},
	} {
		if got := wildcards(path); !slices.Equal(got, want) {
			t.Errorf("wildcards(%q) = %q, want %q", path, got, want)
		}
	}
}
