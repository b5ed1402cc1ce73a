package export

import (
	"archive/zip"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// Excel's limits (Microsoft's "Excel specifications and limits").
const (
	MaxXLSXRows      = 1_048_576 // rows of a sheet, header included
	MaxXLSXCellChars = 32_767    // characters in a cell (UTF-16 code units)
)

// maxSheetBytes keeps the sheet part below 4 GiB uncompressed: beyond it a
// zip entry needs zip64, which archive/zip writes in a form Excel refuses
// (its local header keeps version 20). A row that would cross it is left
// out like a row beyond Excel's last one.
const maxSheetBytes = math.MaxUint32 - 1<<20

// xlsxDeflateLevel is the compression level of the XLSX parts.
const xlsxDeflateLevel = 2

// sheetFlushBytes is the size of the XML batches handed to the compressor.
const sheetFlushBytes = 64 << 10

// ToXLSX converts a stored CSV into an XLSX workbook with a bold, frozen
// header row and each cell typed by its column (appendCell: numbers,
// booleans and dates as such, everything else text, the guard undone). Its rows fill the sheet "Export",
// then, past Excel's last row (1,048,576, header included), "Export 2",
// "Export 3"..., each with the header again: a 2,000,000-row output is two
// sheets. It streams: the rows go one by one into the compressed sheet
// parts of a zip written to w, so memory stays at a row plus the
// compressor's window whatever the size. When a cell is over Excel's
// limit it is cut, and ToXLSX still writes a complete, valid file and then
// returns a *TruncatedError.
func ToXLSX(w io.Writer, r io.Reader) error {
	return toXLSX(w, r, xlsxLimits{rows: MaxXLSXRows, cellChars: MaxXLSXCellChars, sheetBytes: maxSheetBytes})
}

// xlsxLimits are the limits a sheet is cut to; tests lower them.
type xlsxLimits struct {
	rows, cellChars int
	sheetBytes      int64
}

func toXLSX(w io.Writer, r io.Reader, lim xlsxLimits) error {
	cr, err := ReadCSV(r)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	// Level 2: on a million-row sheet 4.8 s and 116 MiB, against 10.9 s and
	// 102 MiB at the default level and 4.4 s and 131 MiB at level 1 (a
	// download waits on both the CPU and the bytes).
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, xlsxDeflateLevel)
	})
	if err := writeParts(zw, xlsxStaticParts()); err != nil {
		return err
	}
	sheets, trunc, err := writeSheets(zw, cr, lim)
	if err != nil {
		return err
	}
	// The parts naming the sheets come last, once their number is known
	// (a package's parts may be in any order: readers use the zip's
	// central directory).
	if err := writeParts(zw, xlsxSheetParts(sheets)); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("export: write XLSX: %w", err)
	}
	if trunc.RowsDropped > 0 || trunc.CellsCut > 0 {
		return trunc
	}
	return nil
}

// writeParts writes package parts.
func writeParts(zw *zip.Writer, parts []xlsxPart) error {
	for _, p := range parts {
		f, err := zw.Create(p.name)
		if err != nil {
			return fmt.Errorf("export: write XLSX: %w", err)
		}
		if _, err := io.WriteString(f, p.body); err != nil {
			return fmt.Errorf("export: write XLSX: %w", err)
		}
	}
	return nil
}

// sheetWriter streams the sheet parts, xl/worksheets/sheet<n>.xml.
type sheetWriter struct {
	zw      *zip.Writer
	out     io.Writer
	header  []string
	types   []ColumnType
	buf     []byte
	cols    [][]byte // column letters: "A", "B", ...
	sheets  int      // sheets opened
	row     int      // rows of the open sheet, header included
	written int64    // bytes of XML of the open sheet handed to out
	lim     xlsxLimits
	trunc   TruncatedError
}

// writeSheets writes the sheet parts: the header, then every row of cr,
// a new sheet (header again) whenever one is full. It returns the number
// of sheets.
func writeSheets(zw *zip.Writer, cr *Reader, lim xlsxLimits) (int, *TruncatedError, error) {
	header := cr.Header()
	sw := &sheetWriter{zw: zw, header: header, types: columnTypes(header), cols: columnLetters(len(header)), buf: make([]byte, 0, 2*sheetFlushBytes), lim: lim}
	if err := sw.open(); err != nil {
		return 0, nil, err
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, nil, err
		}
		if err := sw.add(row); err != nil {
			return 0, nil, err
		}
	}
	if err := sw.close(); err != nil {
		return 0, nil, err
	}
	return sw.sheets, &sw.trunc, nil
}

// open starts the next sheet with its header row.
func (sw *sheetWriter) open() error {
	sw.sheets++
	f, err := sw.zw.Create("xl/worksheets/sheet" + strconv.Itoa(sw.sheets) + ".xml")
	if err != nil {
		return fmt.Errorf("export: write XLSX: %w", err)
	}
	sw.out, sw.row, sw.written = f, 0, 0
	sw.buf = append(sw.buf, sheetHead...)
	sw.buf = strconv.AppendInt(append(sw.buf, `<cols><col min="1" max="`...), int64(len(sw.header)), 10)
	sw.buf = append(sw.buf, `" width="22" customWidth="1"/></cols><sheetData>`...)
	sw.appendRow(sw.header, nil)
	return nil
}

// close ends the open sheet.
func (sw *sheetWriter) close() error {
	sw.buf = append(sw.buf, `</sheetData></worksheet>`...)
	return sw.flush()
}

// sheetTail is the XML close adds, kept out of a sheet's byte limit.
const sheetTail = len(`</sheetData></worksheet>`)

// add appends one data row, on a new sheet when the open one is full (its
// last row, or its byte limit). A row too large for an empty sheet is left
// out (counted in RowsDropped).
func (sw *sheetWriter) add(row []string) error {
	for attempt := 0; ; attempt++ {
		if sw.row < sw.lim.rows {
			mark := len(sw.buf)
			sw.appendRow(row, sw.types)
			if sw.written+int64(len(sw.buf)+sheetTail) <= sw.lim.sheetBytes {
				break
			}
			sw.buf = sw.buf[:mark]
			sw.row--
		}
		if attempt > 0 {
			sw.trunc.RowsDropped++ // does not fit even a new sheet
			return nil
		}
		if err := sw.close(); err != nil {
			return err
		}
		if err := sw.open(); err != nil {
			return err
		}
	}
	if len(sw.buf) >= sheetFlushBytes {
		return sw.flush()
	}
	return nil
}

// flush hands the buffered XML to the compressor.
func (sw *sheetWriter) flush() error {
	n, err := sw.out.Write(sw.buf)
	sw.written += int64(n)
	sw.buf = sw.buf[:0]
	if err != nil {
		return fmt.Errorf("export: write XLSX: %w", err)
	}
	return nil
}

// appendRow appends <row r="n"> with one cell per non-empty value, each
// typed by types; nil types is the header row: bold text.
func (sw *sheetWriter) appendRow(row []string, types []ColumnType) {
	sw.row++
	num := strconv.AppendInt(nil, int64(sw.row), 10)
	sw.buf = append(append(append(sw.buf, `<row r="`...), num...), `">`...)
	for i, cell := range row {
		if types != nil {
			// The guard is the CSV's: a spreadsheet never evaluates an
			// XLSX string cell, so it holds the value itself.
			cell = Restore(cell)
		}
		if cell == "" {
			continue // an absent cell is an empty one, and smaller
		}
		sw.buf = append(append(append(sw.buf, `<c r="`...), sw.cols[i]...), num...)
		if types == nil {
			sw.appendText(cell, ` s="1"`)
			continue
		}
		sw.appendCell(types[i], cell)
	}
	sw.buf = append(sw.buf, "</row>"...)
}

// appendCell appends the rest of a data cell after its reference: a number
// cell for an Integer or Number column's number (numberText: exact in a
// double, Excel's 15 digits), a boolean cell, a day as its serial number
// in the date style; anything else, and a cell that does not read as its
// column's type, an inline string cell, as written. No cell is ever a
// formula.
func (sw *sheetWriter) appendCell(t ColumnType, cell string) {
	switch t.Kind {
	case Integer, Number:
		if numberText(cell, t.Kind == Integer) {
			sw.buf = append(append(append(sw.buf, `"><v>`...), cell...), "</v></c>"...)
			return
		}
	case Boolean:
		if v, ok := boolText(cell); ok {
			b := byte('0')
			if v {
				b = '1'
			}
			sw.buf = append(append(append(sw.buf, `" t="b"><v>`...), b), "</v></c>"...)
			return
		}
	case Date:
		if serial, ok := excelDate(cell); ok {
			sw.buf = strconv.AppendInt(append(sw.buf, `" s="`+dateStyle+`"><v>`...), serial, 10)
			sw.buf = append(sw.buf, "</v></c>"...)
			return
		}
	}
	sw.appendText(cell, "")
}

// appendText appends the rest of an inline string cell; style is its s
// attribute ("" for the default style).
func (sw *sheetWriter) appendText(cell, style string) {
	sw.buf = append(append(sw.buf, `" t="inlineStr"`...), style...)
	sw.buf = append(sw.buf, "><is><t"...)
	if needsSpacePreserve(cell) {
		sw.buf = append(sw.buf, ` xml:space="preserve"`...)
	}
	sw.buf = append(sw.buf, '>')
	var cut bool
	sw.buf, cut = appendXMLText(sw.buf, cell, sw.lim.cellChars)
	if cut {
		sw.trunc.CellsCut++
	}
	sw.buf = append(sw.buf, "</t></is></c>"...)
}

// dateStyle is the cell format (cellXfs index) of dates: yyyy-mm-dd.
const dateStyle = "2"

// excelEpoch is day 0 of Excel's 1900 date system, as a day count that is
// right from 1900-03-01 on (Excel counts a 29 February 1900 that did not
// exist: earlier days stay text).
var (
	excelEpoch    = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	excelFirstDay = time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC)
)

// excelDate is a YYYY-MM-DD day as Excel's serial number.
func excelDate(cell string) (int64, bool) {
	d, ok := dateText(cell)
	if !ok || d.Before(excelFirstDay) {
		return 0, false
	}
	return int64(d.Sub(excelEpoch) / (24 * time.Hour)), true
}

// needsSpacePreserve tells whether cell starts or ends with white space,
// which XML readers, Excel included, would otherwise drop.
func needsSpacePreserve(cell string) bool {
	isSpace := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	return isSpace(cell[0]) || isSpace(cell[len(cell)-1])
}

// appendXMLText appends s escaped as XML character data, without the
// characters XML 1.0 forbids (C0 controls other than tab, LF and CR,
// U+FFFE, U+FFFF; invalid UTF-8 becomes U+FFFD), and cut after limit UTF-16
// code units, Excel's unit. cut reports a cut.
func appendXMLText(buf []byte, s string, limit int) (out []byte, cut bool) {
	units := 0
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if !xmlAllowed(r) {
			continue
		}
		n := 1
		if r > 0xFFFF {
			n = 2 // a surrogate pair in UTF-16
		}
		if units+n > limit {
			return buf, true
		}
		units += n
		buf = appendXMLRune(buf, r)
	}
	return buf, false
}

// xmlAllowed tells whether XML 1.0 allows r in character data (its Char
// production).
func xmlAllowed(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20:
		return false
	case r == 0xFFFE || r == 0xFFFF:
		return false
	}
	return true // DecodeRune never returns a surrogate
}

// appendXMLRune appends r, escaping what character data cannot hold raw. A
// CR is written as a reference: a raw one would be read back as LF.
func appendXMLRune(buf []byte, r rune) []byte {
	switch r {
	case '&':
		return append(buf, "&amp;"...)
	case '<':
		return append(buf, "&lt;"...)
	case '>':
		return append(buf, "&gt;"...)
	case '\r':
		return append(buf, "&#13;"...)
	}
	if r < utf8.RuneSelf {
		return append(buf, byte(r))
	}
	return utf8.AppendRune(buf, r)
}

// columnLetters returns Excel's column names A..Z, AA.. for n columns.
func columnLetters(n int) [][]byte {
	cols := make([][]byte, n)
	for i := range cols {
		var name []byte
		for c := i + 1; c > 0; c = (c - 1) / 26 {
			name = append([]byte{byte('A' + (c-1)%26)}, name...)
		}
		cols[i] = name
	}
	return cols
}

const xmlDecl = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

const nsMain = `http://schemas.openxmlformats.org/spreadsheetml/2006/main`

const nsRel = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`

// sheetHead opens the worksheet with the header row frozen.
const sheetHead = xmlDecl + `<worksheet xmlns="` + nsMain + `" xmlns:r="` + nsRel + `">` +
	`<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>`

// xlsxPart is one part of the package.
type xlsxPart struct{ name, body string }

// xlsxStaticParts are the parts of the minimal SpreadsheetML package that
// do not depend on the number of sheets: content types, the package
// relationships and styles with a second cell format (index 1) in bold for
// the header and a third (index 2, dateStyle) showing a day as yyyy-mm-dd.
func xlsxStaticParts() []xlsxPart {
	return []xlsxPart{
		// Content types first, as streaming readers expect: the sheets,
		// however many, take the default of .xml parts, the workbook and
		// the styles their own.
		{"[Content_Types].xml", xmlDecl + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
			`<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` +
			`</Types>`},
		{"_rels/.rels", xmlDecl + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="` + nsRel + `/officeDocument" Target="xl/workbook.xml"/>` +
			`</Relationships>`},
		{"xl/styles.xml", xmlDecl + `<styleSheet xmlns="` + nsMain + `">` +
			`<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd"/></numFmts>` +
			`<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>` +
			`<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>` +
			`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
			`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
			`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
			`<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
			`<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>` +
			`<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>` +
			`<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>` +
			`</styleSheet>`},
	}
}

// SheetName is the name of the n-th sheet (1-based): "Export", then
// "Export 2", "Export 3"...
func SheetName(n int) string {
	if n <= 1 {
		return "Export"
	}
	return "Export " + strconv.Itoa(n)
}

// xlsxSheetParts are the parts naming the sheets: the workbook and its
// relationships (sheet n is rId<n>, styles rId<n+1>).
func xlsxSheetParts(sheets int) []xlsxPart {
	var list, rels []byte
	for n := 1; n <= sheets; n++ {
		num := strconv.Itoa(n)
		list = append(list, `<sheet name="`+SheetName(n)+`" sheetId="`+num+`" r:id="rId`+num+`"/>`...)
		rels = append(rels, `<Relationship Id="rId`+num+`" Type="`+nsRel+`/worksheet" Target="worksheets/sheet`+num+`.xml"/>`...)
	}
	styles := strconv.Itoa(sheets + 1)
	return []xlsxPart{
		{"xl/workbook.xml", xmlDecl + `<workbook xmlns="` + nsMain + `" xmlns:r="` + nsRel + `">` +
			`<sheets>` + string(list) + `</sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", xmlDecl + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			string(rels) +
			`<Relationship Id="rId` + styles + `" Type="` + nsRel + `/styles" Target="styles.xml"/>` +
			`</Relationships>`},
	}
}
