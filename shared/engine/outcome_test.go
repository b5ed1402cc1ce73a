package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/provider"
)

// failing is the test world answering its first answer searches, then
// failing every other with err.
type failing struct {
	*world
	answer int64
	err    error
	n      atomic.Int64
	failed atomic.Int64
}

func (f *failing) Search(ctx context.Context, r provider.Request) (provider.Page, error) {
	if f.n.Add(1) > f.answer {
		f.failed.Add(1)
		return provider.Page{}, f.err
	}
	return f.world.Search(ctx, r)
}

// TestProviderFailures: a scrape whose provider requests all fail ends
// failed with a message saying why, at once when the provider refuses; a
// failed scrape is refunded the searches not answered; one with some
// failures ends done and says how many in its log, refunded their share.
func TestProviderFailures(t *testing.T) {
	refused := fmt.Errorf("%w: API key not valid. Please pass a valid API key.", provider.ErrRefused)
	down := fmt.Errorf("%w: 503 Service Unavailable", provider.ErrTransient)
	for _, tt := range []struct {
		name     string
		answer   int64 // searches answered before the failures
		err      error
		failSome bool // the world's own lasting failures (1 search in 7)
		failFast int
		status   jobs.Status
		msg      string // error_message's start
		// refund: "all" the charge, "some" of it, "none".
		refund string
		log    string // a log line's start
	}{
		{"refused from the first search", 0, refused, false, 0, jobs.Failed,
			"The map provider refused the job's searches (provider: refused: API key not valid. Please pass a valid API key.).", "all", "Job failed: "},
		// Refunded by the rule: how many answers committed before the
		// refusal depends on timing.
		{"refused after some answers", 40, refused, false, 0, jobs.Failed,
			"The map provider refused the job's searches (", "rule", "Job failed: "},
		{"provider down", 0, down, false, 0, jobs.Failed,
			"Nothing could be done: ", "all", "Job failed: Nothing could be done: "},
		{"provider down, failing fast", 0, down, false, 5, jobs.Failed,
			"Nothing could be done: the first ", "all", "Job failed: Nothing could be done: the first "},
		{"some searches failing", math.MaxInt64, nil, true, 0, jobs.Done, "", "some", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			if tt.failSome {
				w.failAlways = 7
			}
			prov := &failing{world: w, answer: tt.answer, err: tt.err}
			e := newEnv(t, prov, envOpts{deps: func(d *Deps) {
				d.Retries = 1
				if tt.failFast > 0 {
					d.FailFastAfter = tt.failFast
				}
			}})
			j := e.run(lyon("normal"))
			if j.Status != tt.status {
				t.Fatalf("status %s (%v)", j.Status, j.ErrorMessage)
			}
			if tt.msg != "" && (j.ErrorMessage == nil || !strings.HasPrefix(*j.ErrorMessage, tt.msg)) {
				t.Errorf("error_message %v, want %q…", *j.ErrorMessage, tt.msg)
			}
			it := e.record(j.ID)
			units := int64(j.GridPointsCount * len(j.Queries))
			switch {
			case tt.err == refused:
				// Fail fast: the searches in flight when it failed, not the
				// job's.
				if n := prov.failed.Load(); n == 0 || n >= units/2 {
					t.Errorf("%d refused requests for a job of %d root searches", n, units)
				}
			case tt.failFast > 0:
				if n := it.Failed(); n < int64(tt.failFast) || n >= units/2 {
					t.Errorf("%d searches failed before failing fast (of %d)", n, units)
				}
			}

			spent, err := accounts.NewLedger(e.db, time.Now, pricing.DefaultQuota).Spent(context.Background(), j.UserID)
			if err != nil {
				t.Fatal(err)
			}
			refund := float64(it.RefundCents()) / 100
			if !near(spent, j.EFCost-refund) {
				t.Errorf("spent %v of a charge of %v refunded %v", spent, j.EFCost, refund)
			}
			if tt.status == jobs.Failed {
				mode, _ := pricing.ParseMode(j.ScrapMode)
				expected := pricing.Compute(pricing.Params{Tiles: j.GridPointsCount, Queries: len(j.Queries), Mode: mode}).ExpectedSearches
				answered, failed := it.Answered(), it.Failed()
				if want := pricing.Refund(j.EFCost, max(expected, float64(answered+failed)), int(answered)); !near(refund, want) {
					t.Errorf("refund %v, want %v (%d answered, %d failed, %v expected)", refund, want, answered, failed, expected)
				}
			}
			switch tt.refund {
			case "all":
				if refund != j.EFCost {
					t.Errorf("refund %v of %v", refund, j.EFCost)
				}
			case "some":
				if refund <= 0 || refund >= j.EFCost {
					t.Errorf("refund %v of %v", refund, j.EFCost)
				}
			}
			if tt.status == jobs.Done {
				answered, failed := it.Answered(), it.Failed()
				if failed == 0 || int(failed) != j.ErrorCount {
					t.Errorf("%d searches failed, error_count %d", failed, j.ErrorCount)
				}
				if want := pricing.Refund(j.EFCost, float64(answered+failed), int(answered)); !near(refund, want) {
					t.Errorf("refund %v, want %v", refund, want)
				}
				tt.log = fmt.Sprintf("%d of %d searches failed: always down: provider: transient failure. %s EF refunded for them.",
					failed, answered+failed, pricing.FormatEF(refund))
			}
			logs := e.logs(j.ID)
			if !slices.ContainsFunc(logs, func(s string) bool { return strings.HasPrefix(s, tt.log) }) {
				t.Errorf("no %q… in the logs:\n%s", tt.log, strings.Join(logs, "\n"))
			}
			if it := e.item(jobs.ActiveKey(j.UserID)); it.Int("n") != 0 {
				t.Errorf("active jobs %d", it.Int("n"))
			}
		})
	}
}

// refusingReviews is the test world refusing every reviews request.
type refusingReviews struct {
	*world
	err error
}

func (r refusingReviews) Reviews(context.Context, string, int) ([]provider.Review, error) {
	return nil, r.err
}

// TestReviewsRefused: a job asking for reviews whose review requests the
// provider refuses fails at once, saying so, like a refused search.
func TestReviewsRefused(t *testing.T) {
	refused := fmt.Errorf("%w: PERMISSION_DENIED", provider.ErrRefused)
	e := newEnv(t, refusingReviews{world: newWorld(), err: refused}, envOpts{})
	r := lyon("normal", "restaurant")
	r.IncludeReviews = true
	j := e.run(r)
	if j.Status != jobs.Failed || j.ErrorMessage == nil ||
		!strings.HasPrefix(*j.ErrorMessage, "The map provider refused the job's review requests (") {
		t.Fatalf("status %s, error_message %v", j.Status, j.ErrorMessage)
	}
}
