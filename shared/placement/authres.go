package placement

import (
	"strings"
)

// AuthResults is what one Authentication-Results header (RFC 8601) says
// of the three methods a placement test reads. A method the header does
// not report is "".
type AuthResults struct {
	AuthservID string
	SPF        string
	DKIM       string
	DMARC      string
}

// Bounds of the header parser: the header comes from a message anyone
// could have sent.
const (
	maxAuthResLen  = 8 << 10
	maxAuthResInfo = 64
	maxCommentNest = 8
)

// authResults is the set of result values RFC 8601 (§2.7) registers for
// SPF, DKIM and DMARC; "hardfail" is an old SPF spelling of fail.
var authResults = map[string]string{
	"pass": "pass", "fail": "fail", "softfail": "softfail", "neutral": "neutral", "none": "none",
	"temperror": "temperror", "permerror": "permerror", "policy": "policy", "hardfail": "fail",
}

// PickAuthResults chooses among a message's Authentication-Results
// header values (in header order, topmost first) the one of the
// authentication service authservID, or the topmost when authservID is
// empty: receiving servers add theirs on top (RFC 8601 §5), so the
// topmost is the seed provider's own verdict and lower ones are
// whatever the message carried on its way. ok is false when none fits.
func PickAuthResults(values []string, authservID string) (AuthResults, bool) {
	for _, v := range values {
		ar, ok := ParseAuthResults(v)
		if !ok {
			continue
		}
		if authservID == "" || strings.EqualFold(ar.AuthservID, authservID) {
			return ar, true
		}
	}
	return AuthResults{}, false
}

// ParseAuthResults reads one Authentication-Results header value:
//
//	authserv-id [version] ( "none" / 1*( ";" method["/"version] "=" result [reasonspec] *propspec ) )
//
// Comments (nested parentheses) and folding are white space; quoted
// strings are kept whole (a ";" inside one separates nothing). For DKIM,
// which a message may carry several signatures of, a pass anywhere wins,
// then the first result; for SPF and DMARC the first result counts. A
// result outside RFC 8601's set is ignored. ok is false when the value
// has neither an authserv-id nor a leading method result.
func ParseAuthResults(value string) (AuthResults, bool) {
	if len(value) > maxAuthResLen {
		value = value[:maxAuthResLen]
	}
	parts := splitResInfo(stripComments(value))
	if len(parts) == 0 {
		return AuthResults{}, false
	}
	head := strings.Fields(parts[0])
	if len(head) == 0 {
		return AuthResults{}, false
	}
	var ar AuthResults
	if strings.Contains(parts[0], "=") {
		// No authserv-id: Microsoft 365 and Outlook.com write their header
		// so ("spf=pass (sender IP is ...) ...; dkim=...; dmarc=...").
		// Read it, with an empty id that no configured AuthservID picks.
		if _, _, ok := methodSpec(parts[0]); !ok {
			return AuthResults{}, false
		}
	} else {
		ar.AuthservID = unquote(head[0])
		parts = parts[1:]
	}
	for i, p := range parts {
		if i >= maxAuthResInfo {
			break
		}
		method, result, ok := methodSpec(p)
		if !ok {
			continue
		}
		switch method {
		case "spf":
			if ar.SPF == "" {
				ar.SPF = result
			}
		case "dkim":
			if ar.DKIM == "" || result == "pass" {
				ar.DKIM = result
			}
		case "dmarc":
			if ar.DMARC == "" {
				ar.DMARC = result
			}
		}
	}
	return ar, true
}

// methodSpec reads the leading "method[/version] = result" of a resinfo.
func methodSpec(s string) (method, result string, ok bool) {
	s = strings.TrimSpace(s)
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return "", "", false
	}
	method = strings.ToLower(strings.TrimSpace(s[:eq]))
	if v, _, found := strings.Cut(method, "/"); found {
		method = strings.TrimSpace(v)
	}
	if method == "" || strings.ContainsAny(method, " \t\"") {
		return "", "", false
	}
	rest := strings.TrimLeft(s[eq+1:], " \t")
	end := strings.IndexAny(rest, " \t")
	if end < 0 {
		end = len(rest)
	}
	result, ok = authResults[strings.ToLower(rest[:end])]
	return method, result, ok
}

// stripComments replaces each comment, nested ones included, by a space
// and unfolds the header; quoted strings keep their parentheses. An
// unterminated comment swallows the rest, as a lenient reader would; a
// nesting deeper than maxCommentNest is treated as one level more.
func stripComments(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	depth := 0
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' || c == '\n':
			if depth == 0 {
				b.WriteByte(' ')
			}
		case c == '\\' && (inQuote || depth > 0) && i+1 < len(s):
			if depth == 0 {
				b.WriteByte(c)
				b.WriteByte(s[i+1])
			}
			i++
		case inQuote:
			b.WriteByte(c)
			if c == '"' {
				inQuote = false
			}
		case c == '(':
			if depth < maxCommentNest {
				depth++
			}
			if depth == 1 {
				b.WriteByte(' ')
			}
		case c == ')' && depth > 0:
			depth--
		case depth > 0:
		case c == '"':
			inQuote = true
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// splitResInfo splits a comment-free value on the semicolons outside
// quoted strings.
func splitResInfo(s string) []string {
	var parts []string
	start := 0
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && inQuote:
			i++
		case c == '"':
			inQuote = !inQuote
		case c == ';' && !inQuote:
			parts = append(parts, s[start:i])
			start = i + 1
			if len(parts) > maxAuthResInfo+1 {
				return parts
			}
		}
	}
	parts = append(parts, s[start:])
	if strings.TrimSpace(parts[0]) == "" {
		return nil
	}
	return parts
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `\`, "")
	}
	return s
}

// headerValues returns the unfolded values of the fields named name (in
// order) in a raw header block, at most max of them. The block may be
// cut short (a partial FETCH): a last field without its line end still
// counts.
func headerValues(block []byte, name string, max int) []string {
	var out []string
	var cur *strings.Builder
	flush := func() {
		if cur != nil {
			out = append(out, strings.TrimSpace(cur.String()))
			cur = nil
		}
	}
	for _, line := range strings.Split(string(block), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			flush()
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if cur != nil && cur.Len() < maxAuthResLen {
				cur.WriteByte(' ')
				cur.WriteString(strings.TrimSpace(line))
			}
			continue
		}
		flush()
		if len(out) >= max {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			cur = &strings.Builder{}
			cur.WriteString(v)
		}
	}
	flush()
	return out
}
