package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/export"
)

// OutputKey is the file key of a job's CSV output: the source of truth
// every download format derives from.
func OutputKey(id string) string { return "jobs/" + id + "/output.csv" }

// downloadTTL is how long a presigned download address stays valid.
const downloadTTL = 15 * time.Minute

// Download is what GET /api/jobs/{id}/download answers: a redirect to a
// presigned address when the store has one, else the file to stream.
type Download struct {
	Filename    string
	ContentType string
	RedirectURL string        // set when the client should fetch the file directly
	Body        io.ReadCloser // set otherwise; the caller closes it
}

// errNotDone is the 400 of an output route on a job still pending or running.
func errNotDone(j *Job) error {
	return apperr.New(apperr.Invalid,
		fmt.Sprintf("Le job est encore « %s » : son fichier n'est pas prêt.", j.Status),
		fmt.Sprintf("The job is still %s: its output is not ready.", j.Status))
}

// errGone is the 410 of an output expired, deleted or never written.
func errGone() error {
	return apperr.New(apperr.Gone, "Le fichier de ce job a expiré ou n'existe pas.",
		"This job's output has expired or does not exist.")
}

// output opens the checks every output route shares: the user's job (404),
// not pending or running (400), with a CSV still there (410).
func (s *Service) output(ctx context.Context, uid int64, id string) (*Job, error) {
	j, err := s.Get(ctx, uid, id)
	if err != nil {
		return nil, err
	}
	if j.Status.Active() {
		return nil, errNotDone(j)
	}
	if SingleRun(j.JobType) {
		return nil, errNoCSV(j)
	}
	if j.Status == Expired || !j.DownloadAvailable || j.OutputFilename == nil || s.d.Files == nil {
		return nil, errGone()
	}
	return j, nil
}

// OpenOutput opens the CSV of the user's job with the checks of every
// output route (404, 400 not finished or no reusable CSV, 410 gone): an
// import from an earlier job reads it.
func (s *Service) OpenOutput(ctx context.Context, uid int64, id string) (*Job, io.ReadCloser, error) {
	j, err := s.output(ctx, uid, id)
	if err != nil {
		return nil, nil, err
	}
	rc, err := s.openCSV(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return j, rc, nil
}

func (s *Service) openCSV(ctx context.Context, id string) (io.ReadCloser, error) {
	rc, _, err := s.d.Files.Open(ctx, OutputKey(id))
	if errors.Is(err, blob.ErrNotFound) {
		return nil, errGone()
	}
	if err != nil {
		return nil, fmt.Errorf("open output of %s: %w", id, err)
	}
	return rc, nil
}

// Download returns the job's output in a format (csv, json, xlsx): 400 for
// an unsupported format or a job not finished, 410 when expired or missing.
func (s *Service) Download(ctx context.Context, uid int64, id, format string) (*Download, error) {
	f, err := export.ParseFormat(format)
	if err != nil {
		return nil, apperr.New(apperr.Invalid, "Format non pris en charge : csv, json ou xlsx.",
			"Unsupported format: csv, json or xlsx.")
	}
	j, err := s.output(ctx, uid, id)
	if err != nil {
		return nil, err
	}
	key := OutputKey(id)
	if f != export.CSV {
		key = DerivedKey(id, f)
		if err := s.ensureDerived(ctx, id, f); err != nil {
			return nil, err
		}
	}
	d := &Download{Filename: f.Filename(*j.OutputFilename), ContentType: f.MediaType()}
	url, ok, err := s.d.Files.DownloadURL(ctx, key, d.Filename, downloadTTL)
	if err != nil {
		return nil, fmt.Errorf("download address of %s: %w", key, err)
	}
	if ok {
		d.RedirectURL = url
		return d, nil
	}
	rc, _, err := s.d.Files.Open(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, errGone()
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	d.Body = rc
	return d, nil
}

// MaxItemsPage is the largest items page (spec: limit 1..100000).
const MaxItemsPage = 100_000

// Items writes a page of the job's rows as {offset, items, count, total}
// (GET /api/jobs/{id}/items): 400 for a job not done or without a reusable
// CSV, 410 when expired or missing; limit 0 means every row.
func (s *Service) Items(ctx context.Context, uid int64, id string, offset, limit int, w func() io.Writer) error {
	if offset < 0 || limit < 0 || limit > MaxItemsPage {
		return apperr.Fields(apperr.Field("limit", "entre 1 et 100000 ; offset au moins 0",
			"between 1 and 100000; offset at least 0"))
	}
	j, err := s.Get(ctx, uid, id)
	if err != nil {
		return err
	}
	if j.Status == Expired {
		return errGone()
	}
	if SingleRun(j.JobType) {
		return errNoCSV(j)
	}
	if j.Status != Done {
		return apperr.New(apperr.Invalid, "Le job n'est pas terminé : ses lignes ne sont pas disponibles.",
			"The job is not done: its rows are not available.")
	}
	if _, err := s.output(ctx, uid, id); err != nil {
		return err
	}
	rc, err := s.openCSV(ctx, id)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, _, err = export.WriteItemsMax(w(), rc, offset, limit, int64(s.d.ItemsPageBytes))
	return err
}

// Columns is the body of GET /api/jobs/{id}/output-columns.
type Columns struct {
	Columns         []string `json:"columns"`
	NonEmptyColumns []string `json:"non_empty_columns,omitempty"`
	RowCount        *int     `json:"row_count,omitempty"`
	Reason          string   `json:"reason,omitempty"`
}

// OutputColumns describes the job's CSV, or says why there is none.
func (s *Service) OutputColumns(ctx context.Context, uid int64, id string) (*Columns, error) {
	j, err := s.Get(ctx, uid, id)
	if err != nil {
		return nil, err
	}
	none := func(reason string) *Columns { return &Columns{Columns: []string{}, Reason: reason} }
	if j.Status.Active() {
		return none("job " + string(j.Status)), nil
	}
	if _, err := s.output(ctx, uid, id); err != nil {
		return none("no usable CSV"), nil
	}
	rc, err := s.openCSV(ctx, id)
	if err != nil {
		return none("no usable CSV"), nil
	}
	defer rc.Close()
	cols, nonEmpty, rows, err := export.Columns(rc)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", id, err)
	}
	return &Columns{Columns: cols, NonEmptyColumns: nonEmpty, RowCount: &rows}, nil
}
