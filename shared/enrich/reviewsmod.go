package enrich

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/provider"
)

// reviews reads the latest reviews of each row's place through the map
// provider port, the same Reviews call a scrape with include_reviews
// makes. The place comes from the row's lien_maps, which names it
// (provider.PlaceLinker: the sim's place links, Google's Maps URLs).

// ReviewsListBytes bounds a reviews_list cell: the oldest reviews are left
// out until the JSON fits (a CSV cell stays readable in a spreadsheet).
const ReviewsListBytes = 32 << 10

// ReviewsDeps are the reviews module's source and clock.
type ReviewsDeps struct {
	Provider provider.Provider
	Now      func() time.Time
	// Retries is how many times a transient provider failure is retried
	// (default 3), Backoff the first wait, doubled each time (default 1 s).
	Retries int
	Backoff time.Duration
}

type reviewsModule struct{ d ReviewsDeps }

// ReviewsModule is the reviews module.
func ReviewsModule(d ReviewsDeps) Module {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Retries == 0 {
		d.Retries = 3
	}
	if d.Backoff == 0 {
		d.Backoff = time.Second
	}
	return &reviewsModule{d: d}
}

func (m *reviewsModule) Slug() string      { return modules.Reviews }
func (m *reviewsModule) Columns() []string { return []string{"reviews_list", "owner_replied"} }
func (m *reviewsModule) Reads() []string   { return []string{"lien_maps"} }
func (m *reviewsModule) Source() string    { return m.d.Provider.Name() }

// listedReview is one entry of a reviews_list cell.
type listedReview struct {
	Author     string  `json:"author"`
	Rating     float64 `json:"rating"`
	Text       string  `json:"text"`
	Language   string  `json:"language,omitempty"` // the text's, as its author wrote it
	Time       string  `json:"time"`
	OwnerReply string  `json:"owner_reply,omitempty"`
}

func (m *reviewsModule) Run(ctx context.Context, env *Env, in Input) (Result, error) {
	out := []string{"", ""}
	linker, ok := m.d.Provider.(provider.PlaceLinker)
	if !ok {
		return Result{Values: out}, nil
	}
	id, ok := linker.PlaceID(in["lien_maps"])
	if !ok {
		// A link of another provider, or none: nothing to read.
		return Result{Values: out}, nil
	}
	limit, _ := env.Job.Options.Int("max_reviews")
	if limit <= 0 {
		limit = 10
	}
	rs, err := m.fetch(ctx, id, limit)
	switch {
	case errors.Is(err, provider.ErrNotFound):
		return Result{Values: out}, nil
	case err != nil:
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{Values: out, Unreachable: true}, nil
	}
	var since time.Time
	if months, _ := env.Job.Options.Int("period_months"); months > 0 {
		since = m.d.Now().AddDate(0, -months, 0)
	}
	list := make([]listedReview, 0, len(rs))
	known, replied := false, false
	for _, r := range rs {
		if !since.IsZero() {
			// A review without a readable date is kept: the period
			// cannot say it is too old.
			if t, err := time.Parse(time.RFC3339, r.Time); err == nil && t.Before(since) {
				continue
			}
		}
		list = append(list, listedReview{Author: r.Author, Rating: r.Rating, Text: r.Text, Language: r.Language, Time: r.Time, OwnerReply: r.OwnerReply})
		if r.OwnerReplied != nil {
			known = true
			replied = replied || *r.OwnerReplied
		}
	}
	if len(list) == 0 {
		return Result{Values: out}, nil
	}
	cell, err := reviewsCell(list)
	if err != nil {
		return Result{}, err
	}
	out[0] = cell
	if known {
		out[1] = boolCell(replied)
	}
	return Result{Values: out, Found: true}, nil
}

// fetch asks the provider, retrying its transient failures with a
// doubling backoff.
func (m *reviewsModule) fetch(ctx context.Context, id string, limit int) ([]provider.Review, error) {
	wait := m.d.Backoff
	for try := 0; ; try++ {
		rs, err := m.d.Provider.Reviews(ctx, id, limit)
		if err == nil || !errors.Is(err, provider.ErrTransient) || try >= m.d.Retries {
			if len(rs) > limit {
				rs = rs[:limit]
			}
			return rs, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// reviewsCell is the JSON array of the reviews, newest first, without the
// oldest ones that would take it over ReviewsListBytes.
func reviewsCell(list []listedReview) (string, error) {
	for n := len(list); n > 0; n-- {
		b, err := json.Marshal(list[:n])
		if err != nil {
			return "", err
		}
		if len(b) <= ReviewsListBytes || n == 1 {
			if len(b) > ReviewsListBytes {
				// One review longer than the cap: its text is cut.
				one := list[0]
				one.Text = cutRunes(one.Text, ReviewsListBytes/8)
				b, err = json.Marshal([]listedReview{one})
				if err != nil {
					return "", err
				}
			}
			return string(b), nil
		}
	}
	return "", nil
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func boolCell(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
