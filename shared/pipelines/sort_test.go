package pipelines_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/pipelines"
)

// storedCSV writes rows as the engine stores a CSV.
func storedCSV(t testing.TB, header []string, rows [][]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := export.NewCSV(&buf, header)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedCol(t *testing.T, out []byte, col int) []string {
	t.Helper()
	rd := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(out, []byte("\uFEFF"))))
	rd.Comma = ';'
	recs, err := rd.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, r := range recs[1:] {
		vals = append(vals, export.Restore(r[col]))
	}
	return vals
}

func TestSortCSV(t *testing.T) {
	h := []string{"nom", "rating", "note"}
	in := storedCSV(t, h, [][]string{
		{"a", "4,5", "Écully"}, {"b", "", "zèbre"}, {"c", "10", "=1+1"}, {"d", "4.5", "abricot"}, {"e", "3", ""}, {"f", "n/a", "Bravo"},
	})
	for _, tt := range []struct {
		name string
		spec pipelines.SortSpec
		col  int
		want string
	}{
		{"numbers ascending, a French comma read, texts after, empty last", pipelines.SortSpec{By: "rating"}, 0, "e a d c f b"},
		{"numbers descending, equal keys in input order, empty still last", pipelines.SortSpec{By: "rating", Desc: true}, 0, "f c a d e b"},
		{"texts without case or accents", pipelines.SortSpec{By: "note"}, 2, "=1+1 abricot Bravo Écully zèbre "},
		{"top_n keeps the first rows", pipelines.SortSpec{By: "rating", Desc: true, TopN: 2}, 0, "f c"},
		{"top_n above the rows", pipelines.SortSpec{By: "rating", TopN: 50}, 0, "e a d c f b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			n, err := pipelines.SortCSV(context.Background(), bytes.NewReader(in), &out, tt.spec, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(sortedCol(t, out.Bytes(), tt.col), " ")
			wantN := 6
			if tt.spec.TopN > 0 && tt.spec.TopN < 6 {
				wantN = tt.spec.TopN
			}
			if got != tt.want || n != wantN {
				t.Errorf("%d rows %q, want %q", n, got, tt.want)
			}
			if !bytes.Contains(out.Bytes(), []byte("'=1+1")) && tt.spec.TopN == 0 {
				t.Error("the formula guard was lost")
			}
		})
	}
	if _, err := pipelines.SortCSV(context.Background(), bytes.NewReader(in), io.Discard, pipelines.SortSpec{By: "ville"}, ""); !containsFR(err, "Colonne de tri inconnue") {
		t.Errorf("unknown column: %v", err)
	}
}

// BenchmarkSort1M sorts a stored CSV of 1,000,000 rows by a numeric
// column (every row kept, so through the spill file), sampling the heap
// every 10 ms; "peak-MiB" is the heap in use above the start.
func BenchmarkSort1M(b *testing.B) {
	benchSort(b, pipelines.SortSpec{By: "rating", Desc: true})
}

// BenchmarkSortTop1M keeps the first 1,000 of 1,000,000 rows (a heap).
func BenchmarkSortTop1M(b *testing.B) {
	benchSort(b, pipelines.SortSpec{By: "rating", Desc: true, TopN: 1000})
}

func benchSort(b *testing.B, spec pipelines.SortSpec) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "in.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w, _ := export.NewCSV(f, []string{"nom", "site_web", "telephone", "adresse", "rating", "reviews_count", "category"})
	for i := range n {
		w.Write([]string{fmt.Sprintf("Boulangerie %d", i), fmt.Sprintf("https://www.boulangerie-%d.fr/", i), "04 78 00 00 00",
			fmt.Sprintf("%d rue de la République, 69002 Lyon", i%300), fmt.Sprintf("%d,%d", 1+i%5, i%10), fmt.Sprint(i % 977), "Boulangerie"})
	}
	w.Flush()
	f.Close()
	for b.Loop() {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for t := time.NewTicker(10 * time.Millisecond); ; {
				select {
				case <-done:
					t.Stop()
					return
				case <-t.C:
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			}
		}()
		in, _ := os.Open(path)
		start := time.Now()
		rows, err := pipelines.SortCSV(context.Background(), in, io.Discard, spec, b.TempDir())
		el := time.Since(start)
		close(done)
		in.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n)/el.Seconds(), "rows/s")
		b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapInuse))/(1<<20), "peak-MiB")
		_ = rows
	}
}
