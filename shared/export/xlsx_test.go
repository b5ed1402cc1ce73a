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
	raw, err := f.GetRows("Export", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		for j, cell := range row {
			want := cell // the value itself: no guard in a sheet
			if b, ok := boolText(cell); ok && TypeOf(businessHeader[j]).Kind == Boolean {
				want = map[bool]string{true: "1", false: "0"}[b]
			}
			g := ""
			if j < len(raw[i+1]) {
				g = raw[i+1][j]
			}
			if g != want {
				t.Fatalf("row %d %s = %q, want %q", i, businessHeader[j], g, want)
			}
		}
	}
	// A postal code stays text; a rating is a number.
	if typ, err := f.GetCellType("Export", "E2"); err != nil || typ != excelize.CellTypeInlineString {
		t.Errorf("E2 type %v (%v), want an inline string", typ, err)
	}
	if typ, err := f.GetCellType("Export", "G2"); err != nil || typ != excelize.CellTypeUnset {
		t.Errorf("G2 (rating) type %v (%v), want a number", typ, err)
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

// sheetRows reads every sheet of an export, in order, rows padded to width.
func sheetRows(t *testing.T, data []byte, width int) [][][]string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("excelize cannot open the export: %v", err)
	}
	t.Cleanup(func() { _ = f.Close() })
	var out [][][]string
	for i, name := range f.GetSheetList() {
		if name != SheetName(i+1) {
			t.Fatalf("sheet %d is %q, want %q", i+1, name, SheetName(i+1))
		}
		rows, err := f.GetRows(name)
		if err != nil {
			t.Fatal(err)
		}
		for j := range rows {
			for len(rows[j]) < width {
				rows[j] = append(rows[j], "")
			}
		}
		out = append(out, rows)
	}
	return out
}

// TestToXLSXContinuesOnNextSheets: past a sheet's last row, or its byte
// limit, the rows go on in a new sheet with the header again; none is lost,
// in order.
func TestToXLSXContinuesOnNextSheets(t *testing.T) {
	rows := businessRows(50)
	for _, tt := range []struct {
		name      string
		lim       xlsxLimits
		minSheets int
	}{
		{"row limit", xlsxLimits{rows: 11, cellChars: MaxXLSXCellChars, sheetBytes: maxSheetBytes}, 5},
		{"byte limit", xlsxLimits{rows: MaxXLSXRows, cellChars: MaxXLSXCellChars, sheetBytes: 20 << 10}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := toXLSX(&out, bytes.NewReader(writeCSV(t, businessHeader, rows)), tt.lim); err != nil {
				t.Fatal(err)
			}
			sheets := sheetRows(t, out.Bytes(), len(businessHeader))
			if len(sheets) < tt.minSheets {
				t.Fatalf("%d sheets, want at least %d", len(sheets), tt.minSheets)
			}
			var got [][]string
			for i, sh := range sheets {
				if len(sh) > tt.lim.rows {
					t.Errorf("sheet %d has %d rows, over its limit of %d", i+1, len(sh), tt.lim.rows)
				}
				if strings.Join(sh[0], "|") != strings.Join(businessHeader, "|") {
					t.Errorf("sheet %d header %q", i+1, sh[0])
				}
				got = append(got, sh[1:]...)
			}
			if len(got) != len(rows) {
				t.Fatalf("%d rows in all, want %d", len(got), len(rows))
			}
			for i := range rows {
				if got[i][0] != rows[i][0] {
					t.Fatalf("row %d is %q, want %q", i, got[i][0], rows[i][0])
				}
			}
		})
	}
}

// TestToXLSXRowTooLargeForASheet: a row that does not fit even an empty
// sheet is left out and counted; the file stays valid.
func TestToXLSXRowTooLargeForASheet(t *testing.T) {
	rows := [][]string{{"a", "b"}, {strings.Repeat("x", 4000), "big"}, {"c", "d"}}
	var out bytes.Buffer
	err := toXLSX(&out, bytes.NewReader(writeCSV(t, []string{"nom", "ville"}, rows)), xlsxLimits{rows: MaxXLSXRows, cellChars: MaxXLSXCellChars, sheetBytes: 1500})
	var te *TruncatedError
	if !errors.As(err, &te) || te.RowsDropped != 1 {
		t.Fatalf("error %v, want 1 row dropped", err)
	}
	var got []string
	for _, sh := range sheetRows(t, out.Bytes(), 2) {
		for _, r := range sh[1:] {
			got = append(got, r[0])
		}
	}
	if strings.Join(got, ",") != "a,c" {
		t.Errorf("rows %q, want a,c", got)
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
	want := "[Content_Types].xml _rels/.rels xl/styles.xml xl/worksheets/sheet1.xml xl/workbook.xml xl/_rels/workbook.xml.rels"
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
