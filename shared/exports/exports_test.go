package exports

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/blob/dir"
)

// signing is the local store with the addresses S3 would sign.
type signing struct{ blob.Store }

func (s signing) DownloadURL(ctx context.Context, key, filename string, _ time.Duration) (string, bool, error) {
	if _, err := s.Stat(ctx, key); err != nil {
		return "", false, err
	}
	return "https://bucket.example/" + key + "?name=" + filename, true, nil
}

// TestGet: a request asks for a build once while it runs, again once the
// build is overdue; a recent archive answers its address, an old one a
// new build.
func TestGet(t *testing.T) {
	d, err := dir.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := signing{d}
	now := time.Now()
	asked := 0
	s := New(Deps{Files: files, Now: func() time.Time { return now },
		Request: func(context.Context, int64) error { asked++; return nil }})
	ctx := context.Background()
	u := &accounts.User{ID: 7, Email: "ana@example.org"}
	get := func() Result {
		t.Helper()
		r, err := s.Get(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The local store stamps files with the wall clock: the steps move
	// the service's clock instead.
	for _, step := range []struct {
		name      string
		advance   time.Duration
		archive   bool // an archive is built before the request
		wantURL   bool
		wantAsked int
	}{
		{"first request asks", 0, false, false, 1},
		{"while building, no second ask", time.Minute, false, false, 1},
		{"a build overdue is asked again", Building + time.Minute, false, false, 2},
		{"a fresh archive answers", 0, true, true, 2},
		{"an old archive is built again", Reuse + time.Minute, false, false, 3},
	} {
		now = now.Add(step.advance)
		if step.archive {
			key := archiveKey(u.ID, now)
			if _, err := files.Put(ctx, key, strings.NewReader("zip"), "application/zip"); err != nil {
				t.Fatal(err)
			}
			if err := files.Delete(ctx, pendingKey(u.ID)); err != nil {
				t.Fatal(err)
			}
			now = time.Now()
		}
		r := get()
		if (r.URL != "") != step.wantURL || asked != step.wantAsked || (r.URL == "" && r.RetryAfter != RetryAfter) {
			t.Fatalf("%s: %+v, asked %d times, want url %v and %d asks", step.name, r, asked, step.wantURL, step.wantAsked)
		}
		if step.wantURL && !strings.Contains(r.URL, "svc-export-ana-") {
			t.Errorf("%s: address %s without the archive's name", step.name, r.URL)
		}
	}
}
