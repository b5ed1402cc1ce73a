package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/viewport"
)

// TestDownload: the output in each format once the job is done; 400 for a
// job still pending or running or an unsupported format; 410 for a job
// that ended without output.
func TestDownload(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	out := sampleCSV(t)
	done := e.create(user(1), scrapeOf())
	e.finish(done.ID, out)
	pending := e.create(user(1), scrapeOf())
	running := e.create(user(1), scrapeOf())
	e.begin(running.ID, 1)
	failed := e.create(user(1), scrapeOf())
	e.fail(failed.ID, "provider refused")
	empty := e.create(user(1), scrapeOf())
	e.finish(empty.ID, nil)

	tests := []struct {
		name, id, format string
		code             apperr.Code
		filename, ctype  string
		check            func(t *testing.T, body []byte)
	}{
		{"csv by default", done.ID, "", "", "plombier-villeurbanne.csv", "text/csv", func(t *testing.T, b []byte) {
			if !bytes.Equal(b, out) {
				t.Fatalf("csv %q, want the output as written", b)
			}
		}},
		{"json", done.ID, "json", "", "plombier-villeurbanne.json", "application/json", func(t *testing.T, b []byte) {
			var rows []map[string]any
			if err := json.Unmarshal(b, &rows); err != nil || len(rows) != 2 || rows[1]["email"] != "contact@dupont.example" {
				t.Fatalf("json %s (%v)", b, err)
			}
		}},
		{"xlsx", done.ID, "XLSX", "", "plombier-villeurbanne.xlsx", "spreadsheetml", func(t *testing.T, b []byte) {
			if !bytes.HasPrefix(b, []byte("PK")) {
				t.Fatalf("xlsx is not a zip: %q", b[:min(len(b), 8)])
			}
		}},
		{"unsupported format", done.ID, "pdf", apperr.Invalid, "", "", nil},
		{"pending", pending.ID, "csv", apperr.Invalid, "", "", nil},
		{"running", running.ID, "csv", apperr.Invalid, "", "", nil},
		{"failed before writing a row", failed.ID, "csv", apperr.Gone, "", "", nil},
		{"done without output", empty.ID, "json", apperr.Gone, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := e.svc.Download(ctx, 1, tt.id, tt.format)
			if tt.code != "" {
				wantCode(t, err, tt.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Body == nil {
				t.Fatalf("no body (redirect %q)", d.RedirectURL)
			}
			defer d.Body.Close()
			b, err := io.ReadAll(d.Body)
			if err != nil {
				t.Fatal(err)
			}
			if d.Filename != tt.filename || !strings.Contains(d.ContentType, tt.ctype) {
				t.Fatalf("filename %q, type %q", d.Filename, d.ContentType)
			}
			tt.check(t, b)
		})
	}
}

// TestItems: a page of a done job's rows; 422 for a bad page; 400 for a
// job not done.
func TestItems(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	done := e.create(user(1), scrapeOf())
	e.finish(done.ID, sampleCSV(t))
	failed := e.create(user(1), scrapeOf())
	e.fail(failed.ID, "boom")
	pending := e.create(user(1), scrapeOf())
	type page struct {
		Offset int                 `json:"offset"`
		Count  int                 `json:"count"`
		Total  int                 `json:"total"`
		Items  []map[string]string `json:"items"`
	}
	tests := []struct {
		name          string
		id            string
		offset, limit int
		code          apperr.Code
		field         string
		count, total  int
		first         string // nom of the first item
	}{
		{"every row", done.ID, 0, 0, "", "", 2, 2, "Plomberie Martin"},
		{"a page", done.ID, 1, 1, "", "", 1, 2, "Dupont & Fils"},
		{"past the end", done.ID, 5, 10, "", "", 0, 2, ""},
		{"negative offset", done.ID, -1, 10, apperr.Unprocessable, "limit", 0, 0, ""},
		{"limit over 100000", done.ID, 0, jobs.MaxItemsPage + 1, apperr.Unprocessable, "limit", 0, 0, ""},
		{"a failed job", failed.ID, 0, 0, apperr.Invalid, "", 0, 0, ""},
		{"a pending job", pending.ID, 0, 0, apperr.Invalid, "", 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := e.svc.Items(ctx, 1, tt.id, tt.offset, tt.limit, func() io.Writer { return &buf })
			if tt.code != "" {
				wantCode(t, err, tt.code)
				if tt.field != "" {
					wantField(t, err, tt.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var p page
			if err := json.Unmarshal(buf.Bytes(), &p); err != nil {
				t.Fatalf("%s: %v", buf.Bytes(), err)
			}
			if p.Offset != tt.offset || p.Count != tt.count || p.Total != tt.total || len(p.Items) != tt.count {
				t.Fatalf("page %+v", p)
			}
			if tt.first != "" && p.Items[0]["nom"] != tt.first {
				t.Fatalf("first item %v, want nom %q", p.Items[0], tt.first)
			}
		})
	}
}

// TestOutputColumns: the CSV's columns, those with a value, and its rows;
// a reason instead when there is none.
func TestOutputColumns(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	done := e.create(user(1), scrapeOf())
	e.finish(done.ID, csvOf(t, []string{"nom", "email", "vide"}, []string{"A", "", ""}, []string{"B", "b@x.example", ""}))
	pending := e.create(user(1), scrapeOf())
	failed := e.create(user(1), scrapeOf())
	e.fail(failed.ID, "boom")
	for _, tt := range []struct {
		name           string
		id             string
		cols, nonEmpty []string
		rows           int
		reason         string
	}{
		{"done", done.ID, []string{"nom", "email", "vide"}, []string{"nom", "email"}, 2, ""},
		{"pending", pending.ID, []string{}, nil, -1, "job pending"},
		{"failed without output", failed.ID, []string{}, nil, -1, "no usable CSV"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := e.svc.OutputColumns(ctx, 1, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Columns, tt.cols) || !slices.Equal(c.NonEmptyColumns, tt.nonEmpty) || c.Reason != tt.reason {
				t.Fatalf("columns %+v", c)
			}
			if (tt.rows < 0) != (c.RowCount == nil) || (c.RowCount != nil && *c.RowCount != tt.rows) {
				t.Fatalf("row_count %v, want %d", c.RowCount, tt.rows)
			}
		})
	}
}

// TestPastExpiry: expires_at is the instant the output goes.
func TestPastExpiry(t *testing.T) {
	j := &jobs.Job{ExpiresAt: "2026-12-24T10:00:00Z"}
	for _, tt := range []struct {
		now  time.Time
		want bool
	}{
		{time.Date(2026, 12, 24, 9, 59, 59, 0, time.UTC), false},
		{time.Date(2026, 12, 24, 10, 0, 0, 0, time.UTC), true},
		{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), true},
	} {
		if got := jobs.PastExpiry(j, tt.now); got != tt.want {
			t.Errorf("PastExpiry at %s: %v, want %v", tt.now, got, tt.want)
		}
	}
	if jobs.PastExpiry(&jobs.Job{ExpiresAt: "not a time"}, time.Now()) {
		t.Error("a job without a readable expires_at expired")
	}
}

// TestExpiry: 30 days after creation a finished job is read as expired:
// its output is deleted and every output route answers 410; a job still
// pending or running never expires; the files it re-hosted stay.
func TestExpiry(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	done := e.create(user(1), scrapeOf())
	e.finish(done.ID, sampleCSV(t))
	if _, err := e.svc.Download(ctx, 1, done.ID, "json"); err != nil { // derived JSON made beside the CSV
		t.Fatal(err)
	}
	asset := jobs.AssetKey(1, done.ID+"-0123456789abcdef-logo.png")
	if _, err := e.files.Put(ctx, asset, strings.NewReader("png"), "image/png"); err != nil {
		t.Fatal(err)
	}
	cancelled := e.create(user(1), scrapeOf())
	if _, err := e.svc.Cancel(ctx, 1, cancelled.ID); err != nil {
		t.Fatal(err)
	}
	pending := e.create(user(1), scrapeOf())
	running := e.create(user(1), scrapeOf())
	e.begin(running.ID, 1)

	e.clock.Advance(jobs.Retention - time.Second)
	if j := e.get(1, done.ID); j.Status != jobs.Done || !j.DownloadAvailable {
		t.Fatalf("a second before expires_at: %s, download %v", j.Status, j.DownloadAvailable)
	}
	e.clock.Advance(time.Second)
	for _, tt := range []struct {
		id   string
		want jobs.Status
	}{{done.ID, jobs.Expired}, {cancelled.ID, jobs.Expired}, {pending.ID, jobs.Pending}, {running.ID, jobs.Running}} {
		if j := e.get(1, tt.id); j.Status != tt.want || (tt.want == jobs.Expired && j.DownloadAvailable) {
			t.Fatalf("job %s at expires_at: %s (download %v), want %s", tt.id, j.Status, j.DownloadAvailable, tt.want)
		}
	}
	for _, key := range []string{jobs.OutputKey(done.ID), jobs.DerivedKey(done.ID, "json")} {
		if _, err := e.files.Stat(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("%s still there after expiry (%v)", key, err)
		}
	}
	if _, err := e.files.Stat(ctx, asset); err != nil {
		t.Fatalf("a re-hosted file went with the expiry: %v", err)
	}
	_, err := e.svc.Download(ctx, 1, done.ID, "csv")
	wantCode(t, err, apperr.Gone)
	err = e.svc.Items(ctx, 1, done.ID, 0, 0, func() io.Writer { return io.Discard })
	wantCode(t, err, apperr.Gone)
	_, _, err = e.svc.OpenOutput(ctx, 1, done.ID)
	wantCode(t, err, apperr.Gone)
	if c, err := e.svc.OutputColumns(ctx, 1, done.ID); err != nil || c.Reason == "" {
		t.Fatalf("columns of an expired job: %+v, %v", c, err)
	}
	// An expired job is not active again: it cannot be cancelled.
	_, err = e.svc.Cancel(ctx, 1, done.ID)
	wantCode(t, err, apperr.Invalid)
	// Deleting the job deletes what it re-hosted.
	if err := e.svc.Delete(ctx, 1, done.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.files.Stat(ctx, asset); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("re-hosted file kept after delete (%v)", err)
	}
}

// TestSingleRun: a viewport test has a result, not a CSV: the row routes
// answer 400, its result is read once it is done (410 when missing), and
// only as its own type.
func TestSingleRun(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	params := viewport.Request{Query: "boulangerie", Country: "BEL",
		Bounds: viewport.Bounds{South: 50.8, West: 4.3, North: 50.9, East: 4.4}}
	j, err := e.svc.CreateSingle(ctx, user(1), jobs.TypeViewportTest, params, 1)
	if err != nil {
		t.Fatal(err)
	}
	if j.Country != "BEL" || j.GridPointsCount != 1 || j.EFCost != 1 || j.Status != jobs.Pending {
		t.Fatalf("job %+v", j)
	}
	var buf bytes.Buffer
	wantCode(t, e.svc.Result(ctx, 1, j.ID, jobs.TypeViewportTest, &buf), apperr.Invalid) // not done
	e.finish(j.ID, nil)
	wantCode(t, e.svc.Result(ctx, 1, j.ID, jobs.TypeViewportTest, &buf), apperr.Gone) // no result written
	if _, err := e.files.Put(ctx, jobs.ResultKey(j.ID), strings.NewReader(`{"results":3}`), "application/json"); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Result(ctx, 1, j.ID, jobs.TypeViewportTest, &buf); err != nil || buf.String() != `{"results":3}` {
		t.Fatalf("result %q, %v", buf.String(), err)
	}
	wantCode(t, e.svc.Result(ctx, 1, j.ID, jobs.TypeDeliveryCheck, &buf), apperr.Invalid)
	wantCode(t, e.svc.Result(ctx, 2, j.ID, jobs.TypeViewportTest, &buf), apperr.NotFound)
	ae := wantCode(t, e.svc.Items(ctx, 1, j.ID, 0, 0, func() io.Writer { return &buf }), apperr.Invalid)
	if !strings.Contains(ae.EN, "no reusable CSV") {
		t.Fatalf("message %q", ae.EN)
	}
	_, err = e.svc.Download(ctx, 1, j.ID, "csv")
	wantCode(t, err, apperr.Invalid)
	// Only the single-run types are created this way.
	_, err = e.svc.CreateSingle(ctx, user(1), "emails", params, 1)
	wantCode(t, err, apperr.NotFound)
}

// TestSingleRunLargeParams: parameters too large for the job's record go
// to the file store and come back whole.
func TestSingleRunLargeParams(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	big := map[string]string{"text": strings.Repeat("nom;email\n", jobs.MaxInlineParams/5)}
	j, err := e.svc.CreateSingle(ctx, user(1), jobs.TypeImport, big, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := e.get(1, j.ID)
	if !got.ParamsInFile || len(got.Params) != 0 {
		t.Fatalf("params in file %v, inline %d bytes", got.ParamsInFile, len(got.Params))
	}
	if err := jobs.ReadParams(ctx, e.files, got); err != nil {
		t.Fatal(err)
	}
	var back map[string]string
	if err := json.Unmarshal(got.Params, &back); err != nil || back["text"] != big["text"] {
		t.Fatalf("parameters read back: %d bytes, %v", len(back["text"]), err)
	}
}

// TestExportAndPurge: the export holds every job of the account and the
// CSV and JSON of each output still kept; the purge deletes the account's
// jobs, files and active count, and nothing of another account.
func TestExportAndPurge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	done := e.create(user(1), scrapeOf())
	e.finish(done.ID, sampleCSV(t))
	e.create(user(1), scrapeOf())
	other := e.create(user(2), scrapeOf())

	sec, err := e.svc.Export(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if js, ok := sec.Data.([]*jobs.Job); !ok || len(js) != 2 || sec.Entry != "jobs" {
		t.Fatalf("export %s: %#v", sec.Entry, sec.Data)
	}
	var paths []string
	for _, f := range sec.Files {
		paths = append(paths, f.Path)
		rc, err := f.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if strings.HasSuffix(f.Path, ".json") {
			var rows []map[string]any
			if err := json.Unmarshal(b, &rows); err != nil || len(rows) != 2 {
				t.Fatalf("%s: %s", f.Path, b)
			}
		}
	}
	want := []string{"jobs/" + done.ID + "/plombier-villeurbanne.csv", "jobs/" + done.ID + "/plombier-villeurbanne.json"}
	if !slices.Equal(paths, want) {
		t.Fatalf("files %v, want %v", paths, want)
	}

	if err := e.svc.Purge(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if js, _ := e.svc.List(ctx, 1, 100, 0); len(js) != 0 {
		t.Fatalf("%d jobs after purge", len(js))
	}
	if e.active(1) != 0 {
		t.Fatalf("active %d after purge", e.active(1))
	}
	if _, err := e.files.Stat(ctx, jobs.OutputKey(done.ID)); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("output kept after purge (%v)", err)
	}
	if e.get(2, other.ID).Status != jobs.Pending {
		t.Fatal("another account's job touched")
	}
	for range jobs.MaxActive {
		e.create(user(1), scrapeOf())
	}
}

// TestPlaces: a job's places to draw, none before its finalizer kept
// them, with the job's row count.
func TestPlaces(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	j := e.create(user(1), scrapeOf())
	e.finish(j.ID, sampleCSV(t))
	p, err := e.svc.Places(ctx, 1, j.ID)
	if err != nil || len(p.Places) != 0 || p.Total != 2 {
		t.Fatalf("places %+v, %v", p, err)
	}
	if _, err := e.files.Put(ctx, jobs.PlacesKey(j.ID), strings.NewReader(`[{"lat":45.77,"lon":4.88,"nom":"A"}]`), "application/json"); err != nil {
		t.Fatal(err)
	}
	p, err = e.svc.Places(ctx, 1, j.ID)
	if err != nil || len(p.Places) != 1 || p.Places[0].Name != "A" || p.Total != 2 {
		t.Fatalf("places %+v, %v", p, err)
	}
}
