// Package modules is the module registry: one Go table declaring every
// module (active, alpha-frozen, coming soon) with its category, labels,
// the columns it needs and produces, its execution pool, its endpoint, and
// for a module of items its price, options and pipeline node. Job routes,
// prices, the pipeline node table, feature votes and the binding of
// modules to their code (enrich.NewSet) all read it from here.
package modules

import "slices"

// Category of a module.
type Category string

// Categories of the spec's registry entry.
const (
	Sources  Category = "sources"
	Enrich   Category = "enrich"
	Signals  Category = "signals"
	Outreach Category = "outreach"
	Tools    Category = "tools"
)

// Pool says how a module's jobs share the platform's outbound capacity.
type Pool int

// Pools of the spec: multi_proxy modules share one proxy pool (one such job at
// a time platform-wide), parallel ones use direct HTTP and run concurrently,
// meta entries are product features rather than job types.
const (
	NoPool Pool = iota
	MultiProxy
	Parallel
	Meta
)

// Label is a name in both languages of the product.
type Label struct {
	FR string `json:"fr"`
	EN string `json:"en"`
}

// Entry is one module.
type Entry struct {
	Slug             string   `json:"slug"`
	Category         Category `json:"category"`
	Label            Label    `json:"label"`
	Needs            []string `json:"needs"`
	Produces         []string `json:"produces"`
	Pipelinable      bool     `json:"pipelinable"`
	ComingSoon       bool     `json:"coming_soon"`
	AlphaUnavailable bool     `json:"alpha_unavailable"`
	AlphaReduced     bool     `json:"alpha_reduced"`
	APIEndpoint      *string  `json:"api_endpoint"`
	// Pool is the execution pool of an active module.
	Pool Pool `json:"-"`
	// NodeType is the module's pipeline node type when it differs from its slug
	// (verify_emails runs as the node type verify).
	NodeType string `json:"-"`
	// FeaturePage is the public sales page slug, "" when none exists.
	FeaturePage string `json:"-"`
	// EFPerItem is the price of one item with the default options, in
	// EF; 0 for a module that runs over no items. One EF is one map
	// search; a site module fetches a handful of pages of one site, which
	// costs the platform far less than a search (no provider bill, a few
	// hundred kilobytes of bandwidth), hence cents. docs/pricing.md gives
	// the reasoning per module.
	EFPerItem float64 `json:"-"`
	// Options are the settings of the module's jobs of items.
	Options []Option `json:"-"`
	// Node is where the module's pipeline node sits in the node table;
	// nil for a module that is no node, or whose node the pipelines
	// declare themselves (sources and processing).
	Node *Node `json:"-"`
}

// Node is a module's pipeline node: its category and the data types it
// takes and gives (service-api.md, "Node types").
type Node struct {
	Category string
	Input    string
	Output   string
}

// Items tells whether the module runs over items (it has an item price).
func (e Entry) Items() bool { return e.EFPerItem > 0 }

// Type returns the pipeline node type of the module.
func (e Entry) Type() string {
	if e.NodeType != "" {
		return e.NodeType
	}
	return e.Slug
}

func ep(path string) *string { return &path }

// Entries returns the registry, in slug order within each group. It returns a
// fresh slice each call: the table is data, not shared mutable state.
func Entries() []Entry {
	emailsMode := Option{Name: "mode", Kind: Enum, Values: []string{"normal", "deep"}, Default: "normal",
		NodeLabel: "Mode", InNode: true,
		// Deep mode fetches up to 25 pages instead of about 3 (spec).
		Factor: map[string]float64{"deep": 5},
		Doc:    "normal (default): the home, contact and legal pages; deep: a bounded crawl of the site, 5 times the price"}
	captureScreenshot := Option{Name: "capture_screenshot", Kind: Bool, Default: false,
		NodeLabel: "Capture d'écran", InNode: true,
		// A headless browser renders the home page: about 5 times the
		// work (spec).
		Factor: map[string]float64{"true": 5},
		Doc:    "render the home page in a headless browser (default false), 5 times the price"}
	reviewsOptions := []Option{
		{Name: "max_reviews", Kind: Int, Default: 10, Min: 1, Max: 100, Doc: "1 to 100, default 10"},
		{Name: "period_months", Kind: Int, Default: 0, Min: 0, Max: 120, ZeroMeans: Label{"sans limite", "unlimited"},
			Doc: "0 (unlimited, default) to 120"},
	}
	// cache_only, the contract's only live_mode: the live columns are
	// read through the per-number cache; with a line lookup configured, a
	// number the cache holds nothing fresh for is checked once and the
	// answer cached.
	liveMode := Option{Name: "live_mode", Kind: Enum, Values: []string{"cache_only"}, Default: "cache_only",
		NodeLabel: "Mode", InNode: true, Doc: "cache_only, the only value"}
	pois := []string{"nom", "site_web", "telephone", "adresse", "rating", "reviews_count", "category", "lien_maps", "aggregator_flag"}
	active := []Entry{
		{Slug: AdsIntelligence, Category: Enrich, Label: Label{"Intelligence publicitaire", "Ads intelligence"}, Needs: []string{"site_web"}, Produces: []string{"ads_active", "ads_score", "ads_networks", "pixel_social", "pixel_search_ads", "cmp_vendor", "retargeting", "crm_marketing", "chat_widgets"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/ads-intelligence"), Pool: Parallel, EFPerItem: 0.01, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: BrandAssets, Category: Enrich, Label: Label{"Identité visuelle", "Brand assets"}, Needs: []string{"site_web"}, Produces: []string{"logo_url", "logo_local_url", "logo_variants_local_urls", "favicon_url", "favicon_local_url", "brand_color", "brand_palette", "screenshot_local_url"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/brand-assets"), Pool: Parallel, EFPerItem: 0.02, Options: []Option{captureScreenshot}, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: DeadCheck, Category: Signals, Label: Label{"Sites morts", "Dead sites"}, Needs: []string{"site_web"}, Produces: []string{"site_alive"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/dead-check"), Pool: MultiProxy, EFPerItem: 0.005, Node: &Node{NodeVerify, PoisAny, Pois}},
		{Slug: DeliveryCheck, Category: Outreach, Label: Label{"Test de délivrabilité", "Delivery check"}, Needs: []string{"domain"}, Produces: []string{"placement"}, APIEndpoint: ep("/api/jobs/delivery-check"), Pool: Parallel},
		{Slug: Emails, Category: Enrich, Label: Label{"Emails", "Emails"}, Needs: []string{"site_web"}, Produces: []string{"email", "email_personal"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/emails"), Pool: MultiProxy, FeaturePage: "trouver-emails-entreprises", EFPerItem: 0.02, Options: []Option{emailsMode}, Node: &Node{NodeEnrich, PoisAny, PoisEmail}},
		{Slug: Filter, Category: Tools, Label: Label{"Filtre", "Filter"}, Pipelinable: true, APIEndpoint: ep("/api/pipelines"), Pool: Parallel},
		{Slug: Import, Category: Sources, Label: Label{"Import", "Import"}, Produces: []string{"rows"}, Pipelinable: true, APIEndpoint: ep("/api/pipelines"), Pool: Parallel},
		{Slug: LegalData, Category: Enrich, Label: Label{"Données légales", "Legal data"}, Needs: []string{"nom"}, Produces: []string{"siren", "forme_juridique", "capital_social", "effectif_tranche", "code_naf", "date_creation", "dirigeants", "ca", "resultat_net", "labels_qualite", "lead_status", "bodacc_procedure_collective", "bodacc_modifs_12m"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/legal-data"), Pool: MultiProxy, FeaturePage: "donnees-legales-entreprises", EFPerItem: 0.02, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: LegalIDs, Category: Enrich, Label: Label{"SIRET et SIREN", "Company ids"}, Needs: []string{"site_web"}, Produces: []string{"siret", "siren", "siret_source_url"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/legal-ids"), Pool: MultiProxy, EFPerItem: 0.01, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: LegalMentions, Category: Enrich, Label: Label{"Mentions légales", "Legal notices"}, Needs: []string{"site_web"}, Produces: []string{"raison_sociale", "forme_juridique", "capital_social", "rcs", "adresse_postale", "dirigeant", "tva_intracom"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/legal-mentions"), Pool: MultiProxy, EFPerItem: 0.01, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: Opendata, Category: Enrich, Label: Label{"Données ouvertes", "Open data"}, Needs: []string{"nom"}, Produces: []string{"site_web", "telephone", "email", "opendata_champs", "opendata_match", "opendata_source"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/opendata"), Pool: Parallel, EFPerItem: 0.01, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: PageSpeed, Category: Signals, Label: Label{"Performance web", "PageSpeed"}, Needs: []string{"site_web"}, Produces: []string{"perf_score", "seo_score", "accessibility_score", "best_practices_score", "lcp", "cls", "inp"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/pagespeed"), Pool: Parallel, FeaturePage: "audit-performance-sites", EFPerItem: 0.02, Node: &Node{NodeCheck, PoisAny, Pois}},
		{Slug: PhoneInfo, Category: Enrich, Label: Label{"Infos téléphone", "Phone info"}, Needs: []string{"telephone"}, Produces: []string{"phone_e164", "phone_national", "phone_country", "phone_line_type", "phone_carrier_original", "phone_carrier_current", "phone_is_ported", "phone_is_reachable", "phone_is_valid", "phone_operator_siret", "phone_operator_address", "phone_operator_registered_since"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/phone-info"), Pool: Parallel, EFPerItem: 0.002, Options: []Option{liveMode}, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: PhonesExtra, Category: Enrich, Label: Label{"Téléphones supplémentaires", "Extra phones"}, Needs: []string{"site_web"}, Produces: []string{"phones_extra", "phones_mobile", "phones_fixed"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/phones-extra"), Pool: MultiProxy, EFPerItem: 0.01, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: Pricing, Category: Enrich, Label: Label{"Tarifs", "Pricing"}, Needs: []string{"site_web"}, Produces: []string{"price_amount", "price_currency", "price_period", "price_confidence"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/pricing"), Pool: MultiProxy, EFPerItem: 0.01, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: Reviews, Category: Enrich, Label: Label{"Avis", "Reviews"}, Needs: []string{"lien_maps"}, Produces: []string{"reviews_list", "owner_replied"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/reviews"), Pool: MultiProxy, FeaturePage: "extraire-avis-google", EFPerItem: 1.0, Options: reviewsOptions, Node: &Node{NodeEnrich, PoisAny, ReviewRows}},
		{Slug: Scrap, Category: Sources, Label: Label{"Extraction Google Maps", "Maps scrape"}, Produces: pois, Pipelinable: true, APIEndpoint: ep("/api/jobs"), Pool: MultiProxy, FeaturePage: "scraper-google-maps"},
		{Slug: Sirene, Category: Sources, Label: Label{"Base SIRENE", "SIRENE register"}, Produces: []string{"nom", "adresse", "code_postal", "commune", "siret", "siren", "naf", "naf_libelle", "tranche_effectif", "date_creation", "is_siege"}, Pipelinable: true, APIEndpoint: ep("/api/pipelines"), Pool: Parallel, FeaturePage: "base-sirene-entreprises"},
		{Slug: SiteFinder, Category: Enrich, Label: Label{"Recherche de site", "Site finder"}, Needs: []string{"nom"}, Produces: []string{"site_web", "site_finder_match"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/site-finder"), Pool: MultiProxy, EFPerItem: 0.05, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: Socials, Category: Enrich, Label: Label{"Réseaux sociaux", "Social profiles"}, Needs: []string{"site_web"}, Produces: []string{"social_facebook", "social_instagram", "social_linkedin", "social_twitter", "social_tiktok", "social_youtube"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/socials"), Pool: MultiProxy, EFPerItem: 0.01, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: Sort, Category: Tools, Label: Label{"Tri", "Sort"}, Pipelinable: true, APIEndpoint: ep("/api/pipelines"), Pool: Parallel},
		{Slug: Techstack, Category: Enrich, Label: Label{"Stack technique", "Tech stack"}, Needs: []string{"site_web"}, Produces: []string{"tech_cms", "tech_analytics", "tech_ads_pixels"}, Pipelinable: true, APIEndpoint: ep("/api/jobs/techstack"), Pool: MultiProxy, FeaturePage: "detecter-stack-technique", EFPerItem: 0.01, Node: &Node{NodeEnrich, PoisAny, Pois}},
		{Slug: VerifyEmails, Category: Outreach, Label: Label{"Vérification d'emails", "Email verification"}, Needs: []string{"email"}, Produces: []string{"status", "category"}, Pipelinable: true, AlphaReduced: true, APIEndpoint: ep("/api/jobs/verify-emails"), Pool: Parallel, NodeType: "verify", FeaturePage: "verifier-emails", EFPerItem: 0.01, Node: &Node{NodeVerify, PoisEmail, Verified}},
		{Slug: ViewportTest, Category: Signals, Label: Label{"Test de viewport", "Viewport test"}, Needs: []string{"query", "bounds"}, Produces: []string{"report"}, APIEndpoint: ep("/api/jobs/viewport-test"), Pool: Parallel},
	}
	frozen := []Entry{
		{Slug: "finance", Category: Signals, Label: Label{"Données financières", "Financial data"}, Needs: []string{"siren"}, Produces: []string{"ca", "resultat_net"}, AlphaUnavailable: true, APIEndpoint: ep("/api/jobs/finance")},
	}
	meta := []Entry{
		{Slug: "pipeline", Category: Tools, Label: Label{"Pipelines", "Pipelines"}, APIEndpoint: ep("/api/pipelines"), Pool: Meta, FeaturePage: "pipelines-prospection"},
		{Slug: "public_api", Category: Tools, Label: Label{"API publique", "Public API"}, APIEndpoint: ep("/api/keys"), Pool: Meta, FeaturePage: "api-prospection"},
		{Slug: "veille", Category: Signals, Label: Label{"Veille", "Monitoring"}, APIEndpoint: ep("/api/veille"), Pool: Meta, FeaturePage: "veille-concurrentielle"},
	}
	return slices.Concat(active, frozen, meta, comingSoon())
}

// comingSoon are the modules announced but not built yet: feature-interest
// votes name them.
func comingSoon() []Entry {
	soon := func(slug string, c Category, fr, en string) Entry {
		return Entry{Slug: slug, Category: c, Label: Label{fr, en}, ComingSoon: true}
	}
	return []Entry{
		soon("ai_personalization", Outreach, "Personnalisation par IA", "AI personalization"),
		soon("ai_team_members", Tools, "Équipiers IA", "AI team members"),
		soon("ask_to_ai", Tools, "Demander à l'IA", "Ask the AI"),
		soon("bing_places", Sources, "Bing Places", "Bing Places"),
		soon("chrome_extension", Tools, "Extension Chrome", "Chrome extension"),
		soon("crm", Outreach, "CRM", "CRM"),
		soon("directories", Sources, "Annuaires", "Directories"),
		soon("funding", Signals, "Levées de fonds", "Funding"),
		soon("hiring", Signals, "Recrutements", "Hiring"),
		soon("integrations", Tools, "Intégrations", "Integrations"),
		soon("job_changes", Signals, "Changements de poste", "Job changes"),
		soon("linkedin", Enrich, "LinkedIn", "LinkedIn"),
		soon("mobile_phones", Enrich, "Téléphones mobiles", "Mobile phones"),
		soon("natural_filter", Tools, "Filtre en langage naturel", "Natural-language filter"),
		soon("pagesjaunes", Sources, "PagesJaunes", "PagesJaunes"),
		soon("press_monitoring", Signals, "Veille presse", "Press monitoring"),
		soon("review_patterns", Signals, "Tendances des avis", "Review patterns"),
		soon("seo_data", Signals, "Données SEO", "SEO data"),
		soon("tech_adoption", Signals, "Adoption technologique", "Tech adoption"),
		soon("whatsapp", Outreach, "WhatsApp", "WhatsApp"),
		soon("yelp_tripadvisor", Sources, "Yelp et Tripadvisor", "Yelp and Tripadvisor"),
	}
}

// Lookup returns the entry with the slug.
func Lookup(slug string) (Entry, bool) {
	for _, e := range Entries() {
		if e.Slug == slug {
			return e, true
		}
	}
	return Entry{}, false
}

// Flat is the body of GET /api/modules-registry.
type Flat struct {
	Active           []string           `json:"active"`
	MultiProxy       []string           `json:"multi_proxy"`
	Parallel         []string           `json:"parallel"`
	OnDemand         []string           `json:"on_demand"`
	Meta             []string           `json:"meta"`
	ComingSoon       []string           `json:"coming_soon"`
	AlphaUnavailable []string           `json:"alpha_unavailable"`
	AlphaReduced     []string           `json:"alpha_reduced"`
	FeaturePages     map[string]*string `json:"feature_pages"`
}

// Flatten derives the flat registry object from the entries.
func Flatten(entries []Entry) Flat {
	f := Flat{
		Active: []string{}, MultiProxy: []string{}, Parallel: []string{}, OnDemand: []string{},
		Meta: []string{}, ComingSoon: []string{}, AlphaUnavailable: []string{}, AlphaReduced: []string{},
		FeaturePages: map[string]*string{},
	}
	for _, e := range entries {
		switch {
		case e.ComingSoon:
			f.ComingSoon = append(f.ComingSoon, e.Slug)
			continue
		case e.AlphaUnavailable:
			f.AlphaUnavailable = append(f.AlphaUnavailable, e.Slug)
			continue
		case e.Pool == Meta:
			f.Meta = append(f.Meta, e.Slug)
			continue
		}
		f.Active = append(f.Active, e.Slug)
		var page *string
		if e.FeaturePage != "" {
			page = ep(e.FeaturePage)
		}
		f.FeaturePages[e.Slug] = page
		switch e.Pool {
		case MultiProxy:
			f.MultiProxy = append(f.MultiProxy, e.Slug)
		case Parallel:
			f.Parallel = append(f.Parallel, e.Slug)
		}
		if e.AlphaReduced {
			f.AlphaReduced = append(f.AlphaReduced, e.Type())
		}
	}
	for _, l := range [][]string{f.Active, f.MultiProxy, f.Parallel, f.Meta, f.ComingSoon, f.AlphaUnavailable, f.AlphaReduced} {
		slices.Sort(l)
	}
	return f
}

// FeatureIDs is the allow-list of feature-interest votes: the coming-soon
// slugs plus the legacy ids the spec keeps.
func FeatureIDs() []string {
	ids := []string{"company", "monitoring", "pagespeed"}
	for _, e := range Entries() {
		if e.ComingSoon {
			ids = append(ids, e.Slug)
		}
	}
	slices.Sort(ids)
	return ids
}
