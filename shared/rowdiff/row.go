package rowdiff

import (
	"strings"

	"github.com/prospectdata/svc/shared/export"
)

// Row is one data row of an output CSV with the header it is read against,
// so cells are reached by column name whatever the file's layout (a scrape
// and a pipeline output do not have the same columns).
type Row struct {
	header []string
	cells  []string
}

// NewRow returns the row of cells under header. cells is padded or cut to
// the header's width by the accessors, not copied.
func NewRow(header, cells []string) Row { return Row{header: header, cells: cells} }

// Header returns the column names the row is read against.
func (r Row) Header() []string { return r.header }

// Cells returns the cells as stored: formula-looking cells keep their
// leading apostrophe (export.Neutralise).
func (r Row) Cells() []string { return r.cells }

// IsZero tells whether r is no row at all: the Before of a new row, the
// After of a removed one.
func (r Row) IsZero() bool { return r.header == nil && r.cells == nil }

// Has tells whether the row's header has the column.
func (r Row) Has(name string) bool { return r.index(name) >= 0 }

// Get returns the stored cell of column name, "" when the header has no
// such column or the row is short.
func (r Row) Get(name string) string {
	i := r.index(name)
	if i < 0 || i >= len(r.cells) {
		return ""
	}
	return r.cells[i]
}

// Value returns the cell of column name as a value: the formula guard
// undone (export.Restore) and surrounding white space trimmed. It is the
// form tracked fields are compared in.
func (r Row) Value(name string) string {
	return strings.TrimSpace(export.Restore(r.Get(name)))
}

// index is the position of column name. A linear search: headers have a
// few dozen columns and this is not on the diff's per-row path.
func (r Row) index(name string) int {
	for i, h := range r.header {
		if h == name {
			return i
		}
	}
	return -1
}
