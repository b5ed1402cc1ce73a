package pipelines

import (
	"bufio"
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/export"
)

// SortSpec is a sort node's configuration.
type SortSpec struct {
	By   string
	Desc bool
	// TopN keeps only the first N rows (0: every row).
	TopN int
}

// MaxHeapTopN is the largest top_n kept in a heap; above it the sort
// spills every row to a file like a sort without top_n.
const MaxHeapTopN = 100_000

// sortKey is a row's sort key. Empty cells go last whatever the
// direction; numbers come before texts, each in their own order.
type sortKey struct {
	empty bool
	isNum bool
	num   float64
	text  string
	seq   int // the row's place in the input: equal keys keep their order
	off   int64
	n     int32
}

func less(a, b *sortKey, desc bool) bool {
	if a.empty != b.empty {
		return b.empty
	}
	if a.empty {
		return a.seq < b.seq
	}
	if a.isNum != b.isNum {
		return a.isNum != desc // numbers first ascending, texts first descending
	}
	var c int
	if a.isNum {
		c = cmp.Compare(a.num, b.num)
	} else {
		c = strings.Compare(a.text, b.text)
	}
	if desc {
		c = -c
	}
	if c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

func keyOf(cell string, seq int) sortKey {
	cell = strings.TrimSpace(export.Restore(cell))
	if cell == "" {
		return sortKey{empty: true, seq: seq}
	}
	if n, ok := parseNumber(cell); ok {
		return sortKey{isNum: true, num: n, seq: seq}
	}
	return sortKey{text: fold(cell), seq: seq}
}

// SortCSV reads a stored CSV, sorts its rows by a column and writes the
// sorted CSV (the same header), keeping the first TopN when set. Its
// memory holds the sort keys, not the rows: the rows wait in a file of
// tmpDir ("" for the system's), read back in order. A top_n up to
// MaxHeapTopN keeps only that many rows in memory. It returns the rows
// written; an unknown column is a 400.
func SortCSV(ctx context.Context, r io.Reader, w io.Writer, spec SortSpec, tmpDir string) (int, error) {
	rd, err := export.ReadCSV(r)
	if err != nil {
		return 0, err
	}
	header := rd.Header()
	col := slices.Index(header, spec.By)
	if col < 0 {
		return 0, ruleErr(fmt.Sprintf("Colonne de tri inconnue : %q", spec.By), fmt.Sprintf("Unknown sort column: %q", spec.By))
	}
	out, err := export.NewCSV(w, header)
	if err != nil {
		return 0, err
	}
	if spec.TopN > 0 && spec.TopN <= MaxHeapTopN {
		return sortTop(ctx, rd, out, col, spec)
	}
	spill, err := os.CreateTemp(tmpDir, "sort-*.jsonl")
	if err != nil {
		return 0, fmt.Errorf("sort: %w", err)
	}
	defer os.Remove(spill.Name())
	defer spill.Close()
	keys, err := spillRows(ctx, rd, spill, col)
	if err != nil {
		return 0, err
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if less(&a, &b, spec.Desc) {
			return -1
		}
		if less(&b, &a, spec.Desc) {
			return 1
		}
		return 0
	})
	if spec.TopN > 0 && spec.TopN < len(keys) {
		keys = keys[:spec.TopN]
	}
	if err := writeSorted(ctx, spill, keys, out); err != nil {
		return 0, err
	}
	return len(keys), out.Flush()
}

// spillRows writes rd's rows to spill, one JSON array each, and returns
// their sort keys by col, with where each row lies in spill.
func spillRows(ctx context.Context, rd *export.Reader, spill *os.File, col int) ([]sortKey, error) {
	bw := bufio.NewWriterSize(spill, 1<<20)
	var keys []sortKey
	var off int64
	for seq := 0; ; seq++ {
		row, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if seq%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		b, err := json.Marshal(row)
		if err != nil {
			return nil, err
		}
		if _, err := bw.Write(b); err != nil {
			return nil, fmt.Errorf("sort: spill: %w", err)
		}
		k := keyOf(row[col], seq)
		k.off, k.n = off, int32(len(b))
		off += int64(len(b))
		keys = append(keys, k)
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("sort: spill: %w", err)
	}
	return keys, nil
}

// writeSorted reads the rows back from spill in the order of keys and
// writes them to out.
func writeSorted(ctx context.Context, spill *os.File, keys []sortKey, out *export.CSVWriter) error {
	buf := make([]byte, 0, 4096)
	var row []string
	for i, k := range keys {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		buf = slices.Grow(buf[:0], int(k.n))[:k.n]
		if _, err := spill.ReadAt(buf, k.off); err != nil {
			return fmt.Errorf("sort: read back: %w", err)
		}
		row = row[:0]
		if err := json.Unmarshal(buf, &row); err != nil {
			return fmt.Errorf("sort: read back: %w", err)
		}
		if err := out.Write(restored(row)); err != nil {
			return err
		}
	}
	return nil
}

// restored undoes the stored CSV's formula guard: the writer puts it back.
func restored(row []string) []string {
	for i, c := range row {
		row[i] = export.Restore(c)
	}
	return row
}

// topHeap holds the best TopN rows seen, the worst on top.
type topHeap struct {
	keys []sortKey
	rows [][]string
	desc bool
}

func (h *topHeap) Len() int           { return len(h.keys) }
func (h *topHeap) Less(i, j int) bool { return less(&h.keys[j], &h.keys[i], h.desc) }
func (h *topHeap) Swap(i, j int) {
	h.keys[i], h.keys[j] = h.keys[j], h.keys[i]
	h.rows[i], h.rows[j] = h.rows[j], h.rows[i]
}
func (h *topHeap) Push(x any) {
	e := x.(topEntry)
	h.keys, h.rows = append(h.keys, e.k), append(h.rows, e.row)
}
func (h *topHeap) Pop() any {
	n := len(h.keys) - 1
	e := topEntry{h.keys[n], h.rows[n]}
	h.keys, h.rows = h.keys[:n], h.rows[:n]
	return e
}

type topEntry struct {
	k   sortKey
	row []string
}

func sortTop(ctx context.Context, rd *export.Reader, out *export.CSVWriter, col int, spec SortSpec) (int, error) {
	h := &topHeap{desc: spec.Desc}
	for seq := 0; ; seq++ {
		row, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		if seq%4096 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		k := keyOf(row[col], seq)
		if h.Len() < spec.TopN {
			heap.Push(h, topEntry{k, slices.Clone(row)})
		} else if less(&k, &h.keys[0], spec.Desc) {
			h.keys[0], h.rows[0] = k, slices.Clone(row)
			heap.Fix(h, 0)
		}
	}
	n := h.Len()
	sorted := make([]topEntry, n)
	for i := n - 1; i >= 0; i-- {
		sorted[i] = heap.Pop(h).(topEntry)
	}
	for _, e := range sorted {
		if err := out.Write(restored(e.row)); err != nil {
			return 0, err
		}
	}
	return n, out.Flush()
}
