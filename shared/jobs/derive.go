package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/export"
)

// The JSON and XLSX downloads of a job are made from its CSV, the source of
// truth, and kept beside it. Where the API runs with a response cap (a
// Lambda: 6 MB, a short timeout) a worker makes them, one message per
// format, right after the CSV is written (finalize, salvage, a rows run),
// and the download of a format not made yet answers 400 with Retry-After
// (docs/files.md). Locally the first download makes it.

// DerivedFormats are the formats made from a job's CSV.
var DerivedFormats = []export.Format{export.JSON, export.XLSX}

// DerivedKey is where a format made from the CSV is kept once made.
func DerivedKey(id string, f export.Format) string { return "jobs/" + id + "/output." + string(f) }

// derivePendingKey marks a format asked of a worker by a download (the
// request's fallback when the one sent at finalize was lost): a download
// asks again only once the mark is older than DeriveRetry.
func derivePendingKey(id string, f export.Format) string {
	return "jobs/" + id + "/output." + string(f) + ".pending"
}

// DeriveRetry is how long a format asked of a worker by a download stays
// asked: the longest a worker takes (the finalizer's timeout) and then some.
const DeriveRetry = 20 * time.Minute

// NotReadyRetryAfter is the Retry-After (seconds) of a download whose
// format is being made.
const NotReadyRetryAfter = 10

// errNotReady is the 400 of a download of a format a worker is making.
func errNotReady(f export.Format) error {
	e := apperr.New(apperr.Invalid,
		fmt.Sprintf("Le fichier %s de ce job est en préparation : réessaie dans %d secondes.", strings.ToUpper(string(f)), NotReadyRetryAfter),
		fmt.Sprintf("This job's %s file is being prepared: retry in %d seconds.", strings.ToUpper(string(f)), NotReadyRetryAfter))
	e.RetryAfter = NotReadyRetryAfter
	return e
}

// derivedReady tells whether format f of job id is made from the CSV as it
// is now: present, and not older than the CSV.
func derivedReady(ctx context.Context, files blob.Store, id string, f export.Format) (bool, error) {
	d, err := files.Stat(ctx, DerivedKey(id, f))
	if errors.Is(err, blob.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat the %s of job %s: %w", f, id, err)
	}
	c, err := files.Stat(ctx, OutputKey(id))
	if errors.Is(err, blob.ErrNotFound) {
		return false, errGone()
	}
	if err != nil {
		return false, fmt.Errorf("stat the output of job %s: %w", id, err)
	}
	return !d.Modified.Before(c.Modified), nil
}

// Derive makes format f of job id's output from its CSV, unless it is made
// already, streaming: the converter reads the CSV as the store writes the
// result, so memory stays bounded whatever the size. A CSV gone is a 410
// (the caller drops the work). An XLSX that Excel's limits cut (a cell over
// 32,767 characters) is still complete and valid: it is kept.
func Derive(ctx context.Context, files blob.Store, id string, f export.Format) error {
	if f != export.JSON && f != export.XLSX {
		return fmt.Errorf("derive job %s: %w", id, export.ErrFormat)
	}
	ready, err := derivedReady(ctx, files, id, f)
	if err != nil || ready {
		return err
	}
	src, _, err := files.Open(ctx, OutputKey(id))
	if errors.Is(err, blob.ErrNotFound) {
		return errGone()
	}
	if err != nil {
		return fmt.Errorf("open the output of job %s: %w", id, err)
	}
	defer src.Close()
	werr, perr := blob.Write(ctx, files, DerivedKey(id, f), f.MediaType(), func(w io.Writer) error {
		err := export.Convert(w, src, f)
		if errors.Is(err, export.ErrTruncated) {
			// An XLSX cut to Excel's limits is complete: it is kept.
			return nil
		}
		return err
	})
	if err := cmp.Or(werr, perr); err != nil {
		return fmt.Errorf("make the %s of job %s: %w", f, id, err)
	}
	if err := files.Delete(ctx, derivePendingKey(id, f)); err != nil {
		return fmt.Errorf("make the %s of job %s: %w", f, id, err)
	}
	return nil
}

// ensureDerived makes format f ready for a download: in the request where
// the runtime allows it (not Deps.DeriveInWorker), else by asking a worker, once
// per DeriveRetry, and answering 400 with Retry-After meanwhile.
func (s *Service) ensureDerived(ctx context.Context, id string, f export.Format) error {
	if !s.d.DeriveInWorker || s.runner == nil {
		return Derive(ctx, s.d.Files, id, f)
	}
	ready, err := derivedReady(ctx, s.d.Files, id, f)
	if err != nil || ready {
		return err
	}
	mark := derivePendingKey(id, f)
	info, err := s.d.Files.Stat(ctx, mark)
	switch {
	case err == nil && s.d.Now().Sub(info.Modified) < DeriveRetry:
		return errNotReady(f) // asked already, being made
	case err != nil && !errors.Is(err, blob.ErrNotFound):
		return fmt.Errorf("stat %s: %w", mark, err)
	}
	if _, err := s.d.Files.Put(ctx, mark, strings.NewReader(""), "text/plain"); err != nil {
		return fmt.Errorf("mark %s: %w", mark, err)
	}
	if err := s.runner.Derive(ctx, id, f); err != nil {
		return fmt.Errorf("ask for the %s of job %s: %w", f, id, err)
	}
	return errNotReady(f)
}
