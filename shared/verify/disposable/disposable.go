// Package disposable tells whether an email domain belongs to a
// disposable (throw-away) mail service, from the list of the npm package
// disposable-email-domains (Package, Version and License name the copy
// domains.txt was generated from; `make disposable` regenerates it).
//
// A domain matches when domains.txt lists it, or lists one of its parent
// domains as a wildcard ("*.33mail.com": 33mail.com and every name under
// it). Subdomains of the other listed domains do not match: the package
// lists exact names there.
package disposable

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

//go:embed domains.txt
var domainsTxt string

// list is domains.txt read apart: the exact domains, sorted, as
// substrings of the embedded text (no copy), and the wildcard domains.
type list struct {
	exact []string
	wild  map[string]bool
}

// parsed reads the embedded list once, on the first lookup: a process
// that verifies no address never pays for it.
var parsed = sync.OnceValue(func() *list { return parse(domainsTxt) })

func parse(txt string) *list {
	l := &list{exact: make([]string, 0, exactCount), wild: make(map[string]bool, wildcardCount)}
	for line := range strings.Lines(txt) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" || line[0] == '#':
		case strings.HasPrefix(line, "*."):
			l.wild[line[2:]] = true
		default:
			l.exact = append(l.exact, line)
		}
	}
	// The generator writes the list sorted; sorting again costs little
	// when it is, and keeps a hand-edited file correct.
	if !slices.IsSorted(l.exact) {
		slices.Sort(l.exact)
	}
	return l
}

// Has tells whether domain (lower case, A-labels, no trailing dot: as
// shared/verify normalises it) is a disposable mail domain.
func Has(domain string) bool {
	l := parsed()
	if _, ok := slices.BinarySearch(l.exact, domain); ok {
		return true
	}
	for d := domain; d != ""; {
		if l.wild[d] {
			return true
		}
		i := strings.IndexByte(d, '.')
		if i < 0 {
			break
		}
		d = d[i+1:]
	}
	return false
}

// Len is the number of exact and wildcard domains in the list.
func Len() (exact, wildcard int) {
	l := parsed()
	return len(l.exact), len(l.wild)
}
