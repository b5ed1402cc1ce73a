package export

import (
	"errors"
	"io"
	"strings"
)

// Columns reads a stored CSV for GET /api/jobs/{id}/output-columns: its
// column keys, those where at least one row has a value (white space is no
// value), in header order, and its number of data rows.
func Columns(r io.Reader) (columns, nonEmpty []string, rows int, err error) {
	cr, err := ReadCSV(r)
	if err != nil {
		return nil, nil, 0, err
	}
	columns = cr.Header()
	filled := make([]bool, len(columns))
	for ; ; rows++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, 0, err
		}
		markFilled(filled, row)
	}
	nonEmpty = make([]string, 0, len(columns))
	for i, c := range columns {
		if filled[i] {
			nonEmpty = append(nonEmpty, c)
		}
	}
	return columns, nonEmpty, rows, nil
}

// markFilled sets filled[i] for each cell of row holding a value.
func markFilled(filled []bool, row []string) {
	for i, cell := range row {
		if !filled[i] && strings.TrimSpace(cell) != "" {
			filled[i] = true
		}
	}
}
