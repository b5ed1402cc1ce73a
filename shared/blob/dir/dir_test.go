package dir

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/blob/blobtest"
)

func open(t testing.TB) *Store {
	t.Helper()
	s, err := New(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store { return open(t) })
}

func BenchmarkPutGet1MiB(b *testing.B)       { blobtest.BenchPutGet(b, open(b), 1<<20) }
func BenchmarkPutStreamed64MiB(b *testing.B) { blobtest.BenchStreamedPut(b, open(b), 64<<20) }

// files lists every entry under the store's root, as slash paths.
func files(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(s.Root(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != s.Root() {
			rel, _ := filepath.Rel(s.Root(), p)
			if d.IsDir() {
				rel += "/"
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLayout(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	if _, err := s.Put(ctx, "jobs/1/out.csv", strings.NewReader("a,b\n"), "text/csv; charset=utf-8"); err != nil {
		t.Fatal(err)
	}
	if got := files(t, s); !slices.Equal(got, []string{"jobs/", "jobs/1/", "jobs/1/out.csv"}) {
		t.Fatalf("files %q", got)
	}
	b, err := os.ReadFile(filepath.Join(s.Root(), "jobs", "1", "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != headerSize+4 || !strings.HasPrefix(string(b), "blob/1 text/csv; charset=utf-8 ") ||
		b[headerSize-1] != '\n' || string(b[headerSize:]) != "a,b\n" {
		t.Fatalf("file content %q", b)
	}
	if err := s.Delete(ctx, "jobs/1/out.csv"); err != nil {
		t.Fatal(err)
	}
	if got := files(t, s); len(got) != 0 {
		t.Fatalf("empty directories left: %q", got)
	}
	// A store reopened on the directory finds the files.
	if _, err := s.Put(ctx, "k", strings.NewReader("v"), ""); err != nil {
		t.Fatal(err)
	}
	s2, err := New(s.Root())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if info, err := s2.Stat(ctx, "k"); err != nil || info.Size != 1 || info.ContentType != defaultContentType {
		t.Fatalf("Stat after reopening = %+v, %v", info, err)
	}
}

// TestListByteOrder covers what the contract suite leaves out because the
// S3 emulator sorts by locale: upper case, punctuation and non-ASCII keys
// come in byte order, as on S3.
func TestListByteOrder(t *testing.T) {
	s := open(t)
	keys := []string{"a", "B", "é", "Z/x", "_", "~", "a b", "a%b", "a+b", "a_b", "A", "z", "a~", "0", "b/x", "b.x", "b-x", "b0", "bx"}
	for _, k := range keys {
		if _, err := s.Put(context.Background(), k, strings.NewReader(k), "text/plain"); err != nil {
			t.Fatal(err)
		}
	}
	infos, more, err := s.List(context.Background(), "", 0)
	if err != nil || more {
		t.Fatal(err, more)
	}
	var got []string
	for _, in := range infos {
		got = append(got, in.Key)
	}
	want := slices.Clone(keys)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("List order %q\nwant       %q", got, want)
	}
}

func TestKeyConflicts(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	put := func(key string) error {
		_, err := s.Put(ctx, key, strings.NewReader(key), "text/plain")
		return err
	}
	if err := put("a/b"); err != nil {
		t.Fatal(err)
	}
	if err := put("x/y/z"); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a/b/c", "a/b/c/d", "x/y", "x"} {
		err := put(key)
		if err == nil || errors.Is(err, blob.ErrInvalidKey) || errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("Put(%q) = %v, want a conflict error", key, err)
		}
		if !errors.Is(err, errShorterKey) && !errors.Is(err, errLongerKeys) {
			t.Fatalf("Put(%q) = %v, not explained", key, err)
		}
		t.Logf("Put(%q): %v", key, err)
	}
	infos, _, _ := s.List(ctx, "", 0)
	if len(infos) != 2 || infos[0].Key != "a/b" || infos[1].Key != "x/y/z" {
		t.Fatalf("List after conflicts = %+v", infos)
	}
	if got := files(t, s); !slices.Equal(got, []string{"a/", "a/b", "x/", "x/y/", "x/y/z"}) {
		t.Fatalf("files after conflicts %q: temporary files or directories left", got)
	}
}

func TestFailedPutLeavesNothing(t *testing.T) {
	s := open(t)
	_, err := s.Put(context.Background(), "new/dir/f", iotest.ErrReader(errors.New("boom")), "text/plain")
	if err == nil {
		t.Fatal("Put succeeded")
	}
	if got := files(t, s); len(got) != 0 {
		t.Fatalf("files after a failed Put: %q", got)
	}
}

func TestStrayFilesIgnored(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	if _, err := s.Put(ctx, "d/ok", strings.NewReader("ok"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"d/.put\\orphan", "d/short.txt", "d/\xffbad"} {
		if err := os.WriteFile(filepath.Join(s.Root(), filepath.FromSlash(name)), []byte("stray"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	infos, _, err := s.List(ctx, "d/", 0)
	if err != nil || len(infos) != 1 || infos[0].Key != "d/ok" {
		t.Fatalf("List = %+v, %v; want only d/ok", infos, err)
	}
	if _, err := s.Stat(ctx, "d/short.txt"); err == nil || errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Stat of a file without header = %v, want a format error", err)
	}
	// DeletePrefix leaves what is not a key; its directory stays.
	if err := s.DeletePrefix(ctx, "d/"); err != nil {
		t.Fatal(err)
	}
	if infos, _, _ := s.List(ctx, "d/", 0); len(infos) != 0 {
		t.Fatalf("List after DeletePrefix = %+v", infos)
	}
}

func TestSymlinkOutsideRootRefused(t *testing.T) {
	s := open(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(s.Root(), "evil")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	ctx := context.Background()
	if _, err := s.Put(ctx, "evil/x", strings.NewReader("x"), "text/plain"); err == nil {
		t.Fatal("Put through a symlink leaving the root succeeded")
	}
	if _, err := s.Stat(ctx, "evil/x"); err == nil {
		t.Fatal("Stat through a symlink leaving the root succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("files written outside the root: %v", entries)
	}
}

func TestLongSegment(t *testing.T) {
	s := open(t)
	key := "d/" + strings.Repeat("x", 300) // a valid key, a too long file name
	_, err := s.Put(context.Background(), key, strings.NewReader("x"), "text/plain")
	if err == nil || errors.Is(err, blob.ErrInvalidKey) {
		t.Fatalf("Put = %v, want the file system's refusal", err)
	}
	if _, err := s.Stat(context.Background(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Stat = %v, want ErrNotFound", err)
	}
	if got := files(t, s); len(got) != 0 {
		t.Fatalf("files left: %q", got)
	}
}

func TestContentTypeLimits(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	long := "application/" + strings.Repeat("x", maxContentType-len("application/"))
	if _, err := s.Put(ctx, "k", strings.NewReader("v"), long); err != nil {
		t.Fatal(err)
	}
	if info, _ := s.Stat(ctx, "k"); info.ContentType != long {
		t.Fatalf("longest content type came back as %q", info.ContentType)
	}
	if _, err := s.Put(ctx, "k", strings.NewReader("v"), long+"x"); err == nil {
		t.Fatal("content type too long for the header accepted")
	}
	if _, err := s.Put(ctx, "k", strings.NewReader("v"), " text/plain  "); err != nil {
		t.Fatal(err)
	}
	if info, _ := s.Stat(ctx, "k"); info.ContentType != "text/plain" {
		t.Fatalf("content type %q, want it trimmed", info.ContentType)
	}
}
