package veille

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/rowdiff"
)

// A run's signal downloads (csv, json, xlsx) are written beside its
// signals when the run is computed (the veille tick, a worker), so that the
// download route serves a file: on S3 a redirect to a short-lived address
// (a run's signals are up to one per modified row, past a Lambda's 6 MB
// response), locally the file itself. A run computed before these files
// existed, or a baseline (no signals), gets them made on its first
// download.

// signalsURLTTL is how long the address of a signals download stays valid.
const signalsURLTTL = 15 * time.Minute

func signalFileKey(vid, rid int64, f export.Format) string {
	return filesPrefix(vid) + "runs/" + strconv.FormatInt(rid, 10) + "-signals." + string(f)
}

// signalFormats are the signals' download formats.
var signalFormats = []export.Format{export.CSV, export.JSON, export.XLSX}

// writeSignalFile writes the signals' download in format f, streaming.
// An XLSX cut to Excel's limits is complete and valid: it is kept.
func (s *Service) writeSignalFile(ctx context.Context, vid, rid int64, f export.Format, signals []rowdiff.Signal) error {
	pr, pw := io.Pipe()
	go func() {
		err := WriteSignals(pw, f, signals)
		if errors.Is(err, export.ErrTruncated) {
			err = nil
		}
		pw.CloseWithError(err)
	}()
	_, err := s.d.Files.Put(ctx, signalFileKey(vid, rid, f), pr, f.MediaType())
	pr.CloseWithError(err)
	if err != nil {
		return fmt.Errorf("signals %s of veille %d run %d: %w", f, vid, rid, err)
	}
	return nil
}

// writeSignalFiles writes every download of a run's signals.
func (s *Service) writeSignalFiles(ctx context.Context, vid, rid int64, signals []rowdiff.Signal) error {
	for _, f := range signalFormats {
		if err := s.writeSignalFile(ctx, vid, rid, f, signals); err != nil {
			return err
		}
	}
	return nil
}

// SignalFile is a download of a run's signals: an address to redirect to
// where the store signs one, else the file to stream (the caller closes
// it).
type SignalFile struct {
	RedirectURL string
	Body        io.ReadCloser
}

// SignalsFile returns the download of a run's signals in format f, named
// filename (404 as Signals).
func (s *Service) SignalsFile(ctx context.Context, uid, id, rid int64, f export.Format, filename string) (*SignalFile, error) {
	if _, err := s.run(ctx, uid, id, rid); err != nil {
		return nil, err
	}
	key := signalFileKey(id, rid, f)
	if _, err := s.d.Files.Stat(ctx, key); errors.Is(err, blob.ErrNotFound) {
		list, err := s.Signals(ctx, uid, id, rid)
		if err != nil {
			return nil, err
		}
		if err := s.writeSignalFile(ctx, id, rid, f, list.Items); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("signals %s of veille %d run %d: %w", f, id, rid, err)
	}
	url, ok, err := s.d.Files.DownloadURL(ctx, key, filename, signalsURLTTL)
	if err != nil {
		return nil, fmt.Errorf("signals %s of veille %d run %d: %w", f, id, rid, err)
	}
	if ok {
		return &SignalFile{RedirectURL: url}, nil
	}
	rc, _, err := s.d.Files.Open(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("signals %s of veille %d run %d: %w", f, id, rid, err)
	}
	return &SignalFile{Body: rc}, nil
}
