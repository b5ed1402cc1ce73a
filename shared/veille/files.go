package veille

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/export"
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

// copyOutput copies a job's CSV to key and counts its rows.
func (s *Service) copyOutput(ctx context.Context, uid int64, jobID, key string) (int, error) {
	_, rc, err := s.d.Jobs.OpenOutput(ctx, uid, jobID)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := s.d.Files.Put(ctx, key, pr, "text/csv; charset=utf-8")
		pr.CloseWithError(err)
		done <- err
	}()
	n, cerr := countingCopy(pw, rc)
	pw.CloseWithError(cerr)
	if perr := <-done; perr != nil && cerr == nil {
		cerr = perr
	}
	if cerr != nil {
		return 0, fmt.Errorf("copy the output of job %s: %w", jobID, cerr)
	}
	return n, nil
}

// countingCopy copies a stored CSV and counts its rows (records, not
// lines: a quoted cell may hold a line break).
func countingCopy(w io.Writer, r io.Reader) (int, error) {
	rd, err := export.ReadCSV(io.TeeReader(r, w))
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
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
