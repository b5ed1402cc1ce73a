package socials

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/prospectdata/svc/shared/crawl"
)

// candidate is one profile link seen on a page.
type candidate struct {
	network Network
	url     string
	score   float64
}

// Scores (pick.go explains the rule).
const (
	scoreLink     = 1
	scoreArea     = 2
	scoreJSONLD   = 3
	scoreHostName = 3
)

// areaRe matches the class or id of the blocks a site's own profiles sit in:
// header, footer, navigation, contact and "follow us" blocks.
var areaRe = regexp.MustCompile(`(?i)footer|header|social|reseaux|réseaux|follow|suivez|contact|navbar|topbar|menu|sidebar|widget-area|site-info|copyright`)

// shareRe matches share-button containers (their links point at the
// visitor's own account) and credit lines (a photographer's profile).
var shareRe = regexp.MustCompile(`(?i)(^|[\s_-])(share|sharing|partage|partager|addtoany|a2a|addthis|sharedaddy|sharethis|shariff|credits?)([\s_-]|$)`)

// embedClasses are embedded posts (someone's tweet or Instagram post
// quoted in an article): their links are the author's, maybe not the site's.
var embedClasses = []string{"twitter-tweet", "instagram-media", "tiktok-embed", "fb-post", "fb-page"}

func pageCandidates(p *crawl.Page) []candidate {
	doc := p.Doc()
	host := hostName(p)
	var out []candidate
	add := func(href string, base float64) {
		u := p.Resolve(strings.TrimSpace(href))
		n, s, ok := canonical(u)
		if !ok {
			return
		}
		score := base
		if host != "" && handleMatches(s, host) {
			score += scoreHostName
		}
		out = append(out, candidate{network: n, url: s, score: score})
	}
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		inArea, skip := placement(a)
		if skip {
			return
		}
		score := float64(scoreLink)
		if inArea {
			score += scoreArea
		}
		add(a.AttrOr("href", ""), score)
	})
	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		for _, href := range sameAs(s.Text()) {
			add(href, scoreJSONLD)
		}
	})
	return out
}

// placement reports whether the link sits in a header/footer/contact-like
// area, and whether it sits in a share bar or an embedded post (skip).
func placement(a *goquery.Selection) (inArea, skip bool) {
	for n := a.Get(0); n != nil; n = n.Parent {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "header", "footer", "nav", "address":
			inArea = true
		}
		var classID string
		for _, at := range n.Attr {
			if at.Key == "class" || at.Key == "id" || at.Key == "aria-label" {
				classID += " " + at.Val
			}
		}
		if classID == "" {
			continue
		}
		if shareRe.MatchString(classID) {
			return false, true
		}
		for _, c := range embedClasses {
			if strings.Contains(classID, c) {
				return false, true
			}
		}
		if areaRe.MatchString(classID) {
			inArea = true
		}
	}
	return inArea, false
}

// sameAs returns the sameAs URLs of a JSON-LD block (object, array or
// @graph, at any depth). A block that does not parse gives nothing.
func sameAs(raw string) []string {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &v); err != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for k, e := range t {
				if k == "sameAs" {
					switch s := e.(type) {
					case string:
						out = append(out, s)
					case []any:
						for _, x := range s {
							if str, ok := x.(string); ok {
								out = append(out, str)
							}
						}
					}
					continue
				}
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// hostName returns the site's name as its host spells it, letters and
// digits only: "www.boulangerie-martin.fr" gives "boulangeriemartin".
func hostName(p *crawl.Page) string {
	if p.URL == nil {
		return ""
	}
	labels := strings.Split(strings.TrimPrefix(strings.ToLower(p.URL.Hostname()), "www."), ".")
	if len(labels) >= 2 {
		labels = labels[:len(labels)-1]
	}
	return alnum(labels[len(labels)-1])
}

// handleMatches reports whether the profile's handle and the site's host
// name contain one another (at least four characters in common).
func handleMatches(profile, host string) bool {
	i := strings.LastIndexAny(strings.TrimRight(profile, "/"), "/@=")
	h := alnum(strings.ToLower(strings.TrimRight(profile, "/")[i+1:]))
	if len(h) < 4 || len(host) < 4 {
		return false
	}
	return strings.Contains(h, host) || strings.Contains(host, h)
}

func alnum(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}
