package app_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/enrich/screenshot"
)

// scrapeRows runs a sim scrape to done and returns its rows as the items
// endpoint gives them (the items a user sends to a module).
func scrapeRows(t *testing.T, c *apptest.Client, query, zone string, n int) (string, []json.RawMessage) {
	t.Helper()
	j := decodeJob(t, c.Do("POST", "/api/jobs", map[string]any{"queries": []string{query}, "zones": []string{zone}}))
	if got := waitJob(t, c, j.ID, func(g map[string]any) bool { return g["status"] != "pending" && g["status"] != "running" }); got["status"] != "done" {
		t.Fatalf("scrape: %v", got)
	}
	var page struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(c.Do("GET", fmt.Sprintf("/api/jobs/%s/items?limit=%d", j.ID, n), nil).Must(t, 200).Body, &page); err != nil {
		t.Fatal(err)
	}
	return j.ID, page.Items
}

// readCSV parses a job's CSV download.
func readCSV(t *testing.T, c *apptest.Client, id string) [][]string {
	t.Helper()
	body := c.Do("GET", "/api/jobs/"+id+"/download", nil).Must(t, 200).Body
	rd := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\uFEFF"))))
	rd.Comma = ';'
	recs, err := rd.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestItemJobsOnSimScrape: a user scrapes the sim world, then sends its
// rows to the emails, techstack and brand_assets modules; each job runs
// on the fixture web to done, keeps every input column in order and
// appends its own, and the re-hosted logos are served to their owner only.
func TestItemJobsOnSimScrape(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("items@example.org", fixturePassword)
	c.Verify("items@example.org")
	src, items := scrapeRows(t, c, "boulangerie", "Lyon", 30)
	if len(items) != 30 {
		t.Fatalf("%d items", len(items))
	}
	var first map[string]any
	_ = json.Unmarshal(items[0], &first)

	for _, tt := range []struct {
		path, jobType string
		extra         map[string]any
		produces      []string
		// minFound is how many rows must have the first produced column
		// filled: the fixture sites show an address on 95% of them, a
		// logo on 80%, and 60% of places have a site.
		minFound int
	}{
		{"emails", "emails", nil, []string{"email", "email_personal"}, 8},
		{"techstack", "techstack", nil, []string{"tech_cms", "tech_analytics", "tech_ads_pixels"}, 3},
		{"brand-assets", "brand_assets", nil, []string{"logo_url", "logo_local_url", "logo_variants_local_urls", "favicon_url",
			"favicon_local_url", "brand_color", "brand_palette", "screenshot_local_url"}, 6},
		{"socials", "socials", nil, []string{"social_facebook", "social_instagram", "social_linkedin", "social_twitter", "social_tiktok", "social_youtube"}, 0},
		{"legal-ids", "legal_ids", nil, []string{"siret", "siren", "siret_source_url"}, 8},
		{"dead-check", "dead_check", nil, []string{"site_alive"}, 8},
		// Reviews come from the map provider, through each row's
		// lien_maps: almost every sim place has some.
		{"reviews", "reviews", map[string]any{"max_reviews": 3, "period_months": 0}, []string{"reviews_list", "owner_replied"}, 20},
		// Opendata: the sim's OpenStreetMap maps about half the places;
		// its site_web, telephone and email fill the rows' own columns.
		{"opendata", "opendata", nil, []string{"opendata_champs", "opendata_match", "opendata_source"}, 0},
		{"pagespeed", "pagespeed", nil, []string{"perf_score", "seo_score", "accessibility_score", "best_practices_score", "lcp", "cls", "inp"}, 8},
		{"phone-info", "phone_info", map[string]any{"live_mode": "cache_only"}, []string{"phone_e164", "phone_national", "phone_country",
			"phone_line_type", "phone_carrier_original", "phone_carrier_current", "phone_is_ported", "phone_is_reachable", "phone_is_valid",
			"phone_operator_siret", "phone_operator_address", "phone_operator_registered_since"}, 20},
	} {
		t.Run(tt.jobType, func(t *testing.T) {
			body := map[string]any{"items": items, "source_job_id": src}
			maps.Copy(body, tt.extra)
			j := c.Do("POST", "/api/jobs/"+tt.path, body).Must(t, 200).JSON()
			if j["job_type"] != tt.jobType || j["status"] != "pending" || j["source_job_id"] != src || j["grid_points_count"] != 30.0 ||
				j["source"] != "sim" {
				t.Fatalf("created: %v", j)
			}
			id := j["id"].(string)
			got := waitJob(t, c, id, func(g map[string]any) bool { return g["status"] != "pending" && g["status"] != "running" })
			if got["status"] != "done" || got["results_count"] != 30.0 || got["processed_points"] != 30.0 || got["download_available"] != true {
				t.Fatalf("after the run: %v", got)
			}
			recs := readCSV(t, c, id)
			if len(recs) != 31 {
				t.Fatalf("%d records", len(recs))
			}
			header := recs[0]
			in := len(header) - len(tt.produces)
			if !slices.Equal(header[in:], tt.produces) || header[0] != "nom" || header[1] != "site_web" {
				t.Fatalf("header %q", header)
			}
			found := 0
			for i, rec := range recs[1:] {
				var item map[string]any
				_ = json.Unmarshal(items[i], &item)
				site, _ := item["site_web"].(string) // an empty cell is null in items
				if rec[0] != item["nom"] || rec[1] != site {
					t.Fatalf("row %d is not item %d: %q vs %v", i, i, rec[:2], item)
				}
				if rec[in] != "" {
					found++
					if rec[1] == "" && tt.jobType != "reviews" && tt.jobType != "phone_info" && tt.jobType != "opendata" {
						t.Errorf("row %d: %s found without a site", i, tt.produces[0])
					}
				}
			}
			if found < tt.minFound {
				t.Errorf("%s filled on %d rows, want at least %d", tt.produces[0], found, tt.minFound)
			}
			if tt.jobType == "brand_assets" {
				checkAssets(t, e, c, recs, in)
			}
			if tt.jobType == "opendata" {
				// About half the sim places are on its OpenStreetMap; the
				// twin also answers 429s and 504s, retried.
				matched := 0
				for _, rec := range recs[1:] {
					if m := rec[in+1]; m == "name_exact" || m == "name_near" {
						matched++
					}
				}
				if matched < 3 {
					t.Errorf("opendata matched %d of 30 rows", matched)
				}
				t.Logf("opendata matched %d of 30 rows", matched)
			}
			if tt.jobType == "reviews" {
				if got["max_reviews"] != 3.0 || got["period_months"] != 0.0 {
					t.Errorf("reviews settings: %v %v", got["max_reviews"], got["period_months"])
				}
				for _, rec := range recs[1:] {
					var list []map[string]any
					if rec[in] != "" && (json.Unmarshal([]byte(rec[in]), &list) != nil || len(list) > 3 || list[0]["author"] == "") {
						t.Fatalf("reviews_list %q", rec[in])
					}
				}
			} else if got["max_reviews"] != nil {
				t.Errorf("max_reviews %v on a %s job", got["max_reviews"], tt.jobType)
			}
			// The item routes of the engine's jobs work on module jobs too.
			page := c.Do("GET", "/api/jobs/"+id+"/items?limit=5", nil).Must(t, 200).JSON()
			if page["total"] != 30.0 || page["count"] != 5.0 {
				t.Errorf("items: %v", page)
			}
			cols := c.Do("GET", "/api/jobs/"+id+"/output-columns", nil).Must(t, 200).JSON()
			if cols["row_count"] != 30.0 {
				t.Errorf("output-columns: %v", cols)
			}
			c.Do("GET", "/api/jobs/"+id+"/download?format=xlsx", nil).Must(t, 200)
			c.Do("DELETE", "/api/jobs/"+id, nil).Must(t, 204)
			c.Do("GET", "/api/jobs/"+id, nil).Must(t, 404)
		})
	}
}

// checkAssets opens the re-hosted logos: an image for the owner, a 404 for
// another account and for names off the pattern.
func checkAssets(t *testing.T, e *apptest.Env, c *apptest.Client, recs [][]string, in int) {
	t.Helper()
	other := e.NewClient()
	other.Signup("other-assets@example.org", fixturePassword)
	opened := 0
	owner := ""
	for _, rec := range recs[1:] {
		local := rec[in+1]
		if local == "" {
			continue
		}
		p := strings.TrimPrefix(local, e.Server.URL)
		r := c.Do("GET", p, nil).Must(t, 200)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "image/") || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %q", p, ct)
		}
		if !bytes.HasPrefix(r.Body, []byte("\x89PNG")) {
			t.Errorf("%s is not the PNG logo", p)
		}
		if !strings.HasPrefix(rec[in+5], "#") || rec[in+6] == "" {
			t.Errorf("logo without colours: %q", rec[in:])
		}
		other.Do("GET", p, nil).Must(t, 404)
		owner = strings.Split(strings.TrimPrefix(p, "/api/brand-assets/"), "/")[0]
		opened++
	}
	if opened == 0 {
		t.Fatal("no logo re-hosted")
	}
	for _, bad := range []string{"x.png", "aaaaaaaaaaaaaaaa-0123456789abcdef-logo.exe", "%2e%2e%2fsecret",
		"aaaaaaaaaaaaaaaa-0123456789abcdef-logo.png"} {
		r := c.Do("GET", "/api/brand-assets/"+owner+"/"+bad, nil)
		if r.Status != 404 {
			t.Errorf("%s: %d", bad, r.Status)
		}
	}
}

// TestItemJobRules: each kind of refusal of POST /api/jobs/{type} reaches
// the caller as its status with a detail naming the cause, and nothing is
// created. The rules themselves (item counts, needed keys, each option's
// owner, values and range) are jobs' and modules' and are tested there
// (jobs.TestItemsRules, jobs.TestItemOptions, modules' option tests); here
// one case of each kind, through the wiring: the session's verification,
// the route's module (phone-info is phone_info), the body's decoding, the
// tenant check of source_job_id and the frozen module's feature flag.
func TestItemJobRules(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("rules-items@example.org", fixturePassword)
	item := map[string]any{"nom": "Boulangerie Durand", "site_web": "https://boulangerie-durand.fr"}
	c.Do("POST", "/api/jobs/emails", map[string]any{"items": []any{item}}).Must(t, 403) // email not verified
	c.Verify("rules-items@example.org")
	other := e.NewClient()
	other.Signup("rules-other@example.org", fixturePassword)
	other.Verify("rules-other@example.org")
	theirs := decodeJob(t, other.Do("POST", "/api/jobs", map[string]any{"queries": []string{"fleuriste"}, "zones": []string{"Lyon"}}))

	for _, tt := range []struct {
		name, path string
		body       any
		status     int
		detail     string
	}{
		{"no items (a jobs rule)", "emails", map[string]any{}, 422, "items"},
		{"an item lacks a needed key (a jobs rule)", "socials", map[string]any{"items": []any{item, map[string]any{"nom": "x"}}}, 422, "site_web"},
		{"an option on another module (a modules rule)", "socials", map[string]any{"items": []any{item}, "mode": "deep"}, 422, "mode"},
		{"an option out of range, on the route's module", "phone-info", map[string]any{"items": []any{map[string]any{"telephone": "04 78 00 00 00"}}, "live_mode": "live"}, 422, "live_mode"},
		{"items of the wrong type (the body's decoding)", "emails", map[string]any{"items": "x"}, 422, "items"},
		{"another account's source job", "emails", map[string]any{"items": []any{item}, "source_job_id": theirs.ID}, 404, "source_job_id"},
		{"a frozen module", "finance", map[string]any{"items": []any{item}}, 503, "alpha"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Do("POST", "/api/jobs/"+tt.path, tt.body)
			if r.Status != tt.status || !strings.Contains(detail(t, r), tt.detail) {
				t.Errorf("%d %q", r.Status, r.Body)
			}
		})
	}
	var list []any
	_ = json.Unmarshal(c.Do("GET", "/api/jobs", nil).Must(t, 200).Body, &list)
	if len(list) != 0 {
		t.Errorf("refusals created %d jobs", len(list))
	}
	// The options land on the job.
	j := c.Do("POST", "/api/jobs/emails", map[string]any{"items": []any{item}, "mode": "deep"}).Must(t, 200).JSON()
	if j["email_mode"] != "deep" || j["job_type"] != "emails" || j["ef_cost"].(float64) <= 0 {
		t.Errorf("deep emails job: %v", j)
	}
}

// TestBrandAssetsScreenshot: capture_screenshot renders the sim sites in
// headless Chromium (through the crawler's transport) and re-hosts the
// PNG.
func TestBrandAssetsScreenshot(t *testing.T) {
	if screenshot.Find() == "" {
		if os.Getenv("SVC_TEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("no Chromium: make test installs Debian's chromium")
		}
		t.Skip("no Chromium installed")
	}
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("shots@example.org", fixturePassword)
	c.Verify("shots@example.org")
	_, items := scrapeRows(t, c, "fleuriste", "Lyon", 100)
	var withSite []json.RawMessage
	for _, it := range items {
		var m map[string]any
		_ = json.Unmarshal(it, &m)
		if m["site_web"] != "" && len(withSite) < 3 {
			withSite = append(withSite, it)
		}
	}
	j := c.Do("POST", "/api/jobs/brand-assets", map[string]any{"items": withSite, "capture_screenshot": true}).Must(t, 200).JSON()
	if j["ef_cost"].(float64) != 0.3 {
		t.Errorf("ef_cost %v, want 3 × 0.02 × 5", j["ef_cost"])
	}
	id := j["id"].(string)
	if got := waitJob(t, c, id, func(g map[string]any) bool { return g["status"] != "pending" && g["status"] != "running" }); got["status"] != "done" {
		t.Fatalf("job %v", got)
	}
	recs := readCSV(t, c, id)
	col := slices.Index(recs[0], "screenshot_local_url")
	shots := 0
	for _, rec := range recs[1:] {
		if rec[col] == "" {
			continue
		}
		r := c.Do("GET", strings.TrimPrefix(rec[col], e.Server.URL), nil).Must(t, 200)
		if !bytes.HasPrefix(r.Body, []byte("\x89PNG")) || !strings.Contains(rec[col], "-screenshot.png") {
			t.Errorf("screenshot %s: %.20q", rec[col], r.Body)
		}
		shots++
	}
	if shots == 0 {
		t.Errorf("no screenshot among %d sites: %q", len(recs)-1, recs)
	}
}

// TestSiteFinderOnSim: rows of a sim scrape stripped of their website get
// it back from site_finder, which searches the map provider for each
// name in its postcode's commune.
func TestSiteFinderOnSim(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("finder@example.org", fixturePassword)
	c.Verify("finder@example.org")
	_, rows := scrapeRows(t, c, "boulangerie", "Villeurbanne", 40)
	var items []map[string]any
	var want []string
	for _, raw := range rows {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		items = append(items, map[string]any{"nom": m["nom"], "adresse": m["adresse"], "telephone": m["telephone"], "category": m["category"]})
		site, _ := m["site_web"].(string) // null when the place has none
		want = append(want, site)
	}
	j := c.Do("POST", "/api/jobs/site-finder", map[string]any{"items": items}).Must(t, 200).JSON()
	id := j["id"].(string)
	if got := waitJob(t, c, id, func(g map[string]any) bool { return g["status"] != "pending" && g["status"] != "running" }); got["status"] != "done" {
		t.Fatalf("job %v", got)
	}
	recs := readCSV(t, c, id)
	// A JSON object's keys come sorted from encoding/json: the input
	// columns are in that order, then the module's.
	if !slices.Equal(recs[0], []string{"adresse", "category", "nom", "telephone", "site_web", "site_finder_match"}) {
		t.Fatalf("header %q", recs[0])
	}
	right, wrong, sites := 0, 0, 0
	for i, rec := range recs[1:] {
		if want[i] != "" {
			sites++
		}
		switch {
		case rec[4] == want[i] && rec[4] != "":
			right++
		case rec[4] != "":
			wrong++
			t.Errorf("row %d (%s): found %s, the listing says %q", i, rec[2], rec[4], want[i])
		}
		if rec[4] != "" && rec[5] == "" {
			t.Errorf("row %d: a site without its match kind", i)
		}
	}
	if sites == 0 || right*10 < sites*9 {
		t.Errorf("found %d of %d sites (%d wrong)", right, sites, wrong)
	}
	t.Logf("site_finder: %d of %d sites found, %d wrong", right, sites, wrong)
}

// TestVerifyAfterEmails: the rows of an emails job go on to verify-emails
// (its items hold the email column), which checks them against the sim
// world's mail: DNS, then an SMTP dialogue up to RCPT TO.
func TestVerifyAfterEmails(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("verify@example.org", fixturePassword)
	c.Verify("verify@example.org")
	_, items := scrapeRows(t, c, "boulangerie", "Lyon", 40)
	em := c.Do("POST", "/api/jobs/emails", map[string]any{"items": items}).Must(t, 200).JSON()
	if got := waitJob(t, c, em["id"].(string), finished); got["status"] != "done" {
		t.Fatalf("emails: %v", got)
	}
	var page struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(c.Do("GET", "/api/jobs/"+em["id"].(string)+"/items", nil).Must(t, 200).Body, &page); err != nil {
		t.Fatal(err)
	}
	v := c.Do("POST", "/api/jobs/verify-emails", map[string]any{"items": page.Items, "source_job_id": em["id"]}).Must(t, 200).JSON()
	if v["job_type"] != "verify_emails" || v["source"] != "sim" {
		t.Fatalf("created: %v", v)
	}
	if got := waitJob(t, c, v["id"].(string), finished); got["status"] != "done" || got["results_count"] != 40.0 {
		t.Fatalf("verify: %v", got)
	}
	recs := readCSV(t, c, v["id"].(string))
	h := recs[0]
	// The rows' own category (of the business) stays; the email's is
	// category_2.
	if !slices.Equal(h[len(h)-2:], []string{"status", "category_2"}) || !slices.Contains(h, "category") {
		t.Fatalf("header %q", h)
	}
	cat := slices.Index(h, "category")
	for i, r := range recs[1:] {
		if r[cat] != page.Items[i]["category"] {
			t.Fatalf("row %d: category %q, was %v", i, r[cat], page.Items[i]["category"])
		}
	}
	at := slices.Index(h, "email")
	counts := map[string]int{}
	for _, r := range recs[1:] {
		status, cat := r[len(r)-2], r[len(r)-1]
		if (r[at] == "") != (status == "") {
			t.Errorf("email %q, status %q", r[at], status)
		}
		if status != "" {
			counts[status+"/"+cat]++
		}
	}
	if counts["valid/role"] < 5 {
		t.Errorf("verdicts %v: the sim sites' contact@ addresses should mostly be valid", counts)
	}
	t.Logf("verdicts: %v", counts)
}
