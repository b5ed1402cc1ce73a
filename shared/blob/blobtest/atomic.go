package blobtest

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/blob"
)

// Atomicity and cancellation tests. Sizes straddle 5 MiB, S3's smallest
// multipart part, so that the S3 driver is tested both with a single
// PutObject and with a multipart upload in flight.

var errBoom = errors.New("blobtest: reader failure")

// failing yields the first n bytes of r, then fails.
type failing struct {
	r io.Reader
	n int64
}

func (f *failing) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errBoom
	}
	if int64(len(p)) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= int64(n)
	return n, err
}

// gate yields r but stops after at bytes until release is closed, closing
// reached when it gets there: a Put caught in the middle of its body.
type gate struct {
	r       io.Reader
	at, n   int64
	reached chan struct{}
	release chan struct{}
}

func newGate(r io.Reader, at int64) *gate {
	return &gate{r: r, at: at, reached: make(chan struct{}), release: make(chan struct{})}
}

func (g *gate) Read(p []byte) (int, error) {
	if g.at >= 0 && g.n == g.at {
		close(g.reached)
		select {
		case <-g.release:
		case <-time.After(2 * time.Minute):
			return 0, errors.New("blobtest: gate never released")
		}
		g.at = -1
	}
	if g.at >= 0 && int64(len(p)) > g.at-g.n {
		p = p[:g.at-g.n]
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	return n, err
}

// cancelling yields r and calls cancel once after bytes have been read.
type cancelling struct {
	r      io.Reader
	after  int64
	n      int64
	cancel context.CancelFunc
}

func (c *cancelling) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n >= c.after {
		c.cancel()
	}
	return n, err
}

func testFailedPut(t *testing.T, s blob.Store) {
	ctx := context.Background()
	old := version{seed: 10, size: 3000, contentType: "text/plain"}
	putVersion(t, s, "fail/old", old)
	body := version{seed: 11, size: 8 * mib, contentType: "text/csv"}
	// After 1 MiB: still buffering the first part. After 6 MiB: a multipart
	// upload with one part sent is abandoned.
	for _, after := range []int64{0, 1 * mib, 6 * mib} {
		for _, key := range []string{"fail/old", "fail/new"} {
			_, err := s.Put(ctx, key, &failing{r: body.reader(), n: after}, body.contentType)
			if !errors.Is(err, errBoom) {
				t.Fatalf("Put(%q) failing after %d bytes = %v, want the reader's error wrapped", key, after, err)
			}
		}
		wantVersion(t, s, "fail/old", old)
		wantNotFound(t, s, "fail/new")
		wantList(t, s, "fail/", 0, false, "fail/old")
	}
}

func testInvisible(t *testing.T, s blob.Store) {
	old := version{seed: 20, size: 1000, contentType: "text/plain"}
	putVersion(t, s, "inv/old", old)
	next := version{seed: 21, size: 7 * mib, contentType: "text/csv"}

	type result struct {
		n   int64
		err error
	}
	var gates []*gate
	results := make(chan result, 2)
	for _, key := range []string{"inv/old", "inv/new"} {
		g := newGate(next.reader(), 6*mib)
		gates = append(gates, g)
		go func() {
			n, err := s.Put(context.Background(), key, g, next.contentType)
			results <- result{n, err}
		}()
	}
	for _, g := range gates {
		select {
		case <-g.reached:
		case r := <-results:
			t.Fatalf("Put returned before reading its whole body: %d, %v", r.n, r.err)
		}
	}
	// Both Puts have read 6 MiB of 7 and wait for the rest.
	wantVersion(t, s, "inv/old", old)
	wantNotFound(t, s, "inv/new")
	wantList(t, s, "inv/", 0, false, "inv/old")
	infos, _, _ := s.List(context.Background(), "inv/", 0)
	if infos[0].Size != old.size {
		t.Fatalf("List shows size %d during a Put, want the old %d", infos[0].Size, old.size)
	}
	for _, g := range gates {
		close(g.release)
	}
	for range gates {
		if r := <-results; r.err != nil || r.n != next.size {
			t.Fatalf("Put = %d, %v", r.n, r.err)
		}
	}
	wantVersion(t, s, "inv/old", next)
	wantVersion(t, s, "inv/new", next)
}

func testStreamKeepsVersion(t *testing.T, s blob.Store) {
	ctx := context.Background()
	old := version{seed: 30, size: 8 * mib, contentType: "text/csv"}
	next := version{seed: 31, size: 8*mib + 1, contentType: "application/json"}
	putVersion(t, s, "keep/f", old)
	rc, info, err := s.Open(ctx, "keep/f")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if info.Size != old.size || info.ContentType != old.contentType {
		t.Fatalf("Open info %+v, want the old version", info)
	}
	h := sha256.New()
	if _, err := io.CopyN(h, rc, 64<<10); err != nil {
		t.Fatal(err)
	}
	putVersion(t, s, "keep/f", next)
	n, err := io.Copy(h, rc)
	n += 64 << 10
	switch {
	case err != nil:
		t.Logf("the stream opened before the Put ended with an error (allowed, never a mix): %v", err)
	case n != old.size || [32]byte(h.Sum(nil)) != old.sum():
		t.Fatalf("the stream opened before the Put read %d bytes, hash of old: %v: a mix of versions", n, [32]byte(h.Sum(nil)) == old.sum())
	}
	wantVersion(t, s, "keep/f", next)
}

func testConcurrentReaders(t *testing.T, s blob.Store) {
	ctx := context.Background()
	versions := []version{
		{seed: 40, size: 1 * mib, contentType: "text/csv"},
		{seed: 41, size: 3*mib/2 + 7, contentType: "application/json"},
	}
	sums := [][32]byte{versions[0].sum(), versions[1].sum()}
	match := func(size int64, ct string, sum *[32]byte) bool {
		for i, v := range versions {
			if v.size == size && v.contentType == ct && (sum == nil || *sum == sums[i]) {
				return true
			}
		}
		return false
	}
	putVersion(t, s, "conc/f", versions[0])

	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		defer done.Store(true)
		for i := range 16 {
			v := versions[(i+1)%2]
			if _, err := s.Put(ctx, "conc/f", v.reader(), v.contentType); err != nil {
				t.Errorf("Put: %v", err)
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			reads := 0
			for !done.Load() || reads == 0 {
				info, err := s.Stat(ctx, "conc/f")
				if err != nil || !match(info.Size, info.ContentType, nil) {
					t.Errorf("Stat during Puts = %+v, %v: not one of the versions", info, err)
					return
				}
				rc, info, err := s.Open(ctx, "conc/f")
				if err != nil {
					t.Errorf("Open during Puts: %v", err)
					return
				}
				sum, n, err := drain(rc)
				rc.Close()
				if err != nil {
					t.Errorf("read during Puts: %v", err)
					return
				}
				if n != info.Size || !match(info.Size, info.ContentType, &sum) {
					t.Errorf("Open during Puts: info %d %q, read %d bytes that are not that version", info.Size, info.ContentType, n)
					return
				}
				reads++
			}
		})
	}
	wg.Wait()
}

func testCancelled(t *testing.T, s blob.Store) {
	putString(t, s, "c/x", "x", "text/plain")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	canceled := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context = %v, want context.Canceled", what, err)
		}
	}
	_, err := s.Put(ctx, "c/new", untouchable{t}, "text/plain")
	canceled("Put", err)
	_, err = s.Put(ctx, "c/x", untouchable{t}, "text/plain")
	canceled("Put over a file", err)
	rc, _, err := s.Open(ctx, "c/x")
	if err == nil {
		rc.Close()
	}
	canceled("Open", err)
	_, err = s.Stat(ctx, "c/x")
	canceled("Stat", err)
	canceled("Delete", s.Delete(ctx, "c/x"))
	_, _, err = s.List(ctx, "c/", 0)
	canceled("List", err)
	canceled("DeletePrefix", s.DeletePrefix(ctx, "c/"))
	_, _, err = s.DownloadURL(ctx, "c/x", "x.txt", time.Minute)
	canceled("DownloadURL", err)

	wantNotFound(t, s, "c/new")
	if got, _ := getString(t, s, "c/x"); got != "x" {
		t.Fatalf("c/x = %q after cancelled calls", got)
	}
}

func testCancelMidway(t *testing.T, s blob.Store) {
	old := version{seed: 50, size: 100, contentType: "text/plain"}
	body := version{seed: 51, size: 8 * mib, contentType: "text/csv"}
	putVersion(t, s, "cm/f", old)
	for _, after := range []int64{1 * mib, 6 * mib} {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := s.Put(ctx, "cm/f", &cancelling{r: body.reader(), after: after, cancel: cancel}, body.contentType)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Put cancelled after %d bytes = %v, want context.Canceled", after, err)
		}
		wantVersion(t, s, "cm/f", old)
	}

	putVersion(t, s, "cm/f", body)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rc, _, err := s.Open(ctx, "cm/f")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.CopyN(io.Discard, rc, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	n, err := io.Copy(io.Discard, rc)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("reading a stream after its context was cancelled: %d more bytes, %v; want context.Canceled", n, err)
	}
}
