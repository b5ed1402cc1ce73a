package rowdiff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/prospectdata/svc/shared/export"
)

// The reader here reads what export.ReadCSV reads (BOM, ';', RFC 4180
// quotes, CRLF or LF, empty lines skipped, a CRLF inside a quoted cell read
// as LF, short rows padded, extra empty cells ignored) and refuses what it
// refuses, but without encoding/csv: it hands out each record as the bytes
// of the file, which the diff stores and compares as they are, and splits
// them only when a cell is needed. encoding/csv copies every cell of every
// row into new strings, which was most of a diff's time. Tests hold the two
// readers to the same output (TestSplitMatchesReadCSV, FuzzSplit).

// readBufferSize is the read buffer of an input: large reads, and most
// records are handed out straight from it without a copy.
const readBufferSize = 64 << 10

// MaxRecordBytes caps one CSV record (a row, line breaks inside quoted
// cells included). Output rows are a few hundred bytes; the cap keeps a
// corrupt file (an unclosed quote) from being read whole into memory.
const MaxRecordBytes = 4 << 20

// Reasons of a malformed record, worded as encoding/csv's.
var (
	errBareQuote = errors.New(`bare " in non-quoted-field`)
	errQuote     = errors.New(`extraneous or missing " in quoted-field`)
)

// recordReader reads the records of a stored CSV.
type recordReader struct {
	br    *bufio.Reader
	buf   []byte // a record spread over several reads
	line  int    // physical lines read so far
	start int    // first line of the last record
}

func newRecordReader(r io.Reader) (*recordReader, error) {
	br := bufio.NewReaderSize(r, readBufferSize)
	head, err := br.Peek(3)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if bytes.HasPrefix(head, []byte("\uFEFF")) {
		if _, err := br.Discard(3); err != nil {
			return nil, err
		}
	}
	return &recordReader{br: br}, nil
}

// next returns the next non-empty record without its line ending, or
// io.EOF. The slice is valid until the next call.
func (r *recordReader) next() ([]byte, error) {
	for {
		rec, err := r.record()
		if err != nil || len(rec) > 0 {
			return rec, err
		}
		// An empty line: encoding/csv skips them.
	}
}

// record reads one record: physical lines are joined while a quoted cell
// is open. An open quote is told by parity: in a well-formed record quotes
// come in pairs except the opening one of an open cell; a stray quote makes
// the record malformed, which split reports.
func (r *recordReader) record() ([]byte, error) {
	r.buf = r.buf[:0]
	r.start = r.line + 1
	joined, open := false, false
	for {
		b, err := r.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			open = open != (bytes.Count(b, []byte{'"'})%2 == 1)
			if r.buf = append(r.buf, b...); len(r.buf) > MaxRecordBytes {
				return nil, r.malformed(fmt.Errorf("record longer than %d bytes", MaxRecordBytes))
			}
			joined = true
			continue
		}
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			return nil, fmt.Errorf("rowdiff: read CSV: %w", err)
		}
		if eof && len(b) == 0 && !joined {
			return nil, io.EOF
		}
		if len(b) > 0 {
			r.line++
		}
		if bytes.IndexByte(b, '"') >= 0 {
			open = open != (bytes.Count(b, []byte{'"'})%2 == 1)
		}
		rec := b
		if joined || (open && !eof) {
			r.buf = append(r.buf, b...)
			rec = r.buf
			joined = true
		}
		if open && !eof {
			if len(r.buf) > MaxRecordBytes {
				return nil, r.malformed(fmt.Errorf("record longer than %d bytes", MaxRecordBytes))
			}
			continue
		}
		if open {
			return nil, r.malformed(errQuote)
		}
		return trimEOL(rec, eof), nil
	}
}

// trimEOL drops a record's line ending: LF or CRLF, or at the end of the
// input a lone CR (as encoding/csv does).
func trimEOL(b []byte, eof bool) []byte {
	n := len(b)
	switch {
	case n >= 2 && b[n-2] == '\r' && b[n-1] == '\n':
		return b[:n-2]
	case n >= 1 && b[n-1] == '\n':
		return b[:n-1]
	case eof && n >= 1 && b[n-1] == '\r':
		return b[:n-1]
	}
	return b
}

func (r *recordReader) malformed(reason error) error {
	return &export.MalformedError{Line: r.start, Reason: reason.Error()}
}

// span locates a cell: in the record, or in the splitter's scratch when a
// quoted cell had to be decoded.
type span struct {
	start, end int32
	decoded    bool
}

// splitter splits records into cells without allocating once warm.
type splitter struct {
	rec     []byte
	spans   []span
	scratch []byte
}

// split splits rec, a record without its line ending, into cells.
func (s *splitter) split(rec []byte) error {
	s.rec = rec
	s.spans = s.spans[:0]
	if bytes.IndexByte(rec, '"') >= 0 {
		return s.splitQuoted(rec)
	}
	// The common case: no quote, cells are what lies between ';'. (Eight
	// bytes at a time with bit tricks was measured no faster.)
	start := 0
	for {
		i := bytes.IndexByte(rec[start:], export.Delimiter)
		if i < 0 {
			s.spans = append(s.spans, span{start: int32(start), end: int32(len(rec))})
			return nil
		}
		s.spans = append(s.spans, span{start: int32(start), end: int32(start + i)})
		start += i + 1
	}
}

// splitQuoted is split for a record holding quotes, with encoding/csv's
// rules: a quote opens a quoted cell only as its first byte, "" inside one
// is a quote, the closing quote is followed by ';' or the end.
func (s *splitter) splitQuoted(rec []byte) error {
	s.spans = s.spans[:0]
	// A decoded cell is never longer than its text: the scratch never
	// grows past len(rec), so no append below moves it.
	if cap(s.scratch) < len(rec) {
		s.scratch = make([]byte, 0, len(rec))
	}
	s.scratch = s.scratch[:0]
	pos := 0
	for {
		if pos < len(rec) && rec[pos] == '"' {
			start := len(s.scratch)
			j := pos + 1
			for {
				k := bytes.IndexByte(rec[j:], '"')
				if k < 0 {
					return errQuote
				}
				s.scratch = appendLF(s.scratch, rec[j:j+k])
				j += k + 1
				if j < len(rec) && rec[j] == '"' {
					s.scratch = append(s.scratch, '"')
					j++
					continue
				}
				break
			}
			s.spans = append(s.spans, span{start: int32(start), end: int32(len(s.scratch)), decoded: true})
			if j == len(rec) {
				return nil
			}
			if rec[j] != export.Delimiter {
				return errQuote
			}
			pos = j + 1
			continue
		}
		end := len(rec)
		if i := bytes.IndexByte(rec[pos:], export.Delimiter); i >= 0 {
			end = pos + i
		}
		if bytes.IndexByte(rec[pos:end], '"') >= 0 {
			return errBareQuote
		}
		s.spans = append(s.spans, span{start: int32(pos), end: int32(end)})
		if end == len(rec) {
			return nil
		}
		pos = end + 1
	}
}

// appendLF appends text of a quoted cell with its line breaks read as
// encoding/csv reads them: CRLF becomes LF.
func appendLF(dst, text []byte) []byte {
	for {
		i := bytes.Index(text, []byte("\r\n"))
		if i < 0 {
			return append(dst, text...)
		}
		dst = append(dst, text[:i]...)
		dst = append(dst, '\n')
		text = text[i+2:]
	}
}

// n is the number of cells of the last record split.
func (s *splitter) n() int { return len(s.spans) }

// cell returns cell i of the last record split, nil past the end (a short
// row is padded) or for i < 0 (a column the header lacks).
func (s *splitter) cell(i int) []byte {
	if i < 0 || i >= len(s.spans) {
		return nil
	}
	sp := s.spans[i]
	if sp.decoded {
		return s.scratch[sp.start:sp.end]
	}
	return s.rec[sp.start:sp.end]
}

// checkWidth applies export.ReadCSV's rule on width: cells past the
// header's are allowed only when empty (a trailing separator).
func (s *splitter) checkWidth(width int) error {
	for i := width; i < len(s.spans); i++ {
		if len(bytes.TrimSpace(s.cell(i))) > 0 {
			return fmt.Errorf("%d cells in a row, the header has %d columns", len(s.spans), width)
		}
	}
	return nil
}

// strings returns the cells of the last record split as width strings
// (padded or cut), sharing one allocation for the record's text.
func (s *splitter) strings(width int) []string {
	text := string(s.rec)
	var dec string
	decDone := false
	out := make([]string, width)
	for i := range min(width, len(s.spans)) {
		sp := s.spans[i]
		if !sp.decoded {
			out[i] = text[sp.start:sp.end]
			continue
		}
		if !decDone {
			dec, decDone = string(s.scratch), true
		}
		out[i] = dec[sp.start:sp.end]
	}
	return out
}

// readHeader reads and splits the header record and makes its names unique
// the way export.ReadCSV does (export.Keys).
func readHeader(rr *recordReader, sp *splitter) ([]string, error) {
	rec, err := rr.next()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("rowdiff: CSV has no header: %w", export.ErrEmpty)
	}
	if err != nil {
		return nil, err
	}
	if err := sp.split(rec); err != nil {
		return nil, rr.malformed(err)
	}
	names := make([]string, sp.n())
	for i := range names {
		names[i] = string(sp.cell(i))
	}
	return export.Keys(names), nil
}

// lineError says which input an error comes from.
func lineError(side string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("rowdiff: %s output: %w", side, err)
}

// lineCells reads the cells of a record that has no quote and no more
// cells than the header on demand. A key needs one cell of a dozen
// (place_id), and splitting every record whole was a third of the time
// spent reading it; counting separators and checking for a quote are two
// vectorised passes.
type lineCells struct {
	rec  []byte
	seps int // separators in rec
}

func (c *lineCells) n() int { return c.seps + 1 }

// cell finds cell i from the nearer end of the record.
func (c *lineCells) cell(i int) []byte {
	if i < 0 || i > c.seps {
		return nil
	}
	if i > c.seps/2 {
		end := len(c.rec)
		for k := c.seps; k > i; k-- {
			end = bytes.LastIndexByte(c.rec[:end], export.Delimiter)
		}
		return c.rec[bytes.LastIndexByte(c.rec[:end], export.Delimiter)+1 : end]
	}
	start := 0
	for range i {
		start += bytes.IndexByte(c.rec[start:], export.Delimiter) + 1
	}
	if end := bytes.IndexByte(c.rec[start:], export.Delimiter); end >= 0 {
		return c.rec[start : start+end]
	}
	return c.rec[start:]
}
