package sim

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nyaruka/phonenumbers"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/provider"
)

var loadGaz = sync.OnceValues(data.Load)

func realGazetteer(tb testing.TB) *gazetteer.Gazetteer {
	tb.Helper()
	g, err := loadGaz()
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// frZone is the first digits of a French fixed line by region (INSEE
// code), written here independently of the generator's table: 01
// Île-de-France, 02 north-west, 03 north-east, 04 south-east, 05
// south-west; Occitanie is split (its Languedoc departments dial 04).
var frZone = map[string]string{
	"11": "01", "24": "02", "28": "02", "52": "02", "53": "02", "27": "03", "32": "03", "44": "03",
	"84": "04", "93": "04", "94": "04 95", "75": "05", "76": "05",
	"01": "0590", "02": "0596", "03": "0594", "04": "0262", "06": "0269",
}

var frLanguedoc = []string{"11", "30", "34", "48", "66"}

// coherenceAreas are the tiles the measure generates: a grid over
// metropolitan France (every 0.7°, land or sea), the communes next to
// large cities the users complained of, and cities and towns of the
// other countries with tables.
func coherenceAreas() []orb.Bound {
	var out []orb.Bound
	for lon := -4.6; lon < 8.2; lon += 0.7 {
		for lat := 42.4; lat < 51.1; lat += 0.7 {
			out = append(out, maptile.At(orb.Point{lon, lat}, 12).Bound())
		}
	}
	for _, pt := range []orb.Point{
		{4.88, 45.77}, {4.835, 45.764}, {-0.55, 44.81}, {4.89, 45.70}, {2.44, 48.86}, {3.18, 50.69}, {2.35, 48.85},
		{5.37, 43.30}, {8.74, 41.93}, {9.45, 42.70}, {6.24, 46.19}, {7.26, 43.70}, {55.45, -20.88}, {-61.53, 16.24},
		{9.06, 50.09}, {13.40, 52.52}, {11.58, 48.14}, {10.00, 53.55}, {6.96, 50.94}, {11.08, 49.45}, {12.10, 49.02},
		{-3.70, 40.42}, {2.17, 41.39}, {-5.98, 37.39}, {-4.42, 36.72}, {-3.80, 43.46},
		{9.19, 45.46}, {12.50, 41.90}, {14.27, 40.85}, {11.25, 43.77}, {8.91, 44.41}, {9.67, 45.69},
		{-0.13, 51.51}, {-1.55, 53.80}, {-4.25, 55.86}, {-5.93, 54.60}, {-3.18, 51.48}, {-1.26, 51.75}, {-2.09, 57.15},
		{-73.99, 40.75}, {-89.65, 39.80}, {-87.63, 41.88}, {-97.74, 30.27}, {-122.42, 37.77}, {-71.06, 42.36},
	} {
		out = append(out, maptile.At(pt, 12).Bound())
	}
	return out
}

var (
	addrFive = regexp.MustCompile(`^(.+), (\d{5}) (.+)$`)
	addrGBR  = regexp.MustCompile(`^\d+ [^,]+, (.+) ([A-Z]{1,2}\d{1,2}) (\d[A-Z]{2})$`)
	addrUSA  = regexp.MustCompile(`^\d+ [^,]+, (.+), ([A-Z]{2}) (\d{5})$`)
)

// tally counts a country's places and their agreements.
type tally struct{ n, located, postal, phones, phoneOK int }

// TestCoherentWorld is the measure of the simulated world's coherence:
// over the places of many tiles, the share whose postcode and commune are
// those of the commune containing their coordinates and whose phone
// prefix is their region's. It must be 1.0 everywhere: in France against
// the gazetteer's own postal codes and an independent table of the
// numbering zones, elsewhere against the commune's conventions.
//
//	go test -run TestCoherentWorld -v ./shared/provider/sim
func TestCoherentWorld(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the places of a few hundred tiles")
	}
	g := realGazetteer(t)
	w := New(g, Options{TransientRate: -1})
	seen := map[string]bool{}
	counts := map[string]*tally{}
	fail := 0
	bad := func(format string, args ...any) {
		if fail++; fail <= 30 {
			t.Errorf(format, args...)
		}
	}
	for _, b := range coherenceAreas() {
		for _, q := range []string{"plombier", "boulangerie", "avocat"} {
			ps, err := w.Truth(context.Background(), q, b)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if seen[p.ID] {
					continue
				}
				seen[p.ID] = true
				country := strings.ToUpper(strings.SplitN(strings.TrimPrefix(p.ID, idPrefix), "-", 2)[0])
				c := counts[country]
				if c == nil {
					c = &tally{}
					counts[country] = c
				}
				c.n++
				if tabled(country) {
					checkCoherence(w, country, p, c, bad)
				}
			}
		}
	}
	var names []string
	for k := range counts {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		c := counts[k]
		if !tabled(k) {
			t.Logf("%s: %d places (no tables: not measured)", k, c.n)
			continue
		}
		share := func(x, n int) float64 {
			if n == 0 {
				return 1
			}
			return float64(x) / float64(n)
		}
		t.Logf("%s: %d places, commune located %.4f, postcode and commune agree %.4f, phone prefix agrees %.4f (of %d fixed lines)",
			k, c.n, share(c.located, c.n), share(c.postal, c.n), share(c.phoneOK, c.phones), c.phones)
	}
	for _, k := range []string{"FRA", "DEU", "ESP", "ITA", "GBR", "USA"} {
		if counts[k] == nil || counts[k].n < 100 {
			t.Errorf("%s: too few places to measure (%v)", k, counts[k])
		}
	}
	if fail > 0 {
		t.Errorf("%d disagreements", fail)
	}
}

// tabled tells the countries whose conventions have tables (the others'
// places have no postcode: the gazetteer knows none there).
func tabled(country string) bool {
	return slices.Contains([]string{"FRA", "DEU", "ESP", "ITA", "GBR", "USA"}, country)
}

func checkCoherence(w *World, country string, p provider.Place, c *tally, bad func(string, ...any)) {
	g := w.g
	pt := orb.Point{p.Lon, p.Lat}
	id, ok := w.communeAt(country, pt)
	if !ok {
		bad("%s at %v: in no commune", p.ID, pt)
		return
	}
	c.located++
	cp := g.Place(id)
	conv := w.conventions(country, id)
	town := conv.town
	if town == "" {
		town = w.townOf(id)
	}
	var pc, gotTown string
	switch country {
	case "GBR":
		m := addrGBR.FindStringSubmatch(p.Address)
		if m != nil {
			gotTown, pc = m[1], m[2]
		}
	case "USA":
		m := addrUSA.FindStringSubmatch(p.Address)
		if m != nil {
			gotTown, pc = m[1], m[3]
			if want := strings.TrimPrefix(w.ancestor(id, gazetteer.Region), "US-"); m[2] != want {
				bad("%s: address %q names the state %s, its coordinates are in %s", p.ID, p.Address, m[2], want)
				return
			}
		}
	default:
		if m := addrFive.FindStringSubmatch(p.Address); m != nil {
			pc, gotTown = m[2], m[3]
		}
	}
	postcodes := conv.postcodes
	if country == "FRA" {
		postcodes = cp.Postcodes // the gazetteer's, not the conventions'
	}
	switch {
	case pc == "" && len(postcodes) > 0:
		bad("%s: address %q has no postcode (%s has %v)", p.ID, p.Address, cp.Name, postcodes)
	case gotTown != town:
		bad("%s: address %q names %q, its coordinates are in %s (%s)", p.ID, p.Address, gotTown, town, cp.Code)
	case !slices.Contains(postcodes, pc):
		bad("%s: address %q has postcode %s, %s has %v", p.ID, p.Address, pc, cp.Name, postcodes)
	default:
		c.postal++
	}
	if p.Phone == "" {
		return
	}
	if country == "FRA" {
		checkFrenchPhone(w, id, p, c, bad)
		return
	}
	c.phones++
	num, err := phonenumbers.Parse(p.Phone, "")
	if err != nil || !phonenumbers.IsValidNumber(num) {
		bad("%s: phone %q is not valid (%v)", p.ID, p.Phone, err)
		return
	}
	digits := fmt.Sprint(num.GetNationalNumber())
	for _, a := range conv.areas {
		if strings.HasPrefix(digits, strings.TrimPrefix(a, "0")) {
			c.phoneOK++
			return
		}
	}
	bad("%s: phone %q in %s, whose areas are %v", p.ID, p.Phone, cp.Name, conv.areas)
}

func checkFrenchPhone(w *World, id gazetteer.ID, p provider.Place, c *tally, bad func(string, ...any)) {
	dept := department(w.g.Place(id).Code)
	switch {
	case strings.HasPrefix(p.Phone, "+"):
		if len(frBorder[dept]) == 0 {
			bad("%s: foreign phone %q in department %s, on no border", p.ID, p.Phone, dept)
		}
		return
	case strings.HasPrefix(p.Phone, "06") || strings.HasPrefix(p.Phone, "07"):
		return // mobiles have no area
	}
	c.phones++
	region := w.ancestor(id, gazetteer.Region)
	zone := frZone[region]
	if region == "76" && slices.Contains(frLanguedoc, dept) {
		zone = "04"
	}
	if zone == "" || !strings.HasPrefix(strings.ReplaceAll(p.Phone, " ", ""), strings.ReplaceAll(zone, " ", "")) {
		bad("%s: phone %q in %s (region %s), want zone %s", p.ID, p.Phone, w.g.Place(id).Name, region, zone)
		return
	}
	c.phoneOK++
}
