package rowdiff

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fuzzRows turns fuzz bytes into scrape rows, three bytes a row, drawn from
// small pools so keys collide, repeat and fall back to names, phones and
// content hashes, and values differ in form but not in number.
func fuzzRows(spec []byte, email bool) [][]string {
	names := []string{"Café du Port", "CAFE DU PORT", "Le \"Bon\"; Pain", "=Formule"}
	ratings := []string{"", "4.3", "4.30", "4,3", "4.1", "5"}
	reviews := []string{"", "10", "010", "13"}
	var rows [][]string
	for i := 0; i+3 <= len(spec) && len(rows) < 64; i += 3 {
		b0, b1, b2 := spec[i], spec[i+1], spec[i+2]
		row := scrapeRow("", names[b2%4], ratings[b1%6], reviews[(b1/6)%4])
		row[6] = []string{"A", "B"}[(b2/4)%2]
		row[10] = strconv.Itoa(int(b2 / 8)) // query: not tracked
		switch k := b0 % 16; {
		case k < 8:
			row[9] = "P" + strconv.Itoa(int(k))
		case k < 12:
			// no place id: keyed by name and address
		case k < 14:
			row[0], row[3] = "", ""
			row[2] = []string{"+33 1 00", "01 00"}[k%2]
		default:
			row[0], row[2], row[3] = "", "", ""
		}
		if email {
			row = append(row, "x@y.fr")
		}
		rows = append(rows, row)
	}
	return rows
}

// FuzzDiff diffs two small random outputs and checks the spec's rule
// ("Veille run"): every key of either output lands in exactly one bucket,
// the right one, and counts agree; and a tiny memory budget, partitioning
// at every few rows, gives the same result.
func FuzzDiff(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 7, 3, 9, 0, 0}, []byte{0, 2, 2, 5, 7, 3, 13, 0, 0, 15, 1, 1}, uint16(0))
	f.Add([]byte{3, 3, 3, 3, 3, 3}, []byte{3, 9, 3, 8, 8, 8, 8, 8, 8}, uint16(1))
	f.Add([]byte{}, []byte{14, 1, 2}, uint16(200))
	f.Fuzz(func(t *testing.T, prevSpec, curSpec []byte, mem uint16) {
		prevRows, curRows := fuzzRows(prevSpec, false), fuzzRows(curSpec, mem%2 == 1)
		curHeader := scrapeHeader
		if mem%2 == 1 {
			curHeader = append(slices.Clone(scrapeHeader), "email")
		}
		prev, cur := csvOf(t, scrapeHeader, prevRows...), csvOf(t, curHeader, curRows...)

		// The oracle: first rows by key, straight from export.ReadCSV.
		first := func(header []string, data []byte) (map[string][]string, int) {
			_, rows, err := readAllCSV(data)
			if err != nil {
				t.Fatal(err)
			}
			m, dups := map[string][]string{}, 0
			for _, r := range rows {
				k := Key(header, r)
				if _, ok := m[k]; ok {
					dups++
					continue
				}
				m[k] = r
			}
			return m, dups
		}
		p, pd := first(scrapeHeader, prev)
		c, cd := first(curHeader, cur)

		counts, got := diffAll(t, prev, cur, Options{})
		for k := range p {
			if _, ok := got[k]; !ok {
				t.Fatalf("previous key %q in no bucket", k)
			}
		}
		for k, ch := range got {
			pr, inP := p[k]
			cr, inC := c[k]
			var want Kind
			switch {
			case inP && inC:
				want = KindUnchanged
				if oracleChanged(NewRow(scrapeHeader, pr), NewRow(curHeader, cr)) {
					want = KindModified
				}
			case inC:
				want = KindNew
			case inP:
				want = KindRemoved
			default:
				t.Fatalf("key %q in neither output", k)
			}
			if ch.Kind != want {
				t.Fatalf("key %q: %s, want %s (%s)", k, ch.Kind, want, changeString(ch))
			}
			if inP && inC {
				if cf := ChangedFields(NewRow(scrapeHeader, pr), NewRow(curHeader, cr)); !slices.Equal(cf, ch.ChangedFields) {
					t.Fatalf("key %q: ChangedFields %q, Diff's %q", k, cf, ch.ChangedFields)
				}
			}
		}
		union := len(p)
		for k := range c {
			if _, ok := p[k]; !ok {
				union++
			}
		}
		if len(got) != union || counts.Total != len(c) || counts.PrevTotal != len(p) ||
			counts.New+counts.Removed+counts.Modified+counts.Unchanged != union ||
			counts.Duplicates != pd+cd || counts.PrevDuplicates != pd || counts.Rows != len(curRows) || counts.PrevRows != len(prevRows) {
			t.Fatalf("counts %+v: %d keys, %d previous, %d current, duplicates %d+%d", counts, union, len(p), len(c), pd, cd)
		}

		small, gotSmall := diffAll(t, prev, cur, Options{MemBytes: int64(mem%2048) + 1, TempDir: t.TempDir()})
		if small != counts || !slices.Equal(sortedChanges(gotSmall), sortedChanges(got)) {
			t.Fatalf("partitioned diff differs: %+v vs %+v", small, counts)
		}
	})
}

// oracleChanged tells, the plain way, whether a tracked field differs.
func oracleChanged(a, b Row) bool {
	for _, f := range TrackedFields() {
		if !a.Has(f) || !b.Has(f) {
			continue
		}
		x, y := a.Value(f), b.Value(f)
		if x == y {
			continue
		}
		if f == "rating" {
			fx, ex := strconv.ParseFloat(strings.ReplaceAll(x, ",", "."), 64)
			fy, ey := strconv.ParseFloat(strings.ReplaceAll(y, ",", "."), 64)
			if ex == nil && ey == nil && fx == fy {
				continue
			}
		}
		if f == "reviews_count" {
			nx, ex := strconv.Atoi(x)
			ny, ey := strconv.Atoi(y)
			if ex == nil && ey == nil && nx == ny {
				continue
			}
		}
		return true
	}
	return false
}
