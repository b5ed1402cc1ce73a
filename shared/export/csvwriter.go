package export

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// bom is the UTF-8 byte order mark. Excel needs it to read a CSV as UTF-8
// rather than the system's code page (accents in names and addresses).
const bom = "\uFEFF"

// Delimiter is the stored CSV's cell separator (spec: "CSV is UTF-8 with BOM
// and ; separator"): what Excel expects in French locales, where ',' is the
// decimal mark.
const Delimiter = ';'

// csvBufferSize batches rows into large writes: a file or a multipart upload
// behind the writer then sees few, big writes.
const csvBufferSize = 64 << 10

// CSVWriter writes a job's output CSV: BOM, ';', CRLF, RFC 4180 quoting and
// formula-injection neutralisation. Rows are encoded here rather than by
// encoding/csv: the same rules at about three times its speed (see
// BenchmarkCSVExport), and a CSV export is the hot loop of a finalizer.
type CSVWriter struct {
	bw    *bufio.Writer
	width int
}

// NewCSV writes the BOM and the header to w and returns the writer of the
// rows. The header needs at least one column; every row must have as many.
func NewCSV(w io.Writer, header []string) (*CSVWriter, error) {
	if len(header) == 0 {
		return nil, fmt.Errorf("export: CSV header has no column: %w", ErrNoHeader)
	}
	c := &CSVWriter{bw: bufio.NewWriterSize(w, csvBufferSize), width: len(header)}
	if _, err := c.bw.WriteString(bom); err != nil {
		return nil, fmt.Errorf("export: write CSV: %w", err)
	}
	if err := c.Write(header); err != nil {
		return nil, err
	}
	return c, nil
}

// AppendCSV returns a writer of more rows of width cells for a stored CSV
// already written up to the end of a row (its BOM and header included):
// the rows go on where the file stopped, with no second header.
func AppendCSV(w io.Writer, width int) (*CSVWriter, error) {
	if width <= 0 {
		return nil, fmt.Errorf("export: CSV header has no column: %w", ErrNoHeader)
	}
	return &CSVWriter{bw: bufio.NewWriterSize(w, csvBufferSize), width: width}, nil
}

// Write encodes one row. It is buffered: call Flush at the end.
func (c *CSVWriter) Write(row []string) error {
	if len(row) != c.width {
		return fmt.Errorf("export: row of %d cells, header of %d: %w", len(row), c.width, ErrRowWidth)
	}
	// Encoding into bufio's own free space saves a copy of every row.
	if _, err := c.bw.Write(appendCSVRow(c.bw.AvailableBuffer(), row)); err != nil {
		return fmt.Errorf("export: write CSV: %w", err)
	}
	return nil
}

// Flush writes the buffered rows to the underlying writer.
func (c *CSVWriter) Flush() error {
	if err := c.bw.Flush(); err != nil {
		return fmt.Errorf("export: write CSV: %w", err)
	}
	return nil
}

// appendCSVRow appends row, ';'-separated and CRLF-terminated, to buf.
//
// Most rows need no quotes, so the row is first appended as it is and the
// result checked in one go: as many separators as cell boundaries and no
// quote or line break means no cell needed quoting. The checks run over the
// whole line with the runtime's vectorised byte search; a cell-by-cell scan
// was three quarters of the writer's time. A row that fails the check is
// encoded again cell by cell.
func appendCSVRow(buf []byte, row []string) []byte {
	if len(row) == 1 && row[0] == "" {
		// A lone empty cell would be an empty line, which readers skip.
		return append(buf, '"', '"', '\r', '\n')
	}
	start := len(buf)
	for i, cell := range row {
		if i > 0 {
			buf = append(buf, Delimiter)
		}
		if needsNeutralising(cell) {
			buf = append(buf, '\'')
		}
		buf = append(buf, cell...)
	}
	if line := buf[start:]; bytes.Count(line, []byte{Delimiter}) != len(row)-1 ||
		bytes.IndexByte(line, '"') >= 0 || bytes.IndexByte(line, '\n') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
		buf = buf[:start]
		for i, cell := range row {
			if i > 0 {
				buf = append(buf, Delimiter)
			}
			buf = appendCSVCell(buf, cell)
		}
	}
	return append(buf, '\r', '\n')
}

// appendCSVCell appends one neutralised cell, quoted when RFC 4180 needs it.
func appendCSVCell(buf []byte, cell string) []byte {
	prefix := needsNeutralising(cell)
	if !needsQuotes(cell) {
		if prefix {
			buf = append(buf, '\'')
		}
		return append(buf, cell...)
	}
	buf = append(buf, '"')
	if prefix {
		buf = append(buf, '\'')
	}
	for {
		i := strings.IndexByte(cell, '"')
		if i < 0 {
			break
		}
		buf = append(buf, cell[:i+1]...)
		buf = append(buf, '"')
		cell = cell[i+1:]
	}
	buf = append(buf, cell...)
	return append(buf, '"')
}

// needsQuotes tells whether cell holds a byte that forces quotes (RFC 4180
// §2.6, with ';' as the separator).
func needsQuotes(cell string) bool {
	return strings.ContainsAny(cell, ";\"\r\n")
}

// triggers tells whether cell starts with a character a spreadsheet may
// read as the start of a formula (OWASP CSV injection: =, +, -, @, tab or
// CR), looking past what precedes it and a spreadsheet may drop: control
// characters ("\x00=1+1" is a formula once the NUL is stripped, as
// spreadsheets and the tools between do), whitespace (trimmed by the
// import options of LibreOffice and others) and invisible format
// characters (a zero-width space, a byte order mark).
func triggers(cell string) bool {
	if cell == "" {
		return false
	}
	switch cell[0] {
	case '\t', '\r':
		return true
	}
	rest := strings.TrimLeftFunc(cell, ignorable)
	if rest == "" {
		return false
	}
	switch rest[0] {
	case '=', '+', '-', '@':
		return true
	}
	return false
}

// ignorable is a rune a spreadsheet may drop before a cell's content.
func ignorable(r rune) bool {
	return unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
}

// needsNeutralising tells whether cell gets the guard's apostrophe: a
// spreadsheet could read it as a formula (it starts with a trigger, and is
// not a plain negative number such as "-0.5" or "-1,25", a longitude or a
// rating's change, which is a number in every spreadsheet and nothing
// else), or it already looks guarded (apostrophes, then a trigger: "'=x"),
// so that Restore gives back every cell exactly.
func needsNeutralising(cell string) bool {
	return (triggers(cell) && !negativeNumber(cell)) || looksGuarded(cell)
}

// looksGuarded is one or more apostrophes, then a trigger (a negative
// number included: files written before negative numbers were left alone
// hold them guarded).
func looksGuarded(cell string) bool {
	if len(cell) < 2 || cell[0] != '\'' {
		return false
	}
	rest := strings.TrimLeft(cell, "'")
	return rest != "" && triggers(rest)
}

// negativeNumber is "-" then digits, with at most one '.' or ',' between
// digits.
func negativeNumber(cell string) bool {
	if len(cell) < 2 || cell[0] != '-' {
		return false
	}
	mark, digits := false, 0
	for i := 1; i < len(cell); i++ {
		switch c := cell[i]; {
		case c >= '0' && c <= '9':
			digits++
		case (c == '.' || c == ',') && !mark && digits > 0 && i < len(cell)-1:
			mark = true
		default:
			return false
		}
	}
	return digits > 0
}

// Neutralise returns cell as the stored CSV holds it: with a leading
// apostrophe when a spreadsheet could take it for a formula.
func Neutralise(cell string) string {
	if needsNeutralising(cell) {
		return "'" + cell
	}
	return cell
}

// Restore undoes Neutralise exactly: Restore(Neutralise(s)) == s for
// every s (FuzzRestoreNeutralise). It is how every reader of a stored CSV
// other than the CSV download gets a cell's value (JSON, XLSX, items,
// pipelines, imports, a veille's diff): the guard belongs to the CSV alone.
func Restore(cell string) string {
	if looksGuarded(cell) {
		return cell[1:]
	}
	return cell
}

// RestoreBytes is Restore over bytes, for a reader of many cells (a
// veille's diff keys): it allocates nothing.
func RestoreBytes(cell []byte) []byte {
	if len(cell) >= 2 && cell[0] == '\'' && looksGuarded(string(cell)) {
		return cell[1:]
	}
	return cell
}
