package grid

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/maptile"
	"github.com/paulmach/orb/planar"

	"github.com/prospectdata/svc/shared/pricing"
)

var (
	lyonCentre  = orb.Point{4.8357, 45.764}
	brestCentre = orb.Point{-4.4861, 48.3904}
	parisCentre = orb.Point{2.3522, 48.8566}
)

// baseTile returns the base tile of g holding pt, or false.
func baseTile(g *Grid, pt orb.Point) (maptile.Tile, bool) {
	opt := g.Options()
	for _, t := range g.Tiles() {
		if t.Contains(maptile.At(pt, opt.MaxZoom)) {
			return t, true
		}
	}
	return maptile.Tile{}, false
}

func mustBuild(t *testing.T, zones []Zone, pop *Population, opt Options) *Grid {
	t.Helper()
	g, err := Build(zones, pop, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A coastal department is covered by its land, not its bounding box: the
// box holds twice its area in sea and neighbours. Without refinement
// (infinite tolerance) its grid has no more tiles than the box's either.
func TestCoastalNotBilledForSea(t *testing.T) {
	pts, pops := syntheticFrance(t)
	pop := NewPopulation(pts, pops)
	stated := Options{AreaTolerance: statedTolerance}
	loose := Options{AreaTolerance: math.Inf(1)}
	for _, code := range []string{"29", "2A"} {
		t.Run(code, func(t *testing.T) {
			d := department(t, code)
			zone := Zone{Label: d.Name, Shape: d.Shape}
			g := mustBuild(t, []Zone{zone}, pop, stated)
			real := checkGrid(t, g, []Zone{zone}, 2000)
			checkArea(t, g, real)

			box := d.Shape.Bound()
			boxZone := Zone{Label: "box", Shape: orb.MultiPolygon{box.ToPolygon()}}
			gb := mustBuild(t, []Zone{boxZone}, pop, stated)
			gl := mustBuild(t, []Zone{zone}, pop, loose)
			gbl := mustBuild(t, []Zone{boxZone}, pop, loose)
			t.Logf("%s, %s: %d tiles %.0f km² (unrefined %d tiles %.0f km²); bounding box %s: %d tiles %.0f km² (unrefined %d tiles)",
				d.Name, km2(real), g.Len(), g.AreaKm2(), gl.Len(), gl.AreaKm2(), km2(geo.Area(box)), gb.Len(), gb.AreaKm2(), gbl.Len())
			if geo.Area(box) < 1.8*real || gb.AreaKm2() < 1.8*g.AreaKm2() {
				t.Errorf("bounding box %s, its grid %.0f km²: not far larger than the grid's %.0f km²",
					km2(geo.Area(box)), gb.AreaKm2(), g.AreaKm2())
			}
			if gl.Len() > gbl.Len() || gl.AreaKm2() >= gbl.AreaKm2() {
				t.Errorf("unrefined: %d tiles %.0f km², box %d tiles %.0f km²", gl.Len(), gl.AreaKm2(), gbl.Len(), gbl.AreaKm2())
			}
			// The sea off the coast is outside the grid.
			for _, tl := range gb.Tiles() {
				if !intersects(tl, zone) && (len(g.ZonesOf(tl)) > 0 || len(gl.ZonesOf(tl)) > 0) {
					t.Fatalf("tile %v outside %s belongs to its grid", tl, d.Name)
				}
			}
		})
	}
}

// Overlapping zones share tiles: the union has fewer tiles than the sum,
// and the shared ones belong to both zones.
func TestOverlappingZonesShareTiles(t *testing.T) {
	a := Zone{Label: "a", Shape: disc(lyonCentre, 10)}
	b := Zone{Label: "b", Shape: disc(geo.PointAtBearingAndDistance(lyonCentre, 90, 8000), 10)}
	ga := mustBuild(t, []Zone{a}, nil, Options{})
	gb := mustBuild(t, []Zone{b}, nil, Options{})
	gu := mustBuild(t, []Zone{a, b}, nil, Options{})
	checkGrid(t, gu, []Zone{a, b}, 2000)
	t.Logf("a %d tiles, b %d, union %d", ga.Len(), gb.Len(), gu.Len())
	if gu.Len() >= ga.Len()+gb.Len() {
		t.Errorf("union %d tiles, a %d + b %d", gu.Len(), ga.Len(), gb.Len())
	}
	shared := 0
	for _, tl := range gu.Tiles() {
		if slices.Equal(gu.ZonesOf(tl), []int{0, 1}) {
			shared++
		}
	}
	if shared == 0 {
		t.Error("no tile shared by both zones")
	}
	mid := geo.PointAtBearingAndDistance(lyonCentre, 90, 4000)
	if got := gu.Locate(mid); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Locate(between) = %v, want [0 1]", got)
	}

	// The same zone twice (an equal copy) costs nothing more.
	a2 := Zone{Label: "a again", Shape: disc(lyonCentre, 10)}
	gd := mustBuild(t, []Zone{a, b, a2}, nil, Options{})
	if !slices.Equal(gd.Tiles(), gu.Tiles()) {
		t.Errorf("a, b, a: %d tiles, a, b: %d", gd.Len(), gu.Len())
	}
	for _, tl := range gd.Tiles() {
		if zs := gd.ZonesOf(tl); slices.Contains(zs, 0) != slices.Contains(zs, 2) {
			t.Fatalf("tile %v: zones %v", tl, zs)
		}
	}
	if got := gd.Locate(mid); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("a, b, a: Locate(between) = %v, want [0 1 2]", got)
	}
}

// A nested zone (a part of another zone of the request, on its edge)
// leaves the tiles to its container: the grid is the container's alone,
// and the part's points are located in both. Without the flag its share
// of an edge tile adds to the container's and changes the tiles.
func TestNestedZone(t *testing.T) {
	whole := Zone{Label: "city", Shape: disc(lyonCentre, 6)}
	// The eastern half of the disc: its edge is the city's edge there.
	var east orb.Ring
	for _, p := range whole.Shape[0][0] {
		if p[0] >= lyonCentre[0] {
			east = append(east, p)
		}
	}
	east = append(east, orb.Point{lyonCentre[0], east[len(east)-1][1]}, orb.Point{lyonCentre[0], east[0][1]}, east[0])
	part := Zone{Label: "east", Shape: orb.MultiPolygon{{east}}}
	alone := mustBuild(t, []Zone{whole}, nil, Options{})
	for _, tt := range []struct {
		name   string
		nested bool
		same   bool
	}{
		{"nested", true, true},
		{"not nested", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := part
			p.Nested = tt.nested
			g := mustBuild(t, []Zone{whole, p}, nil, Options{})
			if same := slices.Equal(g.Tiles(), alone.Tiles()); same != tt.same {
				t.Errorf("city alone %d tiles, with its part %d (same: %v, want %v)", alone.Len(), g.Len(), same, tt.same)
			}
			if got := g.Locate(geo.PointAtBearingAndDistance(lyonCentre, 90, 3000)); !slices.Equal(got, []int{0, 1}) {
				t.Errorf("Locate(east) = %v, want [0 1]", got)
			}
		})
	}
	// Alone, a nested zone is a zone like any.
	p := part
	p.Nested = true
	if got, want := mustBuild(t, []Zone{p}, nil, Options{}).Tiles(), mustBuild(t, []Zone{part}, nil, Options{}).Tiles(); !slices.Equal(got, want) {
		t.Errorf("nested alone: %d tiles, as a zone %d", len(got), len(want))
	}
}

// A tile over a dense cluster ends finer than a rural one, within one
// zone; tiles with nobody are kept.
func TestDensity(t *testing.T) {
	square := orb.MultiPolygon{orb.Bound{Min: orb.Point{2, 46}, Max: orb.Point{3, 47}}.ToPolygon()}
	dense := orb.Point{2.3, 46.3}
	rural := orb.Point{2.8, 46.8}
	rng := rand.New(rand.NewPCG(3, 4))
	var pts []orb.Point
	var pops []int64
	for range 200 { // a city of a million people within about 5 km
		pts = append(pts, geo.PointAtBearingAndDistance(dense, rng.Float64()*360, 5000*math.Sqrt(rng.Float64())))
		pops = append(pops, 5000)
	}
	for range 300 { // villages
		pts = append(pts, orb.Point{2 + rng.Float64(), 46 + rng.Float64()})
		pops = append(pops, 300)
	}
	pop := NewPopulation(pts, pops)
	g := mustBuild(t, []Zone{{Label: "square", Shape: square}}, pop, Options{})
	checkArea(t, g, checkGrid(t, g, []Zone{{Label: "square", Shape: square}}, 2000))
	td, _ := baseTile(g, dense)
	tr, _ := baseTile(g, rural)
	t.Logf("%d tiles; dense %v, rural %v", g.Len(), td, tr)
	if td.Z < tr.Z+3 {
		t.Errorf("dense tile z%d, rural z%d: want the dense one 3 levels finer", td.Z, tr.Z)
	}
	if tr.Z > 11 {
		t.Errorf("rural tile z%d, want z11 or coarser", tr.Z)
	}
	empty := 0
	for _, tl := range g.Tiles() {
		if pop.In(tl) == 0 {
			empty++
		}
	}
	if empty == 0 {
		t.Error("no tile without people: rural land must be scraped too")
	}

	// Without a population index every tile inside stays at MinZoom.
	g0 := mustBuild(t, []Zone{{Label: "square", Shape: square}}, nil, Options{})
	if tl, _ := baseTile(g0, dense); tl.Z != DefaultMinZoom {
		t.Errorf("no population: tile z%d at the cluster", tl.Z)
	}

	// A whole-country grid: small tiles over Paris, large ones over
	// rural Creuse, within the one zone.
	pts, pops = syntheticFrance(t)
	country := Zone{Label: "France", Shape: loadShapes(t, "fr-country.geojson.gz")[0].Shape}
	gc := mustBuild(t, []Zone{country}, NewPopulation(pts, pops), Options{})
	tp, _ := baseTile(gc, parisCentre)
	tc, _ := baseTile(gc, orb.Point{2.0, 46.1})
	if tp.Z < 14 || tc.Z > 11 {
		t.Errorf("France: Paris z%d, Creuse z%d; want z14+ and z11-", tp.Z, tc.Z)
	}
}

// A city indexed as one point gets about the same tiles as the city
// indexed by its districts (see smoothZoom).
func TestDensityCityAsOnePoint(t *testing.T) {
	pts, pops := syntheticFrance(t)
	paris := []Zone{{Label: "Paris", Shape: department(t, "75").Shape}}
	byDistrict := mustBuild(t, paris, NewPopulation(pts, pops), Options{})
	// syntheticFrance puts Paris's 20 districts first.
	pts, pops = append([]orb.Point{parisCentre}, pts[20:]...), append([]int64{2_100_000}, pops[20:]...)
	byCentre := mustBuild(t, paris, NewPopulation(pts, pops), Options{})
	t.Logf("Paris: %d tiles by districts, %d by its centre", byDistrict.Len(), byCentre.Len())
	if d := math.Abs(float64(byCentre.Len() - byDistrict.Len())); d > 0.05*float64(byDistrict.Len()) {
		t.Errorf("Paris: %d tiles by districts, %d by its centre", byDistrict.Len(), byCentre.Len())
	}
}

// Within limits a coastal city's disc to its department's land: no tile
// lies wholly at sea, and points at sea are outside the request.
func TestWithin(t *testing.T) {
	fin := department(t, "29")
	bare := Zone{Label: "Brest", Shape: disc(brestCentre, 12)}
	zone := Zone{Label: "Brest", Shape: bare.Shape, Within: fin.Shape}
	// A tight tolerance, so that the coast is followed closely enough to
	// show in the area.
	opt := Options{AreaTolerance: 0.2}
	g := mustBuild(t, []Zone{zone}, nil, opt)
	gb := mustBuild(t, []Zone{bare}, nil, opt)
	checkGrid(t, g, []Zone{zone}, 2000)
	t.Logf("disc %d tiles %.0f km², on land %d tiles %.0f km²", gb.Len(), gb.AreaKm2(), g.Len(), g.AreaKm2())
	// The disc's edge is simple, the coast is not: following it within
	// the tolerance takes more, smaller tiles.
	if g.AreaKm2() >= 0.9*gb.AreaKm2() {
		t.Errorf("Within dropped little: %.0f km², disc %.0f km²", g.AreaKm2(), gb.AreaKm2())
	}
	for _, tl := range gb.Tiles() {
		if !intersects(tl, Zone{Shape: fin.Shape}) && len(g.ZonesOf(tl)) > 0 {
			t.Errorf("sea tile %v kept", tl)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	sea, land := 0, 0
	for _, pt := range pointsIn(rng, bare.Shape, 3000) {
		onLand := planar.MultiPolygonContains(fin.Shape, pt)
		got := g.Locate(pt)
		if onLand != (len(got) == 1) {
			t.Fatalf("Locate(%v) = %v, on land %v", pt, got, onLand)
		}
		if onLand {
			land++
		} else {
			sea++
		}
	}
	if sea < 300 || land < 300 {
		t.Errorf("sample: %d points at sea, %d on land; the disc should hold both", sea, land)
	}
}

func TestZonesOfChildrenLocate(t *testing.T) {
	deps := loadShapes(t, "fr-departments.geojson.gz")
	var zones []Zone
	var rhone, finistere int
	for i, d := range deps {
		zones = append(zones, Zone{Label: d.Code, Shape: d.Shape})
		switch d.Code {
		case "69":
			rhone = i
		case "29":
			finistere = i
		}
	}
	g := mustBuild(t, []Zone{zones[rhone]}, nil, Options{})

	t.Run("ZonesOf", func(t *testing.T) {
		base, ok := baseTile(g, lyonCentre)
		if !ok {
			t.Fatal("no tile over Lyon")
		}
		tests := []struct {
			name string
			tile maptile.Tile
			want []int
		}{
			{"base tile", base, []int{0}},
			{"descendant", maptile.At(lyonCentre, base.Z+3), []int{0}},
			{"ancestor", base.Parent().Parent(), []int{0}},
			{"world", maptile.New(0, 0, 0), []int{0}},
			{"elsewhere", maptile.At(parisCentre, 12), nil},
			{"sibling of the ancestor", maptile.At(orb.Point{-4, 40}, 5), nil},
			{"invalid", maptile.New(5000, 0, 12), nil},
			{"too deep", maptile.Tile{X: 0, Y: 0, Z: 31}, nil},
		}
		for _, tt := range tests {
			if got := g.ZonesOf(tt.tile); !slices.Equal(got, tt.want) {
				t.Errorf("%s %v: ZonesOf = %v, want %v", tt.name, tt.tile, got, tt.want)
			}
		}
	})

	t.Run("Children", func(t *testing.T) {
		// Down to Ultra's depth below every base tile: a child is listed
		// exactly when it intersects the zone.
		inner, edge := 0, 0
		var walk func(tl maptile.Tile, depth int)
		walk = func(tl maptile.Tile, depth int) {
			kids := g.Children(tl)
			if len(kids) == 4 {
				inner++
			} else {
				edge++
			}
			for _, c := range tl.Children() {
				listed := slices.Contains(kids, c)
				if listed != intersects(c, zones[rhone]) {
					t.Fatalf("Children(%v): %v listed %v", tl, c, listed)
				}
				if listed != (len(g.ZonesOf(c)) > 0) {
					t.Fatalf("Children(%v): %v listed %v, ZonesOf %v", tl, c, listed, g.ZonesOf(c))
				}
			}
			if depth < pricing.Ultra.MaxDepth() && edge < 400 {
				for _, c := range kids {
					walk(c, depth+1)
				}
			}
		}
		for _, tl := range g.Tiles() {
			walk(tl, 1)
		}
		if inner == 0 || edge == 0 {
			t.Errorf("%d tiles with 4 children, %d with fewer", inner, edge)
		}
		for i, c := range g.Children(g.Tiles()[0]) {
			if i > 0 && c.Quadkey() <= g.Children(g.Tiles()[0])[i-1].Quadkey() {
				t.Errorf("Children not in quadkey order")
			}
		}
		if got := g.Children(maptile.At(parisCentre, 12)); got != nil {
			t.Errorf("Children elsewhere = %v", got)
		}
	})

	t.Run("Locate", func(t *testing.T) {
		ga := mustBuild(t, zones, nil, Options{})
		tests := []struct {
			name string
			grid *Grid
			pt   orb.Point
			want []int
		}{
			{"Lyon", g, lyonCentre, []int{0}},
			{"Paris", g, parisCentre, nil},
			{"NaN", g, orb.Point{math.NaN(), 45}, nil},
			{"pole", g, orb.Point{4.8, 89}, nil},
			{"beyond the antimeridian", g, orb.Point{200, 45}, nil},
			{"Lyon among departments", ga, lyonCentre, []int{rhone}},
			{"Brest among departments", ga, orb.Point{-4.4861, 48.3904}, []int{finistere}},
			{"Atlantic", ga, orb.Point{-6, 47}, nil},
		}
		for _, tt := range tests {
			if got := tt.grid.Locate(tt.pt); !slices.Equal(got, tt.want) {
				t.Errorf("%s: Locate(%v) = %v, want %v", tt.name, tt.pt, got, tt.want)
			}
		}
	})
}

func TestBuildErrors(t *testing.T) {
	rhone := department(t, "69").Shape
	polar := orb.MultiPolygon{orb.Bound{Min: orb.Point{0, 86}, Max: orb.Point{10, 89}}.ToPolygon()}
	flat := orb.MultiPolygon{{{{4, 45}, {5, 45}, {6, 45}, {4, 45}}}}
	tests := []struct {
		name  string
		zones []Zone
		opt   Options
		want  error
		label string
	}{
		{"no zones", nil, Options{}, ErrNoZones, ""},
		{"empty shape", []Zone{{Label: "Lyon", Shape: rhone}, {Label: "Nowhere"}}, Options{}, ErrEmptyZone, "Nowhere"},
		{"flat shape", []Zone{{Label: "Line", Shape: flat}}, Options{}, ErrEmptyZone, "Line"},
		{"beyond Mercator", []Zone{{Label: "Pole", Shape: polar}}, Options{}, ErrEmptyZone, "Pole"},
		{"Within elsewhere", []Zone{{Label: "Brest", Shape: disc(brestCentre, 5), Within: rhone}}, Options{}, ErrEmptyZone, "Brest"},
		{"Within at sea", []Zone{{Label: "Sea", Shape: disc(orb.Point{-6, 47}, 5), Within: department(t, "29").Shape}}, Options{}, ErrEmptyZone, "Sea"},
		{"too many tiles", []Zone{{Label: "Lyon", Shape: rhone}}, Options{MaxTiles: 10}, ErrTooManyTiles, ""},
		{"zooms reversed", []Zone{{Shape: rhone}}, Options{MinZoom: 12, MaxZoom: 11}, ErrOptions, ""},
		{"zoom too deep", []Zone{{Shape: rhone}}, Options{MaxZoom: 25}, ErrOptions, ""},
		{"negative people", []Zone{{Shape: rhone}}, Options{PeoplePerTile: -1}, ErrOptions, ""},
		{"negative tolerance", []Zone{{Shape: rhone}}, Options{AreaTolerance: -0.1}, ErrOptions, ""},
		{"NaN tolerance", []Zone{{Shape: rhone}}, Options{AreaTolerance: math.NaN()}, ErrOptions, ""},
		{"negative cap", []Zone{{Shape: rhone}}, Options{MaxTiles: -1}, ErrOptions, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Build(tt.zones, nil, tt.opt)
			if !errors.Is(err, tt.want) || g != nil {
				t.Fatalf("Build = %v, %v; want %v", g, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.label) {
				t.Errorf("error %q does not name %q", err, tt.label)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	rhone := []Zone{{Shape: department(t, "69").Shape}}
	g := mustBuild(t, rhone, nil, Options{})
	want := Options{MinZoom: DefaultMinZoom, MaxZoom: DefaultMaxZoom, PeoplePerTile: DefaultPeoplePerTile,
		AreaTolerance: DefaultAreaTolerance, MaxTiles: DefaultMaxTiles}
	if g.Options() != want {
		t.Errorf("Options() = %+v, want %+v", g.Options(), want)
	}
	// A MinZoom past the default MaxZoom moves it along.
	if got := mustBuild(t, rhone, nil, Options{MinZoom: 17}).Options(); got.MaxZoom != 17 {
		t.Errorf("MinZoom 17: MaxZoom %d", got.MaxZoom)
	}
	// Tighter tolerances cost tiles; an infinite one refines nothing.
	prev := 0
	for _, tol := range []float64{math.Inf(1), 0.3, 0.2, 0.1, 0.05} {
		g := mustBuild(t, rhone, nil, Options{AreaTolerance: tol})
		real := checkGrid(t, g, rhone, 200)
		checkArea(t, g, real)
		t.Logf("tolerance %v: %d tiles, ratio %.3f", tol, g.Len(), g.AreaKm2()*1e6/real)
		if g.Len() < prev {
			t.Errorf("tolerance %v: %d tiles, fewer than %d", tol, g.Len(), prev)
		}
		if !math.IsInf(tol, 1) && g.AreaKm2()*1e6 > (1+tol+0.01)*real {
			t.Errorf("tolerance %v: ratio %.3f", tol, g.AreaKm2()*1e6/real)
		}
		prev = g.Len()
	}
	// Every base tile sits within the zoom range.
	g = mustBuild(t, rhone, nil, Options{MinZoom: 8, MaxZoom: 12})
	for _, tl := range g.Tiles() {
		if tl.Z < 8 || tl.Z > 12 {
			t.Fatalf("tile %v outside z8..z12", tl)
		}
	}
}

// The same input gives the same grid, and a grid answers from several
// goroutines at once (run with -race).
func TestDeterministicAndConcurrent(t *testing.T) {
	pts, pops := syntheticFrance(t)
	zones := []Zone{
		{Label: "29", Shape: department(t, "29").Shape},
		{Label: "69", Shape: department(t, "69").Shape},
		{Label: "Lyon", Shape: disc(lyonCentre, 8)},
	}
	g1 := mustBuild(t, zones, NewPopulation(pts, pops), Options{})
	slices.Reverse(pts)
	slices.Reverse(pops)
	g2 := mustBuild(t, zones, NewPopulation(pts, pops), Options{})
	if !slices.Equal(g1.Tiles(), g2.Tiles()) {
		t.Fatalf("two builds differ: %d and %d tiles", g1.Len(), g2.Len())
	}
	for _, tl := range g1.Tiles() {
		if !slices.Equal(g1.ZonesOf(tl), g2.ZonesOf(tl)) {
			t.Fatalf("tile %v: zones %v and %v", tl, g1.ZonesOf(tl), g2.ZonesOf(tl))
		}
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for _, pt := range pointsIn(rng, zones[2].Shape, 500) {
				if !slices.Contains(g1.Locate(pt), 2) {
					t.Errorf("Locate(%v) = %v", pt, g1.Locate(pt))
					return
				}
				tl, _ := baseTile(g1, pt)
				g1.Children(tl)
			}
		})
	}
	wg.Wait()
}

// A zone that is exactly a tile (or a block of tiles) gets that tile (or
// those), not their neighbours, which it only touches along edges.
func TestTileAlignedZone(t *testing.T) {
	one := maptile.New(520, 360, 10)
	tests := []struct {
		name string
		zone orb.Bound
		want []maptile.Tile
	}{
		{"a tile", one.Bound(), []maptile.Tile{one}},
		{"its parent", one.Parent().Bound(), []maptile.Tile{
			maptile.New(520, 360, 10), maptile.New(521, 360, 10), maptile.New(520, 361, 10), maptile.New(521, 361, 10)}},
		{"a child", maptile.New(1040, 720, 11).Bound(), []maptile.Tile{maptile.New(1040, 720, 11)}},
		{"the quarter of the world east of Greenwich", orb.Bound{Min: orb.Point{0, 0}, Max: orb.Point{0.5, 0.5}}, nil},
	}
	for _, tt := range tests {
		g := mustBuild(t, []Zone{{Label: tt.name, Shape: orb.MultiPolygon{tt.zone.ToPolygon()}}}, nil, Options{})
		if tt.want == nil {
			for _, tl := range g.Tiles() {
				if b := tl.Bound(); b.Max[0] <= 0 || b.Max[1] <= 0 {
					t.Errorf("%s: tile %v west or south of the zone", tt.name, tl)
				}
			}
			continue
		}
		if !slices.Equal(g.Tiles(), tt.want) {
			t.Errorf("%s: tiles %v, want %v", tt.name, g.Tiles(), tt.want)
		}
	}
}

// A ring reduced to a tile's edge has no area, wherever it lies.
func TestRingAreaOnEdges(t *testing.T) {
	for _, r := range []orb.Ring{
		{{170.3, 80.7}, {-179.9, 80.7}, {12.1, 80.7}, {170.3, 80.7}},
		{{33.3, -84.9}, {33.3, 12.7}, {33.3, 1e-9}, {33.3, -84.9}},
	} {
		if a := ringArea(r); a != 0 {
			t.Errorf("ringArea(%v) = %g", r, a)
		}
	}
	sq := orb.Ring{{100, 50}, {101, 50}, {101, 51}, {100, 51}, {100, 50}}
	if a := ringArea(sq); a != 1 {
		t.Errorf("unit square: %g", a)
	}
}

// quadkey is maptile's Quadkey.
func TestQuadkey(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 10000 {
		z := maptile.Zoom(rng.IntN(31))
		tl := maptile.New(rng.Uint32()>>(32-z), rng.Uint32()>>(32-z), z)
		if got, want := quadkey(tl), tl.Quadkey(); got != want {
			t.Fatalf("%v: quadkey %x, Quadkey %x", tl, got, want)
		}
	}
}

// tileArea is geo.Area of the tile's bound, in closed form.
func TestTileArea(t *testing.T) {
	for _, tl := range []maptile.Tile{maptile.New(0, 0, 0), maptile.At(lyonCentre, 10), maptile.At(brestCentre, 16), maptile.At(orb.Point{-60, -50}, 5)} {
		b := tl.Bound()
		if got, want := tileArea(b), geo.Area(b); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%v: tileArea %g, geo.Area %g", tl, got, want)
		}
	}
}
