package engine

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider"
)

// MaxReviews is how many of a place's latest reviews a job with
// include_reviews fetches, and how many review columns its output has.
const MaxReviews = 5

// ReviewCellChars is the most characters (runes) of a review column's cell.
const ReviewCellChars = 500

// reviewColumns are the output's review columns, newest first: avis_1
// (the latest review) to avis_<MaxReviews>.
var reviewColumns = func() []string {
	cols := make([]string, MaxReviews)
	for i := range cols {
		cols[i] = "avis_" + strconv.Itoa(i+1)
	}
	return cols
}()

// fetchReviews reads the latest reviews of the task's rows into them, all
// at once (each request waits for a provider slot), retrying transient
// failures like searches. rows hold one row per place id, so no place is
// fetched twice within a task. Rows that cannot be in the output (a
// foreign number under exclude_foreign_phones) and places listing no
// review (reviews_count 0) are not asked. It returns the requests made
// and the places whose reviews could not be read (their rows stay,
// without reviews); err only when ctx ended.
func (e *Engine) fetchReviews(ctx context.Context, j *jobs.Job, rows []Row) (attempts, failed int, err error) {
	n := make([]int, len(rows))
	fail := make([]bool, len(rows))
	var wg sync.WaitGroup
	for i := range rows {
		r := &rows[i]
		if r.Reviews <= 0 || j.ExcludeForeignPhones && r.PhoneForeign {
			continue
		}
		wg.Go(func() {
			rs, tries, err := withRetries(ctx, e, func(ctx context.Context) ([]provider.Review, error) {
				return e.d.Provider.Reviews(ctx, r.PlaceID, MaxReviews)
			})
			n[i] = tries
			if err != nil {
				fail[i] = true
				if ctx.Err() == nil {
					e.d.Log.Warn("engine: reviews failed", "job", j.ID, "place", r.PlaceID, "err", err)
				}
				return
			}
			if len(rs) > MaxReviews {
				rs = rs[:MaxReviews]
			}
			r.LatestReviews = rs
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	for i := range rows {
		attempts += n[i]
		if fail[i] {
			failed++
		}
	}
	return attempts, failed, nil
}

// reviewCells are a row's review columns: one cell per review, newest
// first, then empty cells.
func reviewCells(r *Row) []string {
	out := make([]string, MaxReviews)
	for i, rv := range r.LatestReviews {
		if i == MaxReviews {
			break
		}
		out[i] = reviewCell(rv)
	}
	return out
}

// reviewCell is one review in a cell: "<rating>/5 — <author> — <text>"
// (a part left out when empty: "5/5 — Marie D." for a rating without
// comment), on one line (line breaks and tabs become spaces), cut to
// ReviewCellChars characters with a final "…".
func reviewCell(rv provider.Review) string {
	var parts []string
	if rv.Rating > 0 {
		parts = append(parts, strconv.FormatFloat(rv.Rating, 'f', -1, 64)+"/5")
	}
	for _, s := range []string{rv.Author, rv.Text} {
		if s = oneLine(s); s != "" {
			parts = append(parts, s)
		}
	}
	cell := strings.Join(parts, " — ")
	if rs := []rune(cell); len(rs) > ReviewCellChars {
		cell = strings.TrimRightFunc(string(rs[:ReviewCellChars-1]), unicode.IsSpace) + "…"
	}
	return cell
}

// oneLine folds runs of white space (line breaks included) to one space
// and trims the ends.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
