package rowdiff

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkDiff1M diffs two generated 1,000,000-row scrape outputs (about
// 5 % new, 5 % removed, 10 % modified; rows of about 210 bytes) the way a
// veille run does: samples collected and signals computed from the
// modified rows. "rows/s" counts the rows of both files read per second
// of wall time, "cur-rows/s" the current file's only, "rows/cpu-s" the
// rows of both files per second of CPU time (user and system, all
// threads: the rate per core); "peak-MiB" is the heap in use above the
// start, sampled every 10 ms.
func BenchmarkDiff1M(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	prevPath, curPath := filepath.Join(dir, "prev.csv"), filepath.Join(dir, "cur.csv")
	pf, err := os.Create(prevPath)
	if err != nil {
		b.Fatal(err)
	}
	cf, err := os.Create(curPath)
	if err != nil {
		b.Fatal(err)
	}
	genPair(b, pf, cf, n)
	// On disk before the clock starts: the kernel writing 420 MB of fresh
	// input back during the first diff slowed its partition writes.
	for _, f := range []*os.File{pf, cf} {
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	for _, bc := range []struct {
		name string
		mem  int64
	}{
		{"default", 0},            // DefaultMemBytes: the previous output does not fit, partitioned
		{"inmemory", 1 << 30},     // a budget the previous output fits in, for comparison
		{"budget16MiB", 16 << 20}, // a small budget
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				benchDiffOnce(b, prevPath, curPath, Options{MemBytes: bc.mem, TempDir: b.TempDir()})
			}
		})
	}
}

func benchDiffOnce(b *testing.B, prevPath, curPath string, opt Options) {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var ms runtime.MemStats
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	pf, err := os.Open(prevPath)
	if err != nil {
		b.Fatal(err)
	}
	defer pf.Close()
	cf, err := os.Open(curPath)
	if err != nil {
		b.Fatal(err)
	}
	defer cf.Close()
	samples := NewSamples(0)
	signals := 0
	cpu0 := cpuTime(b)
	start := time.Now()
	counts, err := Diff(context.Background(), pf, cf, opt, func(c Change) error {
		samples.Add(c)
		if c.Kind == KindModified {
			if _, ok := SignalOf(c.Before, c.After); ok {
				signals++
			}
		}
		return nil
	})
	el := time.Since(start)
	cpu := cpuTime(b) - cpu0
	close(done)
	<-stopped
	if err != nil {
		b.Fatal(err)
	}
	if counts.New == 0 || counts.Removed == 0 || counts.Modified == 0 || signals == 0 {
		b.Fatalf("counts %+v, %d signals", counts, signals)
	}
	b.ReportMetric(float64(counts.Rows+counts.PrevRows)/el.Seconds(), "rows/s")
	b.ReportMetric(float64(counts.Rows)/el.Seconds(), "cur-rows/s")
	b.ReportMetric(float64(counts.Rows+counts.PrevRows)/cpu.Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapInuse))/(1<<20), "peak-MiB")
}

// cpuTime is the CPU time the process has used, user and system, on all
// cores: rows per CPU second is the rate per core whatever the number of
// cores the runtime (the garbage collector) spreads work over.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
