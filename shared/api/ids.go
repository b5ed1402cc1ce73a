package api

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/apperr"
)

// MaxIDLen bounds an id read from a path or a body. The service's own ids
// (job and pipeline ids, numeric ids, feature ids, file names) are far
// shorter; the bound keeps an arbitrary string out of the stores, the logs
// and the limiter keys.
const MaxIDLen = 200

// ValidID says whether s can name an object of the service: non-empty,
// valid UTF-8, no control character (C0, DEL, C1) nor U+FFFD (what
// decoding a body left of invalid UTF-8), at most MaxIDLen bytes.
// Anything else cannot exist, so it never reaches a store: a DynamoDB key
// must be valid UTF-8, and a NUL or a newline in a key or a log line is a
// fault or an injection rather than a lookup.
func ValidID(s string) bool {
	if s == "" || len(s) > MaxIDLen || !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, notInID)
}

// notInID is a rune no id holds: a control character, or the replacement
// character a JSON decoder puts where a body had invalid UTF-8.
func notInID(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }

// wildcards lists the {name} wildcards of a route pattern path.
func wildcards(path string) []string {
	var names []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return names
		}
		names = append(names, strings.TrimSuffix(path[i+1:i+j], "..."))
		path = path[i+j+1:]
	}
}

// checkPathIDs answers 404 (no such object) when a path wildcard of the
// route holds a value no object can have: every wildcard of the table names
// an object (a job, a pipeline, a node, a key, a file), so a malformed one
// is an unknown one, checked once here rather than by each handler.
func checkPathIDs(r interface{ PathValue(string) string }, names []string) error {
	for _, n := range names {
		if !ValidID(r.PathValue(n)) {
			return apperr.Missing()
		}
	}
	return nil
}

// checkBodyID answers 400 naming the field when a body field meant to hold
// an id holds a value no object can have. Empty is left to the service
// (which says whether the field is required).
func checkBodyID(field string, v *string) error {
	if v == nil || *v == "" || ValidID(*v) {
		return nil
	}
	return apperr.New(apperr.Invalid,
		field+" : identifiant invalide (caractères de contrôle, UTF-8 invalide ou trop long)",
		field+": invalid id (control characters, invalid UTF-8 or too long)")
}
