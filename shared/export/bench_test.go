package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// Benchmarks of the export formats (figures in docs/benchmarks.md):
//
//	go test -run '^$' -bench . -benchmem ./shared/export
//	SVC_BENCH_EXCELIZE=1 go test -run '^$' -bench XLSXExcelize -benchtime 1x -timeout 30m ./shared/export

// peakMemory samples the Go heap (live and not yet swept objects) every
// millisecond, and the process's peak resident set when Linux lets it be
// reset (/proc/self/clear_refs).
type peakMemory struct {
	stop     chan struct{}
	done     sync.WaitGroup
	peakHeap uint64
	rssReset bool
}

func startPeakMemory() *peakMemory {
	runtime.GC()
	p := &peakMemory{stop: make(chan struct{})}
	p.rssReset = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			p.peakHeap = max(p.peakHeap, sample[0].Value.Uint64())
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// report stops sampling and reports peak-heap-MiB and peak-rss-MiB.
func (p *peakMemory) report(b *testing.B) {
	close(p.stop)
	p.done.Wait()
	b.ReportMetric(float64(p.peakHeap)/(1<<20), "peak-heap-MiB")
	if rss, ok := vmHWM(); ok && p.rssReset {
		b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
	}
}

// vmHWM reads the process's peak resident set in bytes.
func vmHWM() (uint64, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// plainReader hides bytes.Reader's WriteTo, so that io.Copy moves the bytes
// in 32 KiB chunks as it does from a file or an object store.
type plainReader struct{ r io.Reader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }

// tcpSink is a loopback TCP connection whose far end discards: the sink of
// a download.
func tcpSink(b *testing.B) net.Conn {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, c)
		_ = c.Close()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// BenchmarkCSVExport compares writing rows with CSVWriter to copying the
// bytes it produces with io.Copy, into the same sinks (target: the writer at
// half the copy's throughput or more). encoding-csv is encoding/csv with
// the same settings, for reference (it does not neutralise).
func BenchmarkCSVExport(b *testing.B) {
	// A finalizer writes each row right after reading it from a part file
	// with encoding/csv: the row is in the CPU cache and its cells share one
	// string. So the rows here are 1,000 parsed rows written 50 times over
	// (50,000 rows, 12 MB); 50,000 rows held in memory would make the
	// benchmark measure cache misses instead of the writer.
	distinct := readRecords(b, writeCSV(b, businessHeader, businessRows(1_000)))
	var rows [][]string
	for range 50 {
		rows = append(rows, distinct...)
	}
	stored := writeCSV(b, businessHeader, rows)
	file, err := os.Create(b.TempDir() + "/out.csv")
	if err != nil {
		b.Fatal(err)
	}
	defer file.Close()
	sinks := []struct {
		name string
		w    func(b *testing.B) io.Writer
	}{
		{"discard", func(*testing.B) io.Writer { return io.Discard }},
		{"file", func(b *testing.B) io.Writer {
			if _, err := file.Seek(0, io.SeekStart); err != nil {
				b.Fatal(err)
			}
			return file
		}},
	}
	for _, sink := range sinks {
		b.Run("writer/"+sink.name, func(b *testing.B) {
			b.SetBytes(int64(len(stored)))
			for b.Loop() {
				writeRows(b, sink.w(b), rows)
			}
		})
		b.Run("copy/"+sink.name, func(b *testing.B) {
			b.SetBytes(int64(len(stored)))
			for b.Loop() {
				if _, err := io.Copy(sink.w(b), plainReader{bytes.NewReader(stored)}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encoding-csv/"+sink.name, func(b *testing.B) {
			b.SetBytes(int64(len(stored)))
			for b.Loop() {
				bw := bufio.NewWriterSize(sink.w(b), csvBufferSize)
				cw := csv.NewWriter(bw)
				cw.Comma, cw.UseCRLF = ';', true
				if err := cw.WriteAll(rows); err != nil {
					b.Fatal(err)
				}
				if err := bw.Flush(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// One connection per sub-benchmark: a download's socket.
	b.Run("writer/tcp", func(b *testing.B) {
		conn := tcpSink(b)
		b.SetBytes(int64(len(stored)))
		for b.Loop() {
			writeRows(b, conn, rows)
		}
	})
	b.Run("copy/tcp", func(b *testing.B) {
		conn := tcpSink(b)
		b.SetBytes(int64(len(stored)))
		for b.Loop() {
			if _, err := io.Copy(conn, plainReader{bytes.NewReader(stored)}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// readRecords parses a stored CSV into its data rows.
func readRecords(b *testing.B, stored []byte) [][]string {
	cr := csv.NewReader(bytes.NewReader(stored[len(bom):]))
	cr.Comma = Delimiter
	recs, err := cr.ReadAll()
	if err != nil {
		b.Fatal(err)
	}
	return recs[1:]
}

func writeRows(b *testing.B, w io.Writer, rows [][]string) {
	cw, err := NewCSV(w, businessHeader)
	if err != nil {
		b.Fatal(err)
	}
	for _, row := range rows {
		if err := cw.Write(row); err != nil {
			b.Fatal(err)
		}
	}
	if err := cw.Flush(); err != nil {
		b.Fatal(err)
	}
}

// xlsxRows is the size of the XLSX memory benchmark: a million business
// rows of 16 columns (about 190 MB of CSV).
const xlsxRows = 1_000_000

// BenchmarkXLSX1M converts a 1,000,000-row stored CSV, read from a file, to
// XLSX (target: peak heap under 256 MiB). The file is written before the
// timer and the sampler start.
func BenchmarkXLSX1M(b *testing.B) {
	path := writeFixtureFile(b, b.TempDir(), xlsxRows)
	var out countingWriter
	peak := startPeakMemory()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		out.n = 0
		if err := ToXLSX(&out, f); err != nil {
			b.Fatal(err)
		}
		_ = f.Close()
	}
	peak.report(b)
	b.ReportMetric(float64(out.n)/(1<<20), "xlsx-MiB")
}

// BenchmarkXLSXExcelize1M is the same conversion with excelize's
// StreamWriter, the first approach measured. It is slow and spools about a
// gigabyte to the temporary directory, so it runs only when asked
// (SVC_BENCH_EXCELIZE=1).
func BenchmarkXLSXExcelize1M(b *testing.B) {
	if os.Getenv("SVC_BENCH_EXCELIZE") == "" {
		b.Skip("set SVC_BENCH_EXCELIZE=1 to measure excelize")
	}
	path := writeFixtureFile(b, b.TempDir(), xlsxRows)
	var out countingWriter
	peak := startPeakMemory()
	for b.Loop() {
		out.n = 0
		if err := excelizeXLSX(&out, path); err != nil {
			b.Fatal(err)
		}
	}
	peak.report(b)
	b.ReportMetric(float64(out.n)/(1<<20), "xlsx-MiB")
}

// excelizeXLSX converts the stored CSV at path with excelize's StreamWriter.
func excelizeXLSX(w io.Writer, path string) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	cr, err := ReadCSV(in)
	if err != nil {
		return err
	}
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	cells := make([]any, len(cr.Header()))
	write := func(n int, row []string) error {
		for i, c := range row {
			cells[i] = c
		}
		cell, _ := excelize.CoordinatesToCellName(1, n)
		return sw.SetRow(cell, cells)
	}
	if err := write(1, cr.Header()); err != nil {
		return err
	}
	for n := 2; ; n++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := write(n, row); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(w)
}

// BenchmarkToJSON converts a 100,000-row stored CSV; MB/s counts the CSV.
func BenchmarkToJSON(b *testing.B) {
	stored := writeCSV(b, businessHeader, businessRows(100_000))
	b.SetBytes(int64(len(stored)))
	for b.Loop() {
		if err := ToJSON(io.Discard, bytes.NewReader(stored)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkItemsPage100k reads a 100,000-row page (the spec's largest) from
// a 200,000-row stored CSV: the page as maps (Items) and streamed as the
// response body (WriteItems).
func BenchmarkItemsPage100k(b *testing.B) {
	stored := writeCSV(b, businessHeader, businessRows(200_000))
	b.Run("Items", func(b *testing.B) {
		b.SetBytes(int64(len(stored)))
		peak := startPeakMemory()
		for b.Loop() {
			count, _, _, err := Items(bytes.NewReader(stored), 50_000, MaxItemsLimit)
			if err != nil || count != MaxItemsLimit {
				b.Fatal(count, err)
			}
		}
		peak.report(b)
	})
	b.Run("WriteItems", func(b *testing.B) {
		b.SetBytes(int64(len(stored)))
		peak := startPeakMemory()
		for b.Loop() {
			count, _, err := WriteItems(io.Discard, bytes.NewReader(stored), 50_000, MaxItemsLimit)
			if err != nil || count != MaxItemsLimit {
				b.Fatal(count, err)
			}
		}
		peak.report(b)
	})
}

// BenchmarkColumns scans a 100,000-row stored CSV for output-columns.
func BenchmarkColumns(b *testing.B) {
	stored := writeCSV(b, businessHeader, businessRows(100_000))
	b.SetBytes(int64(len(stored)))
	for b.Loop() {
		if _, _, _, err := Columns(bytes.NewReader(stored)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseList10k parses the largest list a typed job takes.
func BenchmarkParseList10k(b *testing.B) {
	text := writeCSV(b, businessHeader, businessRows(MaxParseListItems))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := ParseList(bytes.NewReader(text), 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}
