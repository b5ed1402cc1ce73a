package verify

import (
	"context"
	"errors"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestVerify is the verdict table over the loopback lab: every outcome of
// DNS and SMTP the issue lists, each on a fresh checker (no cache shared
// between rows).
func TestVerify(t *testing.T) {
	l := newLab(t)
	tests := []struct {
		email    string
		status   Status
		category Category
		// dialled says whether an SMTP connection may be attempted.
		dialled bool
	}{
		{"alice@known.test", Valid, Deliverable, true},
		{"contact@known.test", Valid, Role, true},
		{"Bob.Martin@KNOWN.TEST", Valid, Deliverable, true},
		{"mailto:alice@known.test", Valid, Deliverable, true},
		{"nobody@known.test", Invalid, Undeliverable, true},
		{"anyone@catchall.test", Risky, CatchAll, true},
		{"contact@catchall.test", Risky, CatchAll, true},
		{"x@reject.test", Invalid, Undeliverable, true},
		{"x@grey.test", Unknown, Greylisted, true},
		{"x@full.test", Risky, MailboxFull, true},
		{"x@full4.test", Risky, MailboxFull, true},
		{"x@policy.test", Unknown, Blocked, true},
		{"x@sender.test", Unknown, Blocked, true},
		{"x@greymail.test", Unknown, Greylisted, true},
		{"x@hang.test", Unknown, Timeout, true},
		{"x@hangrcpt.test", Unknown, Timeout, true},
		{"x@close.test", Unknown, SMTPError, true},
		{"x@closegreet.test", Unknown, SMTPError, true},
		{"x@garbage.test", Unknown, SMTPError, true},
		{"x@banner.test", Unknown, Blocked, true},
		{"x@busy.test", Unknown, Greylisted, true},
		{"alice@helo.test", Valid, Deliverable, true},
		{"alice@nomx.test", Valid, Deliverable, true},   // implicit MX: the A record
		{"alice@backup.test", Valid, Deliverable, true}, // first MX refuses, second answers
		{"x@mailinator.com", Risky, Disposable, false},  // listed: no probe
		{"x@nomail.test", Invalid, NoMX, false},         // no MX, no address
		{"x@nxdomain.test", Invalid, NoMX, false},       // no such domain
		{"x@nullmx.test", Invalid, NoMX, false},         // RFC 7505
		{"x@private.test", Invalid, NoMX, false},        // MX at 10.1.2.3: never dialled
		{"x@linklocal.test", Invalid, NoMX, false},      // MX at fe80::1
		{"x@dangling.test", Invalid, NoMX, false},       // MX host without address
		{"x@servfail.test", Unknown, DNSError, false},   // SERVFAIL on the MX lookup
		{"x@hostfail.test", Unknown, DNSError, false},   // SERVFAIL on the MX host
		{"not an address", Invalid, Syntax, false},
		{"a@b", Invalid, Syntax, false},
		{"alice@@known.test", Invalid, Syntax, false},
	}
	for _, tt := range tests {
		t.Run(tt.email, func(t *testing.T) {
			t.Parallel()
			c, d := l.checker(Options{})
			r, err := c.Verify(context.Background(), tt.email)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			t.Logf("%s/%s mx=%q reply=%q", r.Status, r.Category, r.MX, r.Reply)
			if r.Status != tt.status || r.Category != tt.category {
				t.Errorf("Verify(%q) = %s/%s (%s), want %s/%s", tt.email, r.Status, r.Category, r.Reply, tt.status, tt.category)
			}
			if r.Status != r.Category.Status() {
				t.Errorf("status %s does not match category %s", r.Status, r.Category)
			}
			if !tt.dialled && len(d.dials()) > 0 {
				t.Errorf("dialled %v, want no connection", d.dials())
			}
		})
	}
	t.Cleanup(func() { assertNoData(t, l) })
}

// assertNoData: no server ever received DATA (or BDAT): nothing is sent.
func assertNoData(t *testing.T, l *lab) {
	t.Helper()
	for _, cmd := range l.allCommands() {
		if v := strings.ToUpper(strings.Fields(cmd + " x")[0]); v == "DATA" || v == "BDAT" {
			t.Errorf("a server received %q: the probe must never send a message", cmd)
		}
	}
}

// TestDialogue pins the commands of a probe: EHLO with the configured
// name, MAIL FROM the configured sender, RCPT TO the address, then the
// catch-all probe in a transaction of its own, and QUIT; never DATA.
func TestDialogue(t *testing.T) {
	l := newLab(t)
	c, _ := l.checker(Options{HeloName: "probe.example.net", MailFrom: "bounce@example.net"})
	if r, _ := c.Verify(context.Background(), "alice@known.test"); r.Category != Deliverable || r.MX != "mx.known.test" {
		t.Fatalf("got %+v", r)
	}
	got := l.servers["known.test"].commands()
	random := regexp.MustCompile(`^RCPT TO:<[a-z]{20}@known\.test>$`)
	want := []string{"EHLO probe.example.net", "MAIL FROM:<bounce@example.net>", "RCPT TO:<alice@known.test>",
		"RSET", "EHLO probe.example.net", "MAIL FROM:<bounce@example.net>", "(random)", "QUIT"}
	if len(got) != len(want) {
		t.Fatalf("commands %q, want %q", got, want)
	}
	for i := range want {
		if want[i] == "(random)" && random.MatchString(got[i]) {
			continue
		}
		if got[i] != want[i] {
			t.Errorf("command %d = %q, want %q", i, got[i], want[i])
		}
	}

	// A null reverse-path by default, HELO after a refused EHLO.
	c, _ = l.checker(Options{MailFrom: ""})
	c.opt.MailFrom = ""
	c.Verify(context.Background(), "alice@helo.test")
	got = l.servers["helo.test"].commands()
	if len(got) < 3 || got[0] != "EHLO verifier.example.org" || got[1] != "HELO verifier.example.org" || got[2] != "MAIL FROM:<>" {
		t.Errorf("helo.test commands %q", got)
	}

	// A refused mailbox: no catch-all probe, and the domain is then
	// known as no catch-all.
	c, _ = l.checker(Options{})
	before := len(l.servers["reject.test"].recipients())
	c.Verify(context.Background(), "x@reject.test")
	if rc := l.servers["reject.test"].recipients()[before:]; len(rc) != 1 {
		t.Errorf("reject.test got recipients %q, want the address alone", rc)
	}
	assertNoData(t, l)
}

// TestCatchAllOncePerDomain: the catch-all probe and the MX lookup happen
// once per domain and process, however many rows, concurrent ones
// included; a catch-all domain then costs no connection per row.
func TestCatchAllOncePerDomain(t *testing.T) {
	l := newLab(t)
	c, _ := l.checker(Options{})
	var wg sync.WaitGroup
	results := make([]Result, 12)
	for i := range results {
		wg.Go(func() {
			email := []string{"a", "b", "c"}[i%3] + "@catchall.test"
			if i%2 == 1 {
				email = []string{"alice", "contact", "nobody"}[i%3] + "@known.test"
			}
			results[i], _ = c.Verify(context.Background(), email)
		})
	}
	wg.Wait()
	for i, r := range results {
		want := CatchAll
		if i%2 == 1 {
			want = []Category{Deliverable, Role, Undeliverable}[i%3]
		}
		if r.Category != want {
			t.Errorf("row %d %s: %s (%s), want %s", i, r.Email, r.Category, r.Reply, want)
		}
	}
	if n := l.servers["catchall.test"].connections(); n != 1 {
		t.Errorf("catchall.test: %d connections for 6 rows, want 1", n)
	}
	probes := 0
	for _, rc := range l.servers["known.test"].recipients() {
		if !strings.HasPrefix(rc, "alice@") && !strings.HasPrefix(rc, "contact@") && !strings.HasPrefix(rc, "nobody@") {
			probes++
		}
	}
	if probes > 1 {
		t.Errorf("known.test: %d catch-all probes, want at most 1", probes)
	}
	if n := l.dns.count("known.test", "MX"); n != 1 {
		t.Errorf("known.test: %d MX queries, want 1", n)
	}
	if n := l.dns.count("mx.known.test", "A"); n != 1 {
		t.Errorf("mx.known.test: %d A queries, want 1", n)
	}

	// Without the cache, every row looks up and probes again.
	nc, _ := l.checker(Options{CacheSize: -1})
	before := l.servers["catchall.test"].connections()
	for range 3 {
		if r, _ := nc.Verify(context.Background(), "a@catchall.test"); r.Category != CatchAll {
			t.Errorf("no cache: %s", r.Category)
		}
	}
	if n := l.servers["catchall.test"].connections() - before; n != 3 {
		t.Errorf("no cache: %d connections for 3 rows, want 3", n)
	}
}

// TestFailureRemembered: a mail host that timed out is not asked again
// for the domain's next rows within FailTTL; they get the same verdict.
func TestFailureRemembered(t *testing.T) {
	l := newLab(t)
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c, _ := l.checker(Options{CommandTimeout: 200 * time.Millisecond, Now: clock, FailTTL: time.Minute})
	for _, e := range []string{"a@hang.test", "b@hang.test"} {
		if r, _ := c.Verify(context.Background(), e); r.Category != Timeout {
			t.Fatalf("%s: %s", e, r.Category)
		}
	}
	if n := l.servers["hang.test"].connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	c.Verify(context.Background(), "c@hang.test")
	if n := l.servers["hang.test"].connections(); n != 2 {
		t.Errorf("after FailTTL: %d connections, want 2", n)
	}
	// Greylisting of one recipient is not the domain's failure: each row
	// asks for its own.
	for _, e := range []string{"a@grey.test", "b@grey.test"} {
		c.Verify(context.Background(), e)
	}
	if n := l.servers["grey.test"].connections(); n != 2 {
		t.Errorf("grey.test: %d connections, want 2", n)
	}
}

// TestPerHostLimit: at most MaxPerHost connections to one mail host at
// once.
func TestPerHostLimit(t *testing.T) {
	l := newLab(t)
	c, _ := l.checker(Options{MaxPerHost: 2})
	var wg sync.WaitGroup
	for _, local := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		wg.Go(func() {
			if r, _ := c.Verify(context.Background(), local+"@slow.test"); r.Category != Deliverable {
				t.Errorf("%s: %s (%s)", local, r.Category, r.Reply)
			}
		})
	}
	wg.Wait()
	s := l.servers["slow.test"]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maxActive > 2 {
		t.Errorf("%d connections at once, want at most 2", s.maxActive)
	}
	if s.conns != 8 {
		t.Errorf("%d connections, want 8", s.conns)
	}
}

// TestNonPublicMXNotDialled: without the test-only AllowPrefixes, an MX
// at a loopback address is never dialled.
func TestNonPublicMXNotDialled(t *testing.T) {
	l := newLab(t)
	c, d := l.checker(Options{AllowPrefixes: []netip.Prefix{}})
	r, err := c.Verify(context.Background(), "alice@known.test")
	if err != nil || r.Status != Invalid || r.Category != NoMX || !strings.Contains(r.Reply, "non-public") {
		t.Errorf("got %+v, %v; want invalid/no_mx", r, err)
	}
	if len(d.dials()) != 0 || l.servers["known.test"].connections() != 0 {
		t.Errorf("dialled %v", d.dials())
	}
}

// TestSkipSMTP: with the probe off, verdicts come from syntax and DNS; a
// deliverable-looking address is unknown/not_probed, and nothing is
// dialled.
func TestSkipSMTP(t *testing.T) {
	l := newLab(t)
	c, d := l.checker(Options{SkipSMTP: true})
	tests := []struct {
		email string
		want  Category
	}{
		{"alice@known.test", NotProbed},
		{"nobody@known.test", NotProbed},
		{"x@catchall.test", NotProbed},
		{"alice@nomx.test", NotProbed},
		{"x@nxdomain.test", NoMX},
		{"x@nullmx.test", NoMX},
		{"x@private.test", NoMX},
		{"x@dangling.test", NoMX},
		{"x@servfail.test", DNSError},
		{"x@mailinator.com", Disposable},
		{"bad", Syntax},
	}
	for _, tt := range tests {
		r, err := c.Verify(context.Background(), tt.email)
		if err != nil || r.Category != tt.want {
			t.Errorf("%s: %s (%s), %v; want %s", tt.email, r.Category, r.Reply, err, tt.want)
		}
	}
	if len(d.dials()) != 0 {
		t.Errorf("dialled %v with the probe off", d.dials())
	}
	if c.Probing() {
		t.Error("Probing() with SkipSMTP")
	}
}

// TestContextEnds: a cancelled job's context is Verify's error, not a
// verdict; the checker's own budget running out is unknown/timeout.
func TestContextEnds(t *testing.T) {
	l := newLab(t)
	c, _ := l.checker(Options{CommandTimeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Verify(ctx, "x@hang.test")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("returned after %s: the context must end the dialogue", d)
	}

	c, _ = l.checker(Options{CommandTimeout: 5 * time.Second, Budget: 150 * time.Millisecond})
	r, err := c.Verify(context.Background(), "x@hangrcpt.test")
	if err != nil || r.Category != Timeout {
		t.Errorf("budget: %+v, %v; want unknown/timeout", r, err)
	}
}

// TestStats counts the upstream calls.
func TestStats(t *testing.T) {
	l := newLab(t)
	c, _ := l.checker(Options{})
	c.Verify(context.Background(), "alice@known.test")
	c.Verify(context.Background(), "bob.martin@known.test")
	s := c.Stats()
	if s.DNSLookups != 2 || s.SMTPDials != 2 {
		t.Errorf("stats %+v, want 2 lookups (MX, A) and 2 dials", s)
	}
}

func TestCategoriesHaveOneStatus(t *testing.T) {
	seen := map[Category]bool{}
	for _, c := range Categories {
		if seen[c] {
			t.Errorf("%s listed twice", c)
		}
		seen[c] = true
		if !slices.Contains([]Status{Valid, Invalid, Risky, Unknown}, c.Status()) {
			t.Errorf("%s: status %q", c, c.Status())
		}
	}
	if len(Categories) != 14 {
		t.Errorf("%d categories; docs/verify.md lists 14", len(Categories))
	}
}
