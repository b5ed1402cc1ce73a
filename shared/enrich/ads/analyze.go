package ads

import (
	"sort"

	"github.com/prospectdata/svc/shared/crawl"
)

// Analyze looks for advertising, consent, CRM and chat tags over all the
// pages of one site; nil pages are skipped. It only reads the pages.
func Analyze(pages []*crawl.Page) Result {
	ev := gather(pages)
	var res Result
	var found []rule
	for _, r := range rules {
		if !r.matches(ev) {
			continue
		}
		found = append(found, r)
		for _, c := range []struct {
			k    kind
			list *[]string
		}{
			{network, &res.Networks}, {social, &res.SocialPixels}, {search, &res.SearchPixels},
			{cmp, &res.CMPs}, {retarget, &res.Retargeting}, {crm, &res.CRMMarketing}, {chat, &res.ChatWidgets},
		} {
			if r.kinds&c.k != 0 {
				*c.list = append(*c.list, r.name)
			}
		}
	}
	for _, l := range [][]string{res.Networks, res.SocialPixels, res.SearchPixels, res.CMPs,
		res.Retargeting, res.CRMMarketing, res.ChatWidgets} {
		sort.Strings(l)
	}
	res.Active = len(res.Networks)+len(res.SocialPixels)+len(res.SearchPixels) > 0
	res.Score = score(found)
	return res
}
