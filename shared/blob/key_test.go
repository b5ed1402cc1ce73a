package blob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// seg100 is a 100-byte segment, to build keys near the length limit.
var seg100 = strings.Repeat("x", 99) + "/"

func TestValidKey(t *testing.T) {
	long := strings.Repeat(seg100, 10) + strings.Repeat("y", 24) // 1024 bytes
	tests := []struct {
		key string
		ok  bool
	}{
		{"a", true},
		{"jobs/01J9Z/output.csv", true},
		{"logos/ab/cd.png", true},
		{"a b/c d.csv", true},
		{"é/ü/日本.txt", true},
		{".hidden", true},
		{"a/.x", true},
		{"...", true},
		{"a/../b/..c", false},
		{"a/..c", true},
		{"a../b", true},
		{"x+y%20z?q#f&t=u", true},
		{"~/a", true}, // "~" is no home directory here, just a name
		{"C:/x", true},
		{long, true},

		{"", false},
		{long + "z", false}, // 1025 bytes
		{"/a", false},
		{"/", false},
		{"a/", false},
		{"a//b", false},
		{".", false},
		{"..", false},
		{"./a", false},
		{"a/.", false},
		{"a/./b", false},
		{"../a", false},
		{"a/..", false},
		{"a/../b", false},
		{`a\b`, false},
		{`..\a`, false},
		{"a\x00b", false},
		{"\xff", false},
		{"a/\xc3", false}, // a cut UTF-8 character
	}
	for _, tt := range tests {
		err := ValidKey(tt.key)
		if tt.ok && err != nil {
			t.Errorf("ValidKey(%q) = %v, want nil", tt.key, err)
		}
		if !tt.ok && !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidKey(%q) = %v, want ErrInvalidKey", tt.key, err)
		}
	}
}

func TestValidPrefix(t *testing.T) {
	tests := []struct {
		prefix string
		ok     bool
	}{
		{"", true}, // every key (List only: DeletePrefix refuses it)
		{"jobs/", true},
		{"jobs/ab", true},
		{"jobs/abc/output.csv", true}, // a key is a prefix of itself
		{"jobs/.", true},              // of "jobs/.x"
		{"jobs/..", true},             // of "jobs/..x"
		{".", true},
		{"..", true},
		{"a b/", true},
		{strings.Repeat(seg100, 10) + strings.Repeat("y", 23), true}, // 1023 bytes, room for one more
		{strings.Repeat(seg100, 10) + strings.Repeat("y", 24), true}, // 1024 bytes, a key

		{strings.Repeat(seg100, 10) + strings.Repeat("y", 25), false}, // 1025 bytes
		{strings.Repeat(seg100, 10) + strings.Repeat("y", 23) + "/", false},
		{"/", false},
		{"/jobs", false},
		{"jobs//", false},
		{"./", false},
		{"../", false},
		{"a/../", false},
		{"a/./b", false},
		{`a\`, false},
		{"a\x00", false},
		{"a/\xc3", false},
	}
	for _, tt := range tests {
		err := ValidPrefix(tt.prefix)
		if tt.ok && err != nil {
			t.Errorf("ValidPrefix(%q) = %v, want nil", tt.prefix, err)
		}
		if !tt.ok && !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidPrefix(%q) = %v, want ErrInvalidKey", tt.prefix, err)
		}
	}
}

func TestErrorQuotesLongKeyShort(t *testing.T) {
	err := ValidKey(strings.Repeat("a", 1<<20))
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("error for a 1 MiB key: %d bytes", len(err.Error()))
	}
}

// fuzzSeeds are keys and near-keys that exercise every rule.
var fuzzSeeds = []string{
	"a", "jobs/1/output.csv", "a/b/", "..", "../x", "a/../../b", "./a", `a\..\b`,
	"a//b", "/etc/passwd", "a\x00", ".x/..y", "é/\xff", "C:/x", "~/x",
}

// FuzzValidKey checks the property the local driver relies on: a valid key,
// joined under a root directory with filepath.Join, names a path strictly
// inside that root, and Join does not clean it (so two different keys never
// name the same file). It also checks that every prefix of a valid key that
// cuts no UTF-8 character is a valid prefix.
func FuzzValidKey(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	root := filepath.Join(string(filepath.Separator)+"srv", "blobs")
	f.Fuzz(func(t *testing.T, key string) {
		if ValidKey(key) != nil {
			return
		}
		if !filepath.IsLocal(key) {
			t.Fatalf("valid key %q is not a local path", key)
		}
		local := filepath.FromSlash(key)
		joined := filepath.Join(root, local)
		if joined != root+string(filepath.Separator)+local {
			t.Fatalf("Join(%q, %q) = %q: the key was cleaned", root, key, joined)
		}
		rel, err := filepath.Rel(root, joined)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Fatalf("valid key %q escapes the root: Rel = %q, %v", key, rel, err)
		}
		for i := range len(key) + 1 {
			if utf8.ValidString(key[:i]) {
				if err := ValidPrefix(key[:i]); err != nil {
					t.Fatalf("ValidPrefix(%q), a prefix of valid key %q: %v", key[:i], key, err)
				}
			}
		}
	})
}

// FuzzValidPrefix checks ValidPrefix against its definition: a non-empty
// valid prefix starts some valid key (itself, or itself plus one byte).
func FuzzValidPrefix(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prefix string) {
		if prefix == "" || ValidPrefix(prefix) != nil {
			return
		}
		if ValidKey(prefix) != nil && ValidKey(prefix+"x") != nil {
			t.Fatalf("ValidPrefix(%q) = nil, but no valid key starts with it", prefix)
		}
	})
}

// TestValidKeyStaysInRoot is the fuzz property on a real directory: a file
// created at every seed key that is valid lands inside the root.
func TestValidKeyStaysInRoot(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "root")
	for _, key := range fuzzSeeds {
		if ValidKey(key) != nil {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(parent)
	if err != nil || len(entries) != 1 || entries[0].Name() != "root" {
		t.Fatalf("files outside the root: %v %v", entries, err)
	}
}
