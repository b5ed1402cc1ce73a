package modules

import (
	"slices"
	"strings"
	"testing"
)

func words(s string) []string {
	f := strings.Split(s, ", ")
	slices.Sort(f)
	return f
}

// The lists of the spec's "GET /api/modules-registry response keys" table.
func TestFlatMatchesSpec(t *testing.T) {
	f := Flatten(Entries())
	tests := []struct {
		key  string
		got  []string
		spec string
	}{
		{"active", f.Active, "ads_intelligence, brand_assets, dead_check, delivery_check, emails, filter, import, legal_data, legal_ids, legal_mentions, opendata, pagespeed, phone_info, phones_extra, pricing, reviews, scrap, sirene, site_finder, socials, sort, techstack, verify_emails, viewport_test"},
		{"multi_proxy", f.MultiProxy, "dead_check, emails, legal_data, legal_ids, legal_mentions, phones_extra, pricing, reviews, scrap, site_finder, socials, techstack"},
		{"parallel", f.Parallel, "ads_intelligence, brand_assets, delivery_check, filter, import, opendata, pagespeed, phone_info, sirene, sort, verify_emails, viewport_test"},
		{"meta", f.Meta, "pipeline, public_api, veille"},
		{"coming_soon", f.ComingSoon, "ai_personalization, ai_team_members, ask_to_ai, bing_places, chrome_extension, crm, directories, funding, hiring, integrations, job_changes, linkedin, mobile_phones, natural_filter, pagesjaunes, press_monitoring, review_patterns, seo_data, tech_adoption, whatsapp, yelp_tripadvisor"},
		{"alpha_unavailable", f.AlphaUnavailable, "finance"},
		{"alpha_reduced", f.AlphaReduced, "verify"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if want := words(tt.spec); !slices.Equal(tt.got, want) {
				t.Errorf("%s = %v, want %v", tt.key, tt.got, want)
			}
		})
	}
	if f.OnDemand == nil || len(f.OnDemand) != 0 {
		t.Errorf("on_demand must be an empty list, got %v", f.OnDemand)
	}
	for _, slug := range f.Active {
		if _, ok := f.FeaturePages[slug]; !ok {
			t.Errorf("feature_pages lacks active module %s", slug)
		}
	}
	if len(f.FeaturePages) != len(f.Active) {
		t.Errorf("feature_pages has %d keys for %d active modules", len(f.FeaturePages), len(f.Active))
	}
}

// A module is at most one of coming_soon, alpha_unavailable, plain active;
// active and frozen ones have an endpoint, coming-soon ones none.
func TestEntryInvariants(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Entries() {
		if seen[e.Slug] {
			t.Errorf("duplicate slug %s", e.Slug)
		}
		seen[e.Slug] = true
		if e.ComingSoon && e.AlphaUnavailable {
			t.Errorf("%s is both coming soon and frozen", e.Slug)
		}
		if e.ComingSoon != (e.APIEndpoint == nil) {
			t.Errorf("%s: coming_soon=%v but api_endpoint=%v", e.Slug, e.ComingSoon, e.APIEndpoint)
		}
		switch e.Category {
		case Sources, Enrich, Signals, Outreach, Tools:
		default:
			t.Errorf("%s: category %q", e.Slug, e.Category)
		}
		if e.Label.FR == "" || e.Label.EN == "" {
			t.Errorf("%s: label missing", e.Slug)
		}
	}
}

func TestFeatureIDs(t *testing.T) {
	ids := FeatureIDs()
	for _, want := range []string{"company", "monitoring", "pagespeed", "crm", "yelp_tripadvisor"} {
		if !slices.Contains(ids, want) {
			t.Errorf("allow-list lacks %s", want)
		}
	}
	if slices.Contains(ids, "emails") {
		t.Error("an active module is votable")
	}
	if len(ids) != 24 {
		t.Errorf("%d allowed ids, want 21 coming-soon + 3 legacy", len(ids))
	}
}
