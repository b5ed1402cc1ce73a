package export

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// The typed formats are checked against an oracle written here from the
// column table's documented rules (docs/columns.md), with regular
// expressions and encoding/json rather than the writers' own code.

var (
	jsonNumberRE  = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	jsonIntegerRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
)

// exactNumber: the number grammar of the column's kind, at most 15
// significant digits, a finite double that is not an underflow.
func exactNumber(kind Kind, raw string) bool {
	re := jsonNumberRE
	if kind == Integer {
		re = jsonIntegerRE
	}
	if !re.MatchString(raw) {
		return false
	}
	mantissa := strings.TrimLeft(strings.ReplaceAll(strings.SplitN(strings.ToLower(strings.TrimPrefix(raw, "-")), "e", 2)[0], ".", ""), "0")
	if len(mantissa) > 15 {
		return false
	}
	f, err := strconv.ParseFloat(raw, 64)
	return err == nil && (f != 0 || mantissa == "")
}

// wantJSON is what a cell of column, raw before the guard, must be once
// the JSON formats are decoded with UseNumber.
func wantJSON(column, raw string) any {
	if raw == "" {
		return nil
	}
	t := TypeOf(column)
	switch t.Kind {
	case Integer, Number:
		if exactNumber(t.Kind, raw) {
			return json.Number(raw)
		}
	case Boolean:
		if raw == "true" || raw == "false" {
			return raw == "true"
		}
	case List:
		var arr []string
		parts := strings.Split(raw, t.Sep)
		if strings.HasPrefix(raw, "[") && json.Unmarshal([]byte(raw), &arr) == nil {
			parts = arr
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out
	case JSONText:
		if tr := strings.TrimSpace(raw); json.Valid([]byte(tr)) && (tr[0] == '[' || tr[0] == '{') {
			dec := json.NewDecoder(strings.NewReader(tr))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				panic(err)
			}
			return v
		}
	}
	return raw
}

// checkJSONCell checks one decoded value against the oracle.
func checkJSONCell(t *testing.T, row int, column, raw string, got any) {
	t.Helper()
	if want := wantJSON(column, raw); !reflect.DeepEqual(got, want) {
		t.Fatalf("row %d %s (%s) = %#v, want %#v (cell %q)", row, column, TypeOf(column).Kind, got, want, raw)
	}
}

// xlsxCell is a cell as the sheet's XML holds it: its t and s attributes,
// and its value (<v>, or the text of an inline string).
type xlsxCell struct{ t, s, v string }

// wantXLSX is the cell a raw value must become; ok false for no cell.
func wantXLSX(column, raw string) (xlsxCell, bool) {
	if raw == "" {
		return xlsxCell{}, false
	}
	k := TypeOf(column).Kind
	switch k {
	case Integer, Number:
		if exactNumber(k, raw) {
			return xlsxCell{v: raw}, true
		}
	case Boolean:
		switch raw {
		case "true":
			return xlsxCell{t: "b", v: "1"}, true
		case "false":
			return xlsxCell{t: "b", v: "0"}, true
		}
	case Date:
		if d, err := time.Parse("2006-01-02", raw); err == nil && len(raw) == 10 && !d.Before(time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC)) {
			days := int(d.Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24)
			return xlsxCell{s: "2", v: strconv.Itoa(days)}, true
		}
	}
	return xlsxCell{t: "inlineStr", v: raw}, true
}

// readSheetCells streams the cells of a sheet part: each row's cells by
// column letters, handed to fn with the row number.
func readSheetCells(r io.Reader, fn func(row int, cells map[string]xlsxCell)) error {
	dec := xml.NewDecoder(r)
	var (
		rowNum int
		cells  map[string]xlsxCell
		col    string
		cur    xlsxCell
		text   *strings.Builder
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			switch tk.Name.Local {
			case "row":
				cells = map[string]xlsxCell{}
				for _, a := range tk.Attr {
					if a.Name.Local == "r" {
						rowNum, _ = strconv.Atoi(a.Value)
					}
				}
			case "c":
				cur = xlsxCell{}
				for _, a := range tk.Attr {
					switch a.Name.Local {
					case "r":
						col = strings.TrimRight(a.Value, "0123456789")
					case "t":
						cur.t = a.Value
					case "s":
						cur.s = a.Value
					}
				}
			case "v", "t", "f":
				if tk.Name.Local == "f" {
					return fmt.Errorf("row %d: a formula", rowNum)
				}
				text = &strings.Builder{}
			}
		case xml.CharData:
			if text != nil {
				text.Write(tk)
			}
		case xml.EndElement:
			switch tk.Name.Local {
			case "v", "t":
				cur.v, text = text.String(), nil
			case "c":
				cells[col] = cur
			case "row":
				fn(rowNum, cells)
			}
		}
	}
}

// typedHeader covers every kind, known columns written by several modules
// and unknown ones.
var typedHeader = []string{
	"nom", "telephone", "code_postal", "rating", "reviews_count", "aggregator_flag", "latitude", "longitude",
	"siret", "date_creation", "dirigeants", "labels_qualite", "reviews_list", "ca", "price_amount",
	"site_alive", "phone_e164", "phone_is_valid", "phone_operator_registered_since", "phones_extra",
	"cls", "is_siege", "colonne_import", "formule",
}

// typedRow is the i-th row of a typed output: mostly well-formed values,
// and now and then one that does not read as its column's type (it must
// stay a string), an empty cell, a cell the CSV guards.
func typedRow(rng *rand.Rand, i int) []string {
	pick := func(common string, odd ...string) string {
		if rng.IntN(10) == 0 {
			return odd[rng.IntN(len(odd))]
		}
		return common
	}
	phone := fmt.Sprintf("+33 4 %02d %02d %02d %02d", rng.IntN(100), rng.IntN(100), rng.IntN(100), rng.IntN(100))
	e164 := strings.ReplaceAll(phone, " ", "")
	day := time.Date(1950, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(27000)).Format(time.DateOnly)
	reviews, _ := json.Marshal([]map[string]any{
		{"author": "Léa", "rating": 1 + rng.IntN(5), "text": `"Très bien" <3 & plus`, "language": "fr", "time": "2026-01-0" + strconv.Itoa(1+rng.IntN(9)) + "T10:00:00Z"},
	})
	return []string{
		pick(fmt.Sprintf("Boulangerie %d", i), "=HYPERLINK(\"http://x\";\"y\")", "@SUM(A1)", "'=déjà", "-1+1", ""),
		pick(phone, "", "04 78 00 00 00"),
		pick(fmt.Sprintf("%05d", 1000+rng.IntN(95000)), "", "01500"),
		pick(strconv.FormatFloat(float64(10+rng.IntN(41))/10, 'f', -1, 64), "", "4,5", "-0.5", "5.", "NaN", "0"),
		pick(strconv.Itoa(rng.IntN(3000)), "", "12.5", "-3", "007", "1e3", "9007199254740993"),
		pick(strconv.FormatBool(i%7 == 0), "yes", "TRUE", ""),
		pick(fmt.Sprintf("%.6f", 43+rng.Float64()*6), "", "45,75"),
		pick(fmt.Sprintf("%.6f", -1+rng.Float64()*7), "-0.000001", "1e-400"),
		pick(fmt.Sprintf("%014d", rng.Int64N(1e14)), "", "00012345600018"),
		pick(day, "", "2021-02-30", "1899-12-31", "1900-02-28", "1900-03-01", "03/07/2001"),
		pick("Jean DUPONT (Président); Marie MARTIN (Directrice générale)", "", "Solo NOM (Gérant)", "=CMD(); +1"),
		pick("RGE, Qualiopi", "", "Bio"),
		pick(string(reviews), "", "[pas du json", `{"note":4}`, "[]", "  [1, 2]  "),
		pick(strconv.Itoa(rng.IntN(5_000_000)-1_000_000), "", "12345678901234567", "1 200 000"),
		pick(fmt.Sprintf("%d.%02d", rng.IntN(2000), rng.IntN(100)), "", "1290.00", "1e400", "12,50"),
		pick(strconv.FormatBool(rng.IntN(2) == 0), ""),
		pick(e164, "", "'"+e164),
		pick("true", "false", ""),
		pick(day, ""),
		pick(phone+"; "+phone, "", `["+33472000000","+33478000000"]`, "[pas une liste"),
		pick("0.05", "0", "-0", "0.1234567890123456"),
		pick("false", "true", "1"),
		pick(strconv.Itoa(i), "true", "4.5", "=1+1", "'+1", "-5"),
		pick("texte", "+33 1 23", "-1,5", "\t=1", "''-2"),
	}
}

// TestTypedOutputs100k: a 100,000-row output written by the CSV writer
// (guarded), its JSON download, an items page and its XLSX are each parsed
// back and every cell checked against the column table: numbers as
// numbers, booleans as booleans, dates as dates, lists and JSON values as
// arrays and objects, empty cells as null or absent, what does not read as
// its type kept as written, the guard nowhere but in the CSV.
func TestTypedOutputs100k(t *testing.T) {
	n := typedRows
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "output.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewCSV(f, typedHeader)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	guarded := 0
	for i := range n {
		row := typedRow(rng, i)
		for _, c := range row {
			if Neutralise(c) != c {
				guarded++
			}
		}
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if guarded == 0 {
		t.Fatal("no cell guarded in the CSV: the test would not see a leak")
	}
	// The rows again, as they were before the CSV, to compare with.
	rows := func(fn func(i int, row []string)) {
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range n {
			fn(i, typedRow(rng, i))
		}
	}
	open := func() *os.File {
		f, err := os.Open(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Close() })
		return f
	}

	t.Run("JSON", func(t *testing.T) {
		jsonPath := filepath.Join(dir, "output.json")
		out, err := os.Create(jsonPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := ToJSON(out, open()); err != nil {
			t.Fatal(err)
		}
		if _, err := out.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(out)
		dec.UseNumber()
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			t.Fatalf("JSON starts with %v (%v)", tok, err)
		}
		rows(func(i int, row []string) {
			var obj map[string]any
			if err := dec.Decode(&obj); err != nil {
				t.Fatalf("row %d: %v", i, err)
			}
			if len(obj) != len(typedHeader) {
				t.Fatalf("row %d has %d keys", i, len(obj))
			}
			for j, col := range typedHeader {
				checkJSONCell(t, i, col, row[j], obj[col])
			}
		})
		if tok, err := dec.Token(); err != nil || tok != json.Delim(']') || dec.More() {
			t.Fatalf("JSON does not end after %d rows: %v %v", n, tok, err)
		}
		_ = out.Close()
	})

	t.Run("items", func(t *testing.T) {
		const offset, limit = 1000, 5000
		var out bytes.Buffer
		if _, _, err := WriteItems(&out, open(), offset, limit); err != nil {
			t.Fatal(err)
		}
		var page struct {
			Items []map[string]any `json:"items"`
		}
		dec := json.NewDecoder(&out)
		dec.UseNumber()
		if err := dec.Decode(&page); err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != limit {
			t.Fatalf("%d items", len(page.Items))
		}
		rows(func(i int, row []string) {
			if i < offset || i >= offset+limit {
				return
			}
			for j, col := range typedHeader {
				checkJSONCell(t, i, col, row[j], page.Items[i-offset][col])
			}
		})
	})

	t.Run("XLSX", func(t *testing.T) {
		xlsxPath := filepath.Join(dir, "output.xlsx")
		out, err := os.Create(xlsxPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := ToXLSX(out, open()); err != nil {
			t.Fatal(err)
		}
		_ = out.Close()
		zr, err := zip.OpenReader(xlsxPath)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		sheet, err := zr.Open("xl/worksheets/sheet1.xml")
		if err != nil {
			t.Fatal(err)
		}
		defer sheet.Close()
		letters := columnLetters(len(typedHeader))
		want := make(chan []string, 64)
		go func() {
			defer close(want)
			rows(func(_ int, row []string) { want <- row })
		}()
		seen := 0
		err = readSheetCells(sheet, func(r int, cells map[string]xlsxCell) {
			if r == 1 {
				return
			}
			row, ok := <-want
			if !ok {
				t.Fatalf("sheet row %d beyond the output", r)
			}
			seen++
			for j, col := range typedHeader {
				got, present := cells[string(letters[j])]
				w, ok := wantXLSX(col, row[j])
				if present != ok || got != w {
					t.Fatalf("row %d %s (%s) = %+v (present %v), want %+v (present %v), cell %q",
						r, col, TypeOf(col).Kind, got, present, w, ok, row[j])
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if seen != n {
			t.Fatalf("%d sheet rows, want %d", seen, n)
		}
		for range want {
		}
	})
}

// TestTypedXLSXInExcelize: a spreadsheet library reads the typed cells as
// numbers, booleans and dates, and a date shows as yyyy-mm-dd.
func TestTypedXLSXInExcelize(t *testing.T) {
	header := []string{"rating", "reviews_count", "aggregator_flag", "date_creation", "telephone", "colonne"}
	data, err := toXLSXBytes(t, header, [][]string{{"4.5", "120", "true", "2001-07-03", "+33 4 78 00 00 00", "=1+1"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		cell, value string
		typ         excelize.CellType
	}{
		{"A2", "4.5", excelize.CellTypeUnset}, // no t attribute: a number
		{"B2", "120", excelize.CellTypeUnset},
		{"C2", "TRUE", excelize.CellTypeBool},
		{"D2", "2001-07-03", excelize.CellTypeUnset},
		{"E2", "+33 4 78 00 00 00", excelize.CellTypeInlineString},
		{"F2", "=1+1", excelize.CellTypeInlineString},
	} {
		typ, err := f.GetCellType("Export", c.cell)
		if err != nil || typ != c.typ {
			t.Errorf("%s type %v (%v), want %v", c.cell, typ, err, c.typ)
		}
		if v, err := f.GetCellValue("Export", c.cell); err != nil || v != c.value {
			t.Errorf("%s shows %q (%v), want %q", c.cell, v, err, c.value)
		}
		if formula, _ := f.GetCellFormula("Export", c.cell); formula != "" {
			t.Errorf("%s is a formula %q", c.cell, formula)
		}
	}
	if v, err := f.GetCellValue("Export", "D2", excelize.Options{RawCellValue: true}); err != nil || v != "37075" {
		t.Errorf("D2 raw %q (%v), want the serial 37075", v, err)
	}
}

// TestValueNeverLosesText: a cell that does not read as its column's type
// is the string it was, and a typed value written back as text (what an
// item job keeps of a JSON value) is the cell again.
func TestValueNeverLosesText(t *testing.T) {
	tests := []struct {
		column, cell string
		want         any
	}{
		{"rating", "4.5", json.Number("4.5")},
		{"rating", "4,5", "4,5"},
		{"rating", "", nil},
		{"rating", "1e400", "1e400"},
		{"rating", "0.1234567890123456", "0.1234567890123456"},
		{"reviews_count", "007", "007"},
		{"reviews_count", "1.0", "1.0"},
		{"reviews_count", "-3", json.Number("-3")},
		{"ca", "12345678901234567", "12345678901234567"},
		{"aggregator_flag", "true", true},
		{"aggregator_flag", "TRUE", "TRUE"},
		{"date_creation", "2001-07-03", "2001-07-03"},
		{"dirigeants", "A (P); B (G)", []string{"A (P)", "B (G)"}},
		{"phones_extra", `["+331","+332"]`, []string{"+331", "+332"}},
		{"labels_qualite", "RGE, Bio", []string{"RGE", "Bio"}},
		{"reviews_list", `[{"a":1}]`, json.RawMessage(`[{"a":1}]`)},
		{"reviews_list", "[pas du json", "[pas du json"},
		{"reviews_list", `"texte"`, `"texte"`},
		{"telephone", "'+33 4", "+33 4"},
		{"phone_e164", Neutralise("+33450012153"), "+33450012153"},
		{"colonne_import", "42", "42"},
		{"colonne_import", Neutralise("'=x"), "'=x"},
	}
	for _, tt := range tests {
		if got := Value(tt.column, tt.cell); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Value(%s, %q) = %#v, want %#v", tt.column, tt.cell, got, tt.want)
		}
		var buf []byte
		buf = appendJSONValue(buf, TypeOf(tt.column), tt.cell)
		if !json.Valid(buf) {
			t.Errorf("%s %q: invalid JSON %s", tt.column, tt.cell, buf)
		}
	}
}

// FuzzRestoreNeutralise: the guard is undone exactly, whatever the cell.
func FuzzRestoreNeutralise(f *testing.F) {
	for _, s := range []string{"", "'", "'=1", "''-5", "=1", "-5", "+33", "\x00=1", " '=1", "'\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := Restore(Neutralise(s)); got != s {
			t.Errorf("Restore(Neutralise(%q)) = %q", s, got)
		}
		if got := string(RestoreBytes([]byte(Neutralise(s)))); got != s {
			t.Errorf("RestoreBytes(Neutralise(%q)) = %q", s, got)
		}
	})
}

// TestColumnsDocMatchesTable: docs/columns.md lists exactly the column
// table, each column with its type and separator.
func TestColumnsDocMatchesTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/columns.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## The table")
	if !ok {
		t.Fatal(`docs/columns.md has no "## The table"`)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\| ([a-z]+) \\| (?:`([^`]*)`)? *\\|")
	documented := map[string]ColumnType{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		documented[m[1]] = ColumnType{Kind: kindNamed(t, m[2]), Sep: m[3]}
	}
	if want := ColumnTable(); !reflect.DeepEqual(documented, want) {
		for c, ct := range want {
			if documented[c] != ct {
				t.Errorf("%s: documented %+v, table %+v", c, documented[c], ct)
			}
		}
		for c := range documented {
			if _, ok := want[c]; !ok {
				t.Errorf("%s documented, not in the table", c)
			}
		}
	}
}

func kindNamed(t *testing.T, name string) Kind {
	for k := String; k <= JSONText; k++ {
		if k.String() == name {
			return k
		}
	}
	t.Fatalf("unknown type %q in docs/columns.md", name)
	return String
}
