package placement

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestResultJSON pins the result document's field names.
func TestResultJSON(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	r := Result{Domain: "example.com", SubjectFilter: "Hi", Source: SourceIMAP, Seeds: []SeedResult{
		{Provider: "gmail", Address: "a@gmail.com", Placement: "promotions", Folder: "INBOX", ReceivedAt: &at, SPF: "pass",
			DKIM: "pass", DMARC: "fail", PromotionsDetectable: true, Commands: 9},
		{Provider: "orange", Address: "b@orange.fr", Placement: "error", Error: "login refused", ErrorKind: "auth"},
	}}
	r.Summary = summarize(r.Seeds)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, k := range []string{"domain", "subject_filter", "since", "checked_at", "source", "duration_ms", "seeds", "summary"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	s0 := m["seeds"].([]any)[0].(map[string]any)
	for _, k := range []string{"provider", "address", "placement", "folder", "received_at", "spf", "dkim", "dmarc",
		"promotions_detectable"} {
		if _, ok := s0[k]; !ok {
			t.Errorf("no seeds[0].%q in %s", k, b)
		}
	}
	if _, ok := s0["Commands"]; ok {
		t.Error("Commands is not part of the document")
	}
	sum := m["summary"].(map[string]any)
	for _, k := range []string{"inbox", "promotions", "spam", "other", "not_found", "error", "total", "inbox_rate"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("no summary.%q in %s", k, b)
		}
	}
	if r.Summary.InboxRate != 0 || r.Summary.Promotions != 1 || r.Summary.Error != 1 || r.Found() != 1 {
		t.Errorf("summary %+v", r.Summary)
	}
}

// TestCheckerWorkers: the seeds' batches fit in the caller's deadline.
func TestCheckerWorkers(t *testing.T) {
	c := &Checker{Seeds: make([]Seed, 50), SeedTimeout: 30 * time.Second}
	if w := c.workers(context.Background()); w != DefaultConcurrency {
		t.Errorf("no deadline: %d", w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if w := c.workers(ctx); w != 13 { // ceil(50*30/119.99...)
		t.Errorf("120 s for 50 seeds: %d workers", w)
	}
	c.Seeds = c.Seeds[:3]
	if w := c.workers(ctx); w != DefaultConcurrency {
		t.Errorf("3 seeds: %d", w)
	}
}
