package emails

import (
	"net/url"
	"strings"
)

func hasMailto(href string) bool {
	return len(href) >= 7 && strings.EqualFold(href[:7], "mailto:")
}

// stripMailto removes a "mailto:" prefix in any case.
func stripMailto(s string) string {
	s = strings.TrimSpace(s)
	if hasMailto(s) {
		s = s[7:]
	}
	return strings.TrimSpace(s)
}

// mailtoAddresses lists the recipients of a mailto link (RFC 6068): the
// comma-separated path, URL-decoded, plus any "to" header; subject, cc and
// body are not the business's address.
func mailtoAddresses(href string) []string {
	rest := stripMailto(href)
	query := ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, query = rest[:i], rest[i+1:]
	}
	var out []string
	out = appendRecipients(out, rest)
	if query != "" {
		if q, err := url.ParseQuery(query); err == nil {
			for k, vs := range q {
				if strings.EqualFold(k, "to") {
					for _, v := range vs {
						out = appendRecipients(out, v)
					}
				}
			}
		}
	}
	return out
}

func appendRecipients(out []string, list string) []string {
	if dec, err := url.PathUnescape(list); err == nil {
		list = dec
	}
	for _, part := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ';' }) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}
