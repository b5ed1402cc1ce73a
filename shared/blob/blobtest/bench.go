package blobtest

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/prospectdata/svc/shared/blob"
)

// Benchmarks shared by the drivers, so that their figures compare. Bytes per
// second are reported through b.SetBytes.

// BenchPutGet puts a file of size bytes from memory and reads it back whole:
// a job writing a small output that is then downloaded.
func BenchPutGet(b *testing.B, s blob.Store, size int) {
	ctx := context.Background()
	data := make([]byte, size)
	if _, err := io.ReadFull(version{seed: 60, size: int64(size)}.reader(), data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Put(ctx, "bench/putget.bin", bytes.NewReader(data), "application/octet-stream"); err != nil {
			b.Fatal(err)
		}
		rc, _, err := s.Open(ctx, "bench/putget.bin")
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil || n != int64(size) {
			b.Fatalf("read %d bytes, %v", n, err)
		}
	}
}

// BenchStreamedPut puts a file of size bytes produced on the fly (a merged
// CSV written as it is generated), never held in memory.
func BenchStreamedPut(b *testing.B, s blob.Store, size int64) {
	ctx := context.Background()
	block := make([]byte, 1<<20)
	if _, err := io.ReadFull(version{seed: 61, size: int64(len(block))}.reader(), block); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		n, err := s.Put(ctx, "bench/streamed.csv", &cycle{block: block, left: size}, "text/csv")
		if err != nil || n != size {
			b.Fatalf("Put = %d, %v", n, err)
		}
	}
}

// cycle yields left bytes by repeating block: a stream whose production
// costs next to nothing, so that the benchmark measures the store.
type cycle struct {
	block []byte
	off   int
	left  int64
}

func (c *cycle) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n := copy(p, c.block[c.off:])
	c.off = (c.off + n) % len(c.block)
	c.left -= int64(n)
	return n, nil
}
