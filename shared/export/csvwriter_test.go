package export

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strings"
	"testing"
)

// readBack parses a stored CSV the way a third party would: strip the BOM,
// encoding/csv with ';'.
func readBack(t *testing.T, data []byte) [][]string {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		t.Fatalf("stored CSV does not start with a UTF-8 BOM: %q", data[:min(len(data), 8)])
	}
	cr := csv.NewReader(bytes.NewReader(data[3:]))
	cr.Comma = ';'
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv cannot read the stored CSV: %v", err)
	}
	return recs
}

func TestCSVWriterNeutralisesFormulaCells(t *testing.T) {
	// spec: "exports are sanitised against spreadsheet-formula injection"
	// (OWASP: =, +, -, @, tab, CR get a leading apostrophe), except a plain
	// negative number, which a spreadsheet reads as a number only.
	tests := []struct{ name, in, want string }{
		{"equals", "=1+1", "'=1+1"},
		{"plus phone number", "+33 4 78 12 34 56", "'+33 4 78 12 34 56"},
		{"minus formula", "-5+cmd|' /C calc'!A0", "'-5+cmd|' /C calc'!A0"},
		{"minus sum", "-1+1", "'-1+1"},
		{"negative integer", "-5", "-5"},
		{"negative decimal", "-0.5", "-0.5"},
		{"negative decimal comma", "-1,25", "-1,25"},
		{"minus alone", "-", "'-"},
		{"minus dot", "-.5", "'-.5"},
		{"minus trailing mark", "-5.", "'-5."},
		{"two marks", "-1.2.3", "'-1.2.3"},
		{"minus word", "-abc", "'-abc"},
		{"at", "@SUM(A1)", "'@SUM(A1)"},
		{"tab", "\tx", "'\tx"},
		{"carriage return", "\rx", "'\rx"},
		{"hyperlink formula", `=HYPERLINK("http://x";"y")`, `'=HYPERLINK("http://x";"y")`},
		{"normal text", "Boulangerie Dupont", "Boulangerie Dupont"},
		{"trigger inside", "a=b+c-d@e", "a=b+c-d@e"},
		{"leading space then equals", " =1", "' =1"},
		{"NUL then equals", "\x00=1+1", "'\x00=1+1"},
		{"NUL then plus", "\x00+1", "'\x00+1"},
		{"control characters then at", "\x01\x1f\x7f@SUM(A1)", "'\x01\x1f\x7f@SUM(A1)"},
		{"LF then equals", "\n=1+1", "'\n=1+1"},
		{"C1 control then equals", "\u0085=1", "'\u0085=1"},
		{"no-break space then minus", "\u00a0-1+1", "'\u00a0-1+1"},
		{"zero-width space then equals", "\u200b=1", "'\u200b=1"},
		{"byte order mark then equals", "\ufeff=1", "'\ufeff=1"},
		{"spaces then negative number", "  -5", "'  -5"},
		{"NUL then text", "\x00abc", "\x00abc"},
		{"control characters only", "\x00\x01", "\x00\x01"},
		{"spaces then text", "  lead", "  lead"},
		{"empty", "", ""},
		{"apostrophe already", "'=1", "''=1"},
		{"apostrophes already", "''+33", "'''+33"},
		{"apostrophe before a negative number", "'-5", "''-5"},
		{"apostrophe before text", "'abc", "'abc"},
		{"accents", "Café Lefèvre", "Café Lefèvre"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := writeCSV(t, []string{"a", "b"}, [][]string{{tt.in, "x"}})
			recs := readBack(t, data)
			if got := recs[1][0]; got != tt.want {
				t.Errorf("cell %q stored as %q, want %q", tt.in, got, tt.want)
			}
			if got := Neutralise(tt.in); got != tt.want {
				t.Errorf("Neutralise(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRestoreUndoesNeutralise(t *testing.T) {
	for _, in := range []string{"=1+1", "+33 4", "-5", "@x", "\tx", "\rx", "plain", "", "'", "'plain", "\x00=1+1", " =1", "\u200b@x",
		"'=1", "''=1", "'-5", "'+33", "'' -1", "'\t"} {
		if got := Restore(Neutralise(in)); got != in {
			t.Errorf("Restore(Neutralise(%q)) = %q", in, got)
		}
	}
}

func TestCSVWriterRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		row  []string
	}{
		{"semicolon inside", []string{"Rhône; Auvergne", "b"}},
		{"quotes inside", []string{`Le "Petit" Bistro`, `"`}},
		{"newline inside", []string{"ligne 1\nligne 2", "x"}},
		{"lone CR inside", []string{"a\rb", "x"}},
		{"accents and non-Latin", []string{"Nguyễn Ḿüller 東京", "ß"}},
		{"empty cells", []string{"", ""}},
		{"spaces kept", []string{"  lead", "trail  "}},
		{"comma is not a separator", []string{"12, rue X", "a,b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := writeCSV(t, []string{"a", "b"}, [][]string{tt.row})
			recs := readBack(t, data)
			if len(recs) != 2 || strings.Join(recs[1], "|") != strings.Join(tt.row, "|") {
				t.Errorf("row %q read back as %q", tt.row, recs[1:])
			}
		})
	}
}

func TestCSVWriterFormat(t *testing.T) {
	data := writeCSV(t, []string{"nom", "ville"}, [][]string{{"A;B", "Lyon"}, {"=1", ""}})
	want := "\uFEFFnom;ville\r\n\"A;B\";Lyon\r\n'=1;\r\n"
	if string(data) != want {
		t.Errorf("stored CSV = %q, want %q (BOM, ';', CRLF)", data, want)
	}
}

func TestCSVWriterOneEmptyColumnRowSurvives(t *testing.T) {
	// A one-column row with an empty cell must not become a blank line,
	// which readers skip.
	data := writeCSV(t, []string{"email"}, [][]string{{""}, {"a@b.fr"}})
	recs := readBack(t, data)
	if len(recs) != 3 || recs[1][0] != "" || recs[2][0] != "a@b.fr" {
		t.Errorf("read back %q", recs)
	}
}

func TestCSVWriterLargeFileRoundTrip(t *testing.T) {
	rows := businessRows(5000)
	recs := readBack(t, writeCSV(t, businessHeader, rows))
	if len(recs) != len(rows)+1 {
		t.Fatalf("%d records, want %d", len(recs), len(rows)+1)
	}
	for i, row := range rows {
		for j, cell := range row {
			if got := recs[i+1][j]; got != Neutralise(cell) {
				t.Fatalf("row %d col %s: %q, want %q", i, businessHeader[j], got, Neutralise(cell))
			}
		}
	}
}

func TestCSVWriterRefusesWrongWidth(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewCSV(&buf, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range [][]string{{"1"}, {"1", "2", "3"}, nil} {
		if err := w.Write(row); !errors.Is(err, ErrRowWidth) {
			t.Errorf("Write(%q) = %v, want ErrRowWidth", row, err)
		}
	}
	if _, err := NewCSV(&buf, nil); !errors.Is(err, ErrNoHeader) {
		t.Errorf("NewCSV with no header = %v, want ErrNoHeader", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestCSVWriterReportsWriteErrors(t *testing.T) {
	w, err := NewCSV(failingWriter{}, []string{"a"})
	if err != nil {
		t.Fatal(err) // buffered: nothing written yet
	}
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Flush = %v, want the writer's error", err)
	}
}

// TestAppendCSV: rows appended to a stored CSV read back as one file with
// one header, the guard applied to the appended cells too.
func TestAppendCSV(t *testing.T) {
	data := writeCSV(t, []string{"a", "b"}, [][]string{{"1", "x"}})
	var buf bytes.Buffer
	buf.Write(data)
	w, err := AppendCSV(&buf, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]string{"=2", "y;z"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]string{"short"}); err == nil {
		t.Error("a row of the wrong width was appended")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	recs := readBack(t, buf.Bytes())
	if len(recs) != 3 || recs[2][0] != "'=2" || recs[2][1] != "y;z" || recs[1][0] != "1" {
		t.Errorf("records %q", recs)
	}
	if _, err := AppendCSV(&buf, 0); err == nil {
		t.Error("a width of 0 accepted")
	}
}
