package engine

import (
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/scrape"
)

// unit is one search of a task: query q over tile. A wide unit is a
// merged search (scrape.Merge) over an ancestor of the task's base tile.
type unit struct {
	q    int
	tile maptile.Tile
	wide bool
}

// rootWork is what each root task searches: the queries of its own tile
// and its merged searches ([q, z, x, y]).
type rootWork struct {
	own  [][]int
	wide [][][4]int64
}

// planRoots decides the work of every root task of a job from its plan
// and the densities that priced it (jobs.Job.Rates): a query's merged
// searches (scrape.Plan.Merges) go to their leaders, and their members
// leave the query to them. It depends on nothing else, so that a start
// delivered twice, a resume and the estimate agree.
func planRoots(j *jobs.Job, p *scrape.Plan) rootWork {
	n := p.Grid.Len()
	w := rootWork{own: make([][]int, n), wide: make([][][4]int64, n)}
	merged := make([][]bool, len(j.Queries)) // per query, per base tile
	for q := range j.Queries {
		if q >= len(j.Rates) {
			continue
		}
		for _, m := range p.Merges(j.Rates[q]) {
			if merged[q] == nil {
				merged[q] = make([]bool, n)
			}
			for _, i := range m.Members {
				merged[q][i] = true
			}
			l := m.Leader()
			w.wide[l] = append(w.wide[l], [4]int64{int64(q), int64(m.Tile.Z), int64(m.Tile.X), int64(m.Tile.Y)})
		}
	}
	for i := range n {
		for q := range j.Queries {
			if merged[q] == nil || !merged[q][i] {
				w.own[i] = append(w.own[i], q)
			}
		}
	}
	return w
}

// rootMessage is the message of root task n.
func (w rootWork) message(job string, n int, t maptile.Tile) message {
	m := taskMessage(job, rootID(n), t, w.own[n])
	m.Wide = w.wide[n]
	return m
}

// units are the searches of a task message: its queries over its tile,
// then its merged searches.
func (m message) units(tile maptile.Tile) []unit {
	us := make([]unit, 0, len(m.Queries)+len(m.Wide))
	for _, q := range m.Queries {
		us = append(us, unit{q: q, tile: tile})
	}
	for _, w := range m.Wide {
		a, _ := wideTile(w)
		us = append(us, unit{q: int(w[0]), tile: a, wide: true})
	}
	return us
}
