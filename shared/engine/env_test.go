package engine

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/blob"
	blobdir "github.com/prospectdata/svc/shared/blob/dir"
	"github.com/prospectdata/svc/shared/density"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/queue"
	queuebolt "github.com/prospectdata/svc/shared/queue/bolt"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
	storebolt "github.com/prospectdata/svc/shared/store/bolt"
	"github.com/prospectdata/svc/shared/upstream"
)

// planner is the scrape service over the real gazetteer, loaded once.
var planner = sync.OnceValue(func() *scrape.Service {
	s := scrape.New(scrape.Deps{Gazetteer: data.Load})
	if err := s.Warm(); err != nil {
		panic(err)
	}
	return s
})

// queueConfigs are the tasks queue and its dead-letter queue, as the
// service configures them.
var queueConfigs = []queue.Config{
	{Name: "tasks", VisibilityTimeout: 5 * time.Minute, MaxReceives: 5, DeadLetter: "tasks-dlq"},
	{Name: "tasks-dlq", VisibilityTimeout: time.Minute},
}

// envOpts tune a test environment.
type envOpts struct {
	workers   int
	wrapQueue func(queue.Queue) queue.Queue
	wrapFiles func(blob.Store) blob.Store
	// queueShift moves the queue's clock forward, so that messages in
	// flight when a previous engine stopped are visible at once.
	queueShift time.Duration
	deps       func(*Deps)
	// densities prices the jobs with the query densities they learn (a
	// scrape service with Densities, for the engine and the job service).
	densities bool
	// noRun starts no Run loop: the test feeds the engine itself.
	noRun bool
}

// env is an engine over bbolt files in a directory, with the job service
// that creates its jobs.
type env struct {
	t     testing.TB
	dir   string
	prov  provider.Provider
	opts  envOpts
	db    *storebolt.DB
	q     *queuebolt.Queue
	files *blobdir.Store
	jobs  *jobs.Service
	eng   *Engine

	mu       sync.Mutex
	terminal map[string]chan struct{}
	cancel   context.CancelFunc
	stopped  chan struct{}
}

var uids atomic.Int64

func newEnv(t testing.TB, prov provider.Provider, o envOpts) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), prov: prov, opts: o, terminal: map[string]chan struct{}{}}
	e.open()
	t.Cleanup(e.close)
	return e
}

// open opens the files and starts an engine on them.
func (e *env) open() {
	t := e.t
	t.Helper()
	var err error
	e.db, err = storebolt.Open(filepath.Join(e.dir, "db.bolt"),
		[]store.Schema{accounts.Schema(), ratelimit.Schema(), jobs.Schema(), density.Schema()}, storebolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	qopts := []queuebolt.Option{queuebolt.WithNoSync()}
	if s := e.opts.queueShift; s > 0 {
		qopts = append(qopts, queuebolt.WithClock(func() time.Time { return time.Now().Add(s) }))
	}
	e.q, err = queuebolt.Open(filepath.Join(e.dir, "queue.bolt"), queueConfigs, qopts...)
	if err != nil {
		t.Fatal(err)
	}
	e.files, err = blobdir.New(filepath.Join(e.dir, "files"))
	if err != nil {
		t.Fatal(err)
	}
	var q queue.Queue = e.q
	if e.opts.wrapQueue != nil {
		q = e.opts.wrapQueue(q)
	}
	var files blob.Store = e.files
	if e.opts.wrapFiles != nil {
		files = e.opts.wrapFiles(files)
	}
	workers := e.opts.workers
	if workers == 0 {
		workers = 8
	}
	d := Deps{
		DB: e.db, Queue: q, QueueName: "tasks", Files: files, Provider: e.prov, Scrape: planner(),
		Workers: workers, Backoff: func(int) time.Duration { return 0 },
		RetryDelay: func(int) time.Duration { return 0 }, Wait: time.Second, LogEvery: 5,
		OnTerminal: func(_ context.Context, j *jobs.Job) { e.signal(j.ID) },
	}
	if e.opts.densities {
		d.Densities = density.New(e.db.Table(density.Table))
		d.Scrape = scrape.New(scrape.Deps{Gazetteer: data.Load, Densities: d.Densities})
	}
	if e.opts.deps != nil {
		e.opts.deps(&d)
	}
	e.eng = New(d)
	now := time.Now
	ledger := accounts.NewLedger(e.db, now, pricing.DefaultQuota)
	e.jobs = jobs.New(jobs.Deps{
		DB: e.db, Scrape: d.Scrape, Ledger: ledger, Limits: ratelimit.New(e.db, now),
		Accounts: accounts.New(accounts.Deps{DB: e.db, Now: now}, accounts.Config{}), Now: now,
		Source: e.prov.Name(), Files: e.files,
	})
	e.jobs.Attach(starter{e.eng})
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.stopped = make(chan struct{})
	go func() {
		defer close(e.stopped)
		if !e.opts.noRun {
			_ = e.eng.Run(ctx)
		}
	}()
}

// starter runs the jobs the service starts, and nothing else: these tests
// salvage and derive through the engine's messages themselves.
type starter struct{ *Engine }

func (starter) Salvage(context.Context, *jobs.Job) error { return nil }
func (starter) Derive(_ context.Context, id string, f export.Format) error {
	return fmt.Errorf("derive %s of job %s: not in these tests", f, id)
}

// stop stops the engine (as a crash would: work in progress is abandoned)
// and closes the files.
func (e *env) close() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	<-e.stopped
	e.cancel = nil
	_ = e.q.Close()
	_ = e.db.Close()
	_ = e.files.Close()
}

func (e *env) signal(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.terminal[id]; ok {
		select {
		case <-c:
		default:
			close(c)
		}
		return
	}
	c := make(chan struct{})
	close(c)
	e.terminal[id] = c
}

func (e *env) terminalChan(id string) chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.terminal[id]
	if !ok {
		c = make(chan struct{})
		e.terminal[id] = c
	}
	return c
}

// create creates a job for a new account.
func (e *env) create(r scrape.Request) *jobs.Job {
	e.t.Helper()
	u := &accounts.User{ID: uids.Add(1), EmailVerified: true, LastCountry: "FRA"}
	j, err := e.jobs.Create(context.Background(), u, r)
	if err != nil {
		e.t.Fatalf("create: %v", err)
	}
	return j
}

// wait waits for the job's terminal transition and returns the job.
func (e *env) wait(id string) *jobs.Job {
	e.t.Helper()
	select {
	case <-e.terminalChan(id):
	case <-time.After(2 * time.Minute):
		j, rec, _ := jobs.Load(context.Background(), e.db, id)
		e.t.Fatalf("job %s not finished: %+v, open %d", id, j, rec.OpenTasks())
	}
	return e.job(id)
}

func (e *env) job(id string) *jobs.Job {
	e.t.Helper()
	j, _, err := jobs.Load(context.Background(), e.db, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

func (e *env) item(k store.Key) store.Item {
	e.t.Helper()
	it, err := e.db.Table(jobs.Table).Get(context.Background(), k)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		e.t.Fatal(err)
	}
	return it
}

// record reads the job's record (its counters).
func (e *env) record(id string) jobs.Record {
	e.t.Helper()
	_, rec, err := jobs.Load(context.Background(), e.db, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return rec
}

// task reads task id of the job's ledger (its zero value when absent).
func (e *env) task(job, id string) jobs.Task {
	e.t.Helper()
	for _, t := range e.tasks(job) {
		if t.ID == id {
			return t
		}
	}
	return jobs.Task{}
}

// run creates a job and waits for its end.
func (e *env) run(r scrape.Request) *jobs.Job {
	e.t.Helper()
	return e.wait(e.create(r).ID)
}

// output is the job's CSV, raw.
func (e *env) output(id string) string {
	e.t.Helper()
	rc, _, err := e.files.Open(context.Background(), OutputKey(id))
	if err != nil {
		e.t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// table is a parsed output: its header and rows as maps.
type table struct {
	header []string
	rows   []map[string]string
}

func parseCSV(t testing.TB, s string) table {
	t.Helper()
	body, ok := strings.CutPrefix(s, "\ufeff")
	if !ok {
		t.Fatal("no BOM")
	}
	r := csv.NewReader(strings.NewReader(body))
	r.Comma = ';'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := table{header: recs[0]}
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = strings.TrimPrefix(rec[i], "'")
		}
		out.rows = append(out.rows, m)
	}
	return out
}

// tasks lists the job's ledger.
func (e *env) tasks(id string) []jobs.Task {
	e.t.Helper()
	recs, err := e.eng.tasks(context.Background(), id, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return recs
}

// logs lists the job's log lines (English).
func (e *env) logs(id string) []string {
	e.t.Helper()
	var out []string
	err := store.ForEach(context.Background(), e.db.Table(jobs.Table), store.Query{
		PK: jobs.Key(id).PK, SK: store.BeginsWith("LOG#"),
	}, func(it store.Item) error {
		out = append(out, it.String("en"))
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// summary is what two runs of the same job must agree on.
type summary struct {
	Status                                                    jobs.Status
	Processed, Results, Errors, Flagged, Attempts, GridPoints int
	ByQuery, ByZone                                           map[string]int
	QueryStats                                                map[string]jobs.QueryStat
	Dead                                                      []string
}

func summarize(j *jobs.Job) summary {
	return summary{
		Status: j.Status, Processed: j.ProcessedPoints, Results: j.ResultsCount, Errors: j.ErrorCount,
		Flagged: j.FlaggedTilesCount, Attempts: j.TotalAttemptsCount, GridPoints: j.GridPointsCount,
		ByQuery: j.Breakdown.ByQuery, ByZone: j.Breakdown.ByZone, QueryStats: j.QueryStats, Dead: j.DeadQueries,
	}
}

// ---- The test provider -------------------------------------------------

// world is a deterministic map provider: places scattered over an area,
// some dense enough that searches saturate, returned in a fixed order
// within the searched rectangle widened by a tenth on each side (as a real
// provider returns a few places beyond it), capped and paged.
type world struct {
	limits  provider.Limits
	places  map[string][]provider.Place // per query, in ranking order
	latency time.Duration
	// failFirst makes the first failFirst attempts of every failEvery-th
	// request fail with ErrTransient; failAlways makes every
	// failAlways-th request always fail.
	failFirst, failEvery, failAlways int
	// onSearch is called before each search (tests cancel from it).
	onSearch func(n int64)
	// dropEvery makes the adapter drop every dropEvery-th place of a page
	// (by id), as the Google adapter drops closed businesses: listed by
	// the provider (Page.Listed), not returned.
	dropEvery int
	// reviewFailFirst, reviewFailEvery and reviewFailAlways are
	// failFirst, failEvery and failAlways for Reviews, per place id.
	reviewFailFirst, reviewFailEvery, reviewFailAlways int

	mu       sync.Mutex
	attempts map[string]int
	returned map[string]provider.Place
	searches atomic.Int64

	reviewAttempts map[string]int // per place id, under mu
	reviewCalls    atomic.Int64
}

func (w *world) Name() string            { return "test" }
func (w *world) Limits() provider.Limits { return w.limits }

// Place returns a place of the world by its id, as searches list it
// (whether or not one did), after the latency; an id of no place is
// ErrNotFound. The test world neither drifts nor closes places.
func (w *world) Place(ctx context.Context, placeID string) (provider.Place, error) {
	if w.latency > 0 {
		if err := upstream.Sleep(ctx, w.latency); err != nil {
			return provider.Place{}, err
		}
	}
	for _, ps := range w.places {
		for _, p := range ps {
			if p.ID == placeID {
				return p, nil
			}
		}
	}
	return provider.Place{}, fmt.Errorf("%w: %s", provider.ErrNotFound, placeID)
}

// Reviews returns the latest reviews of a place a search returned
// (worldReviews), failing like Search with the review* knobs, per place.
func (w *world) Reviews(ctx context.Context, placeID string, max int) ([]provider.Review, error) {
	w.reviewCalls.Add(1)
	if w.latency > 0 {
		if err := upstream.Sleep(ctx, w.latency); err != nil {
			return nil, err
		}
	}
	h := hash(placeID)
	w.mu.Lock()
	w.reviewAttempts[placeID]++
	attempt := w.reviewAttempts[placeID]
	p, ok := w.returned[placeID]
	w.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %s", provider.ErrNotFound, placeID)
	}
	if w.reviewFailAlways > 0 && h%uint64(w.reviewFailAlways) == 0 {
		return nil, fmt.Errorf("always down: %w", provider.ErrTransient)
	}
	if w.reviewFailEvery > 0 && h%uint64(w.reviewFailEvery) == 0 && attempt <= w.reviewFailFirst {
		return nil, fmt.Errorf("rate limited: %w", provider.ErrTransient)
	}
	return worldReviews(p, max), nil
}

// worldReviews are a place's latest reviews in the test world, newest
// first: min(max, reviews_count, 8) of them, every third without
// author or text by turns, and the first of one place in seven a long
// text on several lines.
func worldReviews(p provider.Place, max int) []provider.Review {
	n := min(max, p.ReviewCount, 8)
	h := hash(p.ID)
	out := make([]provider.Review, n)
	for k := range out {
		r := provider.Review{
			Author: fmt.Sprintf("Client %d", k+1),
			Rating: float64(1 + (int(h%5)+k)%5),
			Text:   fmt.Sprintf("Avis %d sur %s.", k+1, p.Name),
			Time:   time.Date(2025, 6, 30-k, 12, 0, 0, 0, time.UTC).Format(time.RFC3339),
		}
		switch {
		case k == 0 && h%7 == 3:
			r.Text = "Très long avis.\n" + strings.Repeat("Tout était parfait. ", 40)
		case k%3 == 1:
			r.Text = ""
		case k%3 == 2:
			r.Author = ""
		}
		out[k] = r
	}
	return out
}

func (w *world) Search(ctx context.Context, r provider.Request) (provider.Page, error) {
	n := w.searches.Add(1)
	if w.onSearch != nil {
		w.onSearch(n)
	}
	if w.latency > 0 {
		if err := upstream.Sleep(ctx, w.latency); err != nil {
			return provider.Page{}, err
		}
	}
	key := fmt.Sprintf("%s|%v|%s", r.Query, r.Bound, r.PageToken)
	h := hash(key)
	w.mu.Lock()
	w.attempts[key]++
	attempt := w.attempts[key]
	w.mu.Unlock()
	if w.failAlways > 0 && h%uint64(w.failAlways) == 0 {
		return provider.Page{}, fmt.Errorf("always down: %w", provider.ErrTransient)
	}
	if w.failEvery > 0 && h%uint64(w.failEvery) == 0 && attempt <= w.failFirst {
		return provider.Page{}, fmt.Errorf("rate limited: %w", provider.ErrTransient)
	}
	dx, dy := (r.Bound.Max[0]-r.Bound.Min[0])/10, (r.Bound.Max[1]-r.Bound.Min[1])/10
	wide := orb.Bound{Min: orb.Point{r.Bound.Min[0] - dx, r.Bound.Min[1] - dy}, Max: orb.Point{r.Bound.Max[0] + dx, r.Bound.Max[1] + dy}}
	var hits []provider.Place
	for _, p := range w.places[strings.ToLower(r.Query)] {
		if wide.Contains(orb.Point{p.Lon, p.Lat}) {
			hits = append(hits, p)
			if len(hits) == w.limits.Cap {
				break
			}
		}
	}
	off := 0
	if r.PageToken != "" {
		off, _ = strconv.Atoi(r.PageToken)
	}
	end := min(off+w.limits.PageSize, len(hits))
	page := provider.Page{Places: slices.Clone(hits[min(off, end):end])}
	if end < len(hits) {
		page.NextPageToken = strconv.Itoa(end)
	}
	if w.dropEvery > 0 {
		page.Listed = len(page.Places)
		page.Places = slices.DeleteFunc(page.Places, func(p provider.Place) bool { return hash(p.ID)%uint64(w.dropEvery) == 0 })
	}
	w.mu.Lock()
	for _, p := range page.Places {
		w.returned[p.ID] = p
	}
	w.mu.Unlock()
	return page, nil
}

func hash(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

// lyonBound is a rectangle around the zone "Lyon" and beyond it.
var lyonBound = orb.Bound{Min: orb.Point{4.76, 45.69}, Max: orb.Point{4.94, 45.81}}

// lyonCentre is where restaurants crowd.
var lyonCentre = orb.Point{4.835, 45.760}

// newWorld builds the test world around Lyon: restaurants crowded in the
// centre (searches there saturate even at depth 3), bakeries spread with
// a smaller crowd, plumbers spread thin, no unicorn. A tenth of the
// bakeries are also restaurants (same place id): the merge keeps one row.
func newWorld() *world {
	rng := rand.New(rand.NewPCG(1, 2))
	w := &world{
		limits: provider.Limits{PageSize: 20, Cap: 60}, places: map[string][]provider.Place{},
		attempts: map[string]int{}, returned: map[string]provider.Place{}, reviewAttempts: map[string]int{},
	}
	seq := 0
	mk := func(prefix string, pt orb.Point) provider.Place {
		seq++
		i := seq
		p := provider.Place{
			ID: fmt.Sprintf("%s-%05d", prefix, i), Name: fmt.Sprintf("%s n°%d", prefix, i),
			Address: fmt.Sprintf("%d rue de la République, 69002 Lyon", i), Category: prefix,
			Rating: float64(1+i%5) - 0.5*float64(i%2), ReviewCount: i % 300, Lat: pt[1], Lon: pt[0],
			MapsURL: "https://maps.example/place/" + strconv.Itoa(i),
			Website: fmt.Sprintf("https://%s-%d.fr", prefix, i),
		}
		switch {
		case i%7 == 0:
			p.Phone = ""
		case i%11 == 0:
			p.Phone = fmt.Sprintf("+32 2 555 %02d %02d", i/100%100, i%100) // Belgian: foreign
		case i%13 == 0:
			p.Phone = "04 72 00 00 01" // one number for many places
		case i%17 == 0:
			p.Phone = "n/a" // unusable
		case i%19 == 0:
			p.Phone = fmt.Sprintf("+262 262 %02d %02d %02d", i/10000%100, i/100%100, i%100) // Réunion: French
		case i%2 == 0:
			p.Phone = fmt.Sprintf("+33 4 78 %02d %02d %02d", i/10000%100, i/100%100, i%100)
		default:
			p.Phone = fmt.Sprintf("04 72 %02d %02d %02d", i/10000%100, i/100%100, i%100)
		}
		switch i % 23 {
		case 1:
			p.Website = "https://www.pagesjaunes.fr/pros/" + strconv.Itoa(i)
		case 2:
			p.Website = "https://fr-fr.facebook.com/place" + strconv.Itoa(i)
		case 3:
			p.Website = ""
		}
		if i%29 == 0 {
			p.Name = "=HYPERLINK(\"http://evil\")" // a formula: neutralised in the output
		}
		return p
	}
	uniform := func() orb.Point {
		return orb.Point{
			lyonBound.Min[0] + rng.Float64()*(lyonBound.Max[0]-lyonBound.Min[0]),
			lyonBound.Min[1] + rng.Float64()*(lyonBound.Max[1]-lyonBound.Min[1]),
		}
	}
	crowd := func(sigma float64) orb.Point {
		return orb.Point{lyonCentre[0] + rng.NormFloat64()*sigma, lyonCentre[1] + rng.NormFloat64()*sigma*0.7}
	}
	var restaurants, bakeries, plumbers []provider.Place
	for range 400 {
		restaurants = append(restaurants, mk("restaurant", uniform()))
	}
	for range 2500 {
		restaurants = append(restaurants, mk("restaurant", crowd(0.004)))
	}
	for range 500 {
		bakeries = append(bakeries, mk("boulangerie", uniform()))
	}
	for range 300 {
		bakeries = append(bakeries, mk("boulangerie", crowd(0.01)))
	}
	for range 120 {
		plumbers = append(plumbers, mk("plombier", uniform()))
	}
	for i := 0; i < len(bakeries); i += 10 {
		restaurants = append(restaurants, bakeries[i])
	}
	shuffle := func(ps []provider.Place) []provider.Place {
		rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		return ps
	}
	w.places["restaurant"] = shuffle(restaurants)
	w.places["boulangerie"] = shuffle(bakeries)
	w.places["plombier"] = shuffle(plumbers)
	return w
}

// lyon is the request most tests run.
func lyon(mode string, queries ...string) scrape.Request {
	if len(queries) == 0 {
		queries = []string{"restaurant", "boulangerie", "plombier", "licorne"}
	}
	return scrape.Request{Queries: queries, Zones: []string{"Lyon"}, ScrapMode: mode, ExtraColumns: []string{"gps", "departement", "region"}}
}

func ptr[T any](v T) *T { return &v }

// near tells whether two floats agree to 1e-9.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
