package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
)

// resumeKey is the marker of a source job's resume: {job, active}. Its
// creation is conditional on no active resume, and every terminal
// transition of the resume clears active in the same transaction.
func resumeKey(source string) store.Key { return store.Key{PK: jobKey(source).PK, SK: "RESUME"} }

// resumeDoneOp clears the marker of j's source when j is a resume.
func resumeDoneOp(j *Job) (store.TxOp, bool) {
	if j.SourceJobID == nil {
		return store.TxOp{}, false
	}
	return store.UpdateOp(Table, resumeKey(*j.SourceJobID), store.Update{}.Set("active", false), nil), true
}

func errNotResumable(why, whyEN string) error {
	return apperr.New(apperr.Invalid, "Ce job ne peut pas être repris : "+why+".", "This job cannot be resumed: "+whyEN+".")
}

// Resume creates a job that scrapes what a cancelled or failed scrape left
// undone (POST /api/jobs/{id}/resume): its settings, only the base tiles
// whose root task did not finish, EF for those only, source_job_id set.
// 403 without a verified email; 400 when the source is not a scrape, not
// interrupted, fully processed, or already being resumed.
func (s *Service) Resume(ctx context.Context, u *accounts.User, id string) (*Job, error) {
	src, err := s.Get(ctx, u.ID, id)
	if err != nil {
		return nil, err
	}
	if err := s.admit(ctx, u); err != nil {
		return nil, err
	}
	switch {
	case src.JobType != TypeScrap:
		return nil, errNotResumable("seuls les scrapes se reprennent", "only scrapes can be resumed")
	case src.Status != Cancelled && src.Status != Failed:
		return nil, errNotResumable("il n'a pas été interrompu", "it was not interrupted")
	}
	set, p, err := s.plan(requestOf(src))
	if err != nil {
		return nil, err
	}
	remaining, err := s.remainingRoots(ctx, src, p.Grid.Len())
	if err != nil {
		return nil, err
	}
	if len(remaining) == 0 {
		return nil, errNotResumable("toutes ses tuiles ont été traitées", "every tile was already processed")
	}
	p.Estimate = pricing.Compute(pricing.Params{
		Tiles: len(remaining), Queries: len(set.Queries), Mode: set.Mode, IncludeReviews: set.IncludeReviews, StopAt: set.StopAt,
	})
	// Priced over the tiles left only, and planned with the densities
	// that planned the source: a base tile whose query a merged search
	// of the source took is left to that search (scrape.Plan.Merges),
	// which the resume makes again when its leader is left. A source
	// planned without densities is resumed without them.
	p.PriceAt(src.Rates, remaining)
	est := p.Estimate
	j := newJob(u.ID, set, p, s.d.Now(), s.d.Source)
	j.GridPointsCount = len(remaining)
	j.EFCost = est.EF
	j.Roots = remaining
	j.SourceJobID = &src.ID
	marker := store.PutOp(Table, store.Item{"pk": resumeKey(src.ID).PK, "sk": "RESUME", "job": j.ID, "active": true},
		store.Or(store.NotExists("pk"), store.Eq("active", false)))
	err = s.insert(ctx, j, est.EF, marker)
	var txErr *store.TxConditionError
	if errors.As(err, &txErr) && txErr.Index == 3 {
		return nil, errNotResumable("une reprise est déjà en attente ou en cours", "a resume of it is already pending or running")
	}
	if err != nil {
		return nil, err
	}
	if err := s.schedule(ctx, j); err != nil {
		return nil, fmt.Errorf("start job %s: %w", j.ID, err)
	}
	return j, nil
}

// rootProgress reads the engine's ledger of a job: the base tiles (indexes
// in the grid's order) whose root task TASK#r<index+1> is done, and those
// with a task of theirs (the root or one of its splits r<n>.<m>...) still
// pending.
func (s *Service) rootProgress(ctx context.Context, id string) (done, open map[int]bool, err error) {
	done, open = map[int]bool{}, map[int]bool{}
	tasks, err := Tasks(ctx, s.d.DB, id, "r")
	if err != nil {
		return nil, nil, err
	}
	for _, t := range tasks {
		root, _, split := strings.Cut(strings.TrimPrefix(t.ID, "r"), ".")
		n, err := strconv.Atoi(root)
		if err != nil {
			continue
		}
		switch {
		case t.State != TaskDone || t.GaveUp:
			// A task the engine gave up on was not searched.
			open[n-1] = true
		case !split:
			done[n-1] = true
		}
	}
	return done, open, nil
}

// Replay creates a scrape with the settings of src, one of the user's
// scrapes (a veille's scheduled run): admitted like a creation except for
// the creation quota (the veille was admitted when created); it takes a
// slot of the 5 concurrent jobs and is charged its EF like any job.
func (s *Service) Replay(ctx context.Context, u *accounts.User, src *Job) (*Job, error) {
	if src.JobType != TypeScrap {
		return nil, apperr.New(apperr.Invalid, "Seul un scrape se rejoue.", "Only a scrape can be replayed.")
	}
	return s.Create(WithScheduled(ctx), u, requestOf(src))
}

// requestOf is the scrape request a job was created with.
func requestOf(j *Job) scrape.Request {
	fp := j.ExcludeForeignPhones
	return scrape.Request{
		Queries: j.Queries, Country: j.Country, Zones: j.Zones, IncludeReviews: j.IncludeReviews,
		ScrapMode: j.ScrapMode, StopAt: j.StopAt, MaxPerPhone: j.MaxPerPhone, ExcludeForeignPhones: &fp,
		ExtraColumns: j.ExtraColumns,
	}
}

// remainingRoots are the base tiles (indexes in the grid's order) of src
// left to search: a root not done, or whose subdivision was cut off (a
// split still pending) is searched again.
func (s *Service) remainingRoots(ctx context.Context, src *Job, tiles int) ([]int, error) {
	candidates := src.Roots
	if candidates == nil {
		candidates = make([]int, tiles)
		for n := range candidates {
			candidates[n] = n
		}
	}
	done, open, err := s.rootProgress(ctx, src.ID)
	if err != nil {
		return nil, err
	}
	out := []int{}
	for _, n := range candidates {
		if n < tiles && (!done[n] || open[n]) {
			out = append(out, n)
		}
	}
	return out, nil
}
