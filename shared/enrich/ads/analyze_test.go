package ads

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// labelledSite is one entry of testdata/labels.json: the pages of one site
// and the expected cells.
type labelledSite struct {
	Site  string `json:"site"`
	Pages []struct {
		File    string      `json:"file"`
		URL     string      `json:"url"`
		Headers http.Header `json:"headers"`
	} `json:"pages"`
	Expect map[string]string `json:"expect"`
}

func loadCorpus(tb testing.TB) ([]labelledSite, map[string][]*crawl.Page) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "labels.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var sites []labelledSite
	if err := json.Unmarshal(raw, &sites); err != nil {
		tb.Fatal(err)
	}
	pages := make(map[string][]*crawl.Page, len(sites))
	for _, s := range sites {
		for _, p := range s.Pages {
			body, err := os.ReadFile(filepath.Join("..", "techstack", "testdata", "pages", p.File)) // the corpus both detectors share
			if err != nil {
				tb.Fatal(err)
			}
			u, err := url.Parse(p.URL)
			if err != nil {
				tb.Fatal(err)
			}
			pages[s.Site] = append(pages[s.Site], crawl.NewPage(u, http.StatusOK, p.Headers, body))
		}
	}
	return sites, pages
}

func TestAnalyzeCorpus(t *testing.T) {
	sites, pages := loadCorpus(t)
	if len(sites) < 30 {
		t.Errorf("corpus has %d sites, want at least 30", len(sites))
	}
	for _, s := range sites {
		t.Run(s.Site, func(t *testing.T) {
			got := Analyze(pages[s.Site]).Values()
			for i, col := range Columns {
				want, ok := s.Expect[col]
				if !ok {
					t.Fatalf("labels.json: %s has no %q", s.Site, col)
				}
				if got[i] != want {
					t.Errorf("%s = %q, want %q", col, got[i], want)
				}
			}
		})
	}
}

func page(t *testing.T, body string, header http.Header) *crawl.Page {
	t.Helper()
	u, err := url.Parse("https://www.example.fr/")
	if err != nil {
		t.Fatal(err)
	}
	return crawl.NewPage(u, http.StatusOK, header, []byte(body))
}

// TestSpecRules pins the choices written in the package documentation.
func TestSpecRules(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		header http.Header
		active bool
		column string // Columns entry to check
		want   string
	}{
		{"a GTM container alone is not an ad network",
			`<html><head><script async src="https://www.googletagmanager.com/gtm.js?id=GTM-ABC123"></script></head></html>`,
			nil, false, "ads_networks", ""},
		{"gtag with an AW- id is Google Ads",
			`<html><head><script>gtag('config', 'AW-123456789');</script></head></html>`,
			nil, true, "pixel_search_ads", "Google Ads"},
		{"gtag with only a G- id is not Google Ads",
			`<html><head><script async src="https://www.googletagmanager.com/gtag/js?id=G-ABCDEF123"></script><script>gtag('config', 'G-ABCDEF123');</script></head></html>`,
			nil, false, "ads_networks", ""},
		{"a consent-blocked text/plain script counts",
			`<html><head><script type="text/plain" data-cookieconsent="marketing">fbq('init', '123456789012');</script></head></html>`,
			nil, true, "pixel_social", "Meta Pixel"},
		{"a tag in an HTML comment does not count",
			`<html><head><!-- <script src="https://connect.facebook.net/en_US/fbevents.js"></script> --></head></html>`,
			nil, false, "pixel_social", ""},
		{"a tag behind a JS line comment does not count",
			"<html><head><script>\n// fbq('init', '123456789012');\nvar a = 'https://example.fr/x';\n</script></head></html>",
			nil, false, "pixel_social", ""},
		{"an AW- reference in visible text is not a tag",
			`<html><body><p>Réf. pièce AW-20458831 en stock</p></body></html>`,
			nil, false, "ads_networks", ""},
		{"a preconnect to the UET host counts",
			`<html><head><link rel="preconnect" href="https://bat.bing.com"></head></html>`,
			nil, true, "pixel_search_ads", "Microsoft Advertising"},
		{"a Set-Cookie of the Meta pixel counts",
			`<html><head></head></html>`,
			http.Header{"Set-Cookie": {"_fbp=fb.1.1714120000000.123456789; Path=/; Max-Age=7776000; Secure"}},
			true, "pixel_social", "Meta Pixel"},
		{"the Facebook SDK is not the pixel",
			`<html><body><div id="fb-root"></div><script async defer crossorigin="anonymous" src="https://connect.facebook.net/fr_FR/sdk.js#xfbml=1&version=v18.0"></script></body></html>`,
			nil, false, "pixel_social", ""},
		{"a noscript pixel image counts",
			`<html><body><noscript><img height="1" width="1" src="https://px.ads.linkedin.com/collect/?pid=123&fmt=gif"/></noscript></body></html>`,
			nil, true, "pixel_social", "LinkedIn Insight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Analyze([]*crawl.Page{page(t, tt.body, tt.header)})
			vals := res.Values()
			if res.Active != tt.active {
				t.Errorf("Active = %v, want %v (%q)", res.Active, tt.active, vals)
			}
			for i, c := range Columns {
				if c == tt.column && vals[i] != tt.want {
					t.Errorf("%s = %q, want %q", c, vals[i], tt.want)
				}
			}
		})
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name string
		tags []string
		want int
	}{
		{"nothing scores zero", nil, 0},
		{"chat and consent weigh nothing", []string{"Crisp", "Axeptio"}, 0},
		{"Google Ads alone", []string{"Google Ads"}, 30},
		{"Meta pixel with its retargeting", []string{"Meta Pixel"}, 30},
		{"social pixels are capped", []string{"TikTok Pixel", "Snap Pixel", "X Pixel", "Pinterest Tag", "LinkedIn Insight"}, 30},
		{"display networks are capped", []string{"Taboola", "Outbrain", "Amazon Ads"}, 20},
		{"CRM counts once", []string{"HubSpot", "Brevo"}, 5},
		{"the total is capped at 100", []string{"Google Ads", "Microsoft Advertising", "Meta Pixel", "TikTok Pixel",
			"Criteo", "Taboola", "HubSpot"}, 100},
	}
	byName := make(map[string]rule, len(rules))
	for _, r := range rules {
		byName[r.name] = r
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var found []rule
			for _, n := range tt.tags {
				r, ok := byName[n]
				if !ok {
					t.Fatalf("no rule %q", n)
				}
				found = append(found, r)
			}
			if got := score(found); got != tt.want {
				t.Errorf("score(%v) = %d, want %d", tt.tags, got, tt.want)
			}
		})
	}
}

func TestValuesShape(t *testing.T) {
	got := Analyze(nil).Values()
	if len(got) != len(Columns) {
		t.Fatalf("Values() has %d cells, want %d", len(got), len(Columns))
	}
	want := []string{"false", "0", "", "", "", "", "", "", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Analyze(nil).Values() = %q", got)
	}
}

func TestRuleNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.name] {
			t.Errorf("rule %q twice", r.name)
		}
		seen[r.name] = true
		if len(r.urls) == 0 && r.inline == nil && len(r.cookies) == 0 && r.selector == "" {
			t.Errorf("rule %q has no matcher", r.name)
		}
	}
}
