// Package dir is the local driver of the file store port (blob.Store): a
// directory on the local disk, for `make run` and tests. It passes the
// contract suite of blob/blobtest.
//
// Layout. The file of key "jobs/01J/output.csv" is root/jobs/01J/output.csv:
// a key's segments are directories and a file name, created as needed and
// removed when deletes leave them empty. Each file starts with a header of
// exactly 256 bytes, one line holding the content type padded with spaces:
//
//	blob/1 text/csv; charset=utf-8          ...\n
//	<the content>
//
// The content type thus lives in the same file as the bytes and is replaced
// by the same rename: a sidecar file would need a second rename, and a reader
// between the two would see the new type with the old bytes. The fixed size
// lets List compute sizes from the directory alone. `tail -c +257 FILE`
// prints the content.
//
// Writes. Put writes a temporary file in the target's directory, named
// ".put\" and random characters: no key contains a backslash, so no key
// names a temporary file and List never shows one. The temporary file is
// fsynced, renamed over the target (atomic on POSIX file systems: a reader
// has the old inode or the new one, and an open stream keeps its inode to the
// end), then the directory is fsynced so that the rename survives a crash. A
// failed Put removes its temporary file; a crash may leave one, invisible but
// taking space.
//
// Every access goes through an os.Root, so that no key, symbolic link or
// concurrent rename can reach a file outside the root.
//
// Limits, none of which the service's keys come near: a key and the same
// key followed by "/..." cannot both exist ("a/b" is a file, "a/b/c" needs a
// directory "a/b"), and Put of the second fails with an error that is not
// ErrInvalidKey; a segment longer than the file system's name limit (255
// bytes on ext4) cannot be stored; on a case-insensitive file system (macOS's
// default) keys differing in case only are one file; one process per root,
// since directory changes are serialised by an in-process lock only.
package dir

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/blob"
)

const (
	// headerSize is the size of the header line that precedes the content.
	headerSize = 256
	// magic starts the header: a format version, for a later change of it.
	magic = "blob/1 "
	// maxContentType is what fits in the header between magic and newline.
	maxContentType = headerSize - len(magic) - 1
	// defaultContentType is stored for an empty one, as S3 would.
	defaultContentType = "application/octet-stream"
	// tempPrefix starts temporary file names: a backslash is in no key.
	tempPrefix = ".put\\"
	// copyBuffer is the size of the buffer Put copies through: large writes
	// are cheaper, and 256 KiB per concurrent Put is little.
	copyBuffer = 256 << 10
)

// Store is a blob.Store on a directory. It is safe for concurrent use by the
// goroutines of one process.
type Store struct {
	root *os.Root

	// mu serialises changes to the directory tree: creating a Put's
	// directories and temporary file, renames, removing files and pruning
	// empty directories. Without it a delete could prune a directory that a
	// Put has just created, or remove a file that a Put renamed where a
	// directory was a moment before. Bodies are written outside it.
	mu sync.Mutex
}

var _ blob.Store = (*Store)(nil)

// New opens the store at root, creating the directory if needed.
func New(root string) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("blob/dir: %s: %w", root, err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("blob/dir: %w", err)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("blob/dir: %w", err)
	}
	return &Store{root: r}, nil
}

// Close releases the root directory. Streams already open stay readable.
func (s *Store) Close() error {
	if err := s.root.Close(); err != nil {
		return fmt.Errorf("blob/dir: close: %w", err)
	}
	return nil
}

// Root returns the directory the store was opened on.
func (s *Store) Root() string { return s.root.Name() }

// Put implements blob.Store.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	name, err := localName(key)
	if err != nil {
		return 0, fmt.Errorf("blob/dir: put: %w", err)
	}
	ct, err := cleanContentType(contentType)
	if err != nil {
		return 0, fmt.Errorf("blob/dir: put %s: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("blob/dir: put %s: %w", key, err)
	}
	tmp, f, err := s.createTemp(name)
	if err != nil {
		return 0, fmt.Errorf("blob/dir: put %s: %w", key, explain(err, errShorterKey))
	}
	n, err := writeFile(ctx, f, r, ct)
	if err == nil {
		// Without the fsync, a crash soon after the rename can leave the
		// key naming an empty or partial file.
		if err = f.Sync(); err != nil {
			err = fmt.Errorf("fsync: %w", err)
		}
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		if err = s.rename(tmp, name); err != nil {
			err = explain(err, errLongerKeys)
		}
	}
	if err != nil {
		s.removeTemp(tmp)
		return 0, fmt.Errorf("blob/dir: put %s: %w", key, err)
	}
	if err := s.syncDir(filepath.Dir(name)); err != nil {
		// The new file is in place, but may not survive a crash.
		return 0, fmt.Errorf("blob/dir: put %s: %w", key, err)
	}
	return n, nil
}

// createTemp creates the target's directories and a temporary file next to
// the target, under the lock so that no delete prunes the directory between
// the two: once the file exists the directory is not empty.
func (s *Store) createTemp(name string) (string, *os.File, error) {
	dir := filepath.Dir(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if dir != "." {
		if err := s.root.MkdirAll(dir, 0o750); err != nil {
			return "", nil, err
		}
	}
	for {
		tmp := filepath.Join(dir, tempPrefix+rand.Text())
		f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // 130 random bits collided: try other ones
		}
		return tmp, f, err
	}
}

func (s *Store) rename(tmp, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.root.Rename(tmp, name)
}

// removeTemp removes a failed Put's temporary file and the directories that
// Put created for nothing, so that a failed "a/b/c" does not stop a later
// "a/b".
func (s *Store) removeTemp(tmp string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.root.Remove(tmp) // best effort: the Put has failed already
	s.prune(filepath.Dir(tmp))
}

// writeFile writes the header and the body to f, returning the body's size.
func writeFile(ctx context.Context, f *os.File, r io.Reader, contentType string) (int64, error) {
	if _, err := f.Write(header(contentType)); err != nil {
		return 0, err
	}
	src := &ctxReader{ctx: ctx, r: r}
	// The struct hides f's ReadFrom, which would ignore the buffer given.
	n, err := io.CopyBuffer(struct{ io.Writer }{f}, src, make([]byte, copyBuffer))
	if err != nil {
		if src.err != nil {
			return n, fmt.Errorf("reading the body: %w", src.err)
		}
		return n, fmt.Errorf("writing: %w", err)
	}
	return n, nil
}

// ctxReader stops a Put's copy once ctx is done, and records the error of
// the source to tell it from the file's in messages.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return 0, err
	}
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

func (s *Store) syncDir(dir string) error {
	d, err := s.root.Open(dir)
	if err != nil {
		return fmt.Errorf("fsync of the directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync of the directory: %w", err)
	}
	return nil
}

// Open implements blob.Store. The stream fails once ctx is done.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, blob.Info, error) {
	name, err := localName(key)
	if err != nil {
		return nil, blob.Info{}, fmt.Errorf("blob/dir: open: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, blob.Info{}, fmt.Errorf("blob/dir: open %s: %w", key, err)
	}
	f, info, err := s.open(key, name)
	if err != nil {
		return nil, blob.Info{}, fmt.Errorf("blob/dir: open %s: %w", key, err)
	}
	return &stream{ctx: ctx, f: f}, info, nil
}

// open opens the file of key positioned after its header. Size, type and
// bytes all come from the one inode opened, so they describe one version
// whatever Puts happen meanwhile.
func (s *Store) open(key, name string) (*os.File, blob.Info, error) {
	f, err := s.root.Open(name)
	if err != nil {
		if absent(err) {
			return nil, blob.Info{}, blob.ErrNotFound
		}
		return nil, blob.Info{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, blob.Info{}, err
	}
	if !fi.Mode().IsRegular() {
		f.Close() // a directory: a prefix of other keys, not a file
		return nil, blob.Info{}, blob.ErrNotFound
	}
	var h [headerSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		f.Close()
		return nil, blob.Info{}, fmt.Errorf("not a file of this store (header: %w)", err)
	}
	ct, err := parseHeader(h[:])
	if err != nil {
		f.Close()
		return nil, blob.Info{}, err
	}
	return f, blob.Info{Key: key, Size: fi.Size() - headerSize, ContentType: ct, Modified: fi.ModTime()}, nil
}

// stream is Open's reader: the file, failing once the caller's context is
// done so that an abandoned download stops reading.
type stream struct {
	ctx context.Context
	f   *os.File
}

func (r *stream) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.f.Read(p)
}

func (r *stream) Close() error { return r.f.Close() }

// Stat implements blob.Store.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	name, err := localName(key)
	if err != nil {
		return blob.Info{}, fmt.Errorf("blob/dir: stat: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return blob.Info{}, fmt.Errorf("blob/dir: stat %s: %w", key, err)
	}
	f, info, err := s.open(key, name)
	if err != nil {
		return blob.Info{}, fmt.Errorf("blob/dir: stat %s: %w", key, err)
	}
	f.Close()
	return info, nil
}

// Delete implements blob.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	name, err := localName(key)
	if err != nil {
		return fmt.Errorf("blob/dir: delete: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blob/dir: delete %s: %w", key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.removeFile(name); err != nil {
		return fmt.Errorf("blob/dir: delete %s: %w", key, err)
	}
	s.prune(filepath.Dir(name))
	return nil
}

// removeFile removes the regular file name, if there is one; s.mu is held.
// A directory of that name is a prefix of other keys, not a file: it stays.
func (s *Store) removeFile(name string) error {
	fi, err := s.root.Lstat(name)
	if absent(err) || (err == nil && !fi.Mode().IsRegular()) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.root.Remove(name); err != nil && !absent(err) {
		return err
	}
	return nil
}

// prune removes dir and its parents while they are empty directories;
// s.mu is held, so no Put is between creating a directory and filling it.
// The Lstat matters: Root.Remove would also remove a file.
func (s *Store) prune(dir string) {
	for dir != "." && dir != string(filepath.Separator) {
		fi, err := s.root.Lstat(dir)
		if err != nil || !fi.IsDir() {
			return
		}
		if s.root.Remove(dir) != nil {
			return // not empty, most likely
		}
		dir = filepath.Dir(dir)
	}
}

// List implements blob.Store. It reads only the directories under the
// prefix's last slash whose names continue the prefix, in key order, and
// stops after limit files.
func (s *Store) List(ctx context.Context, prefix string, limit int) ([]blob.Info, bool, error) {
	if err := blob.ValidPrefix(prefix); err != nil {
		return nil, false, fmt.Errorf("blob/dir: list: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("blob/dir: list %q: %w", prefix, err)
	}
	if limit <= 0 {
		limit = 1000
	}
	infos := []blob.Info{}
	more := false
	errFull := errors.New("full") // stops the walk once limit+1 files are seen
	err := s.walk(ctx, prefix, func(key, _ string, fi fs.FileInfo) error {
		if len(infos) == limit {
			more = true
			return errFull
		}
		infos = append(infos, blob.Info{Key: key, Size: fi.Size() - headerSize, Modified: fi.ModTime()})
		return nil
	}, nil)
	if err != nil && err != errFull {
		return nil, false, fmt.Errorf("blob/dir: list %q: %w", prefix, err)
	}
	return infos, more, nil
}

// DeletePrefix implements blob.Store. Directories it empties are removed.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	if prefix == "" {
		return fmt.Errorf("blob/dir: delete prefix: %w: empty prefix (it would delete every file)", blob.ErrInvalidKey)
	}
	if err := blob.ValidPrefix(prefix); err != nil {
		return fmt.Errorf("blob/dir: delete prefix: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blob/dir: delete prefix %q: %w", prefix, err)
	}
	err := s.walk(ctx, prefix,
		func(_, name string, _ fs.FileInfo) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.removeFile(name)
		},
		func(dir string) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.prune(dir)
		})
	if err != nil {
		return fmt.Errorf("blob/dir: delete prefix %q: %w", prefix, err)
	}
	// The walk pruned the directories below the prefix's; this one and its
	// parents may be empty now too.
	if dirKey := prefix[:strings.LastIndexByte(prefix, '/')+1]; dirKey != "" {
		if dir, err := filepath.Localize(strings.TrimSuffix(dirKey, "/")); err == nil {
			s.mu.Lock()
			s.prune(dir)
			s.mu.Unlock()
		}
	}
	return nil
}

// walk calls file for every file whose key starts with prefix, in key order,
// and leave after the last file of each directory entered below the
// prefix's directory. It stops at the first error file returns.
func (s *Store) walk(ctx context.Context, prefix string, file func(key, name string, fi fs.FileInfo) error, leave func(dir string)) error {
	// "jobs/ab" selects, in directory "jobs", the entries starting "ab".
	cut := strings.LastIndexByte(prefix, '/') + 1
	return s.walkDir(ctx, prefix[:cut], prefix[cut:], file, leave)
}

// walkDir walks the directory of the keys starting with dirKey (empty or
// ending in a slash), taking only the entries whose name starts with first.
func (s *Store) walkDir(ctx context.Context, dirKey, first string, file func(key, name string, fi fs.FileInfo) error, leave func(dir string)) error {
	dir := "."
	if dirKey != "" {
		var err error
		if dir, err = filepath.Localize(strings.TrimSuffix(dirKey, "/")); err != nil {
			return nil // no file can have this name here, so no key is under it
		}
	}
	entries, err := s.readDir(dir)
	if err != nil {
		if absent(err) {
			return nil
		}
		return err
	}
	type entry struct {
		name  string
		order string // the name as it sorts among keys
		isDir bool
	}
	var list []entry
	for _, e := range entries {
		n := e.Name()
		// Temporary files have a backslash; other odd names were not
		// written by this driver.
		if !strings.HasPrefix(n, first) || strings.ContainsRune(n, '\\') || !utf8.ValidString(n) {
			continue
		}
		switch {
		case e.IsDir():
			// Every key under directory "a" starts with "a/": sorting it
			// as "a/" puts "a.txt" before it and "a0" after, as in bytes.
			list = append(list, entry{n, n + "/", true})
		case e.Type().IsRegular():
			list = append(list, entry{n, n, false})
		}
	}
	slices.SortFunc(list, func(a, b entry) int { return strings.Compare(a.order, b.order) })
	for _, e := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := filepath.Join(dir, e.name)
		if e.isDir {
			if err := s.walkDir(ctx, dirKey+e.name+"/", "", file, leave); err != nil {
				return err
			}
			if leave != nil {
				leave(name)
			}
			continue
		}
		key := dirKey + e.name
		if blob.ValidKey(key) != nil {
			continue // too long a path: not written by this driver
		}
		fi, err := s.root.Lstat(name)
		if err != nil {
			if absent(err) {
				continue // deleted since the directory was read
			}
			return err
		}
		if !fi.Mode().IsRegular() || fi.Size() < headerSize {
			continue // not a file of this store
		}
		if err := file(key, name, fi); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) readDir(dir string) ([]fs.DirEntry, error) {
	d, err := s.root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// DownloadURL implements blob.Store: a local directory has no address a
// client could fetch directly, so ok is false and the caller streams the file.
func (s *Store) DownloadURL(ctx context.Context, key, _ string, _ time.Duration) (string, bool, error) {
	if _, err := localName(key); err != nil {
		return "", false, fmt.Errorf("blob/dir: download url: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", false, fmt.Errorf("blob/dir: download url %s: %w", key, err)
	}
	return "", false, nil
}

// localName checks key and converts it to a path relative to the root.
func localName(key string) (string, error) {
	if err := blob.ValidKey(key); err != nil {
		return "", err
	}
	name, err := filepath.Localize(key)
	if err != nil {
		// Only on systems with more rules than the port (Windows: "a:b",
		// "NUL"): the key can never be stored here, which is what
		// ErrInvalidKey tells the caller.
		return "", fmt.Errorf("%w: %q cannot be a file name on this system: %v", blob.ErrInvalidKey, key, err)
	}
	return name, nil
}

// absent reports whether err means that no file has the name: it does not
// exist, a component is a file ("a/b/c" where "a/b" is a file), or a segment
// is longer than any file name can be.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENAMETOOLONG)
}

// Errors of a Put whose key cannot coexist with another in a directory
// tree, explained: the system's own ("file exists") would puzzle a caller
// who thinks in keys.
var (
	errShorterKey = errors.New(`a shorter key is stored where this key needs a directory ("a/b" stops "a/b/c" in this driver)`)
	errLongerKeys = errors.New(`longer keys are stored under this key and a slash ("a/b/c" stops "a/b" in this driver)`)
	errLongName   = errors.New("a segment of the key is longer than a file name can be here")
)

// explain adds the meaning of a directory-tree error at step (errShorterKey
// when creating the directories and temporary file, errLongerKeys when
// renaming it over the target).
func explain(err, step error) error {
	switch {
	case errors.Is(err, syscall.ENAMETOOLONG):
		return fmt.Errorf("%w: %w", errLongName, err)
	case errors.Is(err, syscall.ENOTDIR), errors.Is(err, fs.ErrExist), errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENOTEMPTY):
		return fmt.Errorf("%w: %w", step, err)
	}
	return err
}

// header is the first headerSize bytes of a file with this content type.
func header(contentType string) []byte {
	h := make([]byte, headerSize)
	n := copy(h, magic)
	n += copy(h[n:], contentType)
	for i := n; i < headerSize-1; i++ {
		h[i] = ' '
	}
	h[headerSize-1] = '\n'
	return h
}

func parseHeader(h []byte) (string, error) {
	if !strings.HasPrefix(string(h), magic) || h[headerSize-1] != '\n' {
		return "", errors.New("not a file of this store (no blob/1 header)")
	}
	return strings.TrimRight(string(h[len(magic):headerSize-1]), " "), nil
}

// cleanContentType checks a content type and applies the default. Header
// values cannot hold control characters (and an HTTP client would refuse
// them); non-ASCII is refused too, as S3 would not store it as given.
func cleanContentType(ct string) (string, error) {
	for i := range len(ct) {
		if c := ct[i]; c < 0x20 || c > 0x7e {
			return "", fmt.Errorf("content type %q: byte %#x at %d is not printable ASCII", ct, c, i)
		}
	}
	ct = strings.TrimSpace(ct)
	if ct == "" {
		return defaultContentType, nil
	}
	if len(ct) > maxContentType {
		return "", fmt.Errorf("content type of %d bytes, more than %d", len(ct), maxContentType)
	}
	return ct, nil
}
