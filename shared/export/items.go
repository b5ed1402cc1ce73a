package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxItemsLimit is the largest items page (spec: "limit 1..100000").
const MaxItemsLimit = 100_000

// Items returns one page of a stored CSV's rows for GET /api/jobs/{id}/items:
// the rows of index offset to offset+limit-1 as objects keyed by the header,
// count = len(items), total = every data row of the file. A limit of 0 or
// less is the spec's omitted limit: every row from offset. Only the page's
// rows are kept; the rest is read and counted. The caller validates limit
// against MaxItemsLimit (a 400), as the spec puts it.
func Items(r io.Reader, offset, limit int) (count, total int, items []map[string]any, err error) {
	if offset < 0 {
		return 0, 0, nil, fmt.Errorf("export: items offset %d: %w", offset, ErrPage)
	}
	cr, err := ReadCSV(r)
	if err != nil {
		return 0, 0, nil, err
	}
	keys := cr.Header()
	items = make([]map[string]any, 0, min(max(limit, 0), 1024))
	for ; ; total++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, nil, err
		}
		if total < offset || (limit > 0 && len(items) >= limit) {
			continue
		}
		items = append(items, rowMap(keys, row))
	}
	return len(items), total, items, nil
}

// rowMap is one row as an object, each cell its Value. The row's strings
// are not copied: they share the record's one allocation made by
// encoding/csv.
func rowMap(keys, row []string) map[string]any {
	m := make(map[string]any, len(keys))
	for i, k := range keys {
		m[k] = Value(k, row[i])
	}
	return m
}

// WriteItems writes the same page as Items straight to w as the response
// body {"offset":..,"items":[...],"count":..,"total":..}, streaming: count
// and total follow items because they are known only at the end of the
// file (key order is not significant in JSON). Items keep the header's
// column order, which a map marshalled by encoding/json would sort. It
// returns count and total for logging.
func WriteItems(w io.Writer, r io.Reader, offset, limit int) (count, total int, err error) {
	return WriteItemsMax(w, r, offset, limit, 0)
}

// itemsEnvelope bounds the bytes around the items of a page: the offset,
// the count and the total (each at most 20 digits), the keys, braces and
// commas.
const itemsEnvelope = 128

// WriteItemsMax is WriteItems with the page bounded: maxBytes > 0 stops it
// before the body, as a Lambda response carries it (PayloadSize), would
// pass maxBytes, so that count may be below limit (the contract: more pages
// remain while offset + count is below total). The first row of a page is
// always written.
func WriteItemsMax(w io.Writer, r io.Reader, offset, limit int, maxBytes int64) (count, total int, err error) {
	if offset < 0 {
		return 0, 0, fmt.Errorf("export: items offset %d: %w", offset, ErrPage)
	}
	cr, err := ReadCSV(r)
	if err != nil {
		return 0, 0, err
	}
	if limit <= 0 {
		limit = -1
	}
	if maxBytes > 0 {
		maxBytes = max(maxBytes-itemsEnvelope, 1)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString(`{"offset":` + strconv.Itoa(offset) + `,"items":`); err != nil {
		return 0, 0, fmt.Errorf("export: write items: %w", err)
	}
	var pc pageCounts
	if err := writeJSONRows(bw, cr, offset, limit, maxBytes, &pc); err != nil {
		return 0, 0, err
	}
	tail := `,"count":` + strconv.Itoa(pc.count) + `,"total":` + strconv.Itoa(pc.total) + "}\n"
	if _, err := bw.WriteString(tail); err != nil {
		return 0, 0, fmt.Errorf("export: write items: %w", err)
	}
	return pc.count, pc.total, flush(bw, "items")
}
