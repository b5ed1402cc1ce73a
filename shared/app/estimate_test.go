package app_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
)

// estimate is the decoded JobEstimateResponse.
type estimate struct {
	Valid                    bool    `json:"valid"`
	GridPoints               int     `json:"grid_points"`
	TotalRequests            int     `json:"total_requests"`
	QueriesCount             int     `json:"queries_count"`
	EFCost                   float64 `json:"ef_cost"`
	EstimatedDurationSeconds int     `json:"estimated_duration_seconds"`
	Errors                   []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
	Warnings []string `json:"warnings"`
}

func decodeEstimate(t *testing.T, r *apptest.Response) estimate {
	t.Helper()
	r.Must(t, 200)
	var e estimate
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Fatalf("estimate %s: %v", r.Body, err)
	}
	if e.Errors == nil || e.Warnings == nil {
		t.Fatalf("errors and warnings must be arrays: %s", r.Body)
	}
	if e.Valid != (len(e.Errors) == 0) {
		t.Fatalf("valid must be true exactly when errors is empty: %s", r.Body)
	}
	return e
}

// TestEstimate: POST /api/estimate over the real gazetteer, tried as a user
// would, in the spec's forms and several languages.
func TestEstimate(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("geo@example.org", fixturePassword)
	key := e.NewClient()
	key.Key = c.CreateKey("geo")

	tests := []struct {
		name    string
		country string
		zones   []string
		valid   bool
		minGrid int
		maxGrid int
		errHas  string // in the session (French) error message
	}{
		{"a city", "", []string{"Paris"}, true, 20, 2000, ""},
		{"a city with a radius", "FRA", []string{"Lyon 15km"}, true, 20, 3000, ""},
		{"a region", "FRA", []string{"Bretagne"}, true, 100, 20000, ""},
		{"the whole country", "FRA", []string{"France"}, true, 1000, 60000, ""},
		{"a department number", "FRA", []string{"69"}, true, 20, 5000, ""},
		{"Corsica's department code", "FRA", []string{"2A"}, true, 10, 5000, ""},
		{"a postal code", "FRA", []string{"75011"}, true, 1, 200, ""},
		{"an arrondissement", "FRA", []string{"Paris 11e"}, true, 1, 200, ""},
		{"a qualified namesake", "FRA", []string{"Saint-Denis 93"}, true, 1, 500, ""},
		{"a typo gets a suggestion", "FRA", []string{"Pari"}, false, 0, 0, "Paris"},
		{"Germany in three languages", "DEU", []string{"Bavière", "München", "Berlin 10km"}, true, 50, 30000, ""},
		{"Spain", "ESP", []string{"Cataluña", "Barcelone", "Madrid"}, true, 50, 30000, ""},
		{"the United States", "USA", []string{"Californie", "New York", "Texas"}, true, 100, 200000, ""},
		{"a zone of another country", "FRA", []string{"Bavière"}, false, 0, 0, "Bavière"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"queries": []string{"plombier", "boulangerie"}, "zones": tt.zones}
			if tt.country != "" {
				body["country"] = tt.country
			}
			got := decodeEstimate(t, c.Do("POST", "/api/estimate", body))
			if got.Valid != tt.valid {
				t.Fatalf("valid %v, want %v: %+v", got.Valid, tt.valid, got)
			}
			if tt.valid {
				if got.GridPoints < tt.minGrid || got.GridPoints > tt.maxGrid {
					t.Errorf("grid_points %d outside %d..%d", got.GridPoints, tt.minGrid, tt.maxGrid)
				}
				if got.QueriesCount != 2 || got.TotalRequests != 2*got.GridPoints || got.EFCost <= 0 || got.EstimatedDurationSeconds <= 0 {
					t.Errorf("estimate %+v", got)
				}
				return
			}
			if len(got.Errors) == 0 || !strings.Contains(got.Errors[0].Message, tt.errHas) || !strings.HasPrefix(got.Errors[0].Field, "zones[") {
				t.Errorf("errors %+v, want a zone error mentioning %q", got.Errors, tt.errHas)
			}
		})
	}

	t.Run("with an API key, in English", func(t *testing.T) {
		got := decodeEstimate(t, key.Do("POST", "/api/estimate", map[string]any{"queries": []string{"plumber"}, "zones": []string{"Pari"}}))
		if got.Valid || !strings.Contains(got.Errors[0].Message, "Did you mean") {
			t.Errorf("%+v", got)
		}
	})

	t.Run("empty lists are not valid, not an error", func(t *testing.T) {
		got := decodeEstimate(t, c.Do("POST", "/api/estimate", map[string]any{"queries": []string{}, "zones": []string{}}))
		fields := []string{}
		for _, f := range got.Errors {
			fields = append(fields, f.Field)
		}
		if got.Valid || strings.Join(fields, ",") != "queries,zones" || got.GridPoints != 0 {
			t.Errorf("%+v", got)
		}
	})

	t.Run("overlapping zones share tiles", func(t *testing.T) {
		one := decodeEstimate(t, c.Do("POST", "/api/estimate", map[string]any{"queries": []string{"q"}, "zones": []string{"Lyon"}}))
		both := decodeEstimate(t, c.Do("POST", "/api/estimate", map[string]any{"queries": []string{"q"}, "zones": []string{"Lyon", "Lyon 1er", "69001"}}))
		if both.GridPoints != one.GridPoints {
			t.Errorf("Lyon alone %d tiles, with its own 1st arrondissement %d", one.GridPoints, both.GridPoints)
		}
	})

	t.Run("cost never shrinks with mode, grows with reviews and shrinks with stop_at", func(t *testing.T) {
		cost := func(extra map[string]any) float64 {
			body := map[string]any{"queries": []string{"q"}, "zones": []string{"Rhône"}}
			for k, v := range extra {
				body[k] = v
			}
			return decodeEstimate(t, c.Do("POST", "/api/estimate", body)).EFCost
		}
		fast, ultra := cost(nil), cost(map[string]any{"scrap_mode": "ultra"})
		reviews, stop := cost(map[string]any{"include_reviews": true}), cost(map[string]any{"stop_at": 10})
		// A deeper mode costs the splits its depth allows, which a query
		// never run (priced at the prior density, docs/pricing.md) rarely
		// needs: never less, here about the same. (With a dense query the
		// modes differ: scrape.TestExpectedSearches.) Reviews multiply the
		// searches by 9 before rounding to the cent.
		if !(ultra >= fast && math.Abs(reviews-9*fast) < 0.1 && stop < fast) {
			t.Errorf("fast %v ultra %v reviews %v stop_at %v", fast, ultra, reviews, stop)
		}
	})

	t.Run("malformed requests are 422", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"queries": []string{"q"}, "zones": []string{"Lyon"}, "scrap_mode": "turbo"},
			{"queries": []string{"q"}, "zones": []string{"Lyon"}, "stop_at": 0},
			{"queries": []string{"q"}, "zones": []string{"Lyon"}, "country": "France"},
			{"queries": []string{strings.Repeat("q", 201)}, "zones": []string{"Lyon"}},
		} {
			c.Do("POST", "/api/estimate", body).Must(t, 422)
		}
		c.Do("POST", "/api/estimate", `{"queries": [`).Must(t, 400)
	})

	t.Run("anonymous callers get 401", func(t *testing.T) {
		e.NewClient().Do("POST", "/api/estimate", map[string]any{"queries": []string{"q"}, "zones": []string{"Lyon"}}).Must(t, 401)
		e.NewClient().Do("GET", "/api/countries", nil).Must(t, 401)
	})
}

// TestEstimateOverQuota: a cost above what the account has left this month
// makes the estimate not valid, with the cost and what remains.
func TestEstimateOverQuota(t *testing.T) {
	e := apptest.Start(t, apptest.WithConfig(func(c *config.Config) { q, th := 50.0, 40.0; c.EFQuota, c.EFCostThreshold = &q, &th }))
	c := e.NewClient()
	c.Signup("quota@example.org", fixturePassword)
	got := decodeEstimate(t, c.Do("POST", "/api/estimate", map[string]any{"queries": []string{"q"}, "zones": []string{"France"}}))
	if got.Valid || len(got.Errors) != 1 || got.Errors[0].Field != "ef_cost" || !strings.Contains(got.Errors[0].Message, "il reste 50 EF") {
		t.Errorf("%+v", got)
	}
	usage := c.Do("GET", "/api/ef/usage", nil).Must(t, 200).JSON()
	if usage["quota"] != 50.0 || usage["spent"] != 0.0 || usage["remaining"] != 50.0 || usage["cost_threshold"] != 40.0 {
		t.Errorf("usage %v", usage)
	}
}

// TestEstimateLimit: 120 estimates per 10 minutes per account, then 429
// with Retry-After.
func TestEstimateLimit(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("limit@example.org", fixturePassword)
	body := map[string]any{"queries": []string{}, "zones": []string{}}
	for range 120 {
		c.Do("POST", "/api/estimate", body).Must(t, 200)
	}
	must429(t, c.Do("POST", "/api/estimate", body))
	other := e.NewClient()
	other.Signup("other@example.org", fixturePassword)
	other.Do("POST", "/api/estimate", body).Must(t, 200)
}

// TestCountries: the scrapable countries, five pinned, and the last country
// of a valid estimate.
func TestCountries(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("countries@example.org", fixturePassword)
	type country struct{ Code, Alpha2, Name string }
	var got struct {
		Countries   []country `json:"countries"`
		LastCountry *country  `json:"last_country"`
		Pinned      []country `json:"pinned"`
	}
	if err := json.Unmarshal(c.Do("GET", "/api/countries", nil).Must(t, 200).Body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Countries) < 150 || len(got.Pinned) != 5 || got.Pinned[0].Code != "FRA" || got.LastCountry != nil {
		t.Fatalf("countries %d, pinned %+v, last %+v", len(got.Countries), got.Pinned, got.LastCountry)
	}
	names := map[string]string{}
	for _, k := range got.Countries {
		names[k.Code] = k.Name
	}
	if names["DEU"] != "Allemagne" || names["ESP"] != "Espagne" {
		t.Errorf("French names for a session: DEU %q ESP %q", names["DEU"], names["ESP"])
	}
	decodeEstimate(t, c.Do("POST", "/api/estimate", map[string]any{"queries": []string{"q"}, "zones": []string{"Berlin"}, "country": "DEU"}))
	if err := json.Unmarshal(c.Do("GET", "/api/countries", nil).Must(t, 200).Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.LastCountry == nil || got.LastCountry.Code != "DEU" || got.LastCountry.Alpha2 != "DE" {
		t.Errorf("last country %+v, want DEU", got.LastCountry)
	}
	k := e.NewClient()
	k.Key = c.CreateKey("countries")
	if err := json.Unmarshal(k.Do("GET", "/api/countries", nil).Must(t, 200).Body, &got); err != nil {
		t.Fatal(err)
	}
	for _, p := range got.Pinned {
		if p.Code == "CHE" && p.Name != "Switzerland" {
			t.Errorf("English names for a key: CHE %q", p.Name)
		}
	}
}

// TestEstimateMap: the map of a request draws each resolved zone's outline
// and the grid's tiles, and the tiles cover what the estimate counts; a
// key may ask for it.
func TestEstimateMap(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("map@example.org", fixturePassword)
	body := map[string]any{"queries": []string{"restaurant"}, "zones": []string{"Lyon", "Villeurbanne"}}
	est := c.Do("POST", "/api/estimate", body).Must(t, 200).JSON()
	var m struct {
		Zones []struct {
			Label    string           `json:"label"`
			Polygons [][][][2]float64 `json:"polygons"`
		} `json:"zones"`
		Tiles      [][4]float64 `json:"tiles"`
		TilesTotal int          `json:"tiles_total"`
	}
	if err := json.Unmarshal(c.Do("POST", "/api/estimate/map", body).Must(t, 200).Body, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Zones) != 2 || m.Zones[0].Label != "Lyon (69)" || len(m.Zones[0].Polygons) == 0 || len(m.Zones[0].Polygons[0][0]) < 10 {
		t.Fatalf("zones %+v", m.Zones)
	}
	if float64(m.TilesTotal) != est["grid_points"] || len(m.Tiles) != m.TilesTotal {
		t.Errorf("%d tiles (%d drawn), the estimate counts %v", m.TilesTotal, len(m.Tiles), est["grid_points"])
	}
	for _, tl := range m.Tiles {
		if !(tl[0] < tl[2] && tl[1] < tl[3] && tl[0] > 4.6 && tl[2] < 5.1 && tl[1] > 45.6 && tl[3] < 45.9) {
			t.Fatalf("tile %v is not a bound around Lyon", tl)
		}
	}
	k := e.NewClient()
	k.Key = c.CreateKey("map")
	k.Do("POST", "/api/estimate/map", body).Must(t, 200)
	k.Do("POST", "/api/estimate/map", map[string]any{"queries": []string{"restaurant"}, "zones": "Lyon"}).Must(t, 422)
}

// TestZoneComplete: what is typed brings the zones meant, which read back
// as zones of a request; too short says nothing, too long is refused.
func TestZoneComplete(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("complete@example.org", fixturePassword)
	got := c.Do("GET", "/api/zones/complete?q=villeurb", nil).Must(t, 200).JSON()["completions"].([]any)
	if len(got) == 0 || got[0].(map[string]any)["label"] != "Villeurbanne (69)" || got[0].(map[string]any)["kind"] != "city" {
		t.Fatalf("completions %v", got)
	}
	est := c.Do("POST", "/api/estimate", map[string]any{"queries": []string{"plombier"}, "zones": []string{got[0].(map[string]any)["label"].(string)}}).Must(t, 200).JSON()
	if est["valid"] != true {
		t.Errorf("the completion does not estimate: %v", est)
	}
	if got := c.Do("GET", "/api/zones/complete?q=m&country=DEU", nil).Must(t, 200).JSON()["completions"].([]any); len(got) != 0 {
		t.Errorf("one letter: %v", got)
	}
	if got := c.Do("GET", "/api/zones/complete?q=münch&country=DEU&limit=3", nil).Must(t, 200).JSON()["completions"].([]any); len(got) == 0 || len(got) > 3 {
		t.Errorf("München: %v", got)
	}
	c.Do("GET", "/api/zones/complete?q="+strings.Repeat("a", 101), nil).Must(t, 400)
	c.Do("GET", "/api/zones/complete?q=lyon&limit=x", nil).Must(t, 422)
	e.NewClient().Do("GET", "/api/zones/complete?q=lyon", nil).Must(t, 401)
}

// TestItemModulesAndEstimate: the modules a job of items can run, and the
// price of one before it starts, the same as the job is then charged.
func TestItemModulesAndEstimate(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("modules@example.org", fixturePassword)
	c.Verify("modules@example.org")
	mods := c.Do("GET", "/api/modules", nil).Must(t, 200).JSON()["modules"].([]any)
	var emails map[string]any
	for _, m := range mods {
		if m.(map[string]any)["slug"] == "emails" {
			emails = m.(map[string]any)
		}
	}
	if emails == nil || emails["endpoint"] != "/api/jobs/emails" || emails["ef_per_item"].(float64) <= 0 {
		t.Fatalf("modules %v", mods)
	}
	for _, tt := range []struct {
		body   map[string]any
		status int
	}{
		{map[string]any{"module": "emails", "count": 100}, 200},
		{map[string]any{"module": "emails", "count": 100, "mode": "deep"}, 200},
		{map[string]any{"module": "verify-emails", "count": 3}, 200},
		{map[string]any{"module": "scrap", "count": 3}, 422},
		{map[string]any{"module": "emails", "count": 0}, 422},
		{map[string]any{"module": "emails", "count": 10001}, 422},
		{map[string]any{"module": "emails", "count": 3, "mode": "fast"}, 422},
	} {
		c.Do("POST", "/api/estimate/items", tt.body).Must(t, tt.status)
	}
	normal := c.Do("POST", "/api/estimate/items", map[string]any{"module": "emails", "count": 2}).Must(t, 200).JSON()["ef_cost"].(float64)
	deep := c.Do("POST", "/api/estimate/items", map[string]any{"module": "emails", "count": 2, "mode": "deep"}).Must(t, 200).JSON()["ef_cost"].(float64)
	if deep <= normal {
		t.Errorf("deep %v, normal %v", deep, normal)
	}
	j := c.Do("POST", "/api/jobs/emails", map[string]any{"items": []map[string]any{{"site_web": "https://a.sim.test"}, {"site_web": "https://b.sim.test"}}}).Must(t, 200).JSON()
	if j["ef_cost"] != normal {
		t.Errorf("the job is charged %v, the estimate said %v", j["ef_cost"], normal)
	}
}

// TestJobPlaces: a done scrape's places carry coordinates in its zone and
// the output's names; another person's job is a 404.
func TestJobPlaces(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("places@example.org", fixturePassword)
	c.Verify("places@example.org")
	id := scrapeDone(t, c, "Villeurbanne")
	var got struct {
		Places []struct {
			Lat, Lon float64
			Nom      string
		} `json:"places"`
		Total int `json:"total"`
	}
	if err := json.Unmarshal(c.Do("GET", "/api/jobs/"+id+"/places", nil).Must(t, 200).Body, &got); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, c, id)
	if len(got.Places) == 0 || len(got.Places) != got.Total || got.Total != len(rows)-1 {
		t.Fatalf("%d places, total %d, %d rows", len(got.Places), got.Total, len(rows)-1)
	}
	names := map[string]bool{}
	for _, r := range rows[1:] {
		names[r[indexOf(rows[0], "nom")]] = true
	}
	for _, p := range got.Places {
		if p.Lat < 45.74 || p.Lat > 45.80 || p.Lon < 4.85 || p.Lon > 4.93 || !names[p.Nom] {
			t.Fatalf("place %+v is not one of Villeurbanne's rows", p)
		}
	}
	o := e.NewClient()
	o.Signup("places-other@example.org", fixturePassword)
	o.Do("GET", "/api/jobs/"+id+"/places", nil).Must(t, 404)
}
