package app_test

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// TestLegalDataAndCompanyLookup: legal_data finds the sim world's
// companies of a scrape's rows (the registers' twin, consistent with the
// fixture sites' legal notices), and the company lookup answers a key by
// name, SIREN, SIRET and VAT number, with 422 and 404 for what it cannot.
func TestLegalDataAndCompanyLookup(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("company@example.org", fixturePassword)
	c.Verify("company@example.org")
	_, items := scrapeRows(t, c, "boulangerie", "Lyon", 20)
	j := c.Do("POST", "/api/jobs/legal-data", map[string]any{"items": items}).Must(t, 200).JSON()
	if j["source"] != "sim" {
		t.Fatalf("created: %v", j)
	}
	if got := waitJob(t, c, j["id"].(string), finished); got["status"] != "done" || got["results_count"] != 20.0 {
		t.Fatalf("legal_data: %v", got)
	}
	recs := readCSV(t, c, j["id"].(string))
	h := recs[0]
	want := []string{"siren", "forme_juridique", "capital_social", "effectif_tranche", "code_naf", "date_creation", "dirigeants", "ca",
		"resultat_net", "labels_qualite", "lead_status", "bodacc_procedure_collective", "bodacc_modifs_12m"}
	if strings.Join(h[len(h)-len(want):], ",") != strings.Join(want, ",") {
		t.Fatalf("header %q", h)
	}
	found, firstSIREN := 0, ""
	for _, r := range recs[1:] {
		sirenCell, forme := r[len(h)-len(want)], r[len(h)-len(want)+1]
		if (sirenCell != "") != (forme != "") {
			t.Errorf("a row with siren %q and forme_juridique %q", sirenCell, forme)
		}
		if sirenCell != "" {
			found++
			if firstSIREN == "" {
				firstSIREN = sirenCell
			}
		}
	}
	if found < 10 {
		t.Errorf("legal_data matched %d of 20 rows", found)
	}

	// The lookup, with an API key (its scope has /api/company/).
	key := c.Do("POST", "/api/keys", map[string]any{"name": "lookup"}).Must(t, 201).JSON()["key"].(string)
	k := e.NewClient()
	k.Key = key
	var first map[string]any
	_ = json.Unmarshal(items[0], &first)
	pc := regexp.MustCompile(`\b\d{5}\b`).FindString(first["adresse"].(string))
	q := url.Values{"name": {first["nom"].(string)}, "postcode": {pc}, "address": {first["adresse"].(string)}}
	co := k.Do("GET", "/api/company/search?"+q.Encode(), nil).Must(t, 200).JSON()
	siren, _ := co["siren"].(string)
	if len(siren) != 9 || co["nom"] == "" || co["lead_status"] == "" {
		t.Fatalf("search: %v", co)
	}
	again := k.Do("GET", "/api/company/"+siren, nil).Must(t, 200).JSON()
	if again["siren"] != siren || again["nom"] != co["nom"] {
		t.Errorf("by SIREN: %v", again)
	}
	if siret, _ := co["siret_siege"].(string); siret != "" {
		k.Do("GET", "/api/company/"+siret, nil).Must(t, 200)
	}
	if tva, _ := co["tva"].(string); tva != "" {
		k.Do("GET", "/api/company/"+tva, nil).Must(t, 200)
	}
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/api/company/123456789", 422},             // fails the Luhn check
		{"/api/company/abc", 422},                   // not an identifier
		{"/api/company/FR00123456789", 422},         // a VAT key that does not match
		{"/api/company/search?name=x", 422},         // no postcode nor commune
		{"/api/company/search?postcode=69003", 422}, // no name
		{"/api/company/search?name=" + url.QueryEscape("Zyxwvuts Qponm") + "&postcode=69003", 404},
	} {
		if r := k.Do("GET", tt.path, nil); r.Status != tt.status {
			t.Errorf("%s: %d %s", tt.path, r.Status, r.Body)
		}
	}
	// The siren column of legal_data's output is what /api/company/{siren} takes.
	if byCell := k.Do("GET", "/api/company/"+firstSIREN, nil).Must(t, 200).JSON(); byCell["siren"] != firstSIREN {
		t.Errorf("by the siren cell %q: %v", firstSIREN, byCell)
	}
	e.NewClient().Do("GET", "/api/company/"+siren, nil).Must(t, 401)
}
