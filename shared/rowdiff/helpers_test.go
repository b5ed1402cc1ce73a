package rowdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/export"
)

// csvOf writes header and rows as a stored output CSV.
func csvOf(tb testing.TB, header []string, rows ...[]string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := export.NewCSV(&buf, header)
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// scrapeRow is a scrape row with the given id, name, rating and reviews,
// the other cells fixed.
func scrapeRow(id, nom, rating, reviews string) []string {
	return []string{nom, "https://example.fr/", "+33 4 78 12 34 56", "12 rue de la République, 69002 Lyon", rating, reviews,
		"Boulangerie", "https://maps.google.com/?cid=1", "false", id, "boulangerie", "Lyon"}
}

// diffAll runs Diff with EmitUnchanged and returns the changes by key.
func diffAll(tb testing.TB, prev, cur []byte, opt Options) (Counts, map[string]Change) {
	tb.Helper()
	opt.EmitUnchanged = true
	got := map[string]Change{}
	counts, err := Diff(context.Background(), bytes.NewReader(prev), bytes.NewReader(cur), opt, func(c Change) error {
		if _, dup := got[c.Key]; dup {
			return fmt.Errorf("key %q emitted twice", c.Key)
		}
		got[c.Key] = c
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return counts, got
}

// changeString is a change in one comparable line.
func changeString(c Change) string {
	return fmt.Sprintf("%s %s %q %q %q", c.Kind, c.Key, c.Before.Cells(), c.After.Cells(), c.ChangedFields)
}

// sortedChanges lists changes as sorted lines.
func sortedChanges(m map[string]Change) []string {
	out := make([]string, 0, len(m))
	for _, c := range m {
		out = append(out, changeString(c))
	}
	slices.Sort(out)
	return out
}

// readAllCSV reads text with export.ReadCSV.
func readAllCSV(text []byte) ([]string, [][]string, error) {
	cr, err := export.ReadCSV(bytes.NewReader(text))
	if err != nil {
		return nil, nil, err
	}
	var rows [][]string
	for {
		row, err := cr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return cr.Header(), rows, nil
			}
			return cr.Header(), rows, err
		}
		rows = append(rows, slices.Clone(row))
	}
}

// readAllSplit reads text with this package's reader, as Diff does.
func readAllSplit(text []byte) ([]string, [][]string, error) {
	rr, err := newRecordReader(bytes.NewReader(text))
	if err != nil {
		return nil, nil, err
	}
	var sp splitter
	header, err := readHeader(rr, &sp)
	if err != nil {
		return nil, nil, err
	}
	var rows [][]string
	for {
		rec, err := rr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return header, rows, nil
			}
			return header, rows, err
		}
		if err := sp.split(rec); err != nil {
			return header, rows, rr.malformed(err)
		}
		if err := sp.checkWidth(len(header)); err != nil {
			return header, rows, rr.malformed(err)
		}
		rows = append(rows, sp.strings(len(header)))
	}
}

func joinRows(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%q\n", r)
	}
	return b.String()
}
