package verify_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/verify"
)

var loadGazetteer = sync.OnceValues(data.Load)

// The sim's mail has the checker's method sets (sim cannot import verify).
var (
	_ verify.Resolver = (*sim.Mail)(nil)
	_ verify.Dialer   = (*sim.Mail)(nil)
)

// simWorld is the simulated world of the default offline run.
func simWorld(tb testing.TB) *sim.World {
	tb.Helper()
	g, err := loadGazetteer()
	if err != nil {
		tb.Fatal(err)
	}
	return sim.New(g, sim.Options{TransientRate: -1})
}

// simChecker is a checker over the world's mail, as the app builds it.
func simChecker(w *sim.World) *verify.Checker {
	m := w.Mail()
	return verify.New(verify.Options{Resolver: m, Dialer: m, AllowPrefixes: m.Prefixes(),
		HeloName: "verify.sim.test", MailFrom: "check@verify.sim.test"})
}

var (
	mailtoRe   = regexp.MustCompile(`mailto:([^"]+)`)
	directorRe = regexp.MustCompile(`Directeur de la publication : ([^<]+)</p>`)
)

// simSite is a site of the world and what it publishes.
type simSite struct {
	host, email, director string
}

// simSites are the live sites of a few trades in central Lyon, read
// through the fixture web as the emails module reads them.
func simSites(t testing.TB, w *sim.World) []simSite {
	t.Helper()
	lyon := maptile.At(orb.Point{4.8345, 45.7640}, 13).Bound()
	client := &http.Client{Transport: w.Web()}
	get := func(u string) string {
		resp, err := client.Get(u)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return ""
		}
		return string(b)
	}
	var out []simSite
	for _, q := range []string{"restaurant", "coiffeur", "boulangerie"} {
		places, err := w.Truth(context.Background(), q, lyon)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range places {
			if p.Website == "" {
				continue
			}
			home := get(p.Website)
			if home == "" {
				continue // a dead site
			}
			s := simSite{host: strings.TrimSuffix(strings.TrimPrefix(p.Website, "https://"), "/")}
			if m := mailtoRe.FindStringSubmatch(home); m != nil {
				s.email = m[1]
			}
			if m := directorRe.FindStringSubmatch(get(p.Website + "mentions-legales")); m != nil {
				s.director = m[1]
			}
			out = append(out, s)
		}
	}
	if len(out) < 200 {
		t.Fatalf("only %d live sites", len(out))
	}
	return out
}

// TestSimMail: the addresses the sim's sites publish verify as the
// world's mail says: their own contact@ mailbox is a valid role account
// (unless the domain is a catch-all, greylists, has no mail host or the
// mailbox is full), their webmail addresses are valid, their
// director's prenom.nom@ mailbox exists, an invented mailbox does not.
func TestSimMail(t *testing.T) {
	w := simWorld(t)
	sites := simSites(t, w)
	c := simChecker(w)
	ctx := context.Background()
	verdicts := map[verify.Category]int{}
	own, gmail, directors := 0, 0, 0
	for _, s := range sites {
		if s.email == "" {
			continue
		}
		r, err := c.Verify(ctx, s.email)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(s.email, "@"+s.host) { // a webmail address (gmail.com, orange.fr…)
			gmail++
			if r.Category != verify.Deliverable {
				t.Errorf("%s: %s/%s (%s), want valid/deliverable", s.email, r.Status, r.Category, r.Reply)
			}
			continue
		}
		own++
		verdicts[r.Category]++
		invented, err := c.Verify(ctx, "jean.personne.zz@"+s.host)
		if err != nil {
			t.Fatal(err)
		}
		switch r.Category {
		case verify.Role, verify.MailboxFull:
			if invented.Category != verify.Undeliverable {
				t.Errorf("%s: an invented mailbox is %s (%s)", s.host, invented.Category, invented.Reply)
			}
			if s.director != "" {
				first, last, _ := strings.Cut(s.director, " ")
				d, _ := c.Verify(ctx, slugify(first)+"."+slugify(last)+"@"+s.host)
				directors++
				if d.Category != verify.Deliverable {
					t.Errorf("director %q at %s: %s (%s)", s.director, s.host, d.Category, d.Reply)
				}
			}
		case verify.CatchAll, verify.Greylisted, verify.NoMX, verify.SMTPError:
			if invented.Category != r.Category {
				t.Errorf("%s: published %s, invented %s", s.host, r.Category, invented.Category)
			}
		default:
			t.Errorf("%s: unexpected %s/%s (%s)", s.email, r.Status, r.Category, r.Reply)
		}
	}
	t.Logf("%d sites: %d own-domain addresses %v, %d gmail, %d directors", len(sites), own, verdicts, gmail, directors)
	share := func(c verify.Category) float64 { return float64(verdicts[c]) / float64(own) }
	if share(verify.Role) < 0.6 || share(verify.CatchAll) < 0.04 || share(verify.CatchAll) > 0.25 || gmail == 0 || directors == 0 {
		t.Errorf("shares off: %v of %d", verdicts, own)
	}

	// Names the world does not hold.
	for email, want := range map[string]verify.Category{
		"contact@nowhere.abcdef-123456-xxxx.sim.test": verify.NoMX,
		"contact@example.test":                        verify.NoMX,
		"contact@example.com":                         verify.DNSError, // outside the world: it cannot tell
	} {
		if r, _ := c.Verify(ctx, email); r.Category != want {
			t.Errorf("%s: %s (%s), want %s", email, r.Category, r.Reply, want)
		}
	}
}

// TestSimModule: the module over the twin says its source is sim, and
// two processes agree on every verdict.
func TestSimModule(t *testing.T) {
	w := simWorld(t)
	sites := simSites(t, w)[:60]
	m1 := enrich.VerifyModule(simChecker(w), "sim")
	m2 := enrich.VerifyModule(simChecker(simWorld(t)), "sim")
	if enrich.SourceOf(m1) != "sim" {
		t.Errorf("source %q", enrich.SourceOf(m1))
	}
	for _, s := range sites {
		in := enrich.Input{"email": s.email}
		r1, err1 := m1.Run(context.Background(), &enrich.Env{}, in)
		r2, err2 := m2.Run(context.Background(), &enrich.Env{}, in)
		if err1 != nil || err2 != nil || fmt.Sprint(r1.Values) != fmt.Sprint(r2.Values) {
			t.Errorf("%s: %v %v / %v %v", s.email, r1.Values, err1, r2.Values, err2)
		}
	}
}

// slugify is the sim's slug of a name part: folded as the gazetteer
// folds names, words joined by hyphens.
func slugify(s string) string {
	return strings.ReplaceAll(gazetteer.Normalize(s), " ", "-")
}

// BenchmarkVerifySim: the module's rows per second over the sim twin (the
// default offline run), one job a iteration: the published addresses of
// central Lyon's sites and an invented one at each site, 32 at once.
func BenchmarkVerifySim(b *testing.B) {
	w := simWorld(b)
	var rows []string
	for _, s := range simSites(b, w) {
		if s.email != "" {
			rows = append(rows, s.email)
		}
		rows = append(rows, "jean.personne.zz@"+s.host)
	}
	for b.Loop() {
		c := simChecker(w)
		work := make(chan string)
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				for r := range work {
					if _, err := c.Verify(context.Background(), r); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for _, r := range rows {
			work <- r
		}
		close(work)
		wg.Wait()
	}
	b.ReportMetric(float64(b.N*len(rows))/b.Elapsed().Seconds(), "rows/s")
}
