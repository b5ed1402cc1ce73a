package modules

// Slugs of the modules the code names: every other package names a module
// by these, never by a string of its own.
const (
	AdsIntelligence = "ads_intelligence"
	BrandAssets     = "brand_assets"
	DeadCheck       = "dead_check"
	DeliveryCheck   = "delivery_check"
	Emails          = "emails"
	Filter          = "filter"
	Import          = "import"
	LegalData       = "legal_data"
	LegalIDs        = "legal_ids"
	LegalMentions   = "legal_mentions"
	Opendata        = "opendata"
	PageSpeed       = "pagespeed"
	PhoneInfo       = "phone_info"
	PhonesExtra     = "phones_extra"
	Pricing         = "pricing"
	Reviews         = "reviews"
	Scrap           = "scrap"
	Sirene          = "sirene"
	SiteFinder      = "site_finder"
	Socials         = "socials"
	Sort            = "sort"
	Techstack       = "techstack"
	VerifyEmails    = "verify_emails"
	ViewportTest    = "viewport_test"
)

// Categories and data types of the pipeline node table (service-api.md,
// "Node types"): a module's Node names them, and the pipelines' table
// reads them.
const (
	NodeSource  = "source"
	NodeEnrich  = "enrich"
	NodeVerify  = "verify"
	NodeCheck   = "check"
	NodeProcess = "process"

	Pois        = "pois"        // businesses
	PoisEmail   = "pois_email"  // businesses with an email column
	Verified    = "verified"    // emails verified
	ReviewRows  = "reviews"     // businesses with their reviews
	PoisAny     = "pois_any"    // input: pois or pois_email
	AnyPois     = "any_pois"    // input: pois, pois_email or verified
	Passthrough = "passthrough" // output: the input's type (filter, sort)
)
