// Package socials finds a business's own social-network profiles on its
// website (the `socials` enrichment, spec "Node types": social_facebook,
// social_instagram, social_linkedin, social_twitter, social_tiktok,
// social_youtube).
//
// Every profile is given in one canonical form per network (canonical.go),
// so the same profile linked three ways counts once and two sites' columns
// compare as strings.
//
// When a page links several profiles of one network, the one kept is the one
// with the highest score (pick.go): a profile declared in JSON-LD sameAs or
// linked from the header, footer, navigation or a contact/social block beats
// one linked from the body text, a handle that matches the site's host name
// beats one that does not, and repeated links add up; ties go to the first
// seen, pages taken in the order given.
package socials

import (
	"github.com/prospectdata/svc/shared/crawl"
)

// Network names one social network, in Columns order.
type Network int

// The networks, in Columns order.
const (
	Facebook Network = iota
	Instagram
	LinkedIn
	Twitter
	TikTok
	YouTube
	numNetworks
)

// Columns are the columns the module produces, in output order.
var Columns = []string{
	"social_facebook",
	"social_instagram",
	"social_linkedin",
	"social_twitter",
	"social_tiktok",
	"social_youtube",
}

// Result holds one canonical profile URL per network, "" when none was found.
type Result struct {
	Facebook  string
	Instagram string
	LinkedIn  string
	Twitter   string
	TikTok    string
	YouTube   string
}

// Values returns the profiles in Columns order.
func (r Result) Values() []string {
	return []string{r.Facebook, r.Instagram, r.LinkedIn, r.Twitter, r.TikTok, r.YouTube}
}

// Get returns the profile found for one network.
func (r Result) Get(n Network) string {
	return r.Values()[n]
}

func (r *Result) set(n Network, v string) {
	switch n {
	case Facebook:
		r.Facebook = v
	case Instagram:
		r.Instagram = v
	case LinkedIn:
		r.LinkedIn = v
	case Twitter:
		r.Twitter = v
	case TikTok:
		r.TikTok = v
	case YouTube:
		r.YouTube = v
	}
}

// Find returns the site's profiles found over its fetched pages (home,
// contact, legal notice...). Nil pages and pages without a body are skipped.
func Find(pages []*crawl.Page) Result {
	var all []candidate
	for _, p := range pages {
		if p == nil || len(p.Body) == 0 {
			continue
		}
		all = append(all, pageCandidates(p)...)
	}
	return pick(all)
}
