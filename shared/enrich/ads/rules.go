package ads

import (
	"regexp"
	"strings"
)

// kind is a bit set of the columns a tag feeds.
type kind uint8

const (
	network kind = 1 << iota
	social
	search
	cmp
	retarget
	crm
	chat
)

// rule recognises one tag. Any one of its matchers is enough.
type rule struct {
	name  string
	kinds kind
	// urls are lower-case fragments of a tag's address.
	urls []string
	// inline matches the text of an inline script (comments removed),
	// where snippets create their loader or call their global.
	inline *regexp.Regexp
	// cookies are lower-case prefixes of the cookie names the tag sets.
	cookies []string
	// selector is a CSS selector of the element the tag needs in the page.
	selector string
}

// rules are the tags this module knows. Addresses are those of the vendors'
// current install snippets; inline patterns also catch the service names of
// tarteaucitron's installer ("facebookpixelId", "linkedininsighttag", ...).
var rules = []rule{
	// Search ads: paid clicks.
	{name: "Google Ads", kinds: network | search,
		urls: []string{"googletagmanager.com/gtag/js?id=aw-", "googleadservices.com/pagead/conversion",
			"googleads.g.doubleclick.net/pagead/viewthroughconversion"},
		inline: regexp.MustCompile(`['"]AW-\d{6,}|google_conversion_id\s*=|googleadservices\.com/pagead/conversion`)},
	{name: "Microsoft Advertising", kinds: network | search,
		urls:    []string{"bat.bing.com"},
		inline:  regexp.MustCompile(`bat\.bing\.com/bat\.js|\buetq\b|bingadsTag`),
		cookies: []string{"_uetsid", "_uetvid"}},

	// Display, native and retargeting networks.
	{name: "Google DoubleClick", kinds: network,
		urls: []string{"securepubads.g.doubleclick.net", "//ad.doubleclick.net", "fls.doubleclick.net",
			"googletagservices.com/tag/js/gpt.js"},
		inline: regexp.MustCompile(`['"]DC-\d{6,}|fls\.doubleclick\.net|googletag\.defineSlot\(`)},
	{name: "Criteo", kinds: network | retarget,
		urls:    []string{"criteo.net", "criteo.com"},
		inline:  regexp.MustCompile(`\bcriteo_q\b|static\.criteo\.net`),
		cookies: []string{"cto_bundle"}},
	{name: "Taboola", kinds: network,
		urls:   []string{"taboola.com"},
		inline: regexp.MustCompile(`\b_tfa\.push\(|window\._taboola\b|cdn\.taboola\.com`)},
	{name: "Outbrain", kinds: network,
		urls:   []string{"outbrain.com"},
		inline: regexp.MustCompile(`\bobApi\(|amplify\.outbrain\.com`)},
	{name: "Amazon Ads", kinds: network,
		urls:   []string{"amazon-adsystem.com"},
		inline: regexp.MustCompile(`amazon-adsystem\.com`)},
	{name: "AdRoll", kinds: network | retarget,
		urls:   []string{"adroll.com"},
		inline: regexp.MustCompile(`\badroll_adv_id\b|s\.adroll\.com`)},
	{name: "RTB House", kinds: network | retarget,
		urls:   []string{"creativecdn.com"},
		inline: regexp.MustCompile(`creativecdn\.com`)},
	{name: "Google remarketing", kinds: retarget,
		urls:   []string{"googleads.g.doubleclick.net/pagead/viewthroughconversion", "googletagmanager.com/gtag/js?id=aw-"},
		inline: regexp.MustCompile(`gtag\(\s*['"]config['"]\s*,\s*['"]AW-\d+|google_remarketing_only\s*=\s*true|googleadwordsremarketing`)},

	// Social pixels.
	{name: "Meta Pixel", kinds: social | retarget,
		urls:    []string{"/fbevents.js", "facebook.com/tr?", "facebook.com/tr/?"},
		inline:  regexp.MustCompile(`fbq\(\s*['"]init['"]|/fbevents\.js|facebookpixelId`),
		cookies: []string{"_fbp"}},
	{name: "LinkedIn Insight", kinds: social,
		urls:   []string{"snap.licdn.com/li.lms-analytics", "px.ads.linkedin.com"},
		inline: regexp.MustCompile(`_linkedin_partner_id|snap\.licdn\.com/li\.lms-analytics|linkedininsighttag`)},
	{name: "TikTok Pixel", kinds: social,
		urls:    []string{"analytics.tiktok.com"},
		inline:  regexp.MustCompile(`analytics\.tiktok\.com|\bttq\.load\(`),
		cookies: []string{"_ttp"}},
	{name: "Pinterest Tag", kinds: social,
		urls:   []string{"s.pinimg.com/ct/", "ct.pinterest.com"},
		inline: regexp.MustCompile(`\bpintrk\(|s\.pinimg\.com/ct/`)},
	{name: "Snap Pixel", kinds: social,
		urls:   []string{"sc-static.net/scevent", "tr.snapchat.com"},
		inline: regexp.MustCompile(`\bsnaptr\(|sc-static\.net/scevent`)},
	{name: "X Pixel", kinds: social,
		urls:   []string{"static.ads-twitter.com", "analytics.twitter.com", "t.co/i/adsct"},
		inline: regexp.MustCompile(`\btwq\(|static\.ads-twitter\.com`)},

	// Consent managers.
	{name: "Axeptio", kinds: cmp,
		urls:    []string{"static.axept.io"},
		inline:  regexp.MustCompile(`axeptioSettings|static\.axept\.io`),
		cookies: []string{"axeptio_"}},
	{name: "Didomi", kinds: cmp,
		urls:    []string{"sdk.privacy-center.org"},
		inline:  regexp.MustCompile(`didomiConfig|sdk\.privacy-center\.org`),
		cookies: []string{"didomi_token"}},
	{name: "OneTrust", kinds: cmp,
		urls:    []string{"cdn.cookielaw.org", "otsdkstub.js", "optanon.blob.core.windows.net"},
		cookies: []string{"optanonconsent", "optanonalertboxclosed"}},
	{name: "Cookiebot", kinds: cmp,
		urls:     []string{"consent.cookiebot.com", "consent.cookiebot.eu"},
		selector: "script#Cookiebot"},
	{name: "tarteaucitron", kinds: cmp,
		urls:    []string{"tarteaucitron"},
		inline:  regexp.MustCompile(`tarteaucitron\.init\(`),
		cookies: []string{"tarteaucitron"}},
	{name: "Quantcast Choice", kinds: cmp,
		urls:   []string{"quantcast.mgr.consensu.org", "cmp.quantcast.com"},
		inline: regexp.MustCompile(`quantcast\.mgr\.consensu\.org|cmp\.quantcast\.com`)},
	{name: "CookieYes", kinds: cmp,
		urls:    []string{"cdn-cookieyes.com", "app.cookieyes.com", "/plugins/cookie-law-info/"},
		cookies: []string{"cookieyes-consent"}},
	{name: "Complianz", kinds: cmp,
		urls:    []string{"/plugins/complianz-gdpr/"},
		inline:  regexp.MustCompile(`\bcomplianz\s*=|\bcmplz_`),
		cookies: []string{"cmplz_"}},
	{name: "Sirdata", kinds: cmp,
		urls: []string{"consentframework.com", "js.sddan.com"}},
	{name: "Iubenda", kinds: cmp,
		urls:    []string{"iubenda.com"},
		inline:  regexp.MustCompile(`\b_iub\.csConfiguration`),
		cookies: []string{"_iub_cs"}},
	{name: "Usercentrics", kinds: cmp,
		urls: []string{"usercentrics.eu"}},

	// CRM and marketing automation.
	{name: "HubSpot", kinds: crm,
		urls:    []string{"js.hs-scripts.com", "js.hs-analytics.net", "js.hsforms.net", "js-eu1.hs-scripts.com"},
		inline:  regexp.MustCompile(`\b_hsq\b|hbspt\.forms\.create`),
		cookies: []string{"hubspotutk", "__hstc"}},
	{name: "Pardot", kinds: crm,
		urls:   []string{"pi.pardot.com", "pardot.com/pd.js", "go.pardot.com"},
		inline: regexp.MustCompile(`\bpiAId\s*=|pi\.pardot\.com`)},
	{name: "Brevo", kinds: crm,
		urls:   []string{"sibautomation.com", "sibforms.com", "cdn.brevo.com", "sendinblue.com"},
		inline: regexp.MustCompile(`sibautomation\.com|cdn\.brevo\.com|\bBrevo\.push\(|sendinblue\.`)},
	{name: "Mailchimp", kinds: crm,
		urls:   []string{"chimpstatic.com", "list-manage.com", "mailchimp.com/js/mc-validate"},
		inline: regexp.MustCompile(`chimpstatic\.com`)},
	{name: "ActiveCampaign", kinds: crm,
		urls:   []string{"trackcmp.net", ".activehosted.com"},
		inline: regexp.MustCompile(`trackcmp\.net|\bvgo\(\s*['"]setAccount`)},
	{name: "Plezi", kinds: crm,
		urls:   []string{"plezi.co/"},
		inline: regexp.MustCompile(`plezi\.co/`)},
	{name: "Klaviyo", kinds: crm,
		urls:    []string{"klaviyo.com"},
		inline:  regexp.MustCompile(`\b_learnq\b|static\.klaviyo\.com`),
		cookies: []string{"__kla_id"}},
	{name: "Marketo", kinds: crm,
		urls:   []string{"munchkin.marketo.net", "marketo.com/js/forms"},
		inline: regexp.MustCompile(`Munchkin\.init\(|munchkin\.marketo\.net`)},
	{name: "Zoho SalesIQ", kinds: crm,
		urls:   []string{"salesiq.zoho", "salesiq.zohopublic"},
		inline: regexp.MustCompile(`\$zoho\.salesiq|salesiq\.zoho`)},

	// Chat widgets.
	{name: "Intercom", kinds: chat,
		urls:   []string{"widget.intercom.io", "js.intercomcdn.com"},
		inline: regexp.MustCompile(`intercomSettings|widget\.intercom\.io`)},
	{name: "Crisp", kinds: chat,
		urls:   []string{"client.crisp.chat"},
		inline: regexp.MustCompile(`CRISP_WEBSITE_ID|client\.crisp\.chat`)},
	{name: "Zendesk Chat", kinds: chat,
		urls:   []string{"static.zdassets.com/ekr/snippet.js", "zopim.com"},
		inline: regexp.MustCompile(`\$zopim\b|static\.zdassets\.com/ekr/snippet\.js`)},
	{name: "Tawk.to", kinds: chat,
		urls:   []string{"embed.tawk.to"},
		inline: regexp.MustCompile(`\bTawk_API\b|embed\.tawk\.to`)},
	{name: "Drift", kinds: chat,
		urls:   []string{"js.driftt.com"},
		inline: regexp.MustCompile(`js\.driftt\.com|\bdrift\.load\(`)},
	{name: "LiveChat", kinds: chat,
		urls:   []string{"cdn.livechatinc.com"},
		inline: regexp.MustCompile(`__lc\.license|cdn\.livechatinc\.com`)},
	{name: "Tidio", kinds: chat,
		urls:   []string{"code.tidio.co"},
		inline: regexp.MustCompile(`code\.tidio\.co`)},
	{name: "HubSpot Chat", kinds: chat,
		urls:     []string{"js.usemessages.com"},
		selector: "#hubspot-messages-iframe-container"},
	{name: "Freshchat", kinds: chat,
		urls:   []string{"wchat.freshchat.com"},
		inline: regexp.MustCompile(`fcWidget\.init\(|wchat\.freshchat\.com`)},
	{name: "Messenger", kinds: chat,
		urls:     []string{"xfbml.customerchat.js"},
		selector: ".fb-customerchat, #fb-customer-chat"},
	{name: "Smartsupp", kinds: chat,
		urls:   []string{"smartsuppchat.com"},
		inline: regexp.MustCompile(`_smartsupp\.key|smartsuppchat\.com`)},
	{name: "Userlike", kinds: chat,
		urls:   []string{"userlike-cdn-widgets", "userlike.com"},
		inline: regexp.MustCompile(`userlike-cdn-widgets|userlikelib`)},
}

// matches reports whether the rule finds its tag in ev.
func (r rule) matches(ev evidence) bool {
	for _, u := range ev.urls {
		for _, frag := range r.urls {
			if strings.Contains(u, frag) {
				return true
			}
		}
	}
	if r.inline != nil {
		for _, txt := range ev.inline {
			if r.inline.MatchString(txt) {
				return true
			}
		}
	}
	for _, c := range ev.cookies {
		for _, prefix := range r.cookies {
			if strings.HasPrefix(c, prefix) {
				return true
			}
		}
	}
	if r.selector != "" {
		for _, d := range ev.docs {
			if d.Find(r.selector).Length() > 0 {
				return true
			}
		}
	}
	return false
}
