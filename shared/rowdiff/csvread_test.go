package rowdiff

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/export"
)

// TestSplitMatchesReadCSV holds the hand-written reader to
// export.ReadCSV's output on tricky inputs: the same header and rows, or
// an error from both.
func TestSplitMatchesReadCSV(t *testing.T) {
	long := strings.Repeat("x", 70<<10) // past the 64 KiB read buffer
	tests := []struct {
		name    string
		text    string
		wantErr bool
	}{
		{"BOM and CRLF", "\uFEFFa;b\r\n1;2\r\n", false},
		{"no BOM, LF", "a;b\n1;2\n", false},
		{"no final line ending", "a;b\r\n1;2", false},
		{"lone CR at the end", "a;b\r\n1;2\r", false},
		{"CR inside a cell", "a;b\r\n1\r2;3\r\n", false},
		{"empty lines skipped", "a;b\r\n\r\n1;2\r\n\n\r\n3;4\r\n", false},
		{"quoted separator", "a;b\r\n\"x;y\";2\r\n", false},
		{"escaped quotes", "a;b\r\n\"il a dit \"\"non\"\"\";2\r\n", false},
		{"quoted CRLF becomes LF", "a;b\r\n\"ligne 1\r\nligne 2\";2\r\n", false},
		{"quoted LF", "a;b\r\n\"ligne 1\nligne 2\n\";2\r\n", false},
		{"quoted empty lines", "a;b\r\n\"x\r\n\r\n\r\ny\";2\r\n", false},
		{"quoted last cell", "a;b\r\n1;\"2\"\r\n", false},
		{"quoted empty cell", "a;b\r\n\"\";\"\"\r\n", false},
		{"empty cells", "a;b;c\r\n;;\r\n", false},
		{"short row padded", "a;b;c\r\n1\r\n", false},
		{"trailing empty cells", "a;b\r\n1;2;;\r\n", false},
		{"trailing blank cells", "a;b\r\n1;2; ;\t\r\n", false},
		{"formula guard kept", "a;b\r\n'=1+1;'+33 4\r\n", false},
		{"quoted header", "\"a;1\";\"b\"\"\"\r\n1;2\r\n", false},
		{"duplicate header names", "a;a;;b\r\n1;2;3;4\r\n", false},
		{"header only", "a;b\r\n", false},
		{"accents", "nom;ville\r\nCafé Œuvre;Saint-Étienne\r\n", false},
		{"long cell", "a;b\r\n" + long + ";2\r\n", false},
		{"long last line without line ending", "a;b\r\n" + long + ";2", false},
		{"long last line ending in CR", "a;b\r\n" + long + ";2\r", false},
		{"long quoted cell over lines", "a;b\r\n\"" + long + "\r\n" + long + "\";2\r\n", false},
		{"long row of quotes", "a;b\r\n\"" + strings.Repeat(`""`, 40<<10) + "\";2\r\n", false},
		{"extra cell with a value", "a;b\r\n1;2;3\r\n", true},
		{"bare quote", "a;b\r\n1\"2;3\r\n", true},
		{"bare quote closing on a later line", "a;b\r\nx\"y;1\r\nz\"w;2\r\n", true},
		{"text after a closing quote", "a;b\r\n\"1\"x;2\r\n", true},
		{"space before a quote", "a;b\r\n \"1\";2\r\n", true},
		{"unclosed quote", "a;b\r\n\"1;2\r\n3;4\r\n", true},
		{"unclosed quote in the header", "\"a;b\r\n", true},
		{"empty input", "", true},
		{"BOM only", "\uFEFF", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantH, wantRows, wantErr := readAllCSV([]byte(tt.text))
			gotH, gotRows, gotErr := readAllSplit([]byte(tt.text))
			if (wantErr != nil) != tt.wantErr {
				t.Fatalf("export.ReadCSV: %v, test expects an error: %v", wantErr, tt.wantErr)
			}
			if (gotErr != nil) != (wantErr != nil) {
				t.Fatalf("error %v, export.ReadCSV's %v", gotErr, wantErr)
			}
			if wantErr != nil {
				if errors.Is(wantErr, export.ErrMalformed) && !errors.Is(gotErr, export.ErrMalformed) {
					t.Errorf("error %v is not ErrMalformed like %v", gotErr, wantErr)
				}
				if errors.Is(wantErr, export.ErrEmpty) && !errors.Is(gotErr, export.ErrEmpty) {
					t.Errorf("error %v is not ErrEmpty like %v", gotErr, wantErr)
				}
				return
			}
			if !slices.Equal(gotH, wantH) {
				t.Errorf("header %q, want %q", gotH, wantH)
			}
			if g, w := joinRows(gotRows), joinRows(wantRows); g != w {
				t.Errorf("rows\n%.300s\nwant\n%.300s", g, w)
			}
		})
	}
}

// FuzzSplit: on any text, the reader agrees with export.ReadCSV.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"a;b\r\n1;2\r\n", "a;b\r\n\"x\r\ny\";\"\"\"\"\r\n", "a\r\n\"", "a;b\n1\"2\n", "\uFEFFa\r\n\r\n;;\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		wantH, wantRows, wantErr := readAllCSV([]byte(text))
		gotH, gotRows, gotErr := readAllSplit([]byte(text))
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("error %v, export.ReadCSV's %v", gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		if !slices.Equal(gotH, wantH) || joinRows(gotRows) != joinRows(wantRows) {
			t.Fatalf("header %q rows %q, want %q %q", gotH, gotRows, wantH, wantRows)
		}
	})
}

// TestLineCells: the on-demand cells of a record without quotes are the
// splitter's, from either end.
func TestLineCells(t *testing.T) {
	for _, rec := range []string{"", "a", ";", "a;b", ";;;", "nom;site;tel;adr;4.3;12;cat;lien;false;ChIJ;q;Lyon", "x;;y;;"} {
		var sp splitter
		if err := sp.split([]byte(rec)); err != nil {
			t.Fatal(err)
		}
		lc := lineCells{rec: []byte(rec), seps: bytes.Count([]byte(rec), []byte{';'})}
		if lc.n() != sp.n() {
			t.Fatalf("%q: %d cells, splitter %d", rec, lc.n(), sp.n())
		}
		for i := -1; i <= sp.n(); i++ {
			if g, w := lc.cell(i), sp.cell(i); !bytes.Equal(g, w) || (g == nil) != (w == nil) {
				t.Errorf("%q cell %d = %q, splitter %q", rec, i, g, w)
			}
		}
	}
}

// TestSplitWordBoundaries: separators and quotes at every position of the
// eight-byte words the splitter reads.
func TestSplitWordBoundaries(t *testing.T) {
	for n := range 20 {
		for pos := range n {
			b := []byte(strings.Repeat("x", n))
			b[pos] = ';'
			var sp splitter
			if err := sp.split(b); err != nil {
				t.Fatal(err)
			}
			if got := sp.n(); got != 2 || len(sp.cell(0)) != pos || len(sp.cell(1)) != n-pos-1 {
				t.Errorf("%q: %d cells %q %q", b, got, sp.cell(0), sp.cell(1))
			}
			b[pos] = '"'
			if err := sp.split(b); !errors.Is(err, errBareQuote) && !(pos == 0 && err != nil) {
				t.Errorf("%q: %v, want a bare quote error", b, err)
			}
		}
	}
}
