package rowdiff

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/export"
)

// TestDiffBuckets pins the spec's rule ("Veille run"): every key in
// exactly one bucket, new, removed, modified or unchanged.
func TestDiffBuckets(t *testing.T) {
	base := scrapeRow("ChIJ1", "Boulangerie Dupont", "4.3", "120")
	with := func(row []string, col, v string) []string {
		r := slices.Clone(row)
		r[slices.Index(scrapeHeader, col)] = v
		return r
	}
	type want struct {
		kind    Kind
		changed []string
	}
	tests := []struct {
		name           string
		prev, cur      [][]string
		want           map[string]want
		dupes, prevDup int
	}{
		{"unchanged, same bytes", [][]string{base}, [][]string{base},
			map[string]want{"id:ChIJ1": {KindUnchanged, nil}}, 0, 0},
		{"new", nil, [][]string{base},
			map[string]want{"id:ChIJ1": {KindNew, nil}}, 0, 0},
		{"removed", [][]string{base}, nil,
			map[string]want{"id:ChIJ1": {KindRemoved, nil}}, 0, 0},
		{"modified rating", [][]string{base}, [][]string{with(base, "rating", "4.1")},
			map[string]want{"id:ChIJ1": {KindModified, []string{"rating"}}}, 0, 0},
		{"rating compared as a number", [][]string{base}, [][]string{with(base, "rating", "4,30")},
			map[string]want{"id:ChIJ1": {KindUnchanged, nil}}, 0, 0},
		{"reviews compared as an integer", [][]string{base}, [][]string{with(base, "reviews_count", "0120")},
			map[string]want{"id:ChIJ1": {KindUnchanged, nil}}, 0, 0},
		{"text trimmed", [][]string{base}, [][]string{with(base, "nom", " Boulangerie Dupont  ")},
			map[string]want{"id:ChIJ1": {KindUnchanged, nil}}, 0, 0},
		{"untracked column changed", [][]string{base}, [][]string{with(with(base, "query", "pain"), "lien_maps", "https://maps.google.com/?cid=2")},
			map[string]want{"id:ChIJ1": {KindUnchanged, nil}}, 0, 0},
		{"changed fields in tracked order", [][]string{base},
			[][]string{with(with(with(base, "category", "Pâtisserie"), "nom", "Dupont & Fils"), "reviews_count", "125")},
			map[string]want{"id:ChIJ1": {KindModified, []string{"nom", "reviews_count", "category"}}}, 0, 0},
		{"every tracked field", [][]string{base},
			[][]string{{"B", "https://b.fr/", "+33 1", "1 rue Y", "3.9", "121", "Pâtisserie", "https://maps.google.com/?cid=1", "false", "ChIJ1", "boulangerie", "Lyon"}},
			map[string]want{"id:ChIJ1": {KindModified, TrackedFields()}}, 0, 0},
		{"a value that appears", [][]string{with(base, "site_web", "")}, [][]string{base},
			map[string]want{"id:ChIJ1": {KindModified, []string{"site_web"}}}, 0, 0},
		{"duplicates keep the first", [][]string{base, with(base, "rating", "1.0")},
			[][]string{base, with(base, "rating", "2.0"), with(base, "rating", "3.0")},
			map[string]want{"id:ChIJ1": {KindUnchanged, nil}}, 3, 1},
		{"fallback key matches across spellings", [][]string{with(with(base, "place_id", ""), "nom", "CHÂTEAU d'Eau")},
			[][]string{with(with(with(base, "place_id", ""), "nom", "Chateau d eau"), "rating", "4.0")},
			map[string]want{"na:chateau d eau|12 rue de la republique 69002 lyon": {KindModified, []string{"nom", "rating"}}}, 0, 0},
		{"all four buckets", [][]string{base, scrapeRow("ChIJ2", "B", "4.0", "1"), scrapeRow("ChIJ3", "C", "4.0", "1")},
			[][]string{scrapeRow("ChIJ4", "D", "4.0", "1"), scrapeRow("ChIJ3", "C", "4.0", "9"), base},
			map[string]want{"id:ChIJ1": {KindUnchanged, nil}, "id:ChIJ2": {KindRemoved, nil}, "id:ChIJ3": {KindModified, []string{"reviews_count"}}, "id:ChIJ4": {KindNew, nil}}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mem := range []int64{0, 1} { // in memory, and partitioned at every row
				counts, got := diffAll(t, csvOf(t, scrapeHeader, tt.prev...), csvOf(t, scrapeHeader, tt.cur...), Options{MemBytes: mem, TempDir: t.TempDir()})
				if len(got) != len(tt.want) {
					t.Fatalf("MemBytes %d: changes %v, want %v", mem, sortedChanges(got), tt.want)
				}
				perKind := map[Kind]int{}
				for k, w := range tt.want {
					c := got[k]
					if c.Kind != w.kind || !slices.Equal(c.ChangedFields, w.changed) {
						t.Errorf("MemBytes %d: %s: %s %q, want %s %q", mem, k, c.Kind, c.ChangedFields, w.kind, w.changed)
					}
					perKind[w.kind]++
				}
				wantCounts := Counts{New: perKind[KindNew], Removed: perKind[KindRemoved], Modified: perKind[KindModified], Unchanged: perKind[KindUnchanged],
					Duplicates: tt.dupes, PrevDuplicates: tt.prevDup, Rows: len(tt.cur), PrevRows: len(tt.prev)}
				wantCounts.Total = wantCounts.New + wantCounts.Modified + wantCounts.Unchanged
				wantCounts.PrevTotal = wantCounts.Removed + wantCounts.Modified + wantCounts.Unchanged
				if counts != wantCounts {
					t.Errorf("MemBytes %d: counts %+v, want %+v", mem, counts, wantCounts)
				}
			}
		})
	}
}

// TestDiffRows: a change's rows give the cells by name; a new key has no
// Before, a removed one no After.
func TestDiffRows(t *testing.T) {
	prev := csvOf(t, scrapeHeader, scrapeRow("ChIJ1", "=Dupont", "4.5", "10"), scrapeRow("ChIJ2", "Gone", "4.0", "1"))
	curHeader := append(slices.Clone(scrapeHeader), "email")
	curRow := append(scrapeRow("ChIJ1", "=Dupont", "4.3", "10"), "contact@dupont.fr")
	cur := csvOf(t, curHeader, curRow, append(scrapeRow("ChIJ3", "New", "5", "1"), ""))
	_, got := diffAll(t, prev, cur, Options{})
	m := got["id:ChIJ1"]
	if m.Kind != KindModified || m.Before.Value("rating") != "4.5" || m.After.Value("rating") != "4.3" {
		t.Fatalf("modified %s", changeString(m))
	}
	if m.After.Get("nom") != "'=Dupont" || m.After.Value("nom") != "=Dupont" {
		t.Errorf("nom stored %q, value %q", m.After.Get("nom"), m.After.Value("nom"))
	}
	if m.After.Value("email") != "contact@dupont.fr" || m.Before.Has("email") || m.Before.Value("email") != "" {
		t.Errorf("email after %q, before has it: %v", m.After.Value("email"), m.Before.Has("email"))
	}
	if !slices.Equal(m.After.Header(), curHeader) || len(m.After.Cells()) != len(curHeader) {
		t.Errorf("after header %q cells %q", m.After.Header(), m.After.Cells())
	}
	if n := got["id:ChIJ3"]; !n.Before.IsZero() || n.After.IsZero() || n.After.Value("nom") != "New" {
		t.Errorf("new %s", changeString(n))
	}
	if r := got["id:ChIJ2"]; r.Kind != KindRemoved || !r.After.IsZero() || r.Before.Value("nom") != "Gone" {
		t.Errorf("removed %s", changeString(r))
	}
}

// TestDiffLayouts: outputs with other columns, in another order, compare
// by column name; a tracked field only one side has is not compared.
func TestDiffLayouts(t *testing.T) {
	prev := csvOf(t, []string{"place_id", "nom", "rating", "category"},
		[]string{"A", "Alpha", "4.5", "Bar"}, []string{"B", "Beta", "3.0", "Bar"})
	cur := csvOf(t, []string{"nom", "email", "rating", "place_id", "site_web"},
		[]string{"Alpha", "a@x.fr", "4.50", "A", "https://a.fr/"}, []string{"Beta", "", "3.5", "B", ""})
	for _, mem := range []int64{0, 1} {
		counts, got := diffAll(t, prev, cur, Options{MemBytes: mem, TempDir: t.TempDir()})
		if got["id:A"].Kind != KindUnchanged || got["id:B"].Kind != KindModified || !slices.Equal(got["id:B"].ChangedFields, []string{"rating"}) {
			t.Errorf("MemBytes %d: %q", mem, sortedChanges(got))
		}
		if counts.Unchanged != 1 || counts.Modified != 1 {
			t.Errorf("MemBytes %d: counts %+v", mem, counts)
		}
	}
}

func TestDiffEmitUnchanged(t *testing.T) {
	rows := [][]string{scrapeRow("ChIJ1", "A", "4", "1"), scrapeRow("ChIJ2", "B", "4", "1")}
	in := csvOf(t, scrapeHeader, rows...)
	var kinds []Kind
	counts, err := Diff(context.Background(), bytes.NewReader(in), bytes.NewReader(in), Options{}, func(c Change) error {
		kinds = append(kinds, c.Kind)
		return nil
	})
	if err != nil || len(kinds) != 0 || counts.Unchanged != 2 {
		t.Fatalf("without EmitUnchanged: %v %v %+v", err, kinds, counts)
	}
	counts, err = Diff(context.Background(), bytes.NewReader(in), bytes.NewReader(in), Options{EmitUnchanged: true}, func(c Change) error {
		kinds = append(kinds, c.Kind)
		return nil
	})
	if err != nil || !slices.Equal(kinds, []Kind{KindUnchanged, KindUnchanged}) || counts.Unchanged != 2 {
		t.Fatalf("with EmitUnchanged: %v %v %+v", err, kinds, counts)
	}
	if _, err := Diff(context.Background(), bytes.NewReader(in), bytes.NewReader(in), Options{}, nil); err != nil {
		t.Errorf("nil emit: %v", err)
	}
}

// TestDiffOrder: in memory, changes come in the current output's order,
// removed keys last in the previous output's order.
func TestDiffOrder(t *testing.T) {
	prev := csvOf(t, scrapeHeader, scrapeRow("r2", "x", "1", "1"), scrapeRow("m", "x", "1", "1"), scrapeRow("r1", "x", "1", "1"))
	cur := csvOf(t, scrapeHeader, scrapeRow("n2", "x", "1", "1"), scrapeRow("m", "y", "1", "1"), scrapeRow("n1", "x", "1", "1"))
	var keys []string
	_, err := Diff(context.Background(), bytes.NewReader(prev), bytes.NewReader(cur), Options{}, func(c Change) error {
		keys = append(keys, c.Key)
		return nil
	})
	if want := []string{"id:n2", "id:m", "id:n1", "id:r2", "id:r1"}; err != nil || !slices.Equal(keys, want) {
		t.Errorf("order %q (%v), want %q", keys, err, want)
	}
}

// TestDiffPartitionedMatchesInMemory: a budget small enough to partition
// (several levels deep) gives the in-memory result, and leaves no file.
func TestDiffPartitionedMatchesInMemory(t *testing.T) {
	var prev, cur bytes.Buffer
	genPair(t, &prev, &cur, 5000)
	// Repeated keys, rows without a place id and quoted cells too.
	extra := [][]string{
		scrapeRow(genPlace(7).id, "dup", "1", "1"),
		scrapeRow("", "Le \"Fournil\"; Lyon", "4.2", "3"),
		scrapeRow("", "Sans id", "4.2", "3"),
		{"", "", "", "", "", "", "", "", "", "", "", ""},
	}
	prevB := append(prev.Bytes(), csvOf(t, scrapeHeader, extra...)[len("\uFEFF")+len(strings.Join(scrapeHeader, ";"))+2:]...)
	extra[2][4] = "4.0"
	curB := append(cur.Bytes(), csvOf(t, scrapeHeader, extra...)[len("\uFEFF")+len(strings.Join(scrapeHeader, ";"))+2:]...)

	wantCounts, want := diffAll(t, prevB, curB, Options{})
	if wantCounts.New == 0 || wantCounts.Removed == 0 || wantCounts.Modified == 0 || wantCounts.Duplicates == 0 {
		t.Fatalf("fixture lacks a bucket: %+v", wantCounts)
	}
	for _, mem := range []int64{16 << 10, 128 << 10, 512 << 10} {
		dir := t.TempDir()
		counts, got := diffAll(t, prevB, curB, Options{MemBytes: mem, TempDir: dir})
		if counts != wantCounts {
			t.Errorf("MemBytes %d: counts %+v, in memory %+v", mem, counts, wantCounts)
		}
		if g, w := sortedChanges(got), sortedChanges(want); !slices.Equal(g, w) {
			t.Errorf("MemBytes %d: %d changes differ from the in-memory diff's %d", mem, len(g), len(w))
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("MemBytes %d: %d files left in TempDir", mem, len(left))
		}
	}
}

// TestDiffStops: a cancelled context or an emit error stops the diff, in
// memory or partitioned, with the error and no file left.
func TestDiffStops(t *testing.T) {
	var prev, cur bytes.Buffer
	genPair(t, &prev, &cur, 20000)
	boom := errors.New("boom")
	for _, mem := range []int64{0, 64 << 10} {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Diff(ctx, bytes.NewReader(prev.Bytes()), bytes.NewReader(cur.Bytes()), Options{MemBytes: mem, TempDir: dir}, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("MemBytes %d: cancelled before: %v", mem, err)
		}
		ctx, cancel = context.WithCancel(context.Background())
		_, err := Diff(ctx, bytes.NewReader(prev.Bytes()), bytes.NewReader(cur.Bytes()), Options{MemBytes: mem, TempDir: dir}, func(Change) error {
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("MemBytes %d: cancelled during: %v", mem, err)
		}
		_, err = Diff(context.Background(), bytes.NewReader(prev.Bytes()), bytes.NewReader(cur.Bytes()), Options{MemBytes: mem, TempDir: dir}, func(Change) error {
			return boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("MemBytes %d: emit error: %v", mem, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("MemBytes %d: %d files left", mem, len(left))
		}
	}
}

func TestDiffBadInput(t *testing.T) {
	good := csvOf(t, scrapeHeader, scrapeRow("A", "a", "1", "1"))
	tests := []struct {
		name      string
		prev, cur string
		want      error
	}{
		{"empty previous", "", string(good), export.ErrEmpty},
		{"empty current", string(good), "", export.ErrEmpty},
		{"unclosed quote", string(good), "nom;place_id\r\n\"x;1\r\n", export.ErrMalformed},
		{"row wider than the header", "nom;place_id\r\nx;1;2\r\n", string(good), export.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mem := range []int64{0, 1} {
				_, err := Diff(context.Background(), strings.NewReader(tt.prev), strings.NewReader(tt.cur), Options{MemBytes: mem, TempDir: t.TempDir()}, nil)
				if !errors.Is(err, tt.want) {
					t.Errorf("MemBytes %d: %v, want %v", mem, err, tt.want)
				}
			}
		})
	}
}
