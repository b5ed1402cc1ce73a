package accounts

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/store"
)

// Holder is a concept that owns records of accounts (API keys, feature votes,
// jobs, pipelines, veilles). Account deletion purges them; the data export
// shows them.
type Holder interface {
	// Export returns the holder's part of the data export.
	Export(ctx context.Context, uid int64) (Section, error)
	// Purge deletes every record of the account.
	Purge(ctx context.Context, uid int64) error
}

// Section is one holder's part of the export archive.
type Section struct {
	// Entry is where Data goes: "account" adds Data under Key in account.json;
	// "jobs", "pipelines" and "veille" make Data the content of <Entry>.json.
	Entry string
	Key   string
	Data  any
	// Files are added under their path (jobs/<job_id>/<name>).
	Files []File
	// Summary is a line of manifest.txt.
	Summary string
}

// File is one file of the export archive, opened only while it is written.
type File struct {
	Path string
	Open func(ctx context.Context) (io.ReadCloser, error)
}

// DeleteAccount removes the account and every record it owns, after checking
// the confirmation email. The profile goes last among the table records, so a
// deletion interrupted half-way can be run again with the same session; the
// sessions go with it.
func (s *Service) DeleteAccount(ctx context.Context, u *User, confirmEmail string) error {
	if !strings.EqualFold(strings.TrimSpace(confirmEmail), u.Email) {
		return apperr.New(apperr.Invalid, "Confirmation email incorrecte.", "Confirmation email does not match.")
	}
	for _, h := range s.holders {
		if err := h.Purge(ctx, u.ID); err != nil {
			return fmt.Errorf("delete account %d: %w", u.ID, err)
		}
	}
	t := s.db.Table(Table)
	del := func(it store.Item) error {
		return t.Delete(ctx, store.Key{PK: it.String("pk"), SK: it.String("sk")}, nil)
	}
	// Email claim and tokens, found through the owner index.
	if err := s.forEach(ctx, store.Query{Index: OwnerIndex, PK: UserPK(u.ID)}, del); err != nil {
		return fmt.Errorf("delete account %d: %w", u.ID, err)
	}
	if err := t.Delete(ctx, store.Key{PK: UserPK(u.ID), SK: profileSK}, nil); err != nil {
		return fmt.Errorf("delete account %d: %w", u.ID, err)
	}
	if err := s.forEach(ctx, store.Query{PK: UserPK(u.ID)}, del); err != nil {
		return fmt.Errorf("delete account %d: %w", u.ID, err)
	}
	s.log.InfoContext(ctx, "account deleted", "user_id", u.ID)
	return nil
}

// ExportFilename is the spec's attachment name: svc-export-<local>-<date>.zip.
func ExportFilename(u *User, now time.Time) string {
	local := u.Email
	if i := strings.IndexByte(local, '@'); i >= 0 {
		local = local[:i]
	}
	local = strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, local)
	return fmt.Sprintf("svc-export-%s-%s.zip", local, now.UTC().Format("2006-01-02"))
}

// Export streams the account's data archive to w: account.json, jobs.json,
// jobs/<job_id>/*, pipelines.json, veille.json and manifest.txt. Sections are
// gathered first (they are metadata, small) so that a failure is reported
// before the first byte; files are then copied one at a time.
func (s *Service) Export(ctx context.Context, u *User, w io.Writer) error {
	account := map[string]any{"user": u}
	lists := map[string]any{"jobs": []any{}, "pipelines": []any{}, "veille": []any{}}
	var files []File
	summary := []string{
		"Export des données du compte",
		"Compte : " + u.Email,
		"Créé le : " + u.CreatedAt,
		"Exporté le : " + s.now().UTC().Format(timeFmt),
	}
	for _, h := range s.holders {
		sec, err := h.Export(ctx, u.ID)
		if err != nil {
			return fmt.Errorf("export account %d: %w", u.ID, err)
		}
		switch sec.Entry {
		case "account":
			account[sec.Key] = sec.Data
		default:
			if sec.Data != nil {
				lists[sec.Entry] = sec.Data
			}
		}
		files = append(files, sec.Files...)
		if sec.Summary != "" {
			summary = append(summary, sec.Summary)
		}
	}
	zw := zip.NewWriter(w)
	put := func(name string, v any) error {
		f, err := zw.Create(name)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	if err := put("account.json", account); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	for _, name := range []string{"jobs", "pipelines", "veille"} {
		if err := put(name+".json", lists[name]); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	for _, f := range files {
		if err := copyFile(ctx, zw, f); err != nil {
			return fmt.Errorf("export %s: %w", f.Path, err)
		}
	}
	summary = append(summary, fmt.Sprintf("Fichiers de résultats : %d", len(files)), "")
	mf, err := zw.Create("manifest.txt")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if _, err := io.WriteString(mf, strings.Join(summary, "\n")); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return zw.Close()
}

func copyFile(ctx context.Context, zw *zip.Writer, f File) error {
	r, err := f.Open(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	dst, err := zw.Create(f.Path)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, r)
	return err
}
