package jobs_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/scrape"
)

// TestCreateScrape: a created scrape is pending, echoes its settings
// with the spec's defaults, and is charged its EF in the same write.
func TestCreateScrape(t *testing.T) {
	tests := []struct {
		name  string
		req   scrape.Request
		check func(t *testing.T, j *jobs.Job)
	}{
		{"defaults", scrapeOf(), func(t *testing.T, j *jobs.Job) {
			if j.Country != "FRA" || j.ScrapMode != "fast" || !j.ExcludeForeignPhones || j.MaxPerPhone != 0 ||
				j.StopAt != nil || j.ExtraColumns != nil || j.IncludeReviews {
				t.Fatalf("defaults %+v", j)
			}
		}},
		{"settings echoed", scrape.Request{Queries: []string{" plombier ", "Plombier", "chauffagiste"}, Zones: []string{"Villeurbanne"},
			ScrapMode: "normal", StopAt: ptr[int64](100), MaxPerPhone: 1, ExcludeForeignPhones: ptr(false),
			ExtraColumns: []string{"gps", "nope", "region"}},
			func(t *testing.T, j *jobs.Job) {
				if strings.Join(j.Queries, "|") != "plombier|chauffagiste" {
					t.Fatalf("queries %q: want trimmed and deduplicated ignoring case", j.Queries)
				}
				if j.ScrapMode != "normal" || j.StopAt == nil || *j.StopAt != 100 || j.MaxPerPhone != 1 || j.ExcludeForeignPhones {
					t.Fatalf("settings %+v", j)
				}
				if strings.Join(j.ExtraColumns, ",") != "gps,region" {
					t.Fatalf("extra_columns %v: unknown values are ignored", j.ExtraColumns)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			j := e.create(user(1), tt.req)
			if j.Status != jobs.Pending || j.JobType != jobs.TypeScrap || j.Source != "sim" || j.SourceJobID != nil || j.PipelineID != nil {
				t.Fatalf("job %+v", j)
			}
			if j.GridPointsCount < 1 || j.EFCost <= 0 {
				t.Fatalf("grid %d, EF %v", j.GridPointsCount, j.EFCost)
			}
			if j.CreatedAt != "2026-11-24T10:00:00Z" || j.ExpiresAt != "2026-12-24T10:00:00Z" {
				t.Fatalf("created_at %s, expires_at %s: want ISO 8601 UTC, 30 days apart", j.CreatedAt, j.ExpiresAt)
			}
			if got := e.spent(1); got != j.EFCost {
				t.Fatalf("spent %v, want the job's %v", got, j.EFCost)
			}
			if n := e.active(1); n != 1 {
				t.Fatalf("%d active, want 1", n)
			}
			tt.check(t, j)
			tt.check(t, e.get(1, j.ID))
		})
	}
}

// TestScrapeJSONShape: every JobPublic field is present; reviews-only
// fields are null on a scrape.
func TestScrapeJSONShape(t *testing.T) {
	e := newEnv(t)
	j := e.create(user(1), scrapeOf())
	b, err := json.Marshal(e.get(1, j.ID))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"id", "job_type", "queries", "country", "zones", "include_reviews", "scrap_mode", "stop_at",
		"max_per_phone", "exclude_foreign_phones", "extra_columns", "max_reviews", "period_months", "status",
		"grid_points_count", "processed_points", "results_count", "error_count", "ef_cost", "created_at", "started_at",
		"completed_at", "expires_at", "error_message", "output_filename", "download_available", "source_job_id",
		"pipeline_id", "email_mode", "breakdown", "dead_queries", "flagged_tiles_count", "total_attempts_count", "query_stats"} {
		if _, ok := m[f]; !ok {
			t.Errorf("field %s missing", f)
		}
	}
	for _, f := range []string{"max_reviews", "period_months", "extra_columns", "stop_at", "started_at", "completed_at"} {
		if string(m[f]) != "null" {
			t.Errorf("%s is %s, want null", f, m[f])
		}
	}
	if string(m["dead_queries"]) != "[]" {
		t.Errorf("dead_queries %s, want []", m["dead_queries"])
	}
}

// TestCreateRefusals: each refusal of a creation, and that none writes a
// job, takes a slot or charges anything.
func TestCreateRefusals(t *testing.T) {
	tests := []struct {
		name  string
		user  *accounts.User
		quota float64
		req   scrape.Request
		code  apperr.Code
		field string // for 422s
		msg   string // part of the English message
	}{
		{"unverified email: 403", &accounts.User{ID: 1}, 10000, scrapeOf(), apperr.Forbidden, "", "Verify your email"},
		{"no query: 422", user(1), 10000, scrape.Request{Zones: []string{"Lyon"}}, apperr.Unprocessable, "queries", ""},
		{"21 queries: 422", user(1), 10000, scrape.Request{Queries: strings.Split("a b c d e f g h i j k l m n o p q r s t u", " "),
			Zones: []string{"Lyon"}}, apperr.Unprocessable, "queries", ""},
		{"no zone: 422", user(1), 10000, scrape.Request{Queries: []string{"plombier"}}, apperr.Unprocessable, "zones", ""},
		{"max_per_phone 11: 422", user(1), 10000, scrape.Request{Queries: []string{"plombier"}, Zones: []string{"Lyon"}, MaxPerPhone: 11},
			apperr.Unprocessable, "max_per_phone", ""},
		{"an unknown zone: 400", user(1), 10000, scrapeOf("Atlantide"), apperr.Invalid, "", "zones"},
		{"over the month's EF: 400", user(1), 0.5, scrapeOf(), apperr.Invalid, "", "EF quota exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withQuota(tt.quota))
			ctx := context.Background()
			_, err := e.svc.Create(ctx, tt.user, tt.req)
			ae := wantCode(t, err, tt.code)
			if tt.field != "" {
				wantField(t, err, tt.field)
			}
			if !strings.Contains(ae.EN, tt.msg) {
				t.Fatalf("message %q, want it to contain %q", ae.EN, tt.msg)
			}
			if js, _ := e.svc.List(ctx, 1, 100, 0); len(js) != 0 {
				t.Fatalf("%d jobs after a refusal", len(js))
			}
			if e.active(1) != 0 || e.spent(1) != 0 {
				t.Fatalf("active %d, spent %v after a refusal", e.active(1), e.spent(1))
			}
		})
	}
}

// TestQuotaLeft: a job is refused when it costs more than what remains of
// the month, not only of the quota; a new month starts from zero.
func TestQuotaLeft(t *testing.T) {
	probe := newEnv(t)
	ef := probe.create(user(1), scrapeOf()).EFCost
	e := newEnv(t, withQuota(ef*1.5))
	ctx := context.Background()
	first := e.create(user(1), scrapeOf())
	_, err := e.svc.Create(ctx, user(1), scrapeOf())
	ae := wantCode(t, err, apperr.Invalid)
	if !strings.Contains(ae.EN, "remain this month") {
		t.Fatalf("message %q", ae.EN)
	}
	if got := e.spent(1); got != first.EFCost {
		t.Fatalf("spent %v, want only the first job's %v", got, first.EFCost)
	}
	e.create(user(2), scrapeOf()) // another account has its own quota
	if _, err := e.svc.Cancel(ctx, 1, first.ID); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(7 * 24 * time.Hour) // December
	e.create(user(1), scrapeOf())
}

// TestConcurrentLimit: at most 5 pending or running jobs per account (a
// 429 that says why); a job that ends gives its slot back; another account
// has its own.
func TestConcurrentLimit(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var made []*jobs.Job
	for range jobs.MaxActive {
		made = append(made, e.create(user(1), scrapeOf()))
	}
	spent := e.spent(1)
	_, err := e.svc.Create(ctx, user(1), scrapeOf())
	ae := wantCode(t, err, apperr.TooMany)
	if !strings.Contains(ae.EN, "5 pending or running jobs") || ae.RetryAfter <= 0 {
		t.Fatalf("refusal %q, Retry-After %d", ae.EN, ae.RetryAfter)
	}
	if e.spent(1) != spent {
		t.Fatal("a refused sixth job was charged")
	}
	e.create(user(2), scrapeOf())

	for _, end := range []struct {
		name string
		do   func(id string)
	}{
		{"cancelled", func(id string) {
			if _, err := e.svc.Cancel(ctx, 1, id); err != nil {
				t.Fatal(err)
			}
		}},
		{"done", func(id string) { e.finish(id, sampleCSV(t)) }},
		{"failed", func(id string) { e.fail(id, "provider refused") }},
		{"deleted while pending", func(id string) {
			if err := e.svc.Delete(ctx, 1, id); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		before := e.active(1)
		end.do(made[0].ID)
		if got := e.active(1); got != before-1 {
			t.Fatalf("%s: active %d, want %d", end.name, got, before-1)
		}
		made[0] = e.create(user(1), scrapeOf())
		if got := e.active(1); got != jobs.MaxActive {
			t.Fatalf("%s: active %d after refilling, want %d", end.name, got, jobs.MaxActive)
		}
	}
}

// TestCreationQuota: 30 creations per 10 minutes, refused attempts
// included; a scheduled replay (a veille) skips it.
func TestCreationQuota(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i := range ratelimit.JobCreate.Max {
		// Refused attempts count: these fail validation.
		if _, err := e.svc.Create(ctx, user(1), scrape.Request{}); !apperr.Is(err, apperr.Unprocessable) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	_, err := e.svc.Create(ctx, user(1), scrapeOf())
	ae := wantCode(t, err, apperr.TooMany)
	if ae.RetryAfter <= 0 || ae.RetryAfter > 600 {
		t.Fatalf("Retry-After %d, want within the 10-minute window", ae.RetryAfter)
	}
	e.create(user(2), scrapeOf())
	j, err := e.svc.Create(jobs.WithScheduled(ctx), user(1), scrapeOf())
	if err != nil || j.Status != jobs.Pending {
		t.Fatalf("a scheduled replay past the creation quota: %v", err)
	}
	e.clock.Advance(10 * time.Minute)
	e.create(user(1), scrapeOf())
}

// TestReplay: a veille replays a scrape with its settings, past the
// creation quota; only a scrape can be replayed.
func TestReplay(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	src := e.create(user(1), scrape.Request{Queries: []string{"plombier"}, Zones: []string{"Villeurbanne"},
		ScrapMode: "normal", StopAt: ptr[int64](50), MaxPerPhone: 2, ExcludeForeignPhones: ptr(false)})
	e.finish(src.ID, sampleCSV(t))
	src = e.get(1, src.ID)
	for range ratelimit.JobCreate.Max {
		_, _ = e.svc.Create(ctx, user(1), scrape.Request{})
	}
	r, err := e.svc.Replay(ctx, user(1), src)
	if err != nil {
		t.Fatal(err)
	}
	if r.ID == src.ID || r.Status != jobs.Pending || r.ScrapMode != "normal" || *r.StopAt != 50 || r.MaxPerPhone != 2 ||
		r.ExcludeForeignPhones || strings.Join(r.Zones, ",") != "Villeurbanne" || r.EFCost != src.EFCost {
		t.Fatalf("replay %+v of %+v", r, src)
	}
	items, err := e.svc.CreateItems(jobs.WithScheduled(ctx), user(1), "socials",
		jobs.ItemRequest{Items: []json.RawMessage{json.RawMessage(`{"site_web":"https://a.example"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Replay(ctx, user(1), items)
	wantCode(t, err, apperr.Invalid)
}

// TestLowPriorityStage: a job created as a low-priority pipeline's stage
// is charged the low-priority price and carries its pipeline.
func TestLowPriorityStage(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	normal := e.create(user(1), scrapeOf())
	low, err := e.svc.Create(jobs.WithOrigin(ctx, jobs.Origin{PipelineID: "pipe1", NodeID: "s", LowPriority: true}), user(1), scrapeOf())
	if err != nil {
		t.Fatal(err)
	}
	if low.EFCost != pricing.LowPriority(normal.EFCost) || low.EFCost >= normal.EFCost {
		t.Fatalf("low-priority EF %v, normal %v", low.EFCost, normal.EFCost)
	}
	if low.PipelineID == nil || *low.PipelineID != "pipe1" || low.PipelineNodeID != "s" {
		t.Fatalf("pipeline %s node %q", str(low.PipelineID), low.PipelineNodeID)
	}
	if got := e.spent(1); got != normal.EFCost+low.EFCost {
		t.Fatalf("spent %v, want %v", got, normal.EFCost+low.EFCost)
	}
}
