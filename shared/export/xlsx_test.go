package export

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// openXLSX opens an export with excelize and returns the sheet's rows,
// padded to width.
func openXLSX(t *testing.T, data []byte, width int) (*excelize.File, [][]string) {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("excelize cannot open the export: %v", err)
	}
	t.Cleanup(func() { _ = f.Close() })
	if got := f.GetSheetList(); len(got) != 1 || got[0] != "Export" {
		t.Fatalf("sheets %q, want [Export]", got)
	}
	rows, err := f.GetRows("Export")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		for len(rows[i]) < width {
			rows[i] = append(rows[i], "")
		}
	}
	return f, rows
}

func toXLSXBytes(t *testing.T, header []string, rows [][]string) ([]byte, error) {
	t.Helper()
	var out bytes.Buffer
	err := ToXLSX(&out, bytes.NewReader(writeCSV(t, header, rows)))
	return out.Bytes(), err
}

func TestToXLSXRoundTrip(t *testing.T) {
	rows := businessRows(3000)
	rows = append(rows, []string{
		`Le "Petit" <Bistro> & Cie`, "  espaces  ", "=1+1", "ligne 1\nligne 2", "a\rb", "Nguyễn 東京 🙂",
		"", "", "", "", "", "", "", "", "", "",
	})
	data, err := toXLSXBytes(t, businessHeader, rows)
	if err != nil {
		t.Fatal(err)
	}
	f, got := openXLSX(t, data, len(businessHeader))
	if len(got) != len(rows)+1 {
		t.Fatalf("%d rows, want %d", len(got), len(rows)+1)
	}
	if strings.Join(got[0], "|") != strings.Join(businessHeader, "|") {
		t.Errorf("header %q", got[0])
	}
	for i, row := range rows {
		for j, cell := range row {
			if g := got[i+1][j]; g != Neutralise(cell) {
				t.Fatalf("row %d %s = %q, want %q", i, businessHeader[j], g, Neutralise(cell))
			}
		}
	}
	// Cells are text, never numbers: a rating or a postal code keeps its form.
	if typ, err := f.GetCellType("Export", "E2"); err != nil || typ != excelize.CellTypeInlineString {
		t.Errorf("E2 type %v (%v), want an inline string", typ, err)
	}
}

func TestToXLSXHeaderIsBold(t *testing.T) {
	data, err := toXLSXBytes(t, []string{"nom", "ville"}, [][]string{{"A", "Lyon"}})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := openXLSX(t, data, 2)
	for _, cell := range []string{"A1", "B1", "A2"} {
		id, err := f.GetCellStyle("Export", cell)
		if err != nil {
			t.Fatal(err)
		}
		style, err := f.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		bold := style.Font != nil && style.Font.Bold
		if want := cell != "A2"; bold != want {
			t.Errorf("%s bold = %v, want %v", cell, bold, want)
		}
	}
	panes, err := f.GetPanes("Export")
	if err != nil || !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("header pane %+v (%v), want frozen at row 1", panes, err)
	}
}

func TestToXLSXDropsXMLForbiddenCharacters(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"NUL and C0 controls", "a\x00b\x01c\x08d\x0be\x0cf\x1fg", "abcdefg"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"noncharacters", "a\uFFFEb\uFFFFc", "abc"},
		{"invalid UTF-8 replaced", "a\xffb", "a\uFFFDb"},
		{"only forbidden", "\x01\x02", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := toXLSXBytes(t, []string{"a", "b"}, [][]string{{"x", tt.in}})
			if err != nil {
				t.Fatal(err)
			}
			_, rows := openXLSX(t, data, 2)
			if rows[1][1] != tt.want {
				t.Errorf("cell %q read back as %q, want %q", tt.in, rows[1][1], tt.want)
			}
		})
	}
}

func TestToXLSXCutsCellsAtExcelLimit(t *testing.T) {
	long := strings.Repeat("é", MaxXLSXCellChars+10)
	emoji := strings.Repeat("a", MaxXLSXCellChars-1) + "🙂" // a pair would cross the limit
	data, err := toXLSXBytes(t, []string{"a", "b", "c"}, [][]string{{long, emoji, "ok"}})
	var te *TruncatedError
	if !errors.As(err, &te) || !errors.Is(err, ErrTruncated) || te.CellsCut != 2 || te.RowsDropped != 0 {
		t.Fatalf("error %v, want 2 cells cut", err)
	}
	_, rows := openXLSX(t, data, 3)
	if got := rows[1][0]; got != strings.Repeat("é", MaxXLSXCellChars) {
		t.Errorf("long cell kept %d characters, want %d", len([]rune(got)), MaxXLSXCellChars)
	}
	if got := rows[1][1]; got != strings.Repeat("a", MaxXLSXCellChars-1) {
		t.Errorf("cell with a surrogate pair at the limit kept %d characters", len([]rune(got)))
	}
	if rows[1][2] != "ok" {
		t.Errorf("next cell %q", rows[1][2])
	}
}

func TestToXLSXStopsAtRowLimit(t *testing.T) {
	rows := businessRows(30)
	var out bytes.Buffer
	err := toXLSX(&out, bytes.NewReader(writeCSV(t, businessHeader, rows)), xlsxLimits{rows: 11, cellChars: MaxXLSXCellChars, sheetBytes: maxSheetBytes})
	var te *TruncatedError
	if !errors.As(err, &te) || te.RowsDropped != 20 {
		t.Fatalf("error %v, want 20 rows dropped", err)
	}
	_, got := openXLSX(t, out.Bytes(), len(businessHeader))
	if len(got) != 11 || got[10][0] != rows[9][0] {
		t.Errorf("%d rows kept, want the header and the first 10", len(got))
	}
}

func TestToXLSXStopsBeforeZip64(t *testing.T) {
	rows := businessRows(50)
	var out bytes.Buffer
	err := toXLSX(&out, bytes.NewReader(writeCSV(t, businessHeader, rows)), xlsxLimits{rows: MaxXLSXRows, cellChars: MaxXLSXCellChars, sheetBytes: 20 << 10})
	var te *TruncatedError
	if !errors.As(err, &te) || te.RowsDropped == 0 {
		t.Fatalf("error %v, want rows dropped", err)
	}
	_, got := openXLSX(t, out.Bytes(), len(businessHeader))
	if len(got)-1+te.RowsDropped != len(rows) {
		t.Errorf("%d rows kept and %d dropped, want %d in all", len(got)-1, te.RowsDropped, len(rows))
	}
	for i, row := range got[1:] {
		if row[0] != rows[i][0] {
			t.Fatalf("row %d is %q, want %q: kept rows must be the first ones", i, row[0], rows[i][0])
		}
	}
}

func TestToXLSXHeaderOnlyAndParts(t *testing.T) {
	var out bytes.Buffer
	if err := ToXLSX(&out, strings.NewReader("\uFEFFnom;ville\r\n")); err != nil {
		t.Fatal(err)
	}
	_, rows := openXLSX(t, out.Bytes(), 2)
	if len(rows) != 1 || rows[0][0] != "nom" {
		t.Errorf("rows %q, want the header only", rows)
	}
	zr, err := zip.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	want := "[Content_Types].xml _rels/.rels xl/workbook.xml xl/_rels/workbook.xml.rels xl/styles.xml xl/worksheets/sheet1.xml"
	if strings.Join(names, " ") != want {
		t.Errorf("parts %q, want %q", names, want)
	}
	if err := ToXLSX(&out, strings.NewReader("")); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty file: %v, want ErrEmpty", err)
	}
}

func TestColumnLetters(t *testing.T) {
	cols := columnLetters(703)
	for i, want := range map[int]string{0: "A", 25: "Z", 26: "AA", 51: "AZ", 52: "BA", 701: "ZZ", 702: "AAA"} {
		if string(cols[i]) != want {
			t.Errorf("column %d = %s, want %s", i, cols[i], want)
		}
	}
}
