package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/store"
)

// The proxy pool (DESIGN: "Work execution"): the modules of the registry's
// multi_proxy set share one pool of outbound addresses, so at most one of
// their jobs runs platform-wide. The job that runs holds the pool's lease,
// one item taken by a conditional write; the others wait, pending, in the
// pool's queue, a sparse index of the jobs table (docs/jobs.md):
//
//   - lease: LEASE#<pool> / LEASE, with the holder's job id and since when;
//   - queue: gsi2 of the jobs table, QUEUE#<pool> / <class>#<created ms,
//     20 digits>#<id>, set on a pending job while it waits and removed in
//     the transaction that gives it the lease (or cancels it).
//
// A job's terminal transition releases the lease and promotes the head of
// the queue. A process that dies between the two leaves a lease whose
// holder has ended: every promotion (job creation, job end, the periodic
// sweep) frees such a lease first, so the queue never stalls for long.

// PoolMultiProxy is the name of the shared proxy pool.
const PoolMultiProxy = "multi_proxy"

// Queue classes, the first part of the queue's sort key: a job's
// continuation after its maximum run time goes before new jobs, and
// low-priority jobs (of low-priority pipelines) after them.
const (
	classContinuation = "0"
	classNormal       = "1"
	classLow          = "2"
)

// startGrace is how long a lease holder may stay pending (its start
// message on its way) before a sweep sends its start again.
const startGrace = 2 * time.Minute

// maxQueueView caps the entries GET /api/jobs/queue lists.
const maxQueueView = 100

func leaseKey(pool string) store.Key { return store.Key{PK: "LEASE#" + pool, SK: "LEASE"} }

func queuePK(pool string) string { return "QUEUE#" + pool }

// poolOf is the pool a job waits for; "" for modules that run at once.
func poolOf(j *Job) string {
	if e, ok := modules.Lookup(j.JobType); ok && e.Pool == modules.MultiProxy {
		return PoolMultiProxy
	}
	return ""
}

// queueAttrs are the queue index attributes of a pending job waiting for
// its pool; none when it needs no pool.
func queueAttrs(j *Job) (pk, sk string, ok bool) {
	pool := poolOf(j)
	if pool == "" || j.Status != Pending {
		return "", "", false
	}
	class := classNormal
	switch {
	case j.continuation:
		class = classContinuation
	case j.LowPriority:
		class = classLow
	}
	return queuePK(pool), class + "#" + store.Padded(j.Created.UnixMilli()) + "#" + j.ID, true
}

// unqueue removes a job from its pool's queue (an update action of the
// transitions that leave pending).
func unqueue(u store.Update) store.Update { return u.Remove("gsi2pk").Remove("gsi2sk") }

// schedule has a job created in pending run: at once when it needs no
// pool, else through its pool's queue (the new job is the hint of a
// promotion, as the index may not show it yet).
func (s *Service) schedule(ctx context.Context, j *Job) error {
	pool := poolOf(j)
	if pool == "" {
		if s.runner == nil {
			return nil
		}
		return s.runner.Start(ctx, j)
	}
	return s.promote(ctx, pool, j)
}

// Promote gives the pool's lease to the head of its queue when the lease
// is free, freeing first a lease whose holder has ended or no longer
// exists, and sends again the start of a holder still pending after
// startGrace. It is safe to call at any time from anywhere: the periodic
// sweep calls it.
func (s *Service) Promote(ctx context.Context, pool string) error {
	return s.promote(ctx, pool, nil)
}

func (s *Service) promote(ctx context.Context, pool string, hint *Job) error {
	t := s.d.DB.Table(Table)
	// Each round either ends or saw the lease or the queue change under
	// it; a few rounds settle any race, and the sweep retries the rest.
	for range 4 {
		lease, err := t.Get(ctx, leaseKey(pool))
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return fmt.Errorf("pool %s: read lease: %w", pool, err)
		default:
			busy, err := s.checkHolder(ctx, pool, lease)
			if err != nil || busy {
				return err
			}
			continue // freed: take it
		}
		if s.runner == nil {
			// This process cannot start jobs (a function without the
			// tasks queue): the lease stays free for one that can, the
			// sweep at the latest.
			return nil
		}
		heads, err := s.queueHeads(ctx, pool, hint)
		if err != nil || len(heads) == 0 {
			return err
		}
		taken, lost, err := s.acquire(ctx, pool, heads)
		if err != nil || lost {
			return err
		}
		if taken != nil {
			return s.runner.Start(ctx, taken)
		}
		hint = nil // every candidate had left the queue: read it again
	}
	return nil
}

// checkHolder tells whether the lease's holder still needs it; when it does
// not (ended, deleted), the lease is deleted on condition it is unchanged.
func (s *Service) checkHolder(ctx context.Context, pool string, lease store.Item) (busy bool, err error) {
	id := lease.String("job")
	j, _, err := Load(ctx, s.d.DB, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return false, err
	case !j.Status.Terminal():
		since := time.UnixMilli(lease.Int("since_ms"))
		if j.Status == Pending && s.d.Now().Sub(since) > startGrace && s.runner != nil {
			// Its start message was lost (a crash between the lease and
			// the send): send it again; a second start is harmless.
			if err := s.runner.Start(ctx, j); err != nil {
				return true, fmt.Errorf("pool %s: restart holder %s: %w", pool, id, err)
			}
		}
		return true, nil
	}
	err = s.d.DB.Table(Table).Delete(ctx, leaseKey(pool), store.Eq("job", id))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return false, fmt.Errorf("pool %s: free lease of %s: %w", pool, id, err)
	}
	return false, nil
}

// queueHeads returns the first jobs of the pool's queue in order, with the
// hint among them in its place.
func (s *Service) queueHeads(ctx context.Context, pool string, hint *Job) ([]*Job, error) {
	page, err := s.d.DB.Table(Table).Query(ctx, store.Query{Index: "gsi2", PK: queuePK(pool), Limit: 10})
	if err != nil {
		return nil, fmt.Errorf("pool %s: read queue: %w", pool, err)
	}
	var heads []*Job
	keys := map[string]string{}
	for _, it := range page.Items {
		j, err := fromItem(it)
		if err != nil {
			return nil, err
		}
		keys[j.ID] = it.String("gsi2sk")
		heads = append(heads, j)
	}
	if hint != nil {
		if _, seen := keys[hint.ID]; !seen {
			_, sk, _ := queueAttrs(hint)
			keys[hint.ID] = sk
			heads = append(heads, hint)
		}
	}
	slices.SortFunc(heads, func(a, b *Job) int { return cmp.Compare(keys[a.ID], keys[b.ID]) })
	return heads, nil
}

// acquire gives the lease to the first of heads still queued: one
// transaction takes the free lease and takes the job out of the queue.
// lost is true when another process took the lease meanwhile.
func (s *Service) acquire(ctx context.Context, pool string, heads []*Job) (taken *Job, lost bool, err error) {
	for _, j := range heads {
		err := s.d.DB.Transact(ctx,
			store.PutOp(Table, store.Item{
				"pk": leaseKey(pool).PK, "sk": leaseKey(pool).SK, "job": j.ID, "since_ms": s.d.Now().UnixMilli(),
			}, store.NotExists("pk")),
			// Its wait is over: the time it has to start counts from now
			// on the active index (the sweep of stuck jobs).
			store.UpdateOp(Table, jobKey(j.ID), unqueue(nil).Set("gsi3pk", ActivePK).Set("gsi3sk", ProgressSK(j.ID, s.d.Now())),
				store.And(store.Eq("status", string(Pending)), store.Exists("gsi2pk"))),
		)
		var txErr *store.TxConditionError
		switch {
		case err == nil:
			return j, false, nil
		case errors.As(err, &txErr) && txErr.Index == 0:
			return nil, true, nil
		case errors.As(err, &txErr):
			continue // it left the queue (cancelled, deleted, taken)
		default:
			return nil, false, fmt.Errorf("pool %s: give lease to %s: %w", pool, j.ID, err)
		}
	}
	return nil, false, nil
}

// release frees the pool's lease if the ended job holds it, then promotes
// the next job. A failure is returned for the caller to log: the sweep
// frees the lease later.
func (s *Service) release(ctx context.Context, j *Job) error {
	pool := poolOf(j)
	if pool == "" {
		return nil
	}
	err := s.d.DB.Table(Table).Delete(ctx, leaseKey(pool), store.Eq("job", j.ID))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return fmt.Errorf("pool %s: release lease of %s: %w", pool, j.ID, err)
	}
	return s.promote(ctx, pool, nil)
}

// Ended is told of a job's terminal transition, after its commit: it frees
// the job's pool for the next job, then tells the listeners (ports.go).
// The engine calls it for the transitions it commits.
func (s *Service) Ended(ctx context.Context, j *Job) {
	if err := s.release(ctx, j); err != nil && s.d.Log != nil {
		s.d.Log.ErrorContext(ctx, "pool not released; the sweep will", "job", j.ID, "err", err)
	}
	for _, l := range s.listeners {
		l.JobEnded(ctx, j)
	}
}

// QueueEntry is one job of GET /api/jobs/queue. Other accounts' jobs are
// anonymous: their type, state and times only.
type QueueEntry struct {
	Position    int     `json:"position"`
	JobType     string  `json:"job_type"`
	Status      Status  `json:"status"`
	Mine        bool    `json:"mine"`
	ID          *string `json:"id"`
	CreatedAt   string  `json:"created_at"`
	StartedAt   *string `json:"started_at"`
	LowPriority bool    `json:"low_priority"`
}

// QueueView is the body of GET /api/jobs/queue.
type QueueView struct {
	Pool    string       `json:"pool"`
	Running *QueueEntry  `json:"running"`
	Queued  []QueueEntry `json:"queued"`
	// More is true when jobs beyond the listed ones wait.
	More bool `json:"more"`
	// MyPositions are the positions of the user's waiting jobs among
	// the listed ones.
	MyPositions []int `json:"my_positions"`
}

// Queue is the pool's queue as the user sees it (GET /api/jobs/queue): the
// job holding the lease, then the waiting jobs in the order they will run,
// at most maxQueueView of them.
func (s *Service) Queue(ctx context.Context, uid int64) (*QueueView, error) {
	pool := PoolMultiProxy
	v := &QueueView{Pool: pool, Queued: []QueueEntry{}, MyPositions: []int{}}
	entry := func(j *Job, pos int) QueueEntry {
		e := QueueEntry{Position: pos, JobType: j.JobType, Status: j.Status, CreatedAt: j.CreatedAt,
			StartedAt: j.StartedAt, LowPriority: j.LowPriority}
		if j.UserID == uid {
			id := j.ID
			e.Mine, e.ID = true, &id
		}
		return e
	}
	lease, err := s.d.DB.Table(Table).Get(ctx, leaseKey(pool))
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("pool %s: read lease: %w", pool, err)
	default:
		j, _, err := Load(ctx, s.d.DB, lease.String("job"))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if err == nil && !j.Status.Terminal() {
			e := entry(j, 0)
			v.Running = &e
		}
	}
	err = store.ForEach(ctx, s.d.DB.Table(Table), store.Query{Index: "gsi2", PK: queuePK(pool)}, func(it store.Item) error {
		if len(v.Queued) == maxQueueView {
			v.More = true
			return store.ErrStop
		}
		j, err := fromItem(it)
		if err != nil {
			return err
		}
		e := entry(j, len(v.Queued)+1)
		if e.Mine {
			v.MyPositions = append(v.MyPositions, e.Position)
		}
		v.Queued = append(v.Queued, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pool %s: read queue: %w", pool, err)
	}
	return v, nil
}
