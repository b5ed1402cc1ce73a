// Package table measures, on the simulated world through the whole service,
// how true to its commune a commune zone's rows are (docs/zones.md). It
// lives apart from package zones so that the zones tests do not build the
// app.
package table_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/zones"
)

// communeTable are the zones of the commune table (docs/zones.md):
// communes beside a large city, large cities, arrondissements and a
// postal code, each with the radius of the wider scrape its own places
// are counted in.
var communeTable = []struct {
	zone string
	km   int
}{
	{"Villeurbanne", 8}, {"Vénissieux", 8}, {"Caluire-et-Cuire", 8}, {"Bègles", 8}, {"Montreuil 93", 8},
	{"Boulogne-Billancourt", 8}, {"Roubaix", 8},
	{"Lyon", 12}, {"Bordeaux", 12}, {"Lille", 10},
	{"Paris 11e", 4}, {"Lyon 3e", 5}, {"Marseille 8e", 8}, {"69100", 8},
}

// TestCommuneTable scrapes each zone of communeTable on the simulated
// world, through the whole service (apptest), and measures what a user
// checks: the rows kept, the share whose address is in the commune, and
// the commune's own places found, against a scrape of a wider radius zone
// (a radius zone is geometry only) whose rows both lie in the commune
// (gazetteer.CommuneAt) and say so in their address. It fails below a
// share of 0.95 or when an own place is missing.
//
// It runs some twenty scrapes: set SVC_COMMUNE_TABLE=1 to run it.
//
//	SVC_COMMUNE_TABLE=1 go test -count=1 -run TestCommuneTable -v ./shared/zones/table
func TestCommuneTable(t *testing.T) {
	if os.Getenv("SVC_COMMUNE_TABLE") == "" {
		t.Skip("set SVC_COMMUNE_TABLE=1 to scrape the commune table")
	}
	g, err := data.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := zones.NewResolver(g)
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("table@example.org", "pass-w0rd!")
	c.Verify("table@example.org")
	const query = "restaurant"
	t.Logf("| Zone | Rows kept | In the commune | Share | Lying in its outline | Own places (wider scrape) | Found |")
	t.Logf("|---|---:|---:|---:|---:|---:|---:|")
	for _, tt := range communeTable {
		z, err := r.Resolve("FRA", tt.zone)
		if err != nil {
			t.Fatal(err)
		}
		// in: the row's address names the commune or one of its
		// arrondissements.
		in := func(row tableRow) bool {
			for _, x := range r.AddressPlaces("FRA", row.address) {
				for _, zp := range z.Places {
					if x == zp || g.Place(x).Parent == zp {
						return true
					}
				}
			}
			return false
		}
		kept := tableScrape(t, c, query, tt.zone, "normal")
		// The wider scrape's tiles are those of a larger zone: ultra
		// splits them until no search saturates, so that it misses none
		// of the commune's places a finer commune scrape finds.
		wide := tableScrape(t, c, query, fmt.Sprintf("%s %dkm", tt.zone, tt.km), "ultra")
		// lies: the row's coordinates are in the commune's shape (or
		// one of its arrondissements').
		lies := func(row tableRow) bool {
			id, ok := g.CommuneAt("FRA", row.pt)
			return ok && (id == z.Places[0] || g.Place(id).Parent == z.Places[0])
		}
		nin, nlie := 0, 0
		keptIDs := map[string]bool{}
		for _, row := range kept {
			keptIDs[row.id] = true
			if in(row) {
				nin++
			}
			if lies(row) {
				nlie++
			}
		}
		own, found := 0, 0
		var lost []string
		for _, row := range wide {
			if !in(row) || !lies(row) {
				continue
			}
			own++
			if keptIDs[row.id] {
				found++
			} else if len(lost) < 3 {
				lost = append(lost, row.address)
			}
		}
		share := 0.0
		if len(kept) > 0 {
			share = float64(nin) / float64(len(kept))
		}
		t.Logf("| %s | %d | %d | %.2f | %d | %d | %d |", z.Label, len(kept), nin, share, nlie, own, found)
		if share < 0.95 {
			t.Errorf("%s: share in the commune %.2f < 0.95", tt.zone, share)
		}
		if found < own {
			t.Errorf("%s: %d of %d own places lost (%s)", tt.zone, own-found, own, strings.Join(lost, "; "))
		}
	}
}

type tableRow struct {
	id, address string
	pt          orb.Point
}

// tableScrape runs a scrape to done and returns its rows.
func tableScrape(t *testing.T, c *apptest.Client, query, zone, mode string) []tableRow {
	t.Helper()
	var j struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(c.Do("POST", "/api/jobs", map[string]any{
		"queries": []string{query}, "zones": []string{zone}, "extra_columns": []string{"gps"}, "scrap_mode": mode,
	}).Must(t, 200).Body, &j); err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	for end := time.Now().Add(5 * time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if st = c.Do("GET", "/api/jobs/"+j.ID, nil).Must(t, 200).JSON(); st["status"] != "pending" && st["status"] != "running" {
			break
		}
	}
	if st["status"] != "done" {
		t.Fatalf("%s: %v", zone, st)
	}
	var page struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(c.Do("GET", "/api/jobs/"+j.ID+"/items?limit=10000", nil).Must(t, 200).Body, &page); err != nil {
		t.Fatal(err)
	}
	rows := make([]tableRow, 0, len(page.Items))
	for _, it := range page.Items {
		num := func(k string) float64 {
			f, _ := strconv.ParseFloat(strings.TrimPrefix(fmt.Sprint(it[k]), "'"), 64)
			return f
		}
		rows = append(rows, tableRow{id: fmt.Sprint(it["place_id"]), address: fmt.Sprint(it["adresse"]), pt: orb.Point{num("longitude"), num("latitude")}})
	}
	return rows
}
