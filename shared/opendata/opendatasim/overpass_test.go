package opendatasim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"github.com/prospectdata/svc/shared/opendata/opendatasim"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

func newWorld(tb testing.TB, opt sim.Options) *sim.World { return simtest.World(tb, opt) }

func twin(w *sim.World) http.Handler { return opendatasim.Handler(w.View()) }

// overpassAnswer is the twin's JSON answer.
type overpassAnswer struct {
	Version   float64 `json:"version"`
	Generator string  `json:"generator"`
	OSM3S     struct {
		Base      string `json:"timestamp_osm_base"`
		Copyright string `json:"copyright"`
	} `json:"osm3s"`
	Elements []struct {
		Type   string                      `json:"type"`
		ID     int64                       `json:"id"`
		Lat    *float64                    `json:"lat"`
		Lon    *float64                    `json:"lon"`
		Center *struct{ Lat, Lon float64 } `json:"center"`
		Tags   map[string]string           `json:"tags"`
	} `json:"elements"`
	Remark string `json:"remark"`
}

// overpassPost asks the twin a query as the opendata client does.
func overpassPost(t testing.TB, h http.Handler, ql string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/interpreter", strings.NewReader(url.Values{"data": {ql}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func overpassQuery(t testing.TB, h http.Handler, ql string) overpassAnswer {
	t.Helper()
	code, body := overpassPost(t, h, ql)
	if code != http.StatusOK {
		t.Fatalf("status %d for:\n%s\n%s", code, ql, body)
	}
	var a overpassAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("answer: %v\n%s", err, body)
	}
	return a
}

// nameRe is an exact-name filter the way Go quotes it (Go's regexp
// reads RE2, the twin's engine).
func nameRe(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll("^"+regexp.QuoteMeta(name)+"$", `\`, `\\`), `"`, `\"`)
}

// The twin maps about 55% (osmMapped) of the places, at their position, with
// their name and contacts as the listing gives them.
func TestOverpassMapsPlaces(t *testing.T) {
	w := newWorld(t, sim.Options{})
	h := twin(w)
	var places []provider.Place
	for _, q := range []string{"boulangerie", "restaurant", "plombier", "coiffeur"} {
		places = append(places, simtest.SearchAll(t, w, provider.Request{Query: q, Bound: simtest.CentralLyon})...)
	}
	mapped, withSite, withPhone, withEmail, ways := 0, 0, 0, 0, 0
	for _, p := range places {
		a := overpassQuery(t, h, fmt.Sprintf(`[out:json][timeout:25];
nwr(around:50,%.7f,%.7f)[~"^(shop|amenity|craft)$"~"."];
out tags center;`, p.Lat, p.Lon))
		for _, e := range a.Elements {
			var pt orb.Point
			switch {
			case e.Type == "node" && e.Lat != nil:
				pt = orb.Point{*e.Lon, *e.Lat}
			case e.Type == "way" && e.Center != nil:
				pt = orb.Point{e.Center.Lon, e.Center.Lat}
			default:
				t.Fatalf("element without position: %+v", e)
			}
			if d := geo.DistanceHaversine(pt, orb.Point{p.Lon, p.Lat}); d > 50 {
				t.Errorf("element %s/%d %.0f m away from an around:50", e.Type, e.ID, d)
			}
			if geo.DistanceHaversine(pt, orb.Point{p.Lon, p.Lat}) > 15 {
				continue // another place nearby
			}
			if site := e.Tags["website"] + e.Tags["contact:website"]; site != "" && site != p.Website {
				continue // another place at the same spot
			}
			mapped++
			if e.Type == "way" {
				ways++
			}
			if e.Tags["name"] == "" {
				t.Errorf("no name: %+v", e)
			}
			if s := e.Tags["website"] + e.Tags["contact:website"]; s != "" {
				withSite++
			}
			if ph := e.Tags["phone"] + e.Tags["contact:phone"]; ph != "" {
				withPhone++
				if !strings.HasPrefix(ph, "+") {
					t.Errorf("phone %q not international", ph)
				}
			}
			if em := e.Tags["email"] + e.Tags["contact:email"]; em != "" {
				withEmail++
				if !strings.Contains(em, "@") {
					t.Errorf("email %q", em)
				}
			}
			break
		}
	}
	share := float64(mapped) / float64(len(places))
	t.Logf("%d places: %d mapped (%.0f%%), %d ways, %d with website, %d phone, %d email", len(places), mapped, 100*share,
		ways, withSite, withPhone, withEmail)
	if share < 0.4 || share > 0.75 {
		t.Errorf("mapped share %.2f, want about 0.55", share)
	}
	if withSite == 0 || withPhone == 0 || withEmail == 0 || withSite == mapped || ways == 0 {
		t.Errorf("tags not varied: %d site, %d phone, %d email, %d ways of %d", withSite, withPhone, withEmail, ways, mapped)
	}
}

// The same query gives the same bytes, in every process, on a day.
func TestOverpassDeterministic(t *testing.T) {
	ql := `[out:json];nwr(around:400,45.7640,4.8345)["name"~"a",i];out tags center 30;`
	_, a := overpassPost(t, twin(newWorld(t, sim.Options{})), ql)
	_, b := overpassPost(t, twin(newWorld(t, sim.Options{})), ql)
	if !bytes.Equal(a, b) || !bytes.Contains(a, []byte(`"elements"`)) {
		t.Fatalf("two answers differ:\n%s\n%s", a, b)
	}
	var ans overpassAnswer
	if err := json.Unmarshal(a, &ans); err != nil || len(ans.Elements) == 0 || len(ans.Elements) > 30 {
		t.Fatalf("%v: %d elements", err, len(ans.Elements))
	}
	if !strings.Contains(ans.OSM3S.Copyright, "not OpenStreetMap data") {
		t.Errorf("the twin's data passes for OSM's: %q", ans.OSM3S.Copyright)
	}
}

// A listing found by name through its postcode's area and its commune's.
func TestOverpassAreas(t *testing.T) {
	w := newWorld(t, sim.Options{})
	h := twin(w)
	found := 0
	for _, p := range simtest.SearchAll(t, w, provider.Request{Query: "boulangerie", Bound: simtest.CentralLyon})[:15] {
		pc := regexp.MustCompile(`\b\d{5}\b`).FindString(p.Address)
		for _, ql := range []string{
			fmt.Sprintf(`[out:json];area["postal_code"="%s"]->.a;nwr(area.a)["name"="%s"];out tags center;`, pc, p.Name),
			fmt.Sprintf(`[out:json];nwr["addr:postcode"="%s"]["name"="%s"];out tags center;`, pc, p.Name),
			fmt.Sprintf(`[out:json];area["boundary"="administrative"]["name"="Lyon"]->.a;nwr(area.a)["name"="%s"];out tags center;`, p.Name),
		} {
			a := overpassQuery(t, h, ql)
			for _, e := range a.Elements {
				if pc2 := e.Tags["addr:postcode"]; strings.Contains(ql, `"Lyon"`) && pc2 != "" && !strings.HasPrefix(pc2, "6900") {
					t.Errorf("%s: element of %s in Lyon's area", p.Name, pc2)
				}
				if strings.Contains(ql, "postcode") || strings.Contains(ql, "postal_code") {
					if pc2 := e.Tags["addr:postcode"]; pc2 != "" && pc2 != pc {
						t.Errorf("%s: element of %s in %s's area", p.Name, pc2, pc)
					}
				}
			}
			if strings.Contains(ql, "postal_code") && len(a.Elements) > 0 {
				found++
			}
		}
	}
	if found == 0 {
		t.Error("no bakery found by its postcode's area")
	}
	// An unknown postcode or commune has no area.
	a := overpassQuery(t, h, `[out:json];(area["postal_code"="00000"];area["name"="Nowhere"]["boundary"="administrative"];)->.a;nwr(area.a);out;`)
	if len(a.Elements) != 0 {
		t.Errorf("%d elements in no area", len(a.Elements))
	}
	a = overpassQuery(t, h, `[out:json];area["boundary"="administrative"]["admin_level"="8"]["name"="Caluire-et-Cuire"];out;`)
	if len(a.Elements) != 1 || a.Elements[0].Type != "area" || a.Elements[0].Tags["ref:INSEE"] != "69034" {
		t.Errorf("Caluire-et-Cuire's area: %+v", a.Elements)
	}
}

func TestOverpassFilters(t *testing.T) {
	h := twin(newWorld(t, sim.Options{}))
	base := `nwr(around:600,45.7640,4.8345)`
	all := overpassQuery(t, h, "[out:json];"+base+";out tags;")
	if len(all.Elements) < 20 {
		t.Fatalf("%d elements in 600 m of the Presqu'île", len(all.Elements))
	}
	count := func(filter string) int {
		return len(overpassQuery(t, h, "[out:json];"+base+filter+";out ids;").Elements)
	}
	shops, notShops := count(`["shop"]`), count(`[!"shop"]`)
	if shops+notShops != len(all.Elements) || shops == 0 || notShops == 0 {
		t.Errorf("shop %d + not shop %d != %d", shops, notShops, len(all.Elements))
	}
	if b, nb := count(`["shop"="bakery"]`), count(`["shop"!="bakery"]`); b+nb != len(all.Elements) || b == 0 {
		t.Errorf("bakery %d + not %d", b, nb)
	}
	if n, ni := count(`["name"~"^boulangerie"]`), count(`["name"~"^boulangerie",i]`); n > ni || ni == 0 {
		t.Errorf("case-sensitive %d, insensitive %d", n, ni)
	}
	if k := count(`[~"^(shop|craft)$"~"."]`); k != shops+count(`["craft"][!"shop"]`) {
		t.Errorf("key regex %d", k)
	}
	nodes := len(overpassQuery(t, h, "[out:json];node(around:600,45.7640,4.8345);out ids;").Elements)
	ways := len(overpassQuery(t, h, "[out:json];way(around:600,45.7640,4.8345);out ids;").Elements)
	if nodes+ways != len(all.Elements) || ways == 0 {
		t.Errorf("%d nodes + %d ways != %d", nodes, ways, len(all.Elements))
	}
	if n := len(overpassQuery(t, h, "[out:json];rel(around:600,45.7640,4.8345);out;").Elements); n != 0 {
		t.Errorf("%d relations", n)
	}
	// Output modes: ids have no tags, center gives ways a center.
	a := overpassQuery(t, h, "[out:json];way(around:600,45.7640,4.8345);out ids;")
	if a.Elements[0].Tags != nil || a.Elements[0].Center != nil {
		t.Errorf("out ids: %+v", a.Elements[0])
	}
	a = overpassQuery(t, h, "[out:json];way(around:600,45.7640,4.8345);out tags center 2;")
	if len(a.Elements) != 2 || a.Elements[0].Center == nil || a.Elements[0].Tags == nil {
		t.Errorf("out tags center 2: %+v", a.Elements)
	}
	// Sets and bounding boxes.
	box := "(45.760,4.830,45.768,4.840)"
	a = overpassQuery(t, h, `[out:json];node`+box+`["shop"]->.s;way`+box+`->.w;(.s;.w;);out ids;`)
	s := len(overpassQuery(t, h, `[out:json];node`+box+`["shop"];out ids;`).Elements)
	wy := len(overpassQuery(t, h, `[out:json];way`+box+`;out ids;`).Elements)
	if len(a.Elements) != s+wy || s == 0 || wy == 0 {
		t.Errorf("union of sets: %d, want %d + %d", len(a.Elements), s, wy)
	}
}

func TestOverpassRefusals(t *testing.T) {
	h := twin(newWorld(t, sim.Options{}))
	for _, ql := range []string{
		`[out:xml];node(around:10,45,4);out;`,
		`[out:json];node["shop"="bakery"];out;`,   // unbounded
		`[out:json];node(around:50000,45,4);out;`, // too far
		`[out:json];node(40,0,50,10);out;`,        // too large a box
		`[out:json];node(1234);out;`,
		`[out:json];node(around:10,45,4)["name"~"(unclosed"];out;`,
		`[out:json];node(around:10,45,4)["name"="unterminated];out;`,
		`[out:json];node(around:10,45,4);out geom;`,
		`[out:json];foreach{};`,
		`[out:json];node(around:10,45,4)`,
		`[out:json][bbox:1,2,3,4];node(around:10,45,4);out;`,
	} {
		code, body := overpassPost(t, h, ql)
		if code != http.StatusBadRequest || !bytes.Contains(body, []byte("Error</strong>")) {
			t.Errorf("%s: %d\n%s", ql, code, body)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodDelete, "/api/interpreter", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d", rec.Code)
	}
	// GET ?data= and a raw POST body are read too, as by Overpass.
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/interpreter?data="+url.QueryEscape(`[out:json];node(around:100,45.764,4.8345);out;`), nil))
	if rec.Code != http.StatusOK {
		t.Errorf("GET: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/interpreter", strings.NewReader(`[out:json];node(around:100,45.764,4.8345);out;`)))
	if rec.Code != http.StatusOK {
		t.Errorf("raw POST: %d %s", rec.Code, rec.Body)
	}
}

// Transient failures come as the real service's three: 429, 504, and a
// runtime-error remark in a 200 answer.
func TestOverpassTransient(t *testing.T) {
	h := twin(newWorld(t, sim.Options{TransientRate: 1}))
	seen := map[string]bool{}
	for range 6 {
		code, body := overpassPost(t, h, `[out:json];node(around:10,45.764,4.8345);out;`)
		switch {
		case code == http.StatusTooManyRequests && bytes.Contains(body, []byte("rate_limited")):
			seen["429"] = true
		case code == http.StatusGatewayTimeout && bytes.Contains(body, []byte("too busy")):
			seen["504"] = true
		case code == http.StatusOK && bytes.Contains(body, []byte(`"remark": "runtime error: Query timed out`)):
			seen["remark"] = true
		default:
			t.Errorf("%d %s", code, body)
		}
	}
	if len(seen) != 3 {
		t.Errorf("failures seen: %v", seen)
	}
}

func TestOverpassHonoursTheContext(t *testing.T) {
	h := twin(newWorld(t, sim.Options{}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodPost, "/api/interpreter", strings.NewReader(`[out:json];node(around:10,45.764,4.8345);out;`)).WithContext(ctx)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Body.Len() != 0 && rec.Code == http.StatusOK {
		t.Errorf("answered a cancelled request: %d", rec.Code)
	}
}

// The twin reads untrusted QL: it answers 200 or 400 and never panics.
func FuzzOverpassAPI(f *testing.F) {
	for _, s := range []string{
		`[out:json][timeout:25];nwr(around:300,45.79,4.85)[~"^(shop|amenity)$"~"."]["name"~"(b[oô]ulangerie)|(march[eé])",i];out tags center 100;`,
		`[out:json];(area["postal_code"="69300"];area["boundary"="administrative"]["admin_level"="8"]["name"="Caluire-et-Cuire"];)->.a;(nwr(area.a)["name"~"x",i];nwr["addr:postcode"="69300"]["name"~"x",i];);out tags center 100;`,
		`[out:json];node(45.76,4.83,45.77,4.84)->.x;.x out ids;`,
		`node["a"!~"b"][!"c"](around:1,0,0);out meta qt 5;`,
		`/* c */ // d
[out:json];way(around:10,45,4)["n"="\u00e9\"\\"];out;`,
		`((((node(around:1,1,1););););`,
	} {
		f.Add(s)
	}
	w := sim.New(simtest.Gazetteer(f), sim.Options{TransientRate: -1})
	h := twin(w)
	f.Fuzz(func(t *testing.T, ql string) {
		code, body := overpassPost(t, h, ql)
		switch code {
		case http.StatusOK:
			var a overpassAnswer
			if err := json.Unmarshal(body, &a); err != nil {
				t.Fatalf("200 with a body that is not JSON: %v\n%s", err, body)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d for %q", code, ql)
		}
	})
}
