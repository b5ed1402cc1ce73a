package sim_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

// TestPlaceMatchesSearch: every place a real Search lists on day d comes back from Place on day d with
// identical fields.
func TestPlaceMatchesSearch(t *testing.T) {
	tests := []struct {
		name  string
		req   provider.Request
		day   int
		trunc bool // the search is saturated (lists the cap)
	}{
		{"central Lyon restaurants on day 0", provider.Request{Query: "restaurant", Bound: simtest.CentralLyon, Country: "FRA", Language: "fr"}, 0, true},
		{"central Paris bakeries on day 40", provider.Request{Query: "boulangerie", Bound: simtest.CentralParis, Country: "FRA", Language: "fr"}, 40, true},
		{"Lozère plumbers on day 400, by a synonym", provider.Request{Query: "plumbers", Bound: department(t, "48")}, 400, false},
		{"Munich hairdressers on day 90, outside France", provider.Request{Query: "coiffeur", Bound: around(11.575, 48.137, 0.03)}, 90, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, sim.Options{Day: fixedDay(tt.day)})
			listed := simtest.SearchAll(t, w, tt.req)
			if len(listed) == 0 {
				t.Fatal("the search lists nothing")
			}
			if tt.trunc && len(listed) != 60 {
				t.Errorf("%d places, want a saturated search", len(listed))
			}
			for _, want := range listed {
				got, err := w.Place(context.Background(), want.ID)
				if err != nil {
					t.Fatalf("Place(%s) = %v", want.ID, err)
				}
				if got != want {
					t.Errorf("Place(%s)\n got %+v\nwant %+v", want.ID, got, want)
				}
			}
		})
	}
}

// TestPlaceAfterDrift is a veille's check: the places listed on day 0 are
// looked up after the world moved on. Some closed (ErrClosed, and absent
// from that day's world), the others are open with drifted ratings and
// review counts and the fields that day's world lists; none is unknown.
func TestPlaceAfterDrift(t *testing.T) {
	tests := []struct {
		name  string
		query string
		bound orb.Bound
		days  int
		// search takes the places of day 0 from a real Search (capped)
		// rather than from Truth.
		search    bool
		minClosed int // of the places of day 0, in thousandths
		maxClosed int
	}{
		{"a month of restaurants in central Paris", "restaurant", simtest.CentralParis, 30, false, 10, 100},
		{"a year of bakeries in central Lyon", "boulangerie", simtest.CentralLyon, 365, false, 150, 450},
		{"a year of a real search's restaurants in central Lyon", "restaurant", simtest.CentralLyon, 365, true, 150, 450},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			// One world whose day moves, as POST /api/admin/sim/advance
			// moves the app's.
			var day atomic.Int64
			w := newWorld(t, sim.Options{Day: func(context.Context) (int, error) { return int(day.Load()), nil }})
			before := truth(t, w, tt.query, tt.bound)
			if tt.search {
				before = simtest.SearchAll(t, w, provider.Request{Query: tt.query, Bound: tt.bound, Country: "FRA", Language: "fr"})
			}
			day.Store(int64(tt.days))
			// The day's world, a little wider than the rectangle: a place
			// on its north or east edge belongs to the next one.
			after := ids(truth(t, w, tt.query, widen(tt.bound, 0.1)))
			var closed, open, drifted int
			for _, old := range before {
				got, err := w.Place(ctx, old.ID)
				switch {
				case errors.Is(err, provider.ErrClosed):
					closed++
					if _, ok := after[old.ID]; ok {
						t.Errorf("%s: ErrClosed, but the day's world lists it", old.ID)
					}
					continue
				case err != nil:
					t.Fatalf("Place(%s) on day %d = %v, want the place or ErrClosed", old.ID, tt.days, err)
				}
				open++
				if want, ok := after[old.ID]; !ok || got != want {
					t.Errorf("Place(%s) on day %d\n got %+v\nwant %+v (listed: %v)", old.ID, tt.days, got, want, ok)
				}
				if got.Rating != old.Rating || got.ReviewCount != old.ReviewCount {
					drifted++
				}
				if got.ReviewCount < old.ReviewCount {
					t.Errorf("%s: %d reviews on day 0, %d on day %d", old.ID, old.ReviewCount, got.ReviewCount, tt.days)
				}
				if got.Name != old.Name || got.Address != old.Address || got.Phone != old.Phone ||
					got.Website != old.Website || got.Lat != old.Lat || got.Lon != old.Lon || got.MapsURL != old.MapsURL {
					t.Errorf("%s changed identity:\n%+v\n%+v", old.ID, old, got)
				}
			}
			n := len(before)
			t.Logf("%d places on day 0: on day %d, %d closed, %d open of which %d drifted", n, tt.days, closed, open, drifted)
			if closed*1000 < tt.minClosed*n || closed*1000 > tt.maxClosed*n {
				t.Errorf("%d of %d closed, want %d‰ to %d‰", closed, n, tt.minClosed, tt.maxClosed)
			}
			if drifted < open/4 {
				t.Errorf("%d of %d open places drifted, want at least a quarter", drifted, open)
			}
		})
	}
}

// TestPlaceNotFound: ids the world did not issue, and places not open
// yet, are unknown; neither is ErrClosed nor transient.
func TestPlaceNotFound(t *testing.T) {
	g := gaz(t)
	w := newWorld(t, sim.Options{})
	id := truth(t, w, "restaurant", simtest.CentralLyon)[0].ID
	// A place that opened between day 0 and day 300.
	early := ids(truth(t, w, "restaurant", simtest.CentralParis))
	var newcomer string
	for _, p := range truth(t, newWorld(t, sim.Options{Day: fixedDay(300)}), "restaurant", simtest.CentralParis) {
		if _, ok := early[p.ID]; !ok {
			newcomer = p.ID
			break
		}
	}
	if newcomer == "" {
		t.Fatal("no place opened in 300 days")
	}
	tests := []struct {
		name string
		w    *sim.World
		id   string
	}{
		{"empty", w, ""},
		{"another provider's", w, "ChIJN1t_tDeuEmsRUsoyG83frY4"},
		{"no prefix", w, strings.TrimPrefix(id, "sim:")},
		{"malformed", w, "sim:nothing"},
		{"bad check", w, id[:len(id)-1] + flip(id[len(id)-1])},
		{"altered index", w, strings.Replace(id, "-0-", "-0-9999", 1)},
		{"unknown settlement", w, strings.Replace(id, "fra-", "xyz-", 1)},
		{"another world's", sim.New(g, sim.Options{Seed: 1, TransientRate: -1}), id},
		{"not open yet", w, newcomer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.w.Place(context.Background(), tt.id)
			if !errors.Is(err, provider.ErrNotFound) || errors.Is(err, provider.ErrClosed) || isTransient(err) {
				t.Errorf("Place(%q) = %v, want ErrNotFound only", tt.id, err)
			}
		})
	}
}

// TestPlaceUnknownQuery: a place of a query the category table lacks is
// the searched place but for its Category, which ids do not carry.
func TestPlaceUnknownQuery(t *testing.T) {
	w := newWorld(t, sim.Options{Day: fixedDay(10)})
	listed := simtest.SearchAll(t, w, provider.Request{Query: "escape game", Bound: department(t, "69")})
	if len(listed) == 0 {
		t.Fatal("the search lists nothing")
	}
	for _, want := range listed {
		got, err := w.Place(context.Background(), want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Category != "" {
			t.Errorf("Category = %q, want empty", got.Category)
		}
		want.Category = ""
		if got != want {
			t.Errorf("Place(%s)\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
}

// TestPlaceCallKnobs: Place waits out the latency and fails at the
// transient rate as Search does, but checks the id first.
func TestPlaceCallKnobs(t *testing.T) {
	id := truth(t, newWorld(t, sim.Options{}), "restaurant", simtest.CentralLyon)[0].ID
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		opt  sim.Options
		ctx  context.Context
		id   string
		want error
	}{
		{"latency ends with the context", sim.Options{Latency: time.Hour}, cancelled, id, context.Canceled},
		{"malformed id fails before the wait", sim.Options{Latency: time.Hour}, cancelled, "sim:nothing", provider.ErrNotFound},
		{"every call failing", sim.Options{TransientRate: 1}, context.Background(), id, provider.ErrTransient},
		{"short latency is waited out", sim.Options{Latency: time.Millisecond}, context.Background(), id, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newWorld(t, tt.opt).Place(tt.ctx, tt.id)
			if !errors.Is(err, tt.want) {
				t.Errorf("Place = %v, want %v", err, tt.want)
			}
		})
	}
}

// widen is b grown by share of its width and height on each side.
func widen(b orb.Bound, share float64) orb.Bound {
	dx, dy := (b.Max[0]-b.Min[0])*share, (b.Max[1]-b.Min[1])*share
	return orb.Bound{Min: orb.Point{b.Min[0] - dx, b.Min[1] - dy}, Max: orb.Point{b.Max[0] + dx, b.Max[1] + dy}}
}
