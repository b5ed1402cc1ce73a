package placementsim

import (
	"context"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/placement"
)

// TestSim: the twin's checks read, over IMAP, the placements drawn from
// (domain, seed); the same domain lands the same way every time; the
// results say source "sim".
func TestSim(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := s.Checker()
	seen := map[string]int{}
	for _, d := range []string{"example.com", "acme.fr", "boulangerie-dupont.fr", "shop.test", "news.example.org",
		"a.fr", "b.fr", "c.fr", "d.fr", "e.fr", "f.fr", "g.fr"} {
		req := placement.Request{Domain: d, SubjectFilter: "Offre de Noël"}
		res, err := c.Check(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Source != placement.SourceSim || len(res.Seeds) != len(simSpecs) {
			t.Fatalf("%+v", res)
		}
		for i, sr := range res.Seeds {
			want := simDraw(d, s.seeds[i].Address, simSpecs[i])
			if sr.Placement != want.placement || sr.Folder != want.folder {
				t.Errorf("%s on %s: %s in %q, drawn %s in %q (%v)", d, sr.Provider, sr.Placement, sr.Folder, want.placement,
					want.folder, sr.Notes)
			}
			if sr.SPF != want.spf || sr.DKIM != want.dkim || sr.DMARC != want.dmarc {
				t.Errorf("%s on %s: auth %s/%s/%s, drawn %+v", d, sr.Provider, sr.SPF, sr.DKIM, sr.DMARC, want)
			}
			seen[sr.Provider+":"+sr.Placement]++
		}
		// A second check of the same request finds the same message,
		// delivered once.
		again, err := c.Check(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for i := range again.Seeds {
			if again.Seeds[i].Placement != res.Seeds[i].Placement || !again.Seeds[i].ReceivedAt.Equal(*res.Seeds[i].ReceivedAt) {
				t.Errorf("second check: %+v, first %+v", again.Seeds[i], res.Seeds[i])
			}
		}
	}
	for _, want := range []string{"gmail:inbox", "gmail:promotions", "outlook:inbox", "custom:spam"} {
		if seen[want] == 0 {
			t.Logf("placements seen: %v", seen)
			t.Errorf("no %s among the draws", want)
		}
	}
	// Another subject from the same domain is a new message, in the same
	// folders.
	res, err := c.Check(ctx, placement.Request{Domain: "example.com", SubjectFilter: "Autre sujet"})
	if err != nil {
		t.Fatal(err)
	}
	for i, sr := range res.Seeds {
		if sr.Placement != simDraw("example.com", s.seeds[i].Address, simSpecs[i]).placement || sr.Subject != "[sim] Autre sujet" {
			t.Errorf("%+v", sr)
		}
	}
}

// TestSimBounded: a twin mailbox past simMaxMessages starts empty again.
func TestSimBounded(t *testing.T) {
	s, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	for i := range s.accounts {
		s.accounts[i].delivered = simMaxMessages
	}
	if err := s.Deliver(context.Background(), placement.Request{Domain: "example.com", SubjectFilter: "x"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range s.accounts {
		if a.Count() != 1 {
			t.Errorf("%s holds %d messages", a.username, a.Count())
		}
	}
}

// TestSimStopsWithContext: the servers stop when the context ends.
func TestSimStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seeds := s.Seeds()
	cancel()
	c := &placement.Checker{Seeds: seeds, SeedTimeout: time.Second}
	deadline := time.Now().Add(2 * time.Second)
	for {
		res, err := c.Check(context.Background(), placement.Request{Domain: "example.com", SubjectFilter: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Error == len(seeds) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still answering: %+v", res.Summary)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
