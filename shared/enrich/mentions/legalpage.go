package mentions

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/prospectdata/svc/shared/crawl"
)

var (
	legalTitleRe = regexp.MustCompile(`(?i)mentions?[\s\-]+l[ée]gales?|informations?[\s\-]+l[ée]gales?|notices?[\s\-]+l[ée]gales?|impressum|legal[\s\-]+(notice|information|mentions)|site[\s\-]+notice|mentions[\s\-]+obligatoires`)
	legalPathRe  = regexp.MustCompile(`(?i)mentions[\-_]?legales|informations[\-_]?legales|impressum|legal[\-_]?notice`)
)

// IsLegalPage reports whether p is a legal notice: its title or a main
// heading says so (mentions légales, informations légales, impressum, legal
// notice), or, lacking both, its address does.
func IsLegalPage(p *crawl.Page) bool {
	if p == nil || len(p.Body) == 0 {
		return false
	}
	doc := p.Doc()
	if legalTitleRe.MatchString(doc.Find("title").First().Text()) {
		return true
	}
	found := false
	doc.Find("h1, h2").Not("footer h1, footer h2").EachWithBreak(func(i int, s *goquery.Selection) bool {
		if i >= 4 {
			return false
		}
		t := strings.TrimSpace(s.Text())
		if len(t) < 80 && legalTitleRe.MatchString(t) {
			found = true
		}
		return !found
	})
	if found {
		return true
	}
	return p.URL != nil && legalPathRe.MatchString(p.URL.Path)
}
