package socials

import (
	"net/url"
	"regexp"
	"strings"
)

// Canonical forms, one per network (handles lowercased: every network here
// treats them case-insensitively, except YouTube channel ids):
//
//	facebook   https://www.facebook.com/<page>
//	           https://www.facebook.com/profile.php?id=<digits>
//	           https://www.facebook.com/people/<name>/<digits>
//	           https://www.facebook.com/pages/<name>/<digits>
//	instagram  https://www.instagram.com/<user>/
//	linkedin   https://www.linkedin.com/company/<slug>
//	           https://www.linkedin.com/in/<slug>
//	           (also school/ and showcase/)
//	twitter    https://x.com/<handle>   (twitter.com and x.com alike)
//	tiktok     https://www.tiktok.com/@<user>
//	youtube    https://www.youtube.com/@<handle>
//	           https://www.youtube.com/channel/<id>
//	           https://www.youtube.com/c/<name>
//	           https://www.youtube.com/user/<name>
//
// Query strings (tracking or locale) and fragments are dropped, except the
// id of facebook's profile.php, which is the profile itself.

// handleRe is what a handle may hold on any of the networks (dots for
// Instagram and Facebook, dashes for LinkedIn and YouTube).
var handleRe = regexp.MustCompile(`^[\p{L}\p{N}._\-]+$`)

var facebookIDRe = regexp.MustCompile(`^\d+$`)

// canonical returns the network and canonical profile URL of u, ok false when
// u is not a profile of one of the networks (share links, posts, plugins,
// the networks' own pages, theme demo accounts).
func canonical(u *url.URL) (Network, string, bool) {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "") {
		return 0, "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	segs := pathSegments(u.EscapedPath())
	switch {
	case hostIs(host, "facebook.com") || hostIs(host, "fb.com") || hostIs(host, "fb.me"):
		s, ok := canonFacebook(segs, u.Query())
		return Facebook, s, ok
	case hostIs(host, "instagram.com") || hostIs(host, "instagr.am"):
		s, ok := canonSimple(segs, instagramReserved, "https://www.instagram.com/", "/")
		return Instagram, s, ok
	case hostIs(host, "linkedin.com"):
		s, ok := canonLinkedIn(segs)
		return LinkedIn, s, ok
	case hostIs(host, "twitter.com") || hostIs(host, "x.com"):
		s, ok := canonSimple(segs, twitterReserved, "https://x.com/", "")
		return Twitter, s, ok
	case hostIs(host, "tiktok.com"):
		s, ok := canonTikTok(segs)
		return TikTok, s, ok
	case hostIs(host, "youtube.com"):
		s, ok := canonYouTube(segs)
		return YouTube, s, ok
	}
	return 0, "", false
}

// hostIs reports whether host is domain or one of its subdomains (www., m.,
// mobile., fr-fr., fr.).
func hostIs(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// pathSegments splits an escaped path into its unescaped, non-empty segments.
func pathSegments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s == "" {
			continue
		}
		if us, err := url.PathUnescape(s); err == nil {
			s = us
		}
		s = strings.TrimSpace(s)
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func validHandle(h string) bool {
	return len(h) >= 2 && len(h) <= 100 && handleRe.MatchString(h)
}

// canonSimple canonicalises networks whose profile is the first path segment
// (Instagram, Twitter/X); later segments (a tweet's /status/, /reels/) make
// the link a post, not a profile, except a bare tab name.
func canonSimple(segs []string, reserved map[string]bool, prefix, suffix string) (string, bool) {
	if len(segs) == 0 {
		return "", false
	}
	h := strings.ToLower(strings.TrimPrefix(segs[0], "@"))
	if reserved[h] || themeDemo[h] || !validHandle(h) {
		return "", false
	}
	if len(segs) > 1 && !profileTabs[strings.ToLower(segs[1])] {
		return "", false
	}
	return prefix + h + suffix, true
}

func canonFacebook(segs []string, q url.Values) (string, bool) {
	if len(segs) == 0 {
		return "", false
	}
	first := strings.ToLower(segs[0])
	switch first {
	case "profile.php":
		id := q.Get("id")
		if !facebookIDRe.MatchString(id) {
			return "", false
		}
		return "https://www.facebook.com/profile.php?id=" + id, true
	case "people", "pages":
		// /pages/<name>/<id> and /people/<name>/<id>: the id is the profile.
		if len(segs) < 3 || !facebookIDRe.MatchString(segs[2]) || !validHandle(segs[1]) {
			return "", false
		}
		return "https://www.facebook.com/" + first + "/" + strings.ToLower(segs[1]) + "/" + segs[2], true
	case "pg":
		// The old page-tab prefix: /pg/<page>/about.
		segs = segs[1:]
		if len(segs) == 0 {
			return "", false
		}
		first = strings.ToLower(segs[0])
	}
	if facebookReserved[first] || themeDemo[first] || strings.HasSuffix(first, ".php") || !validHandle(first) {
		return "", false
	}
	return "https://www.facebook.com/" + first, true
}

func canonLinkedIn(segs []string) (string, bool) {
	if len(segs) < 2 {
		return "", false
	}
	kind := strings.ToLower(segs[0])
	if kind == "company-beta" {
		kind = "company"
	}
	switch kind {
	case "company", "in", "school", "showcase":
	default:
		return "", false
	}
	slug := strings.ToLower(segs[1])
	if themeDemo[slug] || slug == "linkedin" || !validHandle(slug) {
		return "", false
	}
	return "https://www.linkedin.com/" + kind + "/" + slug, true
}

func canonTikTok(segs []string) (string, bool) {
	if len(segs) == 0 || !strings.HasPrefix(segs[0], "@") {
		return "", false
	}
	h := strings.ToLower(strings.TrimPrefix(segs[0], "@"))
	if h == "tiktok" || themeDemo[h] || !validHandle(h) {
		return "", false
	}
	return "https://www.tiktok.com/@" + h, true
}

func canonYouTube(segs []string) (string, bool) {
	if len(segs) == 0 {
		return "", false
	}
	first := segs[0]
	if strings.HasPrefix(first, "@") {
		h := strings.ToLower(strings.TrimPrefix(first, "@"))
		if h == "youtube" || themeDemo[h] || !validHandle(h) {
			return "", false
		}
		return "https://www.youtube.com/@" + h, true
	}
	if len(segs) < 2 || !validHandle(segs[1]) {
		return "", false
	}
	switch strings.ToLower(first) {
	case "channel":
		// Channel ids are case-sensitive.
		return "https://www.youtube.com/channel/" + segs[1], true
	case "c", "user":
		name := strings.ToLower(segs[1])
		if name == "youtube" || themeDemo[name] {
			return "", false
		}
		return "https://www.youtube.com/" + strings.ToLower(first) + "/" + name, true
	}
	return "", false
}
