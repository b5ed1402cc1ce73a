package enrich_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/provider"
)

// reviewsSource is a provider of a few places whose reviews fail as told.
type reviewsSource struct {
	provider.Provider
	reviews map[string][]provider.Review
	// failures makes the first n calls for a place fail with err.
	failures map[string]int
	err      error
	calls    map[string]int
}

func (p *reviewsSource) Name() string { return "fake" }

func (p *reviewsSource) PlaceID(link string) (string, bool) {
	id, ok := strings.CutPrefix(link, "https://maps.test/")
	return id, ok && id != ""
}

func (p *reviewsSource) Reviews(_ context.Context, id string, max int) ([]provider.Review, error) {
	p.calls[id]++
	if p.calls[id] <= p.failures[id] {
		return nil, p.err
	}
	rs, ok := p.reviews[id]
	if !ok {
		return nil, provider.ErrNotFound
	}
	return rs[:min(max, len(rs))], nil
}

func TestReviewsModule(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	yes, no := true, false
	at := func(months int) string { return now.AddDate(0, -months, -1).Format(time.RFC3339) }
	places := map[string][]provider.Review{
		"p1": {
			{Author: "Ana B.", Rating: 5, Text: "Parfait", Time: at(0), OwnerReplied: &yes, OwnerReply: "Merci !"},
			{Author: "Luc M.", Rating: 2, Text: "Bof", Time: at(5), OwnerReplied: &no},
			{Author: "Eva K.", Rating: 4, Text: "Bien", Time: at(14), OwnerReplied: &no},
		},
		"quiet": {{Author: "Tom", Rating: 3, Text: "", Time: at(1)}},
		"none":  {},
		"old":   {{Author: "Old", Rating: 1, Text: "x", Time: at(30), OwnerReplied: &no}},
	}
	tests := []struct {
		name       string
		link       string
		max        int
		months     int
		failures   int
		err        error
		wantAuthor []string
		wantReply  string
		unreach    bool
	}{
		{"the latest reviews, newest first", "https://maps.test/p1", 10, 0, 0, nil, []string{"Ana B.", "Luc M.", "Eva K."}, "true", false},
		{"max_reviews keeps the newest", "https://maps.test/p1", 1, 0, 0, nil, []string{"Ana B."}, "true", false},
		{"period_months drops older reviews", "https://maps.test/p1", 10, 12, 0, nil, []string{"Ana B.", "Luc M."}, "true", false},
		{"no answer known: owner_replied empty", "https://maps.test/quiet", 10, 0, 0, nil, []string{"Tom"}, "", false},
		{"answers known, none given", "https://maps.test/old", 10, 0, 0, nil, []string{"Old"}, "false", false},
		{"every review older than the period", "https://maps.test/old", 10, 6, 0, nil, nil, "", false},
		{"a place without reviews", "https://maps.test/none", 10, 0, 0, nil, nil, "", false},
		{"a place the provider no longer knows", "https://maps.test/gone", 10, 0, 0, nil, nil, "", false},
		{"a link of another map", "https://www.example.org/place/p1", 10, 0, 0, nil, nil, "", false},
		{"no link", "", 10, 0, 0, nil, nil, "", false},
		{"transient failures retried", "https://maps.test/p1", 10, 0, 2, provider.ErrTransient, []string{"Ana B.", "Luc M.", "Eva K."}, "true", false},
		{"transient failures past the retries: a row error", "https://maps.test/p1", 10, 0, 9, provider.ErrTransient, nil, "", true},
		{"a failure that is not transient: a row error", "https://maps.test/p1", 10, 0, 1, fmt.Errorf("malformed body"), nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &reviewsSource{reviews: places, failures: map[string]int{"p1": tt.failures}, err: tt.err, calls: map[string]int{}}
			m := enrich.ReviewsModule(enrich.ReviewsDeps{Provider: src, Now: func() time.Time { return now }, Backoff: time.Millisecond})
			env := &enrich.Env{Job: enrich.Job{ID: "abcdefghijklmnop", Options: modules.Values{"max_reviews": tt.max, "period_months": tt.months}}}
			res, err := m.Run(context.Background(), env, enrich.Input{"lien_maps": tt.link})
			if err != nil {
				t.Fatal(err)
			}
			if res.Unreachable != tt.unreach {
				t.Fatalf("unreachable %v, want %v", res.Unreachable, tt.unreach)
			}
			if len(res.Values) != 2 {
				t.Fatalf("%d values", len(res.Values))
			}
			var got []struct {
				Author     string `json:"author"`
				OwnerReply string `json:"owner_reply"`
			}
			if res.Values[0] != "" {
				if err := json.Unmarshal([]byte(res.Values[0]), &got); err != nil {
					t.Fatalf("reviews_list %q: %v", res.Values[0], err)
				}
			}
			var authors []string
			for _, r := range got {
				authors = append(authors, r.Author)
			}
			if fmt.Sprint(authors) != fmt.Sprint(tt.wantAuthor) {
				t.Errorf("authors %v, want %v", authors, tt.wantAuthor)
			}
			if res.Values[1] != tt.wantReply {
				t.Errorf("owner_replied %q, want %q", res.Values[1], tt.wantReply)
			}
			if res.Found != (len(tt.wantAuthor) > 0) {
				t.Errorf("found %v", res.Found)
			}
		})
	}
}

// TestReviewsListCap: a place with many long reviews gives a cell under
// the cap, the newest reviews kept.
func TestReviewsListCap(t *testing.T) {
	var many []provider.Review
	for i := range 100 {
		many = append(many, provider.Review{Author: fmt.Sprint("a", i), Rating: 4, Text: strings.Repeat("très long avis ", 60)})
	}
	src := &reviewsSource{reviews: map[string][]provider.Review{"p": many}, calls: map[string]int{}}
	m := enrich.ReviewsModule(enrich.ReviewsDeps{Provider: src})
	res, err := m.Run(context.Background(), &enrich.Env{Job: enrich.Job{Options: modules.Values{"max_reviews": 100}}}, enrich.Input{"lien_maps": "https://maps.test/p"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Values[0]); n > enrich.ReviewsListBytes || n < enrich.ReviewsListBytes/2 {
		t.Fatalf("cell of %d bytes", n)
	}
	if !strings.HasPrefix(res.Values[0], `[{"author":"a0"`) {
		t.Errorf("the newest review is not first: %.40s", res.Values[0])
	}
}

// BenchmarkReviews: rows per second of the reviews module over a provider
// answering at once (the module's own cost: link parsing, the period
// filter, the JSON cell), and its provider calls per row.
func BenchmarkReviews(b *testing.B) {
	var rs []provider.Review
	yes := true
	for i := range 10 {
		rs = append(rs, provider.Review{Author: fmt.Sprint("Auteur ", i), Rating: 4, Text: "Très bon accueil, je recommande.",
			Time: time.Now().AddDate(0, -i, 0).Format(time.RFC3339), OwnerReplied: &yes, OwnerReply: "Merci !"})
	}
	src := &reviewsSource{reviews: map[string][]provider.Review{"p": rs}, calls: map[string]int{}}
	m := enrich.ReviewsModule(enrich.ReviewsDeps{Provider: src})
	env := &enrich.Env{Job: enrich.Job{Options: modules.Values{"max_reviews": 10, "period_months": 6}}}
	in := enrich.Input{"lien_maps": "https://maps.test/p"}
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Run(context.Background(), env, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(src.calls["p"])/float64(b.N), "calls/row")
}
