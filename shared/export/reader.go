package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Reader reads a stored CSV (BOM, ';') one row at a time, so that no
// conversion holds more than a row in memory.
type Reader struct {
	cr     *csv.Reader
	header []string
	row    []string
}

// ReadCSV reads the header of a stored CSV and returns the reader of its
// rows. A missing BOM is fine; an input with no header is ErrEmpty.
func ReadCSV(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if err := skipBOM(br); err != nil {
		return nil, fmt.Errorf("export: read CSV: %w", err)
	}
	cr := csv.NewReader(br)
	cr.Comma = Delimiter
	cr.FieldsPerRecord = -1 // widths are checked here, with a clearer message
	cr.ReuseRecord = true   // Read copies into its own row anyway
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("export: CSV has no header: %w", ErrEmpty)
	}
	if err != nil {
		return nil, csvError(err)
	}
	keys := Keys(header)
	return &Reader{cr: cr, header: keys, row: make([]string, len(keys))}, nil
}

// Header returns the column keys: the header's names made unique (Keys).
func (r *Reader) Header() []string { return r.header }

// Read returns the next row, exactly as wide as the header (a short row is
// padded with empty cells), or io.EOF after the last one. The slice is reused
// by the next call; its strings are not.
func (r *Reader) Read() ([]string, error) {
	rec, err := r.cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, csvError(err)
	}
	if err := fitRow(r.row, rec); err != nil {
		line, _ := r.cr.FieldPos(0)
		return nil, &MalformedError{Line: line, Reason: err.Error()}
	}
	return r.row, nil
}

// fitRow copies rec into row (len(row) is the header's width), padding a
// short record and refusing a longer one unless its extra cells are empty
// (a trailing separator).
func fitRow(row, rec []string) error {
	for i := len(row); i < len(rec); i++ {
		if strings.TrimSpace(rec[i]) != "" {
			return fmt.Errorf("%d cells in a row, the header has %d columns", len(rec), len(row))
		}
	}
	n := copy(row, rec)
	clear(row[n:])
	return nil
}

// skipBOM drops a leading UTF-8 byte order mark.
func skipBOM(br *bufio.Reader) error {
	head, err := br.Peek(len(bom))
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if bytes.HasPrefix(head, []byte(bom)) {
		_, err := br.Discard(len(bom))
		return err
	}
	return nil
}

// csvError turns an encoding/csv error into a MalformedError with its line.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &MalformedError{Line: pe.StartLine, Reason: pe.Err.Error()}
	}
	return fmt.Errorf("export: read CSV: %w", err)
}

// Keys makes header names usable as object keys: trimmed, an empty name
// becomes "column_<n>" (n the 1-based position) and a repeated name gets
// "_2", "_3", ... so that no column is lost in a map or a JSON object.
func Keys(header []string) []string {
	keys := make([]string, len(header))
	seen := make(map[string]bool, len(header))
	for i, name := range header {
		name = strings.TrimSpace(name)
		if name == "" {
			name = "column_" + strconv.Itoa(i+1)
		}
		key := name
		for n := 2; seen[key]; n++ {
			key = name + "_" + strconv.Itoa(n)
		}
		seen[key] = true
		keys[i] = key
	}
	return keys
}
