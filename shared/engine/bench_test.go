package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/upstream"
)

// latencyProvider answers every search after a fixed latency with two
// places at the rectangle's centre: nothing saturates, so the job makes
// exactly tiles × queries requests.
type latencyProvider struct {
	latency time.Duration

	mu          sync.Mutex
	first, last time.Time
	busy        time.Duration // the requests' measured durations, summed
	requests    atomic.Int64
}

func (p *latencyProvider) Name() string            { return "latency" }
func (p *latencyProvider) Limits() provider.Limits { return provider.Limits{PageSize: 20, Cap: 60} }
func (p *latencyProvider) Reviews(context.Context, string, int) ([]provider.Review, error) {
	return nil, nil
}
func (p *latencyProvider) Place(_ context.Context, id string) (provider.Place, error) {
	return provider.Place{}, fmt.Errorf("%w: %s", provider.ErrNotFound, id)
}

func (p *latencyProvider) Search(ctx context.Context, r provider.Request) (provider.Page, error) {
	start := time.Now()
	p.requests.Add(1)
	if err := upstream.Sleep(ctx, p.latency); err != nil {
		return provider.Page{}, err
	}
	end := time.Now()
	p.mu.Lock()
	if p.first.IsZero() || start.Before(p.first) {
		p.first = start
	}
	if end.After(p.last) {
		p.last = end
	}
	p.busy += end.Sub(start)
	p.mu.Unlock()
	c := r.Bound.Center()
	id := fmt.Sprintf("%s@%.6f,%.6f", r.Query, c[0], c[1])
	return provider.Page{Places: []provider.Place{
		{ID: id + "a", Name: "A", Lat: c[1], Lon: c[0], Phone: "02 98 00 00 01"},
		{ID: id + "b", Name: "B", Lat: c[1] + 1e-4, Lon: c[0] + orb.Point{}[0], Phone: "02 98 00 00 02"},
	}}, nil
}

// BenchmarkScheduling measures how well the engine keeps its provider
// slots busy: jobs of about 10,000 tile requests against a provider
// answering in 50 ms, with 50 concurrent requests: three regions (726
// tiles) with 14 queries, few large tasks; and France (4,401 tiles) with
// 2 queries, many small ones, where each task's bookkeeping weighs more.
// The ideal time is requests × latency / concurrency; efficiency is ideal
// / measured, from the start message to the job's end (start, every task,
// the merge of the parts). search-efficiency leaves out the start and the
// merge: ideal / (last answer − first request). occupancy is the share of
// the slots' time spent in provider calls as measured (a 50 ms sleep
// lasts a little longer on a loaded machine, which lowers the
// efficiencies but is not the engine's doing).
func BenchmarkScheduling(b *testing.B) {
	regions := []string{"boulangerie", "restaurant", "plombier", "coiffeur", "garage", "pharmacie", "fleuriste",
		"opticien", "boucherie", "librairie", "dentiste", "notaire", "architecte", "menuisier"}
	for _, bc := range []struct {
		name string
		req  scrape.Request
	}{
		{"regions", scrape.Request{Queries: regions, Zones: []string{"Bretagne", "Normandie", "Pays de la Loire"}}},
		{"france", scrape.Request{Queries: []string{"boulangerie", "restaurant"}, Zones: []string{"France"}}},
	} {
		b.Run(bc.name, func(b *testing.B) { benchScheduling(b, bc.req) })
	}
}

func benchScheduling(b *testing.B, req scrape.Request) {
	const (
		latency = 50 * time.Millisecond
		workers = 50
	)
	var eff, searchEff, occupancy, requests float64
	n := 0
	for b.Loop() {
		p := &latencyProvider{latency: latency}
		e := newEnv(b, p, envOpts{workers: workers})
		start := time.Now()
		j := e.run(req)
		took := time.Since(start)
		if j.Status != "done" || j.ProcessedPoints != j.GridPointsCount {
			b.Fatalf("job %s, %d/%d points", j.Status, j.ProcessedPoints, j.GridPointsCount)
		}
		r := p.requests.Load()
		ideal := time.Duration(r) * latency / workers
		eff += ideal.Seconds() / took.Seconds()
		searchEff += ideal.Seconds() / p.last.Sub(p.first).Seconds()
		occupancy += p.busy.Seconds() / (workers * p.last.Sub(p.first).Seconds())
		requests += float64(r)
		n++
		b.Logf("%d requests, %d tasks, %d rows: %.2fs for an ideal %.2fs (before the first search %.3fs, searches %.2fs, after the last %.3fs)",
			r, j.GridPointsCount, j.ResultsCount, took.Seconds(), ideal.Seconds(), p.first.Sub(start).Seconds(),
			p.last.Sub(p.first).Seconds(), start.Add(took).Sub(p.last).Seconds())
		e.close()
	}
	b.ReportMetric(eff/float64(n), "efficiency")
	b.ReportMetric(searchEff/float64(n), "search-efficiency")
	b.ReportMetric(occupancy/float64(n), "occupancy")
	b.ReportMetric(requests/float64(n), "requests")
}
