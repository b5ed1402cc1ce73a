package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// ToJSON converts a stored CSV into a JSON array of objects keyed by the
// header, in the header's order, each value typed by its column
// (appendJSONValue: null, numbers, booleans, lists, the guard undone). It
// streams: one row is in memory at a time.
func ToJSON(w io.Writer, r io.Reader) error {
	cr, err := ReadCSV(r)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := writeJSONRows(bw, cr, 0, -1, 0, nil); err != nil {
		return err
	}
	if _, err := bw.WriteString("\n"); err != nil {
		return fmt.Errorf("export: write JSON: %w", err)
	}
	return flush(bw, "JSON")
}

// writeJSONRows writes the rows of index offset to offset+limit-1 (every row
// from offset when limit < 0) as a JSON array, then reads on to the end so
// that counts, when not nil, gets the rows written and the rows in the file.
// maxBytes > 0 stops the page before the array, as a Lambda response
// carries it (PayloadSize), would pass maxBytes: the rows after the first
// that does not fit are counted, not written (the first row of a page is
// always written, so that paging always moves on).
func writeJSONRows(bw *bufio.Writer, cr *Reader, offset, limit int, maxBytes int64, counts *pageCounts) error {
	keys, types := jsonKeys(cr.Header()), columnTypes(cr.Header())
	buf := make([]byte, 0, 4096)
	buf = append(buf, '[')
	n, i := 0, 0
	size := int64(2) // the brackets
	full := false
	for ; ; i++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if i < offset || (limit >= 0 && n >= limit) || full {
			continue
		}
		mark := len(buf)
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONObject(append(buf, '\n'), keys, types, row)
		if maxBytes > 0 {
			grown := PayloadSize(buf[mark:])
			if n > 0 && size+grown+PayloadSize([]byte("\n")) > maxBytes {
				buf, full = buf[:mark], true
				continue
			}
			size += grown
		}
		n++
		if len(buf) >= 32<<10 {
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("export: write JSON: %w", err)
			}
			buf = buf[:0]
		}
	}
	if n > 0 {
		buf = append(buf, '\n')
	}
	buf = append(buf, ']')
	if _, err := bw.Write(buf); err != nil {
		return fmt.Errorf("export: write JSON: %w", err)
	}
	if counts != nil {
		counts.count, counts.total = n, i
	}
	return nil
}

// PayloadSize is the size of b once carried in a Lambda response: an HTTP
// API response's body is a JSON string of the invocation's JSON answer, so
// each quote, backslash and control byte takes an escape. It counts high
// (<, > and & as \u003c, U+2028 and U+2029 as \u2028, as encoding/json
// escaping HTML would), so that a page under a bound by this measure is
// under it however the runtime encodes it.
func PayloadSize(b []byte) int64 {
	n := int64(len(b))
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 5
		case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9):
			n += 3
		}
	}
	return n
}

// pageCounts are the rows a page wrote and the rows the file holds.
type pageCounts struct{ count, total int }

// jsonKeys encodes each key once, with its colon: `"name":`.
func jsonKeys(header []string) [][]byte {
	keys := make([][]byte, len(header))
	for i, h := range header {
		keys[i] = append(appendJSONString(nil, h), ':')
	}
	return keys
}

// appendJSONObject appends {"key":value,...} for one row.
func appendJSONObject(buf []byte, keys [][]byte, types []ColumnType, row []string) []byte {
	buf = append(buf, '{')
	for i, cell := range row {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, keys[i]...)
		buf = appendJSONValue(buf, types[i], cell)
	}
	return append(buf, '}')
}

// jsonSafe tells whether a JSON string holds the ASCII byte b as it is.
func jsonSafe(b byte) bool { return b >= 0x20 && b != '"' && b != '\\' }

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, as encoding/json would
// without HTML escaping: control characters escaped, invalid UTF-8 replaced
// by U+FFFD, U+2028 and U+2029 escaped (JavaScript line terminators).
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe(b) {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			buf = appendJSONEscape(buf, b)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			if r == utf8.RuneError {
				buf = append(buf, `\ufffd`...)
			} else {
				buf = append(buf, `\u202`...)
				buf = append(buf, hexDigits[r&0xF])
			}
			start = i + size
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// appendJSONEscape appends the escape of an ASCII byte JSON cannot hold raw.
func appendJSONEscape(buf []byte, b byte) []byte {
	switch b {
	case '"', '\\':
		return append(buf, '\\', b)
	case '\n':
		return append(buf, '\\', 'n')
	case '\r':
		return append(buf, '\\', 'r')
	case '\t':
		return append(buf, '\\', 't')
	}
	return append(buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}

// flush flushes bw, naming the format in the error.
func flush(bw *bufio.Writer, format string) error {
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: write %s: %w", format, err)
	}
	return nil
}
