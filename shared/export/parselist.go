package export

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// Caps of POST /api/jobs/parse-list. The items cap is the spec's "Items per
// typed job: 1 to 10000", since parse-list's items are meant for those
// endpoints; 5 MiB holds 10,000 rows of a wide business CSV.
const (
	MaxParseListBytes = 5 << 20
	MaxParseListItems = 10_000
)

// sniffRecords is how many records delimiter detection looks at.
const sniffRecords = 20

// ParseList reads a pasted or uploaded CSV list (DESIGN.md: "CSV text with a
// header row; the delimiter (',', ';' or tab) and a BOM are detected") into
// items keyed by the header. maxBytes and maxItems cap the text and the rows
// (0 or less: MaxParseListBytes, MaxParseListItems). The header is the first
// row with a value; one holding a URL, an email address or a number is data,
// not a header (ErrNoHeader).
//
// Header names and cells are trimmed; a column with no name is left out (a
// trailing separator is common in spreadsheet exports); repeated names get
// "_2", "_3" (Keys); rows with no value under a named column are dropped.
// The text, at most maxBytes, is read whole. Text that is not UTF-8 is read
// as UTF-16 when it starts with a UTF-16 BOM (Excel's "Unicode text") and
// otherwise as Windows-1252 (Excel's CSV on Windows). Errors wrap
// ErrTooLarge, ErrEmpty, ErrNoHeader, ErrMalformed (a *MalformedError with
// the line) or ErrTooManyItems.
func ParseList(r io.Reader, maxBytes int64, maxItems int) ([]map[string]string, error) {
	cols, rows, err := ParseTable(r, maxBytes, maxItems)
	if err != nil {
		return nil, err
	}
	items := make([]map[string]string, len(rows))
	for i, row := range rows {
		item := make(map[string]string, len(cols))
		for j, c := range cols {
			item[c] = row[j]
		}
		items[i] = item
	}
	return items, nil
}

// ParseTable is ParseList keeping the columns' order: the header's named
// columns (unique keys, as ParseList's) and each row's cells aligned with
// them. An import's columns pass through a pipeline in this order.
func ParseTable(r io.Reader, maxBytes int64, maxItems int) (columns []string, rows [][]string, err error) {
	if maxBytes <= 0 {
		maxBytes = MaxParseListBytes
	}
	if maxItems <= 0 {
		maxItems = MaxParseListItems
	}
	raw, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("export: read list: %w", err)
	}
	if int64(len(raw)) > maxBytes {
		return nil, nil, fmt.Errorf("export: list longer than %d bytes: %w", maxBytes, ErrTooLarge)
	}
	text, err := decodeText(raw)
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, nil, fmt.Errorf("export: list is empty: %w", ErrEmpty)
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comma = detectDelimiter(text)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true // the cells' strings are fresh each record
	return readList(cr, maxItems)
}

// listColumn is a named column of a list: its position and its key.
type listColumn struct {
	index int
	key   string
}

// readList reads the header and the items.
func readList(cr *csv.Reader, maxItems int) ([]string, [][]string, error) {
	header, err := nextRecord(cr)
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("export: list is empty: %w", ErrEmpty)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, name := range header {
		if looksLikeValue(name) {
			line, _ := cr.FieldPos(0)
			return nil, nil, fmt.Errorf("export: line %d is data (%q), not a header row: %w", line, name, ErrNoHeader)
		}
	}
	cols := namedColumns(header)
	width := len(header)
	keys := make([]string, len(cols))
	for i, c := range cols {
		keys[i] = c.key
	}
	var rows [][]string
	for {
		rec, err := nextRecord(cr)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if err := checkWidth(cr, rec, width); err != nil {
			return nil, nil, err
		}
		row, ok := listRow(cols, rec)
		if !ok {
			continue // values only under unnamed columns: nothing to send
		}
		if len(rows) == maxItems {
			return nil, nil, fmt.Errorf("export: more than %d rows: %w", maxItems, ErrTooManyItems)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("export: list has a header and no row: %w", ErrEmpty)
	}
	return keys, rows, nil
}

// nextRecord returns the next record with its cells trimmed, skipping
// records with no value at all.
func nextRecord(cr *csv.Reader) ([]string, error) {
	for {
		rec, err := cr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, csvError(err)
		}
		blank := true
		for i, cell := range rec {
			rec[i] = strings.TrimSpace(cell)
			blank = blank && rec[i] == ""
		}
		if !blank {
			return rec, nil
		}
	}
}

// checkWidth refuses a record with values beyond the header's columns: the
// list's rows and header disagree, and guessing which cell is which would
// send wrong values to a job.
func checkWidth(cr *csv.Reader, rec []string, width int) error {
	for i := width; i < len(rec); i++ {
		if rec[i] != "" {
			line, _ := cr.FieldPos(0)
			return &MalformedError{Line: line, Reason: fmt.Sprintf("%d cells in a row, the header has %d columns", len(rec), width)}
		}
	}
	return nil
}

// looksLikeValue tells whether a header cell is a value a list holds (a
// URL, an email address, a number or a phone number) rather than a column
// name: the paste has no header row, and its first row would otherwise
// silently become the keys of every item.
func looksLikeValue(name string) bool {
	lower := strings.ToLower(name)
	if strings.Contains(lower, "://") || strings.HasPrefix(lower, "www.") {
		return true
	}
	if at := strings.IndexByte(name, '@'); at > 0 && strings.Contains(name[at:], ".") && !strings.ContainsRune(name, ' ') {
		return true
	}
	digits := 0
	for _, r := range name {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case strings.ContainsRune(" +-.,()/", r):
		default:
			return false
		}
	}
	return digits > 0
}

// namedColumns returns the header's named columns with unique keys.
func namedColumns(header []string) []listColumn {
	var names []string
	var index []int
	for i, name := range header {
		if name != "" {
			names = append(names, name)
			index = append(index, i)
		}
	}
	keys := Keys(names)
	cols := make([]listColumn, len(keys))
	for i, k := range keys {
		cols[i] = listColumn{index: index[i], key: k}
	}
	return cols
}

// listRow is one record's cells under the named columns, a short record's
// missing cells ""; ok is false when the row has no value.
func listRow(cols []listColumn, rec []string) (row []string, ok bool) {
	row = make([]string, len(cols))
	for i, c := range cols {
		if c.index < len(rec) {
			row[i] = rec[c.index]
		}
		ok = ok || row[i] != ""
	}
	return row, ok
}

// decodeText returns the text as UTF-8 without a BOM.
func decodeText(raw []byte) (string, error) {
	switch {
	case bytes.HasPrefix(raw, []byte(bom)):
		raw = raw[len(bom):]
	case bytes.HasPrefix(raw, []byte{0xFF, 0xFE}):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(raw))
	case bytes.HasPrefix(raw, []byte{0xFE, 0xFF}):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Bytes(raw))
	}
	if utf8.Valid(raw) {
		return string(raw), nil
	}
	return decodeWith(charmap.Windows1252.NewDecoder().Bytes(raw))
}

// decodeWith returns a decoder's result as a string.
func decodeWith(b []byte, err error) (string, error) {
	if err != nil {
		return "", &MalformedError{Line: 1, Reason: "text encoding: " + err.Error()}
	}
	return string(b), nil
}

// delimiters are the candidates, in the order that breaks ties: ';' is the
// service's own export format and the French Excel default.
const delimiters = ";,\t"

// detectDelimiter picks the list's delimiter from its first records, counting
// delimiters outside quotes. The header decides when it holds only one
// candidate; among several, the one that splits most data records into as
// many cells as the header wins, then the one more frequent in the header.
// A header with none is a one-column list: the candidate least present in
// the data is chosen, so that its cells are not split.
func detectDelimiter(text string) rune {
	records := sniff(text)
	header, data := records[0], records[1:]
	best, bestScore := -1, [2]int{-1, -1}
	for d := range delimiters {
		if header[d] == 0 {
			continue
		}
		score := [2]int{0, header[d]}
		for _, rec := range data {
			if rec[d] == header[d] {
				score[0]++
			}
		}
		if score[0] > bestScore[0] || (score[0] == bestScore[0] && score[1] > bestScore[1]) {
			best, bestScore = d, score
		}
	}
	if best >= 0 {
		return rune(delimiters[best])
	}
	return leastPresent(data)
}

// leastPresent returns the candidate with the fewest occurrences in records.
func leastPresent(records [][len(delimiters)]int) rune {
	var total [len(delimiters)]int
	for _, rec := range records {
		for d, n := range rec {
			total[d] += n
		}
	}
	best := 0
	for d := range total {
		if total[d] < total[best] {
			best = d
		}
	}
	return rune(delimiters[best])
}

// sniff counts each candidate outside quotes in the first non-blank records
// of text (at least one record, maybe all zero). A quote toggles the quoted
// state, so a quoted cell's delimiters and line breaks do not count.
func sniff(text string) [][len(delimiters)]int {
	var records [][len(delimiters)]int
	var cur [len(delimiters)]int
	quoted, blank := false, true
	for i := 0; i < len(text) && len(records) < sniffRecords; i++ {
		c := text[i]
		switch {
		case c == '"':
			quoted = !quoted
			blank = false
		case quoted:
		case c == '\n':
			if !blank {
				records = append(records, cur)
			}
			cur, blank = [len(delimiters)]int{}, true
		default:
			d := strings.IndexByte(delimiters, c)
			if d >= 0 {
				cur[d]++
			}
			// A row of separators only is blank too: nextRecord skips it.
			if d < 0 && c != '\r' && c != ' ' {
				blank = false
			}
		}
	}
	if !blank || len(records) == 0 {
		records = append(records, cur)
	}
	return records
}
