package placement_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/placement"
	"github.com/prospectdata/svc/shared/placement/placementsim"
)

type placed struct {
	folder string
	m      msg
}

// TestCheckPlacement: the spec's placements (inbox, promotions, spam,
// other:<folder>, not_found) over loopback servers shaped like the
// providers, with the matching rules (From domain or a subdomain,
// subject contains the filter case-insensitively, since the given time,
// newest wins).
func TestCheckPlacement(t *testing.T) {
	hourAgo := testNow.Add(-time.Hour)
	tests := []struct {
		name     string
		layout   placementsim.Layout
		folders  placement.FolderMap
		messages []placed
		req      placement.Request
		// expected
		placement, folder  string
		spf, dkim, dmarc   string
		promotions         bool
		subject            string
		noteHas            string
		authservID         string
		wantReceivedAtHour int // hours before testNow, 0: not checked
	}{
		{
			name: "inbox with authentication results", layout: placementsim.Outlook,
			messages: []placed{{"INBOX", msg{from: "Shop <news@example.com>", subject: "Our November Newsletter",
				authRes: []string{placement.GmailAR}}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "november newsletter"},
			placement: "inbox", folder: "INBOX", spf: "pass", dkim: "pass", dmarc: "pass", subject: "Our November Newsletter",
			wantReceivedAtHour: 1,
		},
		{
			name: "Junk marked SPECIAL-USE is spam", layout: placementsim.Outlook,
			messages: []placed{{"Junk", msg{from: "news@example.com", subject: "Promo",
				authRes: []string{"outlook.com; spf=softfail smtp.mailfrom=example.com; dkim=none; dmarc=fail action=quarantine header.from=example.com"}}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "promo"},
			placement: "spam", folder: "Junk", spf: "softfail", dkim: "none", dmarc: "fail",
		},
		{
			name: "French spam folder found by its name (no SPECIAL-USE)", layout: placementsim.Orange,
			messages:  []placed{{"Courrier indésirable", msg{from: "news@example.com", subject: "Soldes d'hiver"}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "SOLDES"},
			placement: "spam", folder: "Courrier indésirable",
		},
		{
			name: "Gmail: primary tab is inbox", layout: placementsim.Gmail,
			messages:  []placed{{"INBOX", msg{from: "news@example.com", subject: "Hello", category: "primary"}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "inbox", folder: "INBOX", promotions: true,
		},
		{
			name: "Gmail: promotions tab through X-GM-RAW category:promotions", layout: placementsim.Gmail,
			messages: []placed{{"INBOX", msg{from: "news@example.com", subject: "Hello", category: "promotions",
				authRes: []string{placement.GmailAR}}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "promotions", folder: "INBOX", promotions: true, spf: "pass", dkim: "pass", dmarc: "pass",
		},
		{
			name: "Gmail: [Gmail]/Spam marked \\Junk", layout: placementsim.Gmail,
			messages:  []placed{{"[Gmail]/Spam", msg{from: "news@example.com", subject: "Hello"}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "spam", folder: "[Gmail]/Spam", promotions: true,
		},
		{
			name: "Gmail: All Mail is never a placement", layout: placementsim.Gmail,
			messages:  []placed{{"[Gmail]/All Mail", msg{from: "news@example.com", subject: "Hello"}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "not_found", promotions: true,
		},
		{
			name: "promotions folder", layout: placementsim.Custom,
			messages:  []placed{{"Promotions", msg{from: "news@example.com", subject: "Hello"}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "promotions", folder: "Promotions", promotions: true,
		},
		{
			name: "other folder when the mapped ones hold nothing", layout: placementsim.Custom,
			messages:  []placed{{"Trash", msg{from: "news@example.com", subject: "Hello"}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "other:Trash", folder: "Trash", promotions: true,
		},
		{
			name: "subdomain of the domain matches", layout: placementsim.Outlook,
			messages:  []placed{{"INBOX", msg{from: "news@mail.example.com", subject: "Hello"}}},
			req:       placement.Request{Domain: "Example.COM.", SubjectFilter: "hello"},
			placement: "inbox", folder: "INBOX",
		},
		{
			name: "messages from other domains are not the domain's", layout: placementsim.Outlook,
			messages: []placed{
				{"INBOX", msg{from: "news@notexample.com", subject: "Hello"}},
				{"INBOX", msg{from: "news@example.com.evil.test", subject: "Hello"}},
				{"Junk", msg{from: "\"news@example.com\" <x@other.test>", subject: "Hello"}},
			},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "not_found",
		},
		{
			name: "subject mismatch", layout: placementsim.Outlook,
			messages:  []placed{{"INBOX", msg{from: "news@example.com", subject: "Something else"}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "not_found",
		},
		{
			name: "encoded non-ASCII subject", layout: placementsim.Outlook,
			messages:  []placed{{"INBOX", msg{from: "news@example.com", subject: "=?iso-8859-1?q?Offre_d'=E9t=E9?="}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "OFFRE D'ÉTÉ"},
			placement: "inbox", folder: "INBOX", subject: "Offre d'été",
		},
		{
			name: "older than since", layout: placementsim.Outlook,
			messages:  []placed{{"INBOX", msg{from: "news@example.com", subject: "Hello", at: testNow.Add(-3 * time.Hour)}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello", Since: testNow.Add(-2 * time.Hour)},
			placement: "not_found",
		},
		{
			name: "newest wins across folders", layout: placementsim.Outlook,
			messages: []placed{
				{"INBOX", msg{from: "news@example.com", subject: "Hello", at: testNow.Add(-5 * time.Hour)}},
				{"Junk", msg{from: "news@example.com", subject: "Hello again", at: testNow.Add(-2 * time.Hour)}},
			},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "spam", folder: "Junk", subject: "Hello again", wantReceivedAtHour: 2,
		},
		{
			name: "newest wins within a folder, with its own header", layout: placementsim.Outlook,
			messages: []placed{
				{"INBOX", msg{from: "news@example.com", subject: "Hello 2", at: hourAgo,
					authRes: []string{"mx.test; spf=pass; dkim=pass; dmarc=pass"}}},
				{"INBOX", msg{from: "news@example.com", subject: "Hello 1", at: testNow.Add(-4 * time.Hour),
					authRes: []string{"mx.test; spf=fail; dkim=fail; dmarc=fail"}}},
			},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "inbox", folder: "INBOX", subject: "Hello 2", spf: "pass", dkim: "pass", dmarc: "pass",
		},
		{
			name: "topmost Authentication-Results is the receiver's", layout: placementsim.Outlook,
			messages: []placed{{"INBOX", msg{from: "news@example.com", subject: "Hello", authRes: []string{
				"mx.receiver.test; spf=fail smtp.mailfrom=example.com; dkim=fail; dmarc=fail",
				"forged.example.com; spf=pass; dkim=pass; dmarc=pass",
			}}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "inbox", folder: "INBOX", spf: "fail", dkim: "fail", dmarc: "fail", authservID: "mx.receiver.test",
		},
		{
			name: "configured folder mapping", layout: placementsim.Orange,
			folders:   placement.FolderMap{Spam: []string{"Corbeille", "Quarantine"}},
			messages:  []placed{{"Corbeille", msg{from: "news@example.com", subject: "Hello"}}},
			req:       placement.Request{Domain: "example.com", SubjectFilter: "hello"},
			placement: "spam", folder: "Corbeille", noteHas: `folder "Quarantine" (configured) is not on the server`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tw := startTestTwin(t, tc.layout)
			a, seed := testAccount(t, tw, "test", "seed@example.net")
			seed.Folders = tc.folders
			for _, p := range tc.messages {
				put(t, a, p.folder, p.m)
			}
			res, err := testChecker(seed).Check(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Seeds) != 1 {
				t.Fatalf("%d seeds", len(res.Seeds))
			}
			got := res.Seeds[0]
			if got.Placement != tc.placement || got.Folder != tc.folder {
				t.Fatalf("placement %q folder %q, want %q %q (%+v)", got.Placement, got.Folder, tc.placement, tc.folder, got)
			}
			if got.SPF != tc.spf || got.DKIM != tc.dkim || got.DMARC != tc.dmarc {
				t.Errorf("spf/dkim/dmarc %q/%q/%q, want %q/%q/%q", got.SPF, got.DKIM, got.DMARC, tc.spf, tc.dkim, tc.dmarc)
			}
			if got.PromotionsDetectable != tc.promotions {
				t.Errorf("promotions_detectable %v, want %v", got.PromotionsDetectable, tc.promotions)
			}
			if tc.subject != "" && got.Subject != tc.subject {
				t.Errorf("subject %q, want %q", got.Subject, tc.subject)
			}
			if tc.authservID != "" && got.AuthservID != tc.authservID {
				t.Errorf("authserv_id %q, want %q", got.AuthservID, tc.authservID)
			}
			if tc.noteHas != "" && !strings.Contains(strings.Join(got.Notes, "\n"), tc.noteHas) {
				t.Errorf("notes %q lack %q", got.Notes, tc.noteHas)
			}
			if tc.wantReceivedAtHour != 0 {
				want := testNow.Add(-time.Duration(tc.wantReceivedAtHour) * time.Hour)
				if got.ReceivedAt == nil || !got.ReceivedAt.Equal(want) {
					t.Errorf("received_at %v, want %v", got.ReceivedAt, want)
				}
			}
			if got.Placement == placement.PlacementNotFound && (got.ReceivedAt != nil || got.From != "") {
				t.Errorf("not_found with a message: %+v", got)
			}
			if got.Error != "" {
				t.Errorf("error %q", got.Error)
			}
		})
	}
}

// TestCheckSeedFailures: a seed that fails gives its own error line
// (auth, timeout, connect, TLS), never a failed check; the other seeds
// are checked all the same.
func TestCheckSeedFailures(t *testing.T) {
	okTwin := startTestTwin(t, placementsim.Outlook)
	okAcct, okSeed := testAccount(t, okTwin, "outlook", "good@example.net")
	put(t, okAcct, "INBOX", msg{from: "news@example.com", subject: "Hello"})

	_, wrongPw := testAccount(t, okTwin, "outlook", "wrongpw@example.net")
	wrongPw.Password = "not-the-password"

	hang := placement.Seed{Provider: "custom", Address: "hang@example.net", Host: hangingServer(t), TLS: placement.TLSPlain,
		Username: "u", Password: "p"}
	hangTLS := hang
	hangTLS.Address, hangTLS.TLS = "hangtls@example.net", placement.TLSImplicit
	refused := placement.Seed{Provider: "custom", Address: "refused@example.net", Host: closedAddr(t), TLS: placement.TLSPlain,
		Username: "u", Password: "p"}
	// Implicit TLS against a cleartext server: the handshake fails.
	tlsOnPlain := okSeed
	tlsOnPlain.Address, tlsOnPlain.TLS = "tlsonplain@example.net", placement.TLSImplicit
	// A certificate from an authority the checker does not trust.
	untrustedTwin := startTestTwin(t, placementsim.Layout{Folders: placementsim.Outlook.Folders, TLS: placement.TLSImplicit,
		TLSConfig: newTestCA(t).serverConfig()})
	_, untrusted := testAccount(t, untrustedTwin, "custom", "untrusted@example.net")
	untrusted.TLS = placement.TLSImplicit
	// STARTTLS asked of a server that does not offer it.
	_, noStartTLS := testAccount(t, okTwin, "outlook", "nostarttls@example.net")
	noStartTLS.TLS = placement.TLSStartTLS

	plainRemote := placement.Seed{Provider: "custom", Address: "remote@example.net", Host: "192.0.2.1:143", TLS: placement.TLSPlain,
		Username: "u", Password: "p"}

	c := testChecker(okSeed, wrongPw, hang, hangTLS, refused, tlsOnPlain, untrusted, noStartTLS, plainRemote)
	c.SeedTimeout = 300 * time.Millisecond
	start := time.Now()
	res, err := c.Check(context.Background(), placement.Request{Domain: "example.com", SubjectFilter: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the check took %s: the seeds' timeouts are not bounding it", d)
	}
	want := []struct{ placement, kind, msg string }{
		{"inbox", "", ""},
		{"error", placement.ErrAuth, "login refused"},
		{"error", placement.ErrTimeout, "no answer within 300ms"},
		{"error", placement.ErrTimeout, "no answer within 300ms (during TLS)"},
		{"error", placement.ErrConnect, "connect:"},
		{"error", placement.ErrTLS, "TLS:"},
		{"error", placement.ErrTLS, "certificate"},
		{"error", placement.ErrTLS, "STARTTLS: refused"},
		{"error", placement.ErrTLS, "plain IMAP is for loopback"},
	}
	for i, w := range want {
		got := res.Seeds[i]
		if got.Placement != w.placement || got.ErrorKind != w.kind || !strings.Contains(got.Error, w.msg) {
			t.Errorf("seed %d (%s): %q %q %q, want %q %q ~%q", i, got.Address, got.Placement, got.ErrorKind, got.Error,
				w.placement, w.kind, w.msg)
		}
		if strings.Contains(got.Error, "not-the-password") || strings.Contains(got.Error, "secret-") {
			t.Errorf("seed %d: the error shows a password: %q", i, got.Error)
		}
	}
	if s := res.Summary; s.Total != 9 || s.Inbox != 1 || s.Error != 8 || s.InboxRate != 1 {
		t.Errorf("summary %+v", s)
	}
}

// TestCheckTLS: implicit TLS and STARTTLS with a trusted certificate.
func TestCheckTLS(t *testing.T) {
	ca := newTestCA(t)
	for _, mode := range []placement.TLSMode{placement.TLSImplicit, placement.TLSStartTLS} {
		t.Run(string(mode), func(t *testing.T) {
			tw := startTestTwin(t, placementsim.Layout{Folders: placementsim.Outlook.Folders, SpecialUse: true, TLS: mode,
				TLSConfig: ca.serverConfig()})
			a, seed := testAccount(t, tw, "custom", "tls@example.net")
			seed.TLS = mode
			put(t, a, "Junk", msg{from: "news@example.com", subject: "Hello"})
			c := testChecker(seed)
			c.TLSConfig = &tls.Config{RootCAs: ca.pool}
			res, err := c.Check(context.Background(), placement.Request{Domain: "example.com", SubjectFilter: "hello"})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Seeds[0]; got.Placement != placement.PlacementSpam {
				t.Fatalf("%+v", got)
			}
			if mode == placement.TLSStartTLS && res.Seeds[0].Commands < 2 {
				t.Errorf("commands %d", res.Seeds[0].Commands)
			}
		})
	}
}

// TestCheckCancelled: a cancelled check gives canceled lines, at once.
func TestCheckCancelled(t *testing.T) {
	seeds := []placement.Seed{}
	for i := range 3 {
		seeds = append(seeds, placement.Seed{Provider: "custom", Address: string(rune('a'+i)) + "@example.net",
			Host: hangingServer(t), TLS: placement.TLSPlain, Username: "u", Password: "p"})
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := testChecker(seeds...)
	c.Concurrency = 1
	time.AfterFunc(100*time.Millisecond, cancel)
	res, err := c.Check(ctx, placement.Request{Domain: "example.com", SubjectFilter: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Seeds {
		if s.ErrorKind != placement.ErrCanceled {
			t.Errorf("%+v", s)
		}
	}
}

// TestCheckRequestErrors: the request is validated (422) and a checker
// without seeds is unavailable.
func TestCheckRequestErrors(t *testing.T) {
	if _, err := testChecker(placement.Seed{}).Check(context.Background(), placement.Request{Domain: "https://x.com", SubjectFilter: "a"}); !apperrIs(err, "unprocessable") {
		t.Errorf("bad domain: %v", err)
	}
	if _, err := testChecker().Check(context.Background(), placement.Request{Domain: "x.com", SubjectFilter: "a"}); !apperrIs(err, "unavailable") {
		t.Errorf("no seeds: %v", err)
	}
}

func apperrIs(err error, code string) bool { return apperr.Is(err, apperr.Code(code)) }

// capsOnlyListener advertises X-GM-EXT-1 without answering X-GM-RAW: a
// server that claims Gmail's extension and refuses the search (BAD).
type capsOnlyListener struct{ net.Listener }

func (l capsOnlyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return capsOnlyConn{c}, nil
}

type capsOnlyConn struct{ net.Conn }

var (
	capsIn  = []byte("CAPABILITY IMAP4rev1")
	capsOut = []byte("CAPABILITY IMAP4rev1 X-GM-EXT-1")
)

func (c capsOnlyConn) Write(p []byte) (int, error) {
	if _, err := c.Conn.Write(bytes.ReplaceAll(p, capsIn, capsOut)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// TestCheckGmailCategoryRefused: a server advertising X-GM-EXT-1 that
// refuses X-GM-RAW leaves the message inbox, with a note.
func TestCheckGmailCategoryRefused(t *testing.T) {
	l := placementsim.Gmail
	l.Gmail = false
	tw := startTestTwin(t, l)
	// Serve a second listener with the capability but no X-GM-RAW.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go tw.Serve(capsOnlyListener{ln})
	a, seed := testAccount(t, tw, "gmail", "seed@gmail.test")
	seed.Host = ln.Addr().String()
	put(t, a, "INBOX", msg{from: "news@example.com", subject: "Hello", category: "promotions"})
	res, err := testChecker(seed).Check(context.Background(), placement.Request{Domain: "example.com", SubjectFilter: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Seeds[0]
	if got.Placement != placement.PlacementInbox || !strings.Contains(strings.Join(got.Notes, " "), "Gmail category search failed") {
		t.Fatalf("%+v", got)
	}
}
