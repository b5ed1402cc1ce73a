package engine

import (
	"errors"
	"slices"
	"sync"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/scrape"
)

// planCache keeps the plans of the jobs a process works on: building one
// resolves the zones and grids them (up to a second for a whole country),
// and every task of the job needs it. Bounded, oldest entry evicted first;
// concurrent misses of one job build it once.
type planCache struct {
	mu    sync.Mutex
	max   int
	m     map[string]*planEntry
	order []string
}

type planEntry struct {
	once sync.Once
	p    *scrape.Plan
	err  error
}

func newPlanCache(n int) *planCache { return &planCache{max: n, m: map[string]*planEntry{}} }

func (c *planCache) get(id string, build func() (*scrape.Plan, error)) (*scrape.Plan, error) {
	c.mu.Lock()
	e := c.m[id]
	if e == nil {
		e = &planEntry{}
		c.m[id] = e
		c.order = append(c.order, id)
		if len(c.order) > c.max {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	e.once.Do(func() { e.p, e.err = build() })
	if e.err != nil {
		c.forget(id) // the next call tries again
	}
	return e.p, e.err
}

func (c *planCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[id]; !ok {
		return
	}
	delete(c.m, id)
	if i := slices.Index(c.order, id); i >= 0 {
		c.order = slices.Delete(c.order, i, i+1)
	}
}

// plan rebuilds the job's plan from its recorded settings, as creation
// built it. A job whose settings no longer clean or whose zones no longer
// resolve (a gazetteer changed under it) cannot run: a permanent error.
func (e *Engine) plan(j *jobs.Job) (*scrape.Plan, error) {
	return e.plans.get(j.ID, func() (*scrape.Plan, error) {
		exclude := j.ExcludeForeignPhones
		set, err := scrape.Clean(scrape.Request{
			Queries: j.Queries, Country: j.Country, Zones: j.Zones, IncludeReviews: j.IncludeReviews,
			ScrapMode: j.ScrapMode, StopAt: j.StopAt, MaxPerPhone: j.MaxPerPhone,
			ExcludeForeignPhones: &exclude, ExtraColumns: j.ExtraColumns,
		}, true)
		if err != nil {
			return nil, permanent("The job's settings are no longer valid", err)
		}
		p, err := e.d.Scrape.Plan(set)
		if err != nil {
			return nil, err
		}
		if !p.Valid() {
			var msg string
			for _, f := range p.Problems {
				msg += f.Field + ": " + f.EN + "; "
			}
			return nil, permanent("The job's zones no longer resolve", errors.New(msg))
		}
		if len(p.Settings.Queries) != len(j.Queries) {
			return nil, permanent("The job's queries no longer clean to the same list", errors.New("query count changed"))
		}
		if p.Grid.Len() != j.GridPointsCount {
			e.d.Log.Warn("engine: the job's grid changed since its creation", "job", j.ID,
				"created", j.GridPointsCount, "now", p.Grid.Len())
		}
		return p, nil
	})
}
