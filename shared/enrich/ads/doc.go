// Package ads is the "ads_intelligence" enrichment (service-api.md, "Node
// types"): from a site's already fetched pages it tells whether the business
// pays for advertising, through which networks and pixels, and which
// consent, CRM and chat tools surround them.
//
// # Evidence
//
// A tag is seen in script addresses (src, and data-src for scripts a consent
// manager holds back), the text of inline scripts, iframe addresses, the
// tracking images inside <noscript>, <link> addresses (preconnect,
// dns-prefetch, preload, stylesheets), form actions, a few element markers,
// and the names of cookies in Set-Cookie headers.
//
// Choices the spec leaves open:
//   - A script blocked until consent (type="text/plain", the form
//     tarteaucitron, Cookiebot, Complianz and Axeptio give it) counts: the
//     tag is installed and fires for every visitor who accepts, which under
//     French consent rules is the only way a tag may be installed.
//   - A tag inside an HTML comment, or behind // or /* */ in a script, does
//     not count: commented-out code never runs, and is usually a campaign
//     that was stopped.
//   - A Google Tag Manager container alone is not an ad network: what it
//     loads is decided server-side and invisible in the page. Its gtag.js
//     counts as Google Ads only when loaded or configured with an "AW-"
//     conversion id.
//   - AdRoll and RTB House are retargeting networks that sell ad space, so
//     they appear in both ads_networks and retargeting, as Criteo does.
//
// # ads_score
//
// ads_score (0..100) estimates how much the business spends on online ads.
// Weights, summed then capped at 100:
//
//	Google Ads                            30  search ads are paid per click: direct, recurring spend
//	Microsoft Advertising                 15  bought by those who already buy Google, so a second, smaller step
//	Meta Pixel                            15  the most common paid-social channel of small businesses
//	each other social pixel               10  LinkedIn, TikTok, Pinterest, Snapchat, X
//	  (social pixels together at most 30: agencies install several at once)
//	retargeting (any)                     15  audiences are only built to buy impressions for them
//	each display/native network           10  DoubleClick, Criteo, Taboola, Outbrain, Amazon, AdRoll, RTB House
//	  (display networks together at most 20)
//	CRM / marketing automation (any)       5  a lead funnel that paid traffic feeds, not spend by itself
//
// Consent managers and chat widgets weigh nothing: they say nothing about
// spend. A site whose only tag is a social pixel scores 15 to 30, one with
// Google Ads and a Meta pixel with retargeting 60 and more.
package ads
