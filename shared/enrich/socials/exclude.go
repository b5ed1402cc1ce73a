package socials

// First path segments that are the networks' own pages, share or intent
// links, plugins and pixels, never a business's profile.
var facebookReserved = set(
	"sharer", "sharer.php", "share", "share.php", "dialog", "plugins", "tr",
	"policy", "policies", "privacy", "help", "login", "login.php", "logout",
	"legal", "terms", "settings", "groups", "events", "watch", "photo",
	"photos", "hashtag", "home", "business", "ads", "about", "careers",
	"marketplace", "gaming", "search", "notifications", "messages", "reel",
	"reels", "stories", "story", "permalink", "media", "l", "v2.0", "v3.0",
	"recover", "r", "signup", "reg", "directory", "places", "fundraisers",
	"bookmarks", "friends", "profile", "pages", "people", "public", "badges",
	"developers", "cookies", "privacy_policy", "#", "intent", "sharing",
)

var instagramReserved = set(
	"p", "reel", "reels", "tv", "explore", "stories", "accounts", "about",
	"legal", "developer", "direct", "web", "oauth", "emails", "privacy",
	"terms", "challenge", "share", "sharer", "static", "embed",
)

var twitterReserved = set(
	"intent", "share", "home", "search", "hashtag", "i", "login", "signup",
	"settings", "tos", "privacy", "explore", "notifications", "messages",
	"compose", "widgets", "widgets.js", "account", "logout", "oauth",
	"intent.php", "help", "en", "fr", "about", "download",
)

// profileTabs are second path segments that still mean the profile itself
// (x.com/<handle>/media, instagram.com/<user>/reels).
var profileTabs = set("media", "likes", "with_replies", "reels", "tagged", "guides", "feed", "")

// themeDemo are the accounts of CMS and theme vendors that templates ship as
// placeholder social links (a Wix, WordPress or Shopify demo footer left as
// is), plus the placeholder names themes use.
var themeDemo = set(
	"wix", "wixcom", "wordpress", "wordpressdotcom", "elementor", "shopify",
	"squarespace", "webflow", "jimdo", "jimdocom", "godaddy", "weebly",
	"themeforest", "envato", "envatomarket", "themeisle", "astra", "wpastra",
	"oceanwp", "divi", "elegantthemes", "hostinger", "ovh", "ionos",
	"facebook", "meta", "instagram", "twitter", "x", "linkedin", "tiktok",
	"youtube", "google", "yourpage", "your-page", "yourname", "your-name",
	"username", "yourusername", "yourcompany", "your-company", "page", "pagename",
	"example", "company", "profile", "user", "account", "test", "demo",
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
