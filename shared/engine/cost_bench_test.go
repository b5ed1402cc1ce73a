package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/provider/sim"
)

// textSearchPrice is what Google bills for 1,000 Text Search (New)
// requests with the adapter's field mask (google.SearchFieldMask names
// phone numbers and websiteUri, Text Search Enterprise fields, formerly
// "Advanced"): $35.00 per 1,000 in the first volume band (0-100,000 a
// month), after the free monthly cap. Source: Google's Places API (New)
// usage and billing page and price list (docs/benchmarks.md, "Cost per
// place"). Volume bands lower it (about $28 from 100,001); the ratios of
// the benchmark do not depend on it.
const textSearchPrice = 35.00

// placesPerRequest is the most places one request can list (a full page):
// the floor of a scrape is its places ÷ placesPerRequest requests.
const placesPerRequest = 20

// costUltraRecall is the recall ultra reaches today on every zone of the
// benchmark, with a margin: below it the run measured is broken, and its
// cost means nothing.
const costUltraRecall = 0.95

// costZones are the zones of BenchmarkCost: two dense cities, a dense
// department, a rural department and a whole region. The region is
// Auvergne-Rhône-Alpes: it holds Lyon and the Rhône, so its figures read
// beside theirs, and it mixes a metropolis, mountains and rural
// departments; its fixed 1 km grid (about 98,000 tiles, one request each
// at least) runs in seconds on the simulated world, so no smaller region
// is needed.
var costZones = []string{"Lyon", "Paris", "Rhône", "Creuse", "Auvergne-Rhône-Alpes"}

// costQueries are the queries of BenchmarkCost: the densest category and
// a sparse trade.
var costQueries = []string{"restaurant", "plombier"}

// BenchmarkCost measures what a scrape costs per place found, on the
// simulated world (no latency, no transient failure): for each zone and
// query, the jobs of fast, normal and ultra, and a fixed grid of uniform
// tiles of about 1 km, each searched through all its pages up to the
// provider's cap and never split (how the most used open-source Google
// Maps scraper covers an area). Each run reports its requests, the
// distinct places it kept in the zone, its recall against the world's
// truth, requests and dollars per 1,000 places kept (textSearchPrice),
// and its requests over the floor (the zone's places ÷ 20, the least any
// scrape can spend to list them). Run it with -benchtime 1x (each
// iteration is the whole measurement); one zone with -bench 'Cost/Lyon'.
// It asserts no timing, only that ultra's recall is at least
// costUltraRecall, so that it never reports the cost of a broken run.
func BenchmarkCost(b *testing.B) {
	for _, zone := range costZones {
		b.Run(zone, func(b *testing.B) {
			for _, query := range costQueries {
				b.Run(query, func(b *testing.B) { benchCost(b, zone, query) })
			}
		})
	}
}

// costRun is a recallRun with the figures of cost.
type costRun struct {
	recallRun
	truth int
}

func (r costRun) perThousand() float64 {
	if r.kept == 0 {
		return math.NaN()
	}
	return float64(r.requests) * 1000 / float64(r.kept)
}

func (r costRun) dollarsPerThousand() float64 { return r.perThousand() * textSearchPrice / 1000 }

func (r costRun) overFloor() float64 { return float64(r.requests) / float64(requestFloor(r.truth)) }

// requestFloor is the fewest requests that can list n places: full pages only.
func requestFloor(n int) int { return max(1, (n+placesPerRequest-1)/placesPerRequest) }

// kmZoom is the maptile zoom whose tiles' side is closest to 1 km at the
// latitude lat (a Web Mercator tile is square on the ground: its side is
// the equator's length × cos(lat) ÷ 2^z), and that side in km.
func kmZoom(lat float64) (maptile.Zoom, float64) {
	const equatorKm = 40075.016686
	best, side := maptile.Zoom(0), equatorKm
	for z := maptile.Zoom(1); z <= 20; z++ {
		s := equatorKm * math.Cos(lat*math.Pi/180) / float64(uint64(1)<<z)
		if math.Abs(s-1) < math.Abs(side-1) {
			best, side = z, s
		}
	}
	return best, side
}

func benchCost(b *testing.B, zone, query string) {
	g, err := data.Load()
	if err != nil {
		b.Fatal(err)
	}
	p, bound := benchPlan(b, zone, query)
	z, side := kmZoom(bound.Center()[1])

	var runs []costRun
	var truthN int
	for b.Loop() {
		world := sim.New(g, sim.Options{TransientRate: -1})
		truth := zoneTruth(b, world, p, bound, query)
		truthN = len(truth)
		runs = runs[:0]
		for _, r := range runModes(b, world, zone, query, truth) {
			runs = append(runs, costRun{r, truthN})
		}
		fixed := fixedGrid(b, world, p, bound, query, z, truth)
		fixed.name = "fixed-1km"
		runs = append(runs, costRun{fixed, truthN})
	}
	if truthN == 0 {
		b.Fatalf("%s, %q: no place in the zone", zone, query)
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "%s, %q: %d places in the zone, floor %d requests (places ÷ %d); %d base tiles; "+
		"fixed grid at zoom %d (tiles of %.2f km at latitude %.2f°); $%.2f per 1,000 requests\n",
		zone, query, truthN, requestFloor(truthN), placesPerRequest, p.Grid.Len(), z, side, bound.Center()[1], textSearchPrice)
	fmt.Fprintf(&sb, "%-10s %9s %8s %8s %7s %9s %10s %10s %8s\n",
		"run", "requests", "kept", "found", "recall", "cap-hit", "req/1k", "$/1k", "req/floor")
	for _, r := range runs {
		fmt.Fprintf(&sb, "%-10s %9d %8d %8d %7.4f %9d %10.1f %10.2f %8.2f\n",
			r.name, r.requests, r.kept, r.found, r.recall(truthN), r.saturated, r.perThousand(), r.dollarsPerThousand(), r.overFloor())
	}
	b.Log("\n" + sb.String())

	ultra := runs[2]
	if got := ultra.recall(truthN); got < costUltraRecall {
		b.Errorf("ultra recall %.4f < %.2f: the run is broken, its cost means nothing", got, costUltraRecall)
	}
	for _, r := range runs {
		b.ReportMetric(r.overFloor(), r.name+"-req/floor")
		b.ReportMetric(r.dollarsPerThousand(), r.name+"-$/1k-places")
		b.ReportMetric(r.recall(truthN), r.name+"-recall")
	}
	b.ReportMetric(float64(truthN), "places")
}
