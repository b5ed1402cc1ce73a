package google

import (
	"context"
	"fmt"
	"net/http"
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
// Details request, asking only for reviews, in Options.PlaceLanguage (the
// API translates text into it). Each review keeps originalText, the words
// its author wrote, with their language; the translated text is read only
// when there is no original. The API returns at most 5 (its
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
	err = c.call(ctx, http.MethodGet, c.detailsPath(id), ReviewsFieldMask, nil, &out)
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
		case r.OriginalText != nil && r.OriginalText.Text != "":
			d.r.Text, d.r.Language = r.OriginalText.Text, r.OriginalText.LanguageCode
		case r.Text != nil:
			d.r.Text, d.r.Language = r.Text.Text, r.Text.LanguageCode
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
