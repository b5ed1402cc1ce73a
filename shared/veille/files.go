package veille

import (
	"context"
	"fmt"
	"strconv"

	"github.com/prospectdata/svc/shared/events"
)

// A veille's files live under veille/<id>/ in the file store, apart from
// its jobs' outputs (which expire with the jobs): each run's rows (the
// replay's output plus the places the churn check found still open),
// the previous side of the next diff, and each run's signals.

func filesPrefix(vid int64) string { return "veille/" + strconv.FormatInt(vid, 10) + "/" }

func outputKey(vid, rid int64) string {
	return filesPrefix(vid) + "runs/" + strconv.FormatInt(rid, 10) + ".csv"
}

func signalsKey(vid, rid int64) string {
	return filesPrefix(vid) + "runs/" + strconv.FormatInt(rid, 10) + "-signals.json"
}

// copyOutput copies a job's CSV to key, as it is.
func (s *Service) copyOutput(ctx context.Context, uid int64, jobID, key string) error {
	_, rc, err := s.d.Jobs.OpenOutput(ctx, uid, jobID)
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := s.d.Files.Put(ctx, key, rc, "text/csv; charset=utf-8"); err != nil {
		return fmt.Errorf("copy the output of job %s: %w", jobID, err)
	}
	return nil
}

// completed tells the feed and the webhooks a run was computed.
func (s *Service) completed(ctx context.Context, r *record, d *runDoc) {
	if s.d.Events == nil {
		return
	}
	data := events.VeilleRunData{RunID: d.ID, VeilleID: r.ID, VeilleName: r.Name, JobID: d.JobID, IsBaseline: d.IsBaseline,
		TotalCount: int64(d.TotalCount), ComputedAt: d.ComputedAt}
	if !d.IsBaseline {
		n, rm, m := int64(*d.NewCount), int64(*d.RemovedCount), int64(*d.ModifiedCount)
		data.NewCount, data.RemovedCount, data.ModifiedCount = &n, &rm, &m
	}
	if _, err := s.d.Events.Append(ctx, r.UserID, events.VeilleRunCompleted, data); err != nil {
		s.d.Log.ErrorContext(ctx, "veille event not appended", "veille", r.ID, "run", d.ID, "err", err)
	}
}
