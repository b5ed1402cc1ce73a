package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/store"
)

// all returns every job of the user, newest first.
func (s *Service) all(ctx context.Context, uid int64) ([]*Job, error) {
	var out []*Job
	err := store.ForEach(ctx, s.d.DB.Table(Table), store.Query{
		Index: "gsi1", PK: accounts.UserPK(uid), SK: store.BeginsWith("JOB#"), Desc: true,
	}, func(it store.Item) error {
		j, err := fromItem(it)
		if err != nil {
			return err
		}
		out = append(out, j)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("jobs of %d: %w", uid, err)
	}
	return out, nil
}

// Export is the jobs' part of the account's data export: every job record
// in jobs.json and, for each output still kept, its CSV and its JSON under
// jobs/<id>/ (spec: "CSV and JSON outputs of every done job"). The JSON is
// the one made already when it is as new as the CSV, else made from the
// CSV as the archive is written (streaming).
func (s *Service) Export(ctx context.Context, uid int64) (accounts.Section, error) {
	js, err := s.all(ctx, uid)
	if err != nil {
		return accounts.Section{}, err
	}
	sec := accounts.Section{Entry: "jobs", Data: js, Summary: fmt.Sprintf("Jobs : %d", len(js))}
	if js == nil {
		sec.Data = []*Job{}
	}
	for _, j := range js {
		if !j.DownloadAvailable || j.OutputFilename == nil || s.d.Files == nil || SingleRun(j.JobType) {
			continue
		}
		id := j.ID
		sec.Files = append(sec.Files, accounts.File{
			Path: "jobs/" + id + "/" + export.CSV.Filename(*j.OutputFilename),
			Open: func(ctx context.Context) (io.ReadCloser, error) { return s.openOrEmpty(ctx, OutputKey(id)) },
		}, accounts.File{
			Path: "jobs/" + id + "/" + export.JSON.Filename(*j.OutputFilename),
			Open: func(ctx context.Context) (io.ReadCloser, error) {
				ready, err := derivedReady(ctx, s.d.Files, id, export.JSON)
				if err != nil && apperr.CodeOf(err) != apperr.Gone {
					return nil, err
				}
				if ready {
					return s.openOrEmpty(ctx, DerivedKey(id, export.JSON))
				}
				csv, err := s.openOrEmpty(ctx, OutputKey(id))
				if err != nil {
					return nil, err
				}
				pr, pw := io.Pipe()
				go func() {
					defer csv.Close()
					err := export.ToJSON(pw, csv)
					if errors.Is(err, export.ErrEmpty) {
						_, err = io.WriteString(pw, "[]\n") // an output deleted since the listing
					}
					pw.CloseWithError(err)
				}()
				return pr, nil
			},
		})
	}
	return sec, nil
}

// openOrEmpty opens a file of the store, an empty one when it is gone
// (deleted since the listing).
func (s *Service) openOrEmpty(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, _, err := s.d.Files.Open(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return io.NopCloser(eofReader{}), nil
	}
	return rc, err
}

// eofReader is an empty file: an output deleted since the listing.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// Purge deletes every job of the account, their engine records and files,
// and its active-job count. A job still running loses its record; the
// engine drops its remaining tasks when it meets them.
func (s *Service) Purge(ctx context.Context, uid int64) error {
	js, err := s.all(ctx, uid)
	if err != nil {
		return err
	}
	t := s.d.DB.Table(Table)
	for _, j := range js {
		if err := store.ForEach(ctx, t, store.Query{PK: jobKey(j.ID).PK}, func(it store.Item) error {
			return t.Delete(ctx, store.Key{PK: it.String("pk"), SK: it.String("sk")}, nil)
		}); err != nil {
			return fmt.Errorf("purge job %s: %w", j.ID, err)
		}
		if err := s.deleteFiles(ctx, j); err != nil {
			return fmt.Errorf("purge files of job %s: %w", j.ID, err)
		}
	}
	if err := t.Delete(ctx, activeKey(uid), nil); err != nil {
		return fmt.Errorf("purge active-job count of %d: %w", uid, err)
	}
	// A purged job may have held the pool's lease: the next job takes it.
	return s.Promote(ctx, PoolMultiProxy)
}
