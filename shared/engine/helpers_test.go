package engine

import (
	"slices"
	"testing"

	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/jobs"
)

func TestTaskIDs(t *testing.T) {
	ids := []string{"r10", "r2.2", "r1", "r2.1.4", "r2", "r2.1", "r2.10", "r3", "r2.1.1"}
	slices.SortFunc(ids, compareTaskIDs)
	want := []string{"r1", "r2", "r2.1", "r2.1.1", "r2.1.4", "r2.2", "r2.10", "r3", "r10"}
	if !slices.Equal(ids, want) {
		t.Errorf("order %q, want %q", ids, want)
	}
	for _, tt := range []struct {
		id    string
		ok    bool
		depth int
	}{
		{"r1", true, 0}, {"r12.3", true, 1}, {"r1.2.3.4", true, 3},
		{"", false, 0}, {"r", false, 0}, {"r0", false, 0}, {"r01", false, 0}, {"r1.", false, 0},
		{"r1..2", false, 0}, {"x1", false, 0}, {"r-1", false, 0}, {"r1.a", false, 0},
	} {
		if _, ok := parseTaskID(tt.id); ok != tt.ok || ok && depth(tt.id) != tt.depth {
			t.Errorf("%q: ok %v depth %d", tt.id, ok, depth(tt.id))
		}
	}
	if rootID(0) != "r1" || childID("r3", 1) != "r3.2" {
		t.Error("ids")
	}
}

func TestDecode(t *testing.T) {
	for _, tt := range []struct {
		body string
		ok   bool
	}{
		{`{"kind":"start","job":"abc"}`, true},
		{`{"kind":"finalize","job":"abc"}`, true},
		{`{"kind":"task","job":"abc","task":"r1.2","tile":[14,8000,5000],"q":[0]}`, true},
		{`{"kind":"task","job":"abc","task":"r1.2","tile":[14,16384,5000],"q":[0]}`, false},
		{`{"kind":"task","job":"abc","task":"r1","q":[0]}`, false},
		// A root whose every query is merged into others' searches.
		{`{"kind":"task","job":"abc","task":"r1","tile":[1,0,0]}`, true},
		{`{"kind":"task","job":"abc","task":"r1.2","tile":[1,0,0]}`, false},
		{`{"kind":"task","job":"abc","task":"r1","tile":[14,8000,5000],"wide":[[0,12,2000,1250]]}`, true},
		{`{"kind":"task","job":"abc","task":"r1","tile":[14,8000,5000],"wide":[[0,12,2001,1250]]}`, false},
		{`{"kind":"task","job":"abc","task":"r1","tile":[14,8000,5000],"wide":[[0,14,8000,5000]]}`, false},
		{`{"kind":"task","job":"abc","task":"r1.3","tile":[14,8000,5000],"q":[0],"wide":[[0,12,2000,1250]]}`, false},
		{`{"kind":"task","job":"abc","task":"1","tile":[1,0,0],"q":[0]}`, false},
		{`{"kind":"other","job":"abc"}`, false},
		{`{"kind":"start"}`, false},
		{`not json`, false},
	} {
		if _, err := decode([]byte(tt.body)); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.body, err)
		}
	}
	m, _ := decode([]byte(`{"kind":"task","job":"abc","task":"r1","tile":[14,8000,5000],"q":[0]}`))
	if tl, ok := m.tile(); !ok || tl != maptile.New(8000, 5000, 14) {
		t.Errorf("tile %v", tl)
	}
	if s := tileString(maptile.New(8000, 5000, 14)); s != "14/8000/5000" {
		t.Error(s)
	}
	if a, ok := parseTileString("14/8000/5000"); !ok || *a != [3]int64{14, 8000, 5000} {
		t.Error(a)
	}
}

// TestFallbackIDs: a merged search's fallback is planned as a root (depth
// 0) but is not one; its children count their depth from it.
func TestFallbackIDs(t *testing.T) {
	for _, tt := range []struct {
		id    string
		depth int
		root  bool
	}{
		{"r3", 0, true},
		{"r3.2", 1, false},
		{"r3.2.4", 2, false},
		{fallbackID("r3", 4), 0, false},
		{childID(fallbackID("r3", 0), 1), 1, false},
		{childID(childID(fallbackID("r3", 7), 0), 3), 2, false},
	} {
		if got := depth(tt.id); got != tt.depth {
			t.Errorf("depth(%s) = %d, want %d", tt.id, got, tt.depth)
		}
		if got := isRoot(tt.id); got != tt.root {
			t.Errorf("isRoot(%s) = %v, want %v", tt.id, got, tt.root)
		}
		if _, ok := parseTaskID(tt.id); !ok {
			t.Errorf("parseTaskID(%s) refused", tt.id)
		}
	}
	if got := fallbackID("r3", 4); got != "r3.9" {
		t.Errorf("fallbackID = %s", got)
	}
}

func TestOutputFilename(t *testing.T) {
	for _, tt := range []struct {
		queries, zones []string
		want           string
	}{
		{[]string{"Boulangerie artisanale", "x"}, []string{"Saint-Étienne"}, "boulangerie-artisanale_saint-etienne_abc.csv"},
		{[]string{"Œufs & crème"}, []string{"Lyon 15km"}, "oeufs-creme_lyon-15km_abc.csv"},
		{[]string{"東京"}, []string{"69"}, "69_abc.csv"},
		{[]string{"a very long query that goes on and on and on forever and ever"}, []string{"x"},
			"a-very-long-query-that-goes-on-and-on-an_x_abc.csv"},
	} {
		if got := outputFilename(&jobs.Job{ID: "abc", Queries: tt.queries, Zones: tt.zones}); got != tt.want {
			t.Errorf("%q %q: %s", tt.queries, tt.zones, got)
		}
	}
}
