// Package exports builds an account's data export (GET /api/auth/me/export)
// into the file store, where the API cannot stream it: behind API Gateway a
// Lambda's response is capped at 6 MB and its time at the gateway's 30 s,
// and an archive holds every job's CSV and JSON. A worker (the finalize
// queue's) builds the archive under exports/<user id>/ (a bucket lifecycle
// rule deletes it after a day); the route answers 202 with Retry-After
// while it is built, then 302 to a short-lived address of the archive
// (docs/files.md). The local runtime streams the archive instead
// (accounts.Service.Export).
package exports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
)

const (
	// Reuse: an archive built this recently answers a request; an older
	// one is built again, so that a request sees the account as it is.
	Reuse = 15 * time.Minute
	// Building: an archive asked this recently is being built; past it
	// (its message lost or its worker dead), a request asks again. It
	// exceeds the finalize worker's timeout (900 s).
	Building = 20 * time.Minute
	// RetryAfter is the Retry-After (seconds) of the 202.
	RetryAfter = 5
	// urlTTL is how long the address of a ready archive stays valid.
	urlTTL = 15 * time.Minute
)

// Deps are what the exports act on.
type Deps struct {
	Files    blob.Store
	Accounts *accounts.Service
	// Request asks a worker to build the user's archive (RequestBody on
	// the finalize queue); the worker calls Build.
	Request func(ctx context.Context, uid int64) error
	Now     func() time.Time
	Log     *slog.Logger
}

// Service builds and serves the archives.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Prefix is where a user's archives live (app.PrefixExports).
func Prefix(uid int64) string { return "exports/" + strconv.FormatInt(uid, 10) + "/" }

// pendingKey marks an archive asked and not built yet.
func pendingKey(uid int64) string { return Prefix(uid) + "pending" }

// archiveKey names an archive by the time its build started, so that the
// newest sorts last.
func archiveKey(uid int64, t time.Time) string {
	return Prefix(uid) + fmt.Sprintf("%020d", t.UnixNano()) + ".zip"
}

// Result is the answer to a request: the archive's address when it is
// ready, else the seconds to wait before asking again.
type Result struct {
	URL        string
	RetryAfter int
}

// Get answers a request of user u's export: the newest archive built
// within Reuse, or a build asked (once per Building) and a wait.
func (s *Service) Get(ctx context.Context, u *accounts.User) (Result, error) {
	now := s.d.Now()
	infos, _, err := s.d.Files.List(ctx, Prefix(u.ID), 1000)
	if err != nil {
		return Result{}, fmt.Errorf("exports of %d: %w", u.ID, err)
	}
	var newest, pending *blob.Info
	for i := range infos {
		switch inf := &infos[i]; {
		case inf.Key == pendingKey(u.ID):
			pending = inf
		case strings.HasSuffix(inf.Key, ".zip") && (newest == nil || inf.Key > newest.Key):
			newest = inf
		}
	}
	if newest != nil && now.Sub(newest.Modified) < Reuse && (pending == nil || !pending.Modified.After(newest.Modified)) {
		url, ok, err := s.d.Files.DownloadURL(ctx, newest.Key, accounts.ExportFilename(u, newest.Modified), urlTTL)
		if err != nil && !errors.Is(err, blob.ErrNotFound) {
			return Result{}, fmt.Errorf("address of %s: %w", newest.Key, err)
		}
		if ok {
			return Result{URL: url}, nil
		}
	}
	if pending != nil && now.Sub(pending.Modified) < Building {
		return Result{RetryAfter: RetryAfter}, nil
	}
	if _, err := s.d.Files.Put(ctx, pendingKey(u.ID), strings.NewReader(now.UTC().Format(time.RFC3339)), "text/plain"); err != nil {
		return Result{}, fmt.Errorf("mark the export of %d: %w", u.ID, err)
	}
	if err := s.d.Request(ctx, u.ID); err != nil {
		return Result{}, fmt.Errorf("ask for the export of %d: %w", u.ID, err)
	}
	return Result{RetryAfter: RetryAfter}, nil
}

// Build writes user uid's archive into the file store, streaming (the
// archive is never whole in memory), then clears the mark and the older
// archives. A user gone drops it.
func (s *Service) Build(ctx context.Context, uid int64) error {
	u, err := s.d.Accounts.User(ctx, uid)
	if apperr.CodeOf(err) == apperr.NotFound {
		s.d.Log.Warn("exports: user gone, export dropped", "user", uid)
		return nil
	}
	if err != nil {
		return fmt.Errorf("export of %d: %w", uid, err)
	}
	key := archiveKey(uid, s.d.Now())
	werr, perr := blob.Write(ctx, s.d.Files, key, "application/zip", func(w io.Writer) error {
		return s.d.Accounts.Export(ctx, u, w)
	})
	if err := cmp.Or(werr, perr); err != nil {
		return fmt.Errorf("export of %d: %w", uid, err)
	}
	infos, _, err := s.d.Files.List(ctx, Prefix(uid), 1000)
	if err != nil {
		return fmt.Errorf("export of %d: %w", uid, err)
	}
	for _, inf := range infos {
		if inf.Key != key && (inf.Key == pendingKey(uid) || inf.Key < key) {
			if err := s.d.Files.Delete(ctx, inf.Key); err != nil {
				return fmt.Errorf("export of %d: %w", uid, err)
			}
		}
	}
	s.d.Log.Info("exports: archive built", "user", uid, "key", key)
	return nil
}

// RequestBody is the work message asking a worker to build uid's archive:
// the engine reads it from the finalize queue and calls Build. It is
// written here so that a function without the engine (api-auth) can ask.
func RequestBody(uid int64) []byte {
	return []byte(`{"kind":"export","job":"","user":` + strconv.FormatInt(uid, 10) + `}`)
}
