package sim_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

func TestNameAndLimits(t *testing.T) {
	tests := []struct {
		name string
		opt  sim.Options
		want provider.Limits
	}{
		{"defaults", sim.Options{}, provider.Limits{PageSize: 20, Cap: 60}},
		{"set", sim.Options{PageSize: 10, Cap: 30}, provider.Limits{PageSize: 10, Cap: 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := sim.New(gaz(t), tt.opt)
			if got := w.Name(); got != "sim" {
				t.Errorf("Name() = %q, want sim", got)
			}
			if got := w.Limits(); got != tt.want {
				t.Errorf("Limits() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDeterminism: the same seed and day give the same answers, from
// independent worlds (as two processes would be); another seed gives
// another world.
func TestDeterminism(t *testing.T) {
	r := provider.Request{Query: "boulangerie", Bound: simtest.CentralLyon, Country: "FRA", Language: "fr"}
	a := simtest.SearchAll(t, newWorld(t, sim.Options{Seed: 7, Day: fixedDay(12)}), r)
	b := simtest.SearchAll(t, newWorld(t, sim.Options{Seed: 7, Day: fixedDay(12)}), r)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two worlds of one seed and day answer differently")
	}
	c := simtest.SearchAll(t, newWorld(t, sim.Options{Seed: 8, Day: fixedDay(12)}), r)
	shared := 0
	for id := range ids(c) {
		if _, ok := ids(a)[id]; ok {
			shared++
		}
	}
	if shared > 0 {
		t.Errorf("worlds of seeds 7 and 8 share %d place ids", shared)
	}
	// Generation order does not matter: a world that first generated the
	// whole department answers the tile alike.
	w := newWorld(t, sim.Options{Seed: 7, Day: fixedDay(12)})
	truth(t, w, "boulangerie", department(t, "69"))
	if d := simtest.SearchAll(t, w, r); !reflect.DeepEqual(a, d) {
		t.Error("the answer depends on what the world generated before")
	}
}

// TestDrift: from one day to a later one, places open and close, ratings
// and review counts move; review counts never go down.
func TestDrift(t *testing.T) {
	g := gaz(t)
	day0 := truth(t, sim.New(g, sim.Options{Day: fixedDay(0)}), "restaurant", simtest.CentralParis)
	day30 := truth(t, sim.New(g, sim.Options{Day: fixedDay(30)}), "restaurant", simtest.CentralParis)
	before, after := ids(day0), ids(day30)
	var opened, closed, rated, reviewed int
	for id, p := range after {
		q, ok := before[id]
		if !ok {
			opened++
			continue
		}
		if p.Rating != q.Rating {
			rated++
		}
		if p.ReviewCount != q.ReviewCount {
			reviewed++
		}
		if p.ReviewCount < q.ReviewCount {
			t.Errorf("%s: %d reviews on day 0, %d on day 30", id, q.ReviewCount, p.ReviewCount)
		}
		if p.Name != q.Name || p.Phone != q.Phone || p.Lat != q.Lat || p.Website != q.Website {
			t.Errorf("%s changed identity: %+v, then %+v", id, q, p)
		}
	}
	for id := range before {
		if _, ok := after[id]; !ok {
			closed++
		}
	}
	t.Logf("%d places on day 0, %d on day 30: %d opened, %d closed, %d ratings and %d review counts changed",
		len(day0), len(day30), opened, closed, rated, reviewed)
	// About 3% open and 3% close in 30 days.
	n := len(day0)
	for _, c := range []struct {
		what string
		got  int
		min  int
	}{{"opened", opened, n / 100}, {"closed", closed, n / 100}, {"ratings changed", rated, n / 20}, {"review counts changed", reviewed, n / 4}} {
		if c.got < c.min {
			t.Errorf("%s: %d of %d places, want at least %d", c.what, c.got, n, c.min)
		}
	}
	if closed > n/10 || opened > n/10 {
		t.Errorf("%d opened and %d closed of %d in 30 days: too many", opened, closed, n)
	}
}

// TestSaturation: a dense tile lists exactly Cap places over its pages,
// and its quarters together find more; a rural tile is not saturated.
func TestSaturation(t *testing.T) {
	w := newWorld(t, sim.Options{})
	tests := []struct {
		name      string
		query     string
		bound     orb.Bound
		saturated bool
	}{
		{"central Lyon boulangerie", "boulangerie", simtest.CentralLyon, true},
		{"central Paris boulangerie", "boulangerie", simtest.CentralParis, true},
		{"central Paris restaurant", "restaurant", simtest.CentralParis, true},
		{"rural Lozère boulangerie", "boulangerie", simtest.RuralLozere, false},
		{"rural Lozère restaurant", "restaurant", simtest.RuralLozere, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := simtest.SearchAll(t, w, provider.Request{Query: tt.query, Bound: tt.bound})
			if len(ids(got)) != len(got) {
				t.Errorf("a place is listed twice")
			}
			if !tt.saturated {
				if len(got) >= 60 {
					t.Errorf("%d places, want fewer than the cap", len(got))
				}
				return
			}
			if len(got) != 60 {
				t.Fatalf("%d places, want the cap, 60", len(got))
			}
			union := map[string]bool{}
			for _, q := range quarters(tt.bound) {
				for _, p := range simtest.SearchAll(t, w, provider.Request{Query: tt.query, Bound: q}) {
					union[p.ID] = true
				}
			}
			if len(union) <= 60 {
				t.Errorf("the quarters find %d distinct places, want more than 60", len(union))
			}
		})
	}
}

// TestPagination: pages of PageSize, each place once, tokens only
// continuing the search that issued them.
func TestPagination(t *testing.T) {
	w := newWorld(t, sim.Options{})
	ctx := context.Background()
	r := provider.Request{Query: "restaurant", Bound: simtest.CentralLyon, Country: "FRA", Language: "fr"}
	seen := map[string]bool{}
	var tokens []string
	for page := 0; ; page++ {
		p, err := w.Search(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Places) != 20 {
			t.Errorf("page %d has %d places, want 20", page, len(p.Places))
		}
		for _, pl := range p.Places {
			if seen[pl.ID] {
				t.Errorf("%s on two pages", pl.ID)
			}
			seen[pl.ID] = true
		}
		if p.NextPageToken == "" {
			break
		}
		tokens = append(tokens, p.NextPageToken)
		r.PageToken = p.NextPageToken
	}
	if len(tokens) != 2 {
		t.Fatalf("%d page tokens, want 2", len(tokens))
	}
	tok := tokens[0]
	flipped := []byte(tok)
	flipped[len(flipped)-1] ^= 1
	other := r
	other.Bound = simtest.CentralParis
	bad := []struct {
		name string
		r    provider.Request
	}{
		{"tampered", provider.Request{Query: r.Query, Bound: r.Bound, Country: "FRA", Language: "fr", PageToken: string(flipped)}},
		{"garbage", provider.Request{Query: r.Query, Bound: r.Bound, Country: "FRA", Language: "fr", PageToken: "not a token!"}},
		{"other query", provider.Request{Query: "pizzeria", Bound: r.Bound, Country: "FRA", Language: "fr", PageToken: tok}},
		{"other rectangle", provider.Request{Query: r.Query, Bound: simtest.CentralParis, Country: "FRA", Language: "fr", PageToken: tok}},
		{"other language", provider.Request{Query: r.Query, Bound: r.Bound, Country: "FRA", Language: "en", PageToken: tok}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.Search(ctx, tt.r)
			if !errors.Is(err, sim.ErrPageToken) {
				t.Errorf("Search = %v, want ErrPageToken", err)
			}
			if isTransient(err) {
				t.Error("a bad token is not transient")
			}
		})
	}
	// A token from another world (another seed) is refused too.
	if _, err := newWorld(t, sim.Options{Seed: 99}).Search(ctx, provider.Request{Query: r.Query, Bound: r.Bound, Country: "FRA", Language: "fr", PageToken: tok}); !errors.Is(err, sim.ErrPageToken) {
		t.Errorf("another world's token: %v, want ErrPageToken", err)
	}
}

// TestPagesKeepTheirDay: the day moving between two pages of a search
// does not change the search's answer.
func TestPagesKeepTheirDay(t *testing.T) {
	day := 0
	w := newWorld(t, sim.Options{Day: func(context.Context) (int, error) { return day, nil }})
	ctx := context.Background()
	r := provider.Request{Query: "restaurant", Bound: simtest.CentralParis}
	first, err := w.Search(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	day = 200
	r.PageToken = first.NextPageToken
	second, err := w.Search(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	day = 0
	want := simtest.SearchAll(t, w, provider.Request{Query: "restaurant", Bound: simtest.CentralParis})
	if !reflect.DeepEqual(second.Places, want[20:40]) {
		t.Error("the second page answered on another day than the first")
	}
}

// TestDensities: common categories find far more places than rare ones in
// one area; synonyms, plurals and English find the same category; an
// unknown query finds something, always the same.
func TestDensities(t *testing.T) {
	w := newWorld(t, sim.Options{})
	area := department(t, "69")
	counts := map[string]int{}
	for _, q := range []string{"boulangerie", "notaire", "restaurant", "pharmacie"} {
		counts[q] = len(truth(t, w, q, area))
	}
	t.Logf("Rhône: %v", counts)
	ratios := []struct{ common, rare string }{{"boulangerie", "notaire"}, {"restaurant", "boulangerie"}, {"boulangerie", "pharmacie"}}
	for _, r := range ratios {
		if counts[r.common] < 2*counts[r.rare] {
			t.Errorf("%d %s places, %d %s: want at least twice as many", counts[r.common], r.common, counts[r.rare], r.rare)
		}
	}
	// The Rhône's bounding box holds about 2.5 million people (the Rhône's
	// 1.9 million, parts of the Ain, Isère and Loire): about 2,000 bakeries.
	if n := counts["boulangerie"]; n < 1500 || n > 2600 {
		t.Errorf("%d bakeries in the Rhône's bounding box, want about 2,000", n)
	}

	want := ids(truth(t, w, "boulangerie", simtest.CentralLyon))
	for _, q := range []string{"Boulangerie", "BOULANGERIES", "bakery", "boulangerie artisanale", "  boulangerie "} {
		got := truth(t, w, q, simtest.CentralLyon)
		if !reflect.DeepEqual(ids(got), want) { // Category included
			t.Errorf("%q finds %d places, boulangerie %d", q, len(got), len(want))
		}
		if len(got) > 0 && got[0].Category != "Boulangerie" {
			t.Errorf("%q: category %q, want Boulangerie", q, got[0].Category)
		}
	}

	unknown := truth(t, w, "escape game", department(t, "69"))
	if len(unknown) == 0 {
		t.Fatal("an unknown query finds nothing in the Rhône")
	}
	if c := unknown[0].Category; c != "Escape game" {
		t.Errorf("unknown query's category %q, want %q", c, "Escape game")
	}
	again := truth(t, newWorld(t, sim.Options{}), "Escape Game", department(t, "69"))
	if !reflect.DeepEqual(idList(again), idList(unknown)) {
		t.Error("an unknown query finds other places in another world of the seed")
	}
}

// TestTruthContainsSearch: everything a search lists lies in its
// rectangle and exists: the location restriction returns nothing beyond
// the rectangle.
func TestTruthContainsSearch(t *testing.T) {
	w := newWorld(t, sim.Options{Day: fixedDay(5)})
	for _, b := range append(quarters(simtest.CentralLyon), simtest.CentralLyon, simtest.RuralLozere) {
		t.Run(fmt.Sprint(b), func(t *testing.T) {
			all := ids(truth(t, w, "coiffeur", b))
			found := simtest.SearchAll(t, w, provider.Request{Query: "coiffeur", Bound: b})
			if len(found) == 0 {
				t.Fatal("the search lists nothing")
			}
			for _, p := range found {
				if _, ok := all[p.ID]; !ok {
					t.Errorf("%s at %v is listed, but Truth has no such place in %v", p.ID, orb.Point{p.Lon, p.Lat}, b)
				}
			}
		})
	}
}

// TestStableIDs: a place found in a tile is found with the same id and
// details in its quarters.
func TestStableIDs(t *testing.T) {
	w := newWorld(t, sim.Options{})
	parent := ids(truth(t, w, "plombier", simtest.CentralLyon))
	n := 0
	for _, q := range quarters(simtest.CentralLyon) {
		for _, p := range truth(t, w, "plombier", q) {
			n++
			if got, ok := parent[p.ID]; !ok || got != p {
				t.Errorf("%s in a quarter, not alike in the tile: %+v / %+v", p.ID, p, got)
			}
		}
	}
	if n != len(parent) {
		t.Errorf("the quarters hold %d places, the tile %d", n, len(parent))
	}
}

func TestPlaceFields(t *testing.T) {
	w := newWorld(t, sim.Options{})
	ps := truth(t, w, "boulangerie", simtest.CentralLyon)
	var websites int
	for _, p := range ps {
		if p.ID == "" || p.Name == "" || p.Address == "" || p.Category != "Boulangerie" || p.MapsURL == "" {
			t.Errorf("incomplete place %+v", p)
		}
		if p.ReviewCount > 0 && (p.Rating < 3 || p.Rating > 5) {
			t.Errorf("%s: rating %v", p.ID, p.Rating)
		}
		if p.ReviewCount == 0 && p.Rating != 0 {
			t.Errorf("%s: rating %v without reviews", p.ID, p.Rating)
		}
		if p.Website != "" {
			websites++
		}
		if !postcodeRhone.MatchString(p.Address) {
			t.Errorf("%s: address %q has no postal code of the Rhône", p.ID, p.Address)
		}
	}
	if share := float64(websites) / float64(len(ps)); share < 0.5 || share > 0.7 {
		t.Errorf("%.0f%% of places have a website, want about 60%%", share*100)
	}
	t.Logf("%d places, e.g. %+v", len(ps), ps[0])
}

func TestBadRequests(t *testing.T) {
	w := newWorld(t, sim.Options{})
	tests := []struct {
		name string
		r    provider.Request
	}{
		{"empty query", provider.Request{Query: " ,; ", Bound: simtest.CentralLyon}},
		{"empty rectangle", provider.Request{Query: "bar", Bound: orb.Bound{Min: orb.Point{4, 45}, Max: orb.Point{4, 45}}}},
		{"inverted rectangle", provider.Request{Query: "bar", Bound: orb.Bound{Min: orb.Point{5, 46}, Max: orb.Point{4, 45}}}},
		{"off the map", provider.Request{Query: "bar", Bound: orb.Bound{Min: orb.Point{179, 45}, Max: orb.Point{181, 46}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := w.Search(context.Background(), tt.r); !errors.Is(err, sim.ErrBadRequest) {
				t.Errorf("Search = %v, want ErrBadRequest", err)
			}
		})
	}
}

// TestDayError: a failure to read the day fails the call.
func TestDayError(t *testing.T) {
	boom := errors.New("table unavailable")
	w := newWorld(t, sim.Options{Day: func(context.Context) (int, error) { return 0, boom }})
	if _, err := w.Search(context.Background(), provider.Request{Query: "bar", Bound: simtest.CentralLyon}); !errors.Is(err, boom) {
		t.Errorf("Search = %v, want the day's error", err)
	}
	if _, err := w.Truth(context.Background(), "bar", simtest.CentralLyon); !errors.Is(err, boom) {
		t.Errorf("Truth = %v, want the day's error", err)
	}
}

// TestConcurrentSearches exercises the cache under the race detector.
func TestConcurrentSearches(t *testing.T) {
	w := newWorld(t, sim.Options{CachePlaces: 2000})
	want := simtest.SearchAll(t, newWorld(t, sim.Options{}), provider.Request{Query: "bar", Bound: simtest.CentralLyon})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			q := []string{"bar", "coiffeur", "restaurant", "bar"}[i%4]
			var got []provider.Place
			r := provider.Request{Query: q, Bound: simtest.CentralLyon}
			for {
				p, err := w.Search(context.Background(), r)
				if err != nil {
					errs <- err
					return
				}
				got = append(got, p.Places...)
				if r.PageToken = p.NextPageToken; r.PageToken == "" {
					break
				}
			}
			if q == "bar" && !reflect.DeepEqual(got, want) {
				errs <- errors.New("concurrent search answered differently")
				return
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// postcodeRhone is the end of an address in the Rhône.
var postcodeRhone = regexp.MustCompile(`^\d+( bis)? [^,]+, 69\d{3} \S`)

func idList(ps []provider.Place) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	slices.Sort(out)
	return out
}

// TestSearchByName: a query that spells a place's name with its category
// lists that place first, as a map's text search does; the category
// alone keeps the prominence order.
func TestSearchByName(t *testing.T) {
	w := newWorld(t, sim.Options{})
	b := department(t, "69")
	all := simtest.SearchAll(t, w, provider.Request{Query: "boulangerie", Bound: b, Country: "FRA", Language: "fr"})
	if len(all) < 40 {
		t.Fatalf("%d bakeries", len(all))
	}
	last := all[len(all)-1] // the least prominent listed
	page, err := w.Search(context.Background(), provider.Request{Query: last.Name + " boulangerie", Bound: b, Country: "FRA", Language: "fr"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Places) == 0 || page.Places[0].Name != last.Name {
		t.Fatalf("first of a search for %q: %v", last.Name, page.Places[:min(3, len(page.Places))])
	}
	again := simtest.SearchAll(t, w, provider.Request{Query: "boulangerie", Bound: b, Country: "FRA", Language: "fr"})
	if again[0].ID != all[0].ID {
		t.Error("the category's order changed")
	}
}
