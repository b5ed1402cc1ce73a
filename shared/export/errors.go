package export

import (
	"errors"
	"fmt"
)

// Sentinels callers test with errors.Is. The API layer maps them to
// statuses: parse-list's ErrTooLarge, ErrTooManyItems and ErrEmpty are
// well-formed requests failing validation (422, like the spec's "empty or
// oversize items"); ErrNoHeader and ErrMalformed are text that is not a CSV
// list (400). On a stored output, any of them means an unreadable CSV (500).
var (
	// ErrEmpty: no header, or a header and no data row.
	ErrEmpty = errors.New("export: no data")
	// ErrNoHeader: the first row names no column, or it holds data (a
	// URL, an email address, a number): the list has no header row.
	ErrNoHeader = errors.New("export: no header row")
	// ErrTooManyItems: more data rows than the caller's cap.
	ErrTooManyItems = errors.New("export: too many items")
	// ErrTooLarge: the text is longer than the caller's cap in bytes.
	ErrTooLarge = errors.New("export: text too large")
	// ErrMalformed: CSV syntax error or a row longer than the header; the
	// error is a *MalformedError with the line.
	ErrMalformed = errors.New("export: malformed CSV")
	// ErrRowWidth: a row given to CSVWriter.Write does not have the
	// header's number of cells (a bug of the caller, not of user input).
	ErrRowWidth = errors.New("export: row width differs from header")
	// ErrTruncated: ToXLSX left rows or characters out to stay within
	// Excel's limits; the file written is complete and valid.
	ErrTruncated = errors.New("export: truncated to spreadsheet limits")
	// ErrFormat: a download format other than csv, json and xlsx.
	ErrFormat = errors.New("export: unsupported format")
	// ErrPage: a negative items offset.
	ErrPage = errors.New("export: invalid page")
)

// MalformedError is CSV text that cannot be read. Line is the 1-based line of
// the text where the offending row starts, so the message can point at it.
type MalformedError struct {
	Line   int
	Reason string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("export: malformed CSV at line %d: %s", e.Line, e.Reason)
}

// Unwrap makes errors.Is(err, ErrMalformed) true.
func (e *MalformedError) Unwrap() error { return ErrMalformed }

// TruncatedError says what ToXLSX left out to fit Excel's limits.
type TruncatedError struct {
	RowsDropped int // data rows after Excel's last row
	CellsCut    int // cells cut to 32,767 characters
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("export: xlsx truncated to Excel's limits: %d rows left out, %d cells cut to %d characters",
		e.RowsDropped, e.CellsCut, MaxXLSXCellChars)
}

// Unwrap makes errors.Is(err, ErrTruncated) true.
func (e *TruncatedError) Unwrap() error { return ErrTruncated }
