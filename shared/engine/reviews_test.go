package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/placerow"
	"github.com/prospectdata/svc/shared/provider"
)

// partRecorder keeps the last content of every part written.
type partRecorder struct {
	blob.Store
	mu    sync.Mutex
	parts map[string][]byte
}

func (p *partRecorder) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	if !strings.Contains(key, "/parts/") {
		return p.Store.Put(ctx, key, r, contentType)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	p.parts[key] = b
	p.mu.Unlock()
	return p.Store.Put(ctx, key, bytes.NewReader(b), contentType)
}

// fetchable counts, per place id, the parts with a row of it whose
// reviews the worker reads (a number not foreign, exclude_foreign_phones
// being on, and some reviews).
func (p *partRecorder) fetchable(t *testing.T) map[string]int {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for key, b := range p.parts {
		dec := json.NewDecoder(bytes.NewReader(b))
		seen := map[string]bool{}
		for {
			var r Row
			if err := dec.Decode(&r); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if seen[r.PlaceID] {
				t.Errorf("%s: place %s twice", key, r.PlaceID)
			}
			seen[r.PlaceID] = true
			if r.Reviews > 0 && !r.PhoneForeign {
				out[r.PlaceID]++
			}
		}
	}
	return out
}

// TestIncludeReviews runs jobs with and without include_reviews, with
// transient failures on Reviews that recover or last: the review columns,
// their content, and the requests counted.
func TestIncludeReviews(t *testing.T) {
	for _, tt := range []struct {
		name    string
		include bool
		// failFirst/failEvery, failAlways: the world's review* knobs.
		failFirst, failEvery, failAlways int
		retries                          int
	}{
		{name: "without", include: false},
		{name: "with", include: true},
		{name: "recovered", include: true, failFirst: 2, failEvery: 3},
		{name: "lasting", include: true, failAlways: 5, retries: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			w.reviewFailFirst, w.reviewFailEvery, w.reviewFailAlways = tt.failFirst, tt.failEvery, tt.failAlways
			rec := &partRecorder{parts: map[string][]byte{}}
			e := newEnv(t, w, envOpts{
				wrapFiles: func(s blob.Store) blob.Store { rec.Store = s; return rec },
				deps: func(d *Deps) {
					if tt.retries != 0 {
						d.Retries = tt.retries
					}
				},
			})
			r := lyon("normal", "restaurant", "boulangerie", "plombier")
			r.IncludeReviews = tt.include
			j := e.run(r)
			if j.Status != jobs.Done || j.IncludeReviews != tt.include {
				t.Fatalf("status %s, include_reviews %v (%v)", j.Status, j.IncludeReviews, j.ErrorMessage)
			}
			out := parseCSV(t, e.output(j.ID))
			base := placerow.Columns([]string{"gps", "departement", "region"}, false)
			calls := int(w.reviewCalls.Load())
			if got, want := j.TotalAttemptsCount, int(w.searches.Load())+calls; got != want {
				t.Errorf("total_attempts_count %d, provider saw %d searches and %d reviews calls", got, w.searches.Load(), calls)
			}
			if !tt.include {
				if !slices.Equal(out.header, base) || calls != 0 || j.ErrorCount != 0 {
					t.Errorf("header %q, %d reviews calls, %d errors", out.header, calls, j.ErrorCount)
				}
				return
			}
			if !slices.Equal(out.header, append(base, placerow.ReviewColumns...)) {
				t.Fatalf("header %q", out.header)
			}

			// Every place is asked once per task whose part lists it (so
			// never twice within a task), plus its retries.
			per := rec.fetchable(t)
			w.mu.Lock()
			attempts := maps.Clone(w.reviewAttempts)
			w.mu.Unlock()
			failing := func(id string) bool { return tt.failAlways > 0 && hash(id)%uint64(tt.failAlways) == 0 }
			retried := func(id string) bool { return tt.failEvery > 0 && hash(id)%uint64(tt.failEvery) == 0 }
			sum, errs, across := 0, 0, 0
			for id, n := range per {
				want := n
				switch {
				case failing(id):
					want = n * (1 + e.eng.d.Retries)
					errs += n
				case retried(id):
					want = n + tt.failFirst // the first task's call tries again; the others succeed at once
				}
				if attempts[id] != want {
					t.Errorf("place %s in %d parts: %d calls, want %d", id, n, attempts[id], want)
				}
				sum += attempts[id]
				if n > 1 {
					across++
				}
			}
			if sum != calls || len(attempts) != len(per) {
				t.Errorf("%d calls for %d places, provider saw %d calls for %d places", sum, len(per), calls, len(attempts))
			}
			if j.ErrorCount != errs || tt.failAlways > 0 && errs == 0 {
				t.Errorf("error_count %d, want %d", j.ErrorCount, errs)
			}

			// The cells: the world's reviews, newest first, formatted;
			// none for a place whose reviews kept failing.
			w.mu.Lock()
			defer w.mu.Unlock()
			withContent, cut, empty := 0, 0, 0
			for _, row := range out.rows {
				id := row["place_id"]
				var want []provider.Review
				if !failing(id) {
					want = worldReviews(w.returned[id], placerow.MaxReviews)
				}
				for k, col := range placerow.ReviewColumns {
					exp := ""
					if k < len(want) {
						exp = placerow.ReviewCell(want[k])
					}
					if row[col] != exp {
						t.Errorf("place %s, %s = %q, want %q", id, col, row[col], exp)
					}
				}
				switch {
				case row["avis_1"] == "":
					empty++
				default:
					withContent++
				}
				if strings.HasSuffix(row["avis_1"], "…") && utf8.RuneCountInString(row["avis_1"]) == placerow.ReviewCellChars {
					cut++
				}
			}
			if withContent == 0 || cut == 0 || empty == 0 {
				t.Errorf("%d rows with reviews, %d cut, %d without", withContent, cut, empty)
			}
			t.Logf("%d rows, %d with reviews; %d reviews calls for %d places (%d searches), %d places fetched by several tasks, %d errors",
				len(out.rows), withContent, calls, len(per), w.searches.Load(), across, j.ErrorCount)
		})
	}
}
