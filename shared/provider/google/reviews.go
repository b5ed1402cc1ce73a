package google

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/prospectdata/svc/shared/provider"
)

type review struct {
	Rating            float64        `json:"rating"`
	Text              *localizedText `json:"text"`
	OriginalText      *localizedText `json:"originalText"`
	AuthorAttribution struct {
		DisplayName string `json:"displayName"`
	} `json:"authorAttribution"`
	PublishTime string `json:"publishTime"`
}

type detailsResponse struct {
	Reviews []review `json:"reviews"`
}

// Reviews returns up to max of the place's reviews, newest first: one Place
// Details request, asking only for reviews. The API returns at most 5 (its
// most relevant ones, which this sorts by date). An id the API does not know
// (404) wraps provider.ErrNotFound. max ≤ 0 sends nothing.
func (c *Client) Reviews(ctx context.Context, placeID string, max int) ([]provider.Review, error) {
	if max <= 0 {
		return nil, nil
	}
	id, err := placeName(placeID)
	if err != nil {
		return nil, fmt.Errorf("google places: reviews: %w", err)
	}
	var out detailsResponse
	err = c.call(ctx, http.MethodGet, "/v1/places/"+url.PathEscape(id), ReviewsFieldMask, nil, &out)
	if err != nil {
		if notFound(err) {
			return nil, fmt.Errorf("google places: reviews of %q: %w (%w)", id, provider.ErrNotFound, err)
		}
		return nil, err
	}
	type dated struct {
		r provider.Review
		t time.Time
	}
	all := make([]dated, 0, len(out.Reviews))
	for _, r := range out.Reviews {
		d := dated{r: provider.Review{Author: r.AuthorAttribution.DisplayName, Rating: r.Rating}}
		switch {
		case r.Text != nil && r.Text.Text != "":
			d.r.Text = r.Text.Text
		case r.OriginalText != nil:
			d.r.Text = r.OriginalText.Text
		}
		if t, err := time.Parse(time.RFC3339Nano, r.PublishTime); err == nil {
			d.t = t.UTC()
			d.r.Time = d.t.Format(time.RFC3339)
		}
		all = append(all, d)
	}
	slices.SortStableFunc(all, func(a, b dated) int { return b.t.Compare(a.t) })
	if len(all) > max {
		all = all[:max]
	}
	reviews := make([]provider.Review, len(all))
	for i, d := range all {
		reviews[i] = d.r
	}
	return reviews, nil
}
