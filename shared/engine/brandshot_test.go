package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/store"
)

// siteWeb answers every site's home page with a page holding no logo, and
// 404 elsewhere (robots.txt included).
type siteWeb struct{}

func (siteWeb) RoundTrip(r *http.Request) (*http.Response, error) {
	status, body := http.StatusNotFound, "not found"
	if r.URL.Path == "/" || r.URL.Path == "" {
		status, body = http.StatusOK, "<html><head><title>"+r.URL.Host+"</title></head><body>Welcome</body></html>"
	}
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r, ContentLength: int64(len(body))}, nil
}

// flakyShots fails on the hosts starting with "fail", renders a tiny PNG
// elsewhere.
type flakyShots struct{}

func (flakyShots) Screenshot(_ context.Context, u *url.URL) ([]byte, error) {
	if strings.HasPrefix(u.Hostname(), "fail") {
		return nil, errors.New("browser crashed")
	}
	return []byte("\x89PNG\r\n\x1a\nfake"), nil
}

// TestBrandScreenshotFailures: a brand_assets job asking for screenshots
// counts each screenshot that failed in error_count, logs its cause, and
// gives back its surcharge (and that of an item without a site, whose
// screenshot was never taken); a screenshot taken is charged and served.
func TestBrandScreenshotFailures(t *testing.T) {
	for _, tt := range []struct {
		name     string
		shots    enrich.Screenshotter
		failed   int    // items counted in error_count
		unshot   int    // items whose surcharge is given back
		wantLogs string // a log line of the cause
	}{
		{"a failing browser", flakyShots{}, 2, 3, "Screenshot of https://fail1.fr/ failed: browser crashed."},
		{"no browser", nil, 3, 4, "Screenshot of https://ok.fr/ failed: no browser on this server."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, newWorld(), envOpts{deps: func(d *Deps) {
				set, err := enrich.NewSet(crawl.New(crawl.Deps{Transport: siteWeb{}}), nil,
					enrich.BrandModule(enrich.BrandDeps{Files: d.Files, BaseURL: "https://svc.test", Shots: tt.shots}))
				if err != nil {
					t.Fatal(err)
				}
				d.Modules = set
			}})
			req := jobs.ItemRequest{Options: map[string]any{"capture_screenshot": true}}
			for _, site := range []string{"https://fail1.fr", "https://ok.fr", "https://fail2.fr", ""} {
				req.Items = append(req.Items, json.RawMessage(fmt.Sprintf(`{"nom":"x","site_web":%q}`, site)))
			}
			u := &accounts.User{ID: uids.Add(1), EmailVerified: true}
			j, err := e.jobs.CreateItems(context.Background(), u, "brand_assets", req)
			if err != nil {
				t.Fatal(err)
			}
			charged, _ := pricing.ItemEF(brandAssets(), 4, modules.Values{"capture_screenshot": true})
			j = e.wait(j.ID)
			if j.Status != jobs.Done || j.ErrorCount != tt.failed || j.EFCost != charged {
				t.Fatalf("job %s, error_count %d (want %d), ef %v", j.Status, j.ErrorCount, tt.failed, j.EFCost)
			}
			logs := strings.Join(e.logs(j.ID), "\n")
			if !strings.Contains(logs, tt.wantLogs) || !strings.Contains(logs, fmt.Sprintf("%s EF refunded", pricing.FormatEF(float64(tt.unshot)*0.08))) {
				t.Errorf("logs:\n%s", logs)
			}
			// The account pays the screenshots taken only.
			refund := float64(tt.unshot) * charged / 4 * enrich.ScreenshotShare()
			it, err := e.db.Table(accounts.Table).Get(context.Background(),
				store.Key{PK: accounts.UserPK(u.ID), SK: "EF#" + j.Created.UTC().Format("2006-01")})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := it.Int("cents"), int64((charged-refund)*100+0.5); got != want {
				t.Errorf("account spent %d cents, want %d (%v charged, %v refunded)", got, want, charged, refund)
			}
			out := parseCSV(t, e.output(j.ID))
			for _, r := range out.rows {
				if shot := r["screenshot_local_url"]; (shot != "") != (tt.shots != nil && r["site_web"] == "https://ok.fr") {
					t.Errorf("row %v", r)
				}
			}
		})
	}
}

// brandAssets is the brand_assets module's declaration.
func brandAssets() modules.Entry {
	e, _ := modules.Lookup(modules.BrandAssets)
	return e
}
