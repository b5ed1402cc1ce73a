package techstack

import (
	"html"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/prospectdata/svc/shared/crawl"
)

// wappalyzergo matches script addresses, raw HTML, meta tags, headers and
// cookies, but does not evaluate JavaScript globals, DOM selectors or the
// text of inline scripts (its fingerprints' "js", "dom" and "scripts"
// entries are never used). Ad pixels and marketing tags are almost always an
// inline snippet that injects its loader at run time, so two fallbacks
// close the gap:
//
//  1. loaderTags: every address written in an inline script, and every
//     data-src a consent manager holds back, is handed back to wappalyzergo
//     as a <script src>, so the database's own scriptSrc fingerprints
//     recognise the loader (Hotjar, LinkedIn Insight, Twitter Ads, Taboola,
//     Outbrain, Marketo, ActiveCampaign, ...).
//  2. fallbackRules: tags with no address the database knows, or known to
//     it only by a JavaScript global or a DOM selector. Each rule is
//     exercised by a page in testdata/, and each name is a technology of
//     the database, so its category, and so its column, still comes from
//     the database (New checks this).
var fallbackRules = []fallbackRule{
	{
		// Also tarteaucitron's installer, which takes the pixel id only.
		name:   "Facebook Pixel",
		urls:   []string{"/fbevents.js", "facebook.com/tr?", "facebook.com/tr/?"},
		inline: regexp.MustCompile(`fbq\(\s*['"]init['"]|facebookpixelId`),
	},
	{
		name:   "TikTok Pixel",
		urls:   []string{"analytics.tiktok.com/i18n/pixel"},
		inline: regexp.MustCompile(`analytics\.tiktok\.com|\bttq\.load\(`),
	},
	{
		name:   "Pinterest Conversion Tag",
		urls:   []string{"s.pinimg.com/ct/core.js", "ct.pinterest.com/v3"},
		inline: regexp.MustCompile(`pintrk\(\s*['"]load['"]|s\.pinimg\.com/ct/core\.js`),
	},
	{
		name:   "Snap Pixel",
		urls:   []string{"sc-static.net/scevent"},
		inline: regexp.MustCompile(`sc-static\.net/scevent|\bsnaptr\(\s*['"]init['"]`),
	},
	{
		// An "AW-" conversion id in gtag, or the legacy conversion.js.
		name:   "Google Ads",
		urls:   []string{"googletagmanager.com/gtag/js?id=aw-", "googleadservices.com/pagead/conversion"},
		inline: regexp.MustCompile(`['"]AW-\d{6,}|google_conversion_id\s*=`),
	},
	{
		// tarteaucitron's installer loads gtag.js itself.
		name:   "Google Analytics",
		inline: regexp.MustCompile(`tarteaucitron\.user\.(?:gtagUa|analyticsUa)\s*=`),
	},
	{
		name:   "Squarespace",
		urls:   []string{"static1.squarespace.com/static/", "assets.squarespace.com/universal/"},
		inline: regexp.MustCompile(`Static\.SQUARESPACE_CONTEXT`),
	},
	{
		name:   "Shopify",
		urls:   []string{"cdn.shopify.com/s/files/", "cdn.shopify.com/shopifycloud/"},
		inline: regexp.MustCompile(`\bShopify\.shop\s*=`),
	},
	{
		name: "Jimdo",
		urls: []string{"assets.jimstatic.com/"},
	},
	{
		// The database only knows a comment HubSpot no longer writes.
		name: "HubSpot",
		urls: []string{"hs-scripts.com/", "hsforms.net/"},
	},
	{
		name:   "Matomo Analytics",
		inline: regexp.MustCompile(`_paq\.push\(\s*\[\s*['"]trackPageView['"]`),
	},
	{
		name: "Plausible",
		urls: []string{"plausible.io/js/script"},
	},
	{
		name: "Plezi",
		urls: []string{"plezi.co/"},
	},
}

type fallbackRule struct {
	name string
	// urls are lower-case fragments of a script, iframe, image or link
	// address.
	urls []string
	// inline matches the text of an inline script.
	inline *regexp.Regexp
}

// pageTraces is what the fallbacks look at on one page.
type pageTraces struct {
	urls   []string // lower-cased
	inline []string // comments removed
	// loaders are addresses wappalyzergo does not see as a <script src>:
	// those written in inline scripts and those held in data-src.
	loaders []string
}

var (
	// jsBlockComment and jsLineComment find JavaScript comments; a line
	// comment is only taken when it starts the line, so that the "//" of
	// an address inside a string is left alone. Commented-out tags do not
	// run, so they do not count.
	jsBlockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	jsLineComment  = regexp.MustCompile(`(?m)^[ \t]*//.*$`)
	// scriptAddress is an absolute or scheme-relative address written in
	// script text, up to the quote that ends the string.
	scriptAddress = regexp.MustCompile(`(?:https?:)?//[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+(?:/[^\s'"<>\\]*)?`)
)

// tracesOf collects script, iframe and link addresses, the images of
// <noscript> pixels, and the text of inline scripts. Scripts held back by a
// consent manager (type="text/plain", address in data-src) count: the tag is
// installed and fires once the visitor agrees.
func tracesOf(p *crawl.Page) pageTraces {
	var t pageTraces
	doc := p.Doc()
	doc.Find("script").Each(func(_ int, s *goquery.Selection) {
		typ := strings.ToLower(strings.TrimSpace(s.AttrOr("type", "")))
		if strings.Contains(typ, "json") {
			return
		}
		if v := s.AttrOr("src", ""); v != "" {
			t.urls = append(t.urls, strings.ToLower(v))
		}
		if v := s.AttrOr("data-src", ""); v != "" {
			t.urls = append(t.urls, strings.ToLower(v))
			t.loaders = append(t.loaders, v)
		}
		txt := s.Text()
		if strings.TrimSpace(txt) == "" {
			return
		}
		txt = jsLineComment.ReplaceAllString(jsBlockComment.ReplaceAllString(txt, ""), "")
		t.inline = append(t.inline, txt)
		t.loaders = append(t.loaders, scriptAddress.FindAllString(txt, -1)...)
	})
	doc.Find("iframe[src], link[href]").Each(func(_ int, s *goquery.Selection) {
		v := s.AttrOr("src", s.AttrOr("href", ""))
		t.urls = append(t.urls, strings.ToLower(v))
	})
	// With scripting on, the HTML parser keeps <noscript> content as text;
	// parse it again to reach the tracking images inside.
	doc.Find("noscript").Each(func(_ int, s *goquery.Selection) {
		inner, err := goquery.NewDocumentFromReader(strings.NewReader(s.Text()))
		if err != nil {
			return
		}
		inner.Find("img[src], iframe[src]").Each(func(_ int, e *goquery.Selection) {
			t.urls = append(t.urls, strings.ToLower(e.AttrOr("src", "")))
		})
	})
	return t
}

// loaderPage renders the loader addresses as script tags, for
// wappalyzergo; nil when there are none.
func (t pageTraces) loaderPage() []byte {
	if len(t.loaders) == 0 {
		return nil
	}
	var b strings.Builder
	for _, u := range t.loaders {
		b.WriteString(`<script src="`)
		b.WriteString(html.EscapeString(u))
		b.WriteString(`"></script>`)
	}
	return []byte(b.String())
}

// matches reports whether the rule fires on the traces.
func (r fallbackRule) matches(t pageTraces) bool {
	for _, u := range t.urls {
		for _, frag := range r.urls {
			if strings.Contains(u, frag) {
				return true
			}
		}
	}
	if r.inline != nil {
		for _, txt := range t.inline {
			if r.inline.MatchString(txt) {
				return true
			}
		}
	}
	return false
}
