package placerow

import (
	"net/url"
	"strings"
)

// SiteURL reads a site_web cell as the URL to fetch: trimmed, "https://"
// added when the scheme is missing (listings often say "www.x.fr"), http
// and https only, a host required. ok is false for an empty or unusable
// cell: a module then leaves its columns empty.
func SiteURL(cell string) (*url.URL, bool) {
	s := strings.TrimSpace(cell)
	if s == "" || len(s) > 2048 || strings.ContainsAny(s, " \t\r\n") {
		return nil, false
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return nil, false
	}
	if u.Path == "" {
		u.Path = "/"
	}
	u.Fragment = ""
	return u, true
}
