package placement_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/placement"
	"github.com/prospectdata/svc/shared/placement/placementsim"
)

// BenchmarkCheck: checks per second of one placement.Checker against 5 seed
// mailboxes on loopback twins (Gmail-like, Outlook-like, Orange-like, a
// self-hosted server with a Promotions folder, a second Outlook-like),
// each holding 10 messages from the checked domain with other subjects
// around the one looked for, and none or 500 from other domains (the
// in-memory server's SEARCH reads every message: with 500 it dominates
// the figure), and the IMAP
// commands sent per seed. One iteration is one whole check (5 sessions,
// 4 at a time: connect, LOGIN, LIST, the folders, LOGOUT). Cleartext and
// implicit TLS (a new handshake per session, as in production).
// docs/delivery.md has the figures.
func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct {
		mode  placement.TLSMode
		noise int
	}{{placement.TLSPlain, 0}, {placement.TLSPlain, 500}, {placement.TLSImplicit, 500}} {
		mode := bc.mode
		b.Run(fmt.Sprintf("%s/noise=%d", mode, bc.noise), func(b *testing.B) {
			ca := newTestCA(b)
			layouts := []placementsim.Layout{placementsim.Gmail, placementsim.Outlook, placementsim.Orange, placementsim.Custom, placementsim.Outlook}
			placements := []string{"INBOX", "Junk", "INBOX", "Promotions", "INBOX"}
			var seeds []placement.Seed
			base := testNow.Add(-20 * time.Hour)
			for i, l := range layouts {
				if mode == placement.TLSImplicit {
					l.TLS, l.TLSConfig = placement.TLSImplicit, ca.serverConfig()
				}
				tw := startTestTwin(b, l)
				a, seed := testAccount(b, tw, fmt.Sprintf("p%d", i), fmt.Sprintf("seed%d@bench.test", i))
				seed.TLS = mode
				for j := range bc.noise {
					put(b, a, "INBOX", msg{from: fmt.Sprintf("n@other%d.test", j%40), subject: "Hello there",
						at: base.Add(time.Duration(j) * time.Minute)})
				}
				for j := range 10 {
					put(b, a, "INBOX", msg{from: "news@example.com", subject: fmt.Sprintf("Weekly digest %d", j),
						at: base.Add(time.Duration(j) * time.Hour)})
				}
				put(b, a, placements[i], msg{from: "news@mail.example.com", subject: "Bench newsletter", authRes: []string{placement.GmailAR},
					category: "promotions"})
				seeds = append(seeds, seed)
			}
			c := testChecker(seeds...)
			c.TLSConfig = &tls.Config{RootCAs: ca.pool}
			ctx := context.Background()
			req := placement.Request{Domain: "example.com", SubjectFilter: "newsletter"}
			commands := 0
			b.ResetTimer()
			for b.Loop() {
				res, err := c.Check(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if res.Summary.Error != 0 || res.Summary.NotFound != 0 {
					b.Fatalf("%+v %+v", res.Summary, res.Seeds)
				}
				for _, s := range res.Seeds {
					commands += s.Commands
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
			b.ReportMetric(float64(commands)/float64(b.N*len(seeds)), "commands/seed")
		})
	}
}
