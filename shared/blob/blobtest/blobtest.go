// Package blobtest is the contract suite of the file store port: every driver
// of blob.Store runs Run, so that callers observe the same semantics on the
// local directory and on S3. Beyond the comments of blob.Store, the suite
// pins down these rules:
//
//   - Put reads r to its end before the new file becomes visible, and returns
//     the number of bytes read. An empty content type is stored as
//     application/octet-stream. A content type with control characters is
//     refused.
//   - Atomicity, precisely: (1) a Put that fails (reader error, cancelled
//     context) leaves the key as it was, old file or absent; (2) while a Put
//     is in progress, Stat, Open and List show the key as it was; (3) a
//     stream returned by Open yields the bytes of one version only: read to
//     io.EOF it has exactly the size, bytes and content type of the Info Open
//     returned, even when a Put replaces the file while it is being read; a
//     driver that cannot keep serving the old version must end the stream
//     with an error other than io.EOF, never with a mix. Both drivers of this
//     repository keep serving the old version.
//   - List fills Key, Size and Modified; ContentType is left empty, because an
//     S3 listing does not carry it (Stat does).
//   - List and DeletePrefix select keys by string prefix ("jobs/a" selects
//     "jobs/abc/x" and "jobs/a.csv"), in byte order of the keys.
//   - Every method checks the key (or prefix) first and returns an error
//     wrapping blob.ErrInvalidKey without touching the store or reading r.
//   - Every method returns an error wrapping context.Canceled when its
//     context is already cancelled; a stream from Open fails once its context
//     is cancelled.
//   - DownloadURL never gives an address for a missing file: it returns
//     blob.ErrNotFound, or ok false (the caller's Open then reports
//     ErrNotFound). A GET of a returned address answers the file's bytes,
//     its content type and Content-Disposition: attachment with the file name
//     (an ASCII filename, plus filename* per RFC 8187 when the name is not
//     plain ASCII); an empty file name means the key's last segment.
//   - Once no key starts with "p/", the key "p" can be stored (the local
//     driver removes directories that deletes leave empty).
//
// The suite never holds a large file in memory: large contents come from a
// seeded generator and are compared by SHA-256.
package blobtest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/blob"
)

// DefaultContentType is what an empty content type is stored as.
const DefaultContentType = "application/octet-stream"

const mib = 1 << 20

// Run runs the contract suite against the driver open creates. open must
// return a fresh, empty store; it is called once per subtest, and the
// subtests run in parallel. open is responsible for any cleanup (with
// t.Cleanup).
func Run(t *testing.T, open func(t *testing.T) blob.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, blob.Store)
	}{
		{"PutOpenRoundTrip", testRoundTrip},
		{"EmptyFileAndDefaultContentType", testEmptyAndDefault},
		{"ControlCharsInContentTypeRefused", testBadContentType},
		{"Overwrite", testOverwrite},
		{"NotFound", testNotFound},
		{"DeleteIsIdempotent", testDelete},
		{"InvalidKeysRefused", testInvalidKeys},
		{"UnusualValidKeys", testUnusualKeys},
		{"ListOrderPrefixLimitMore", testList},
		{"ListDefaultLimitAndManyFiles", testManyFiles},
		{"DeletePrefix", testDeletePrefix},
		{"DeletesFreeThePrefixName", testDeleteFreesName},
		{"LargeStreamedPut", testLarge},
		{"FailedPutKeepsPreviousState", testFailedPut},
		{"PutInvisibleUntilComplete", testInvisible},
		{"OpenStreamKeepsItsVersion", testStreamKeepsVersion},
		{"ConcurrentReadersSeeWholeVersions", testConcurrentReaders},
		{"CancelledContext", testCancelled},
		{"CancelDuringPutAndRead", testCancelMidway},
		{"DownloadURL", testDownloadURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

// version is a reproducible file content: size bytes from a generator
// seeded with seed, so that large files are produced and checked as streams.
type version struct {
	seed        uint64
	size        int64
	contentType string
}

func (v version) reader() io.Reader {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], v.seed)
	return io.LimitReader(rand.NewChaCha8(s), v.size)
}

func (v version) sum() [32]byte {
	h := sha256.New()
	if _, err := io.Copy(h, v.reader()); err != nil {
		panic(err) // the generator cannot fail
	}
	return [32]byte(h.Sum(nil))
}

// drain reads r to its end, returning the hash and count of what it read.
func drain(r io.Reader) ([32]byte, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return [32]byte(h.Sum(nil)), n, err
}

func put(t testing.TB, s blob.Store, key string, r io.Reader, contentType string) int64 {
	t.Helper()
	n, err := s.Put(context.Background(), key, r, contentType)
	if err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
	return n
}

func putString(t testing.TB, s blob.Store, key, data, contentType string) {
	t.Helper()
	if n := put(t, s, key, strings.NewReader(data), contentType); n != int64(len(data)) {
		t.Fatalf("Put(%q) = %d bytes, want %d", key, n, len(data))
	}
}

func putVersion(t testing.TB, s blob.Store, key string, v version) {
	t.Helper()
	if n := put(t, s, key, v.reader(), v.contentType); n != v.size {
		t.Fatalf("Put(%q) = %d bytes, want %d", key, n, v.size)
	}
}

// getString reads a small file whole.
func getString(t testing.TB, s blob.Store, key string) (string, blob.Info) {
	t.Helper()
	rc, info, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading %q: %v", key, err)
	}
	return string(b), info
}

// wantVersion checks that key holds v, through Stat and Open.
func wantVersion(t testing.TB, s blob.Store, key string, v version) {
	t.Helper()
	info, err := s.Stat(context.Background(), key)
	if err != nil {
		t.Fatalf("Stat(%q): %v", key, err)
	}
	if info.Size != v.size || info.ContentType != v.contentType {
		t.Fatalf("Stat(%q) = size %d type %q, want %d %q", key, info.Size, info.ContentType, v.size, v.contentType)
	}
	rc, info, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer rc.Close()
	sum, n, err := drain(rc)
	if err != nil {
		t.Fatalf("reading %q: %v", key, err)
	}
	if info.Size != v.size || info.ContentType != v.contentType || n != v.size || sum != v.sum() {
		t.Fatalf("Open(%q): info size %d type %q, read %d bytes (hash ok: %v); want %d %q",
			key, info.Size, info.ContentType, n, sum == v.sum(), v.size, v.contentType)
	}
}

func wantNotFound(t testing.TB, s blob.Store, key string) {
	t.Helper()
	ctx := context.Background()
	if info, err := s.Stat(ctx, key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Stat(%q) = %+v, %v; want ErrNotFound", key, info, err)
	}
	rc, _, err := s.Open(ctx, key)
	if err == nil {
		rc.Close()
	}
	if !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open(%q) = %v; want ErrNotFound", key, err)
	}
}

// listKeys lists prefix and returns the keys, checking the Info invariants.
func listKeys(t testing.TB, s blob.Store, prefix string, limit int) ([]string, bool) {
	t.Helper()
	infos, more, err := s.List(context.Background(), prefix, limit)
	if err != nil {
		t.Fatalf("List(%q, %d): %v", prefix, limit, err)
	}
	keys := make([]string, len(infos))
	for i, in := range infos {
		keys[i] = in.Key
		if !strings.HasPrefix(in.Key, prefix) {
			t.Fatalf("List(%q) returned %q", prefix, in.Key)
		}
		if in.ContentType != "" {
			t.Fatalf("List(%q): %q has content type %q, want it empty (S3 listings do not carry it)", prefix, in.Key, in.ContentType)
		}
		if in.Modified.IsZero() {
			t.Fatalf("List(%q): %q has no modification time", prefix, in.Key)
		}
	}
	return keys, more
}

func wantList(t testing.TB, s blob.Store, prefix string, limit int, wantMore bool, want ...string) {
	t.Helper()
	keys, more := listKeys(t, s, prefix, limit)
	if !slices.Equal(keys, want) || more != wantMore {
		t.Fatalf("List(%q, %d) = %q more=%v\nwant %q more=%v", prefix, limit, keys, more, want, wantMore)
	}
}

func near(t testing.TB, what string, got time.Time) {
	t.Helper()
	// Loose: S3 truncates to the second, and a remote clock may drift.
	if d := time.Since(got); d < -2*time.Minute || d > 2*time.Minute {
		t.Fatalf("%s: modified %v, %v from now", what, got, d)
	}
}

func testRoundTrip(t *testing.T, s blob.Store) {
	const key, data, ct = "jobs/01J/output.csv", "id,name\n1,Acme\n", "text/csv; charset=utf-8"
	putString(t, s, key, data, ct)
	got, info := getString(t, s, key)
	if got != data {
		t.Fatalf("Open read %q, want %q", got, data)
	}
	if info.Key != key || info.Size != int64(len(data)) || info.ContentType != ct {
		t.Fatalf("Open info %+v", info)
	}
	near(t, "Open", info.Modified)
	st, err := s.Stat(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if st.Key != key || st.Size != int64(len(data)) || st.ContentType != ct {
		t.Fatalf("Stat %+v", st)
	}
	near(t, "Stat", st.Modified)

	// Binary content, every byte value.
	bin := make([]byte, 256*3)
	for i := range bin {
		bin[i] = byte(i)
	}
	putString(t, s, "bin/all-bytes", string(bin), "application/x-raw")
	if got, _ := getString(t, s, "bin/all-bytes"); got != string(bin) {
		t.Fatal("binary content changed in the round trip")
	}
}

func testEmptyAndDefault(t *testing.T, s blob.Store) {
	putString(t, s, "empty", "", "text/plain")
	wantVersion(t, s, "empty", version{size: 0, contentType: "text/plain"})
	putString(t, s, "untyped", "x", "")
	_, info := getString(t, s, "untyped")
	if info.ContentType != DefaultContentType {
		t.Fatalf("empty content type stored as %q, want %q", info.ContentType, DefaultContentType)
	}
}

func testBadContentType(t *testing.T, s blob.Store) {
	for _, ct := range []string{"text/csv\r\nX-Injected: 1", "text/plain\x00"} {
		if _, err := s.Put(context.Background(), "ct", strings.NewReader("x"), ct); err == nil {
			t.Fatalf("Put with content type %q succeeded", ct)
		}
	}
	wantNotFound(t, s, "ct")
}

func testOverwrite(t *testing.T, s blob.Store) {
	putString(t, s, "a/file", "first version, longer", "text/plain")
	putString(t, s, "a/file", "second", "application/json")
	got, info := getString(t, s, "a/file")
	if got != "second" || info.Size != 6 || info.ContentType != "application/json" {
		t.Fatalf("after overwrite: %q %+v", got, info)
	}
	wantList(t, s, "a/", 0, false, "a/file")
	infos, _, _ := s.List(context.Background(), "a/", 0)
	if infos[0].Size != 6 {
		t.Fatalf("List size %d after overwrite, want 6", infos[0].Size)
	}
}

func testNotFound(t *testing.T, s blob.Store) {
	wantNotFound(t, s, "missing")
	putString(t, s, "p/q/r", "x", "text/plain")
	// Neither a prefix of a key nor a path through a key names a file.
	wantNotFound(t, s, "p")
	wantNotFound(t, s, "p/q")
	wantNotFound(t, s, "p/q/r/s")
	wantNotFound(t, s, "p/q/r2")
}

func testDelete(t *testing.T, s blob.Store) {
	ctx := context.Background()
	putString(t, s, "d/x", "x", "text/plain")
	putString(t, s, "d/y/z", "z", "text/plain")
	for range 2 {
		if err := s.Delete(ctx, "d/x"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		wantNotFound(t, s, "d/x")
	}
	for _, key := range []string{"never-stored", "d", "d/y", "d/y/z/w"} {
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("Delete(%q) of an absent file: %v", key, err)
		}
	}
	// Deleting a prefix's name deletes nothing under it.
	if got, _ := getString(t, s, "d/y/z"); got != "z" {
		t.Fatalf("d/y/z = %q after deletes around it", got)
	}
}

// invalidKeys break one rule each.
var invalidKeys = []string{
	"", "/a", "a/", "a//b", ".", "..", "./a", "a/.", "a/./b", "../a", "a/..", "a/../b",
	`a\b`, "a\x00b", "\xff", "a/\xc3", strings.Repeat("k", 1025),
}

// invalidPrefixes start no valid key.
var invalidPrefixes = []string{
	"/", "/a", "a//", "./", "../", "a/../", `a\`, "a\x00", "\xff", strings.Repeat("k", 1024) + "/",
}

// untouchable fails the test if Put reads it: keys are checked first.
type untouchable struct{ t testing.TB }

func (u untouchable) Read([]byte) (int, error) {
	u.t.Error("Put read the body of a request it must refuse")
	return 0, io.EOF
}

func testInvalidKeys(t *testing.T, s blob.Store) {
	ctx := context.Background()
	invalid := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("%s = %v, want ErrInvalidKey", what, err)
		}
	}
	for _, key := range invalidKeys {
		_, err := s.Put(ctx, key, untouchable{t}, "text/plain")
		invalid(fmt.Sprintf("Put(%q)", key), err)
		rc, _, err := s.Open(ctx, key)
		if err == nil {
			rc.Close()
		}
		invalid(fmt.Sprintf("Open(%q)", key), err)
		_, err = s.Stat(ctx, key)
		invalid(fmt.Sprintf("Stat(%q)", key), err)
		invalid(fmt.Sprintf("Delete(%q)", key), s.Delete(ctx, key))
		_, _, err = s.DownloadURL(ctx, key, "f.txt", time.Minute)
		invalid(fmt.Sprintf("DownloadURL(%q)", key), err)
	}
	for _, p := range invalidPrefixes {
		_, _, err := s.List(ctx, p, 0)
		invalid(fmt.Sprintf("List(%q)", p), err)
		invalid(fmt.Sprintf("DeletePrefix(%q)", p), s.DeletePrefix(ctx, p))
	}
	invalid(`DeletePrefix("")`, s.DeletePrefix(ctx, ""))
	wantList(t, s, "", 0, false) // nothing was created
}

func testUnusualKeys(t *testing.T, s blob.Store) {
	keys := []string{
		"sp ace/a b.csv", "é/ü/日本.txt", "x+y", "p%20q", "q?r#s&t=u;v", ".hidden", "...", "a/.../b",
		"..a", "a..", "~", "'quote\"", "tab\there",
		strings.Repeat(strings.Repeat("s", 99)+"/", 10) + strings.Repeat("e", 24), // 1024 bytes
	}
	for _, key := range keys {
		putString(t, s, key, "<"+key+">", "text/plain")
	}
	for _, key := range keys {
		if got, info := getString(t, s, key); got != "<"+key+">" || info.Key != key {
			t.Errorf("Open(%q) = %q, %q", key, got, info.Key)
		}
		listed, _ := listKeys(t, s, key, 0)
		if !slices.Contains(listed, key) {
			t.Errorf("List(%q) = %q, misses the key", key, listed)
		}
	}
	listed, _ := listKeys(t, s, "", 0)
	if len(listed) != len(keys) {
		t.Fatalf("List of all = %q, want the %d keys", listed, len(keys))
	}
	for _, key := range keys {
		if err := s.Delete(context.Background(), key); err != nil {
			t.Fatalf("Delete(%q): %v", key, err)
		}
	}
	wantList(t, s, "", 0, false)
}

func testList(t *testing.T, s blob.Store) {
	// Byte order puts '-' < '.' < '/' < '0' < 'a': a directory walk sorted by
	// name ("a" before "a-b") would get this wrong. Upper case and non-ASCII
	// keys are left out on purpose: the S3 emulator sorts by locale, unlike
	// S3 (see docs/files.md); the local driver tests them itself.
	all := []string{"l/a-b", "l/a.txt", "l/a/b", "l/a/c", "l/a0", "l/ab", "l/b/x", "la", "m/a"}
	for i, key := range slices.Backward(all) {
		putString(t, s, key, strings.Repeat("x", i), "text/plain")
	}
	wantList(t, s, "", 0, false, all...)
	wantList(t, s, "l/", 0, false, all[:7]...)
	wantList(t, s, "l/", 3, true, all[:3]...)
	wantList(t, s, "l/", 6, true, all[:6]...)
	wantList(t, s, "l/", 7, false, all[:7]...)
	wantList(t, s, "l/", 8, false, all[:7]...)
	wantList(t, s, "l", 0, false, all[:8]...)
	wantList(t, s, "l/a", 0, false, all[:6]...)
	wantList(t, s, "l/a/", 0, false, "l/a/b", "l/a/c")
	wantList(t, s, "l/a/b", 0, false, "l/a/b")
	wantList(t, s, "l/a/b/", 0, false)
	wantList(t, s, "l/a.", 0, false, "l/a.txt")
	wantList(t, s, "nothing/", 0, false)
	wantList(t, s, "l/", -1, false, all[:7]...)

	infos, _, err := s.List(context.Background(), "l/b/", 0)
	if err != nil || len(infos) != 1 {
		t.Fatalf("List(l/b/) = %v, %v", infos, err)
	}
	if infos[0].Size != 6 { // all[6] was written with 6 bytes
		t.Fatalf("List size of l/b/x = %d, want 6", infos[0].Size)
	}
}

func testManyFiles(t *testing.T, s blob.Store) {
	const n = 1001 // one more than the default limit and than an S3 page
	keys := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for key := range keys {
				if _, err := s.Put(context.Background(), key, strings.NewReader(key), "text/plain"); err != nil {
					t.Errorf("Put(%q): %v", key, err)
				}
			}
		})
	}
	for i := range n {
		keys <- fmt.Sprintf("n/%04d", i)
	}
	close(keys)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	putString(t, s, "n0", "outside", "text/plain")

	for _, limit := range []int{0, -1, 1000} {
		got, more := listKeys(t, s, "n/", limit)
		if len(got) != 1000 || !more || got[0] != "n/0000" || got[999] != "n/0999" {
			t.Fatalf("List(n/, %d) = %d keys (%q...%q) more=%v; want the first 1000, more", limit, len(got), got[0], got[len(got)-1], more)
		}
	}
	for _, limit := range []int{n, 5000} {
		got, more := listKeys(t, s, "n/", limit)
		if len(got) != n || more || !slices.IsSorted(got) {
			t.Fatalf("List(n/, %d) = %d keys more=%v sorted=%v; want all %d", limit, len(got), more, slices.IsSorted(got), n)
		}
	}
	if err := s.DeletePrefix(context.Background(), "n/"); err != nil {
		t.Fatalf("DeletePrefix: %v", err)
	}
	wantList(t, s, "", 0, false, "n0")
}

func testDeletePrefix(t *testing.T, s blob.Store) {
	ctx := context.Background()
	for _, key := range []string{"j/1/a", "j/1/b/c", "j/10/a", "j/1.csv", "j/2/a", "k/1/a", "j1"} {
		putString(t, s, key, key, "text/plain")
	}
	if err := s.DeletePrefix(ctx, ""); !errors.Is(err, blob.ErrInvalidKey) {
		t.Fatalf(`DeletePrefix("") = %v, want ErrInvalidKey`, err)
	}
	wantList(t, s, "", 0, false, "j/1.csv", "j/1/a", "j/1/b/c", "j/10/a", "j/2/a", "j1", "k/1/a")
	steps := []struct {
		prefix string
		left   []string
	}{
		{"none/", []string{"j/1.csv", "j/1/a", "j/1/b/c", "j/10/a", "j/2/a", "j1", "k/1/a"}},
		{"j/1/", []string{"j/1.csv", "j/10/a", "j/2/a", "j1", "k/1/a"}},
		{"j/1", []string{"j/2/a", "j1", "k/1/a"}},
		{"j", []string{"k/1/a"}}, // a string prefix: "j1" goes too
		{"k/1/a", nil},           // a key is a prefix of itself
	}
	for _, st := range steps {
		if err := s.DeletePrefix(ctx, st.prefix); err != nil {
			t.Fatalf("DeletePrefix(%q): %v", st.prefix, err)
		}
		wantList(t, s, "", 0, false, st.left...)
	}
}

func testDeleteFreesName(t *testing.T, s blob.Store) {
	ctx := context.Background()
	putString(t, s, "f/g/h", "h", "text/plain")
	if err := s.Delete(ctx, "f/g/h"); err != nil {
		t.Fatal(err)
	}
	putString(t, s, "f/g", "g", "text/plain") // "f/g/" no longer exists
	putString(t, s, "x/y/z", "z", "text/plain")
	putString(t, s, "x/y/w", "w", "text/plain")
	if err := s.DeletePrefix(ctx, "x/"); err != nil {
		t.Fatal(err)
	}
	putString(t, s, "x", "x", "text/plain")
	putString(t, s, "v/w", "w", "text/plain")
	if err := s.DeletePrefix(ctx, "v/"); err != nil {
		t.Fatal(err)
	}
	putString(t, s, "v", "v", "text/plain")
	wantList(t, s, "", 0, false, "f/g", "v", "x")
}

func testLarge(t *testing.T, s blob.Store) {
	v := version{seed: 1, size: 20*mib + 12345, contentType: "text/csv"}
	putVersion(t, s, "big/export.csv", v)
	wantVersion(t, s, "big/export.csv", v)
	infos, _, err := s.List(context.Background(), "big/", 0)
	if err != nil || len(infos) != 1 || infos[0].Size != v.size {
		t.Fatalf("List = %+v, %v", infos, err)
	}
}
