package blob

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxKeyLen is the longest key in bytes: S3's limit, so that a key valid here
// is valid on every driver.
const maxKeyLen = 1024

// ValidKey reports whether key follows the key rules of the package doc; the
// error wraps ErrInvalidKey and says which rule failed. A valid key is a
// relative, already-clean slash path: joined under a directory it names a
// file strictly inside that directory, and two different keys never name the
// same path (see FuzzValidKey).
func ValidKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if len(key) > maxKeyLen {
		return fmt.Errorf("%w: %s is %d bytes, more than %d", ErrInvalidKey, quote(key), len(key), maxKeyLen)
	}
	if err := checkChars(key); err != nil {
		return err
	}
	if key[0] == '/' {
		return fmt.Errorf("%w: %s starts with a slash", ErrInvalidKey, quote(key))
	}
	// Every segment, the last one included, must be a file or directory name.
	for seg := range strings.SplitSeq(key, "/") {
		if err := checkSegment(key, seg); err != nil {
			return err
		}
	}
	return nil
}

// ValidPrefix reports whether prefix can select keys in List and
// DeletePrefix: the empty prefix (every key), or a string that some valid key
// starts with and that cuts no UTF-8 character in two. So "jobs/", "jobs/ab"
// and "jobs/." are valid prefixes (of "jobs/abc" and "jobs/.x"), while
// "jobs//", "/jobs" and "../" are not: no valid key starts with them. The
// error wraps ErrInvalidKey. DeletePrefix refuses the empty prefix on top of
// this, since it would delete every file.
func ValidPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := checkChars(prefix); err != nil {
		return err
	}
	if prefix[0] == '/' {
		return fmt.Errorf("%w: prefix %s starts with a slash", ErrInvalidKey, quote(prefix))
	}
	segs := strings.Split(prefix, "/")
	last := segs[len(segs)-1]
	for _, seg := range segs[:len(segs)-1] {
		if err := checkSegment(prefix, seg); err != nil {
			return err
		}
	}
	// The last segment is unfinished: "", "." and ".." become valid segments
	// once a key continues them ("x", ".x", "..x"), so the prefix is valid if
	// there is room for one more byte. Any other last segment is complete
	// already, and the prefix is then a valid key in its own right.
	if last == "" || last == "." || last == ".." {
		if len(prefix) >= maxKeyLen {
			return fmt.Errorf("%w: prefix %s leaves no room for a key within %d bytes", ErrInvalidKey, quote(prefix), maxKeyLen)
		}
		return nil
	}
	if len(prefix) > maxKeyLen {
		return fmt.Errorf("%w: prefix %s is %d bytes, longer than any key (%d)", ErrInvalidKey, quote(prefix), len(prefix), maxKeyLen)
	}
	return nil
}

// checkChars applies the rules on characters, which hold for keys and
// prefixes alike.
func checkChars(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidKey, quote(s))
	}
	if i := strings.IndexAny(s, "\x00\\"); i >= 0 {
		return fmt.Errorf("%w: %s contains %q at byte %d", ErrInvalidKey, quote(s), s[i], i)
	}
	return nil
}

// checkSegment applies the rules on one complete segment of s.
func checkSegment(s, seg string) error {
	switch seg {
	case "":
		return fmt.Errorf("%w: %s has an empty segment", ErrInvalidKey, quote(s))
	case ".", "..":
		return fmt.Errorf("%w: %s has a %q segment", ErrInvalidKey, quote(s), seg)
	}
	return nil
}

// quote quotes s for an error message, cut to a readable length: a rejected
// key may be anything a client sent, up to megabytes.
func quote(s string) string {
	const keep = 80
	if len(s) <= keep {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q...", s[:keep])
}
