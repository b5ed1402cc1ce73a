package ads

import (
	"strconv"
	"strings"
)

// Columns are the CSV columns this module produces, in spec order.
var Columns = []string{
	"ads_active", "ads_score", "ads_networks", "pixel_social", "pixel_search_ads",
	"cmp_vendor", "retargeting", "crm_marketing", "chat_widgets",
}

// Result is what Analyze found on a site. Lists are sorted and hold each
// name once.
type Result struct {
	// Active is true when an ad network, a social pixel or a search-ads
	// pixel is present.
	Active bool
	// Score is 0..100, see the package documentation.
	Score        int
	Networks     []string
	SocialPixels []string
	SearchPixels []string
	CMPs         []string
	Retargeting  []string
	CRMMarketing []string
	ChatWidgets  []string
}

// Values returns the row cells in Columns order: booleans as "true" or
// "false", the score as an integer, lists joined with "; ".
func (r Result) Values() []string {
	return []string{
		strconv.FormatBool(r.Active),
		strconv.Itoa(r.Score),
		strings.Join(r.Networks, "; "),
		strings.Join(r.SocialPixels, "; "),
		strings.Join(r.SearchPixels, "; "),
		strings.Join(r.CMPs, "; "),
		strings.Join(r.Retargeting, "; "),
		strings.Join(r.CRMMarketing, "; "),
		strings.Join(r.ChatWidgets, "; "),
	}
}
