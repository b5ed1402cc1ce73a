package placementsim

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/placement"
)

// Sim is delivery_check's offline twin: in-process IMAP servers on
// loopback holding four seed mailboxes shaped like Gmail (X-GM-EXT-1,
// the Promotions tab inside INBOX, [Gmail]/Spam marked \Junk), Outlook
// (Junk marked \Junk), Orange (no SPECIAL-USE: "Courrier indésirable"
// by its name) and a self-hosted server with a Promotions folder.
// Before each check of its Checker, every mailbox receives a message
// from the domain (unless one for the same domain and subject arrived
// in the last hour) in a folder drawn from a hash of (domain, seed
// address), with an Authentication-Results header drawn the same way;
// the check then reads it over IMAP like any seed. Results say source
// "sim": nothing here is a real placement.
type Sim struct {
	seeds    []placement.Seed
	servers  []*Server
	accounts []*Account
	now      func() time.Time

	mu   sync.Mutex
	sent map[string]time.Time
	stop func() bool
}

// simSeedSpec is one of the twin's mailboxes.
type simSeedSpec struct {
	provider string
	layout   Layout
	// placement shares when authentication passes: inbox, promotions,
	// the rest spam.
	inbox, promotions float64
	inboxF, promoF    string // folders (promoF "" when promotions is Gmail's category)
	spamF             string
}

var simSpecs = []simSeedSpec{
	{provider: "gmail", layout: Gmail, inbox: 0.55, promotions: 0.30, inboxF: "INBOX", spamF: "[Gmail]/Spam"},
	{provider: "outlook", layout: Outlook, inbox: 0.82, inboxF: "INBOX", spamF: "Junk"},
	{provider: "orange", layout: Orange, inbox: 0.80, inboxF: "INBOX", spamF: "Courrier indésirable"},
	{provider: "custom", layout: Custom, inbox: 0.60, promotions: 0.25, inboxF: "INBOX", promoF: "Promotions",
		spamF: "Spam"},
}

// simMaxMessages bounds a twin mailbox: past it, the mailbox is emptied
// before the next delivery.
const simMaxMessages = 2000

// simRedeliverAfter is how long a (domain, subject) delivery serves the
// checks that follow it.
const simRedeliverAfter = time.Hour

// New starts the twin's servers; they stop at Close or when ctx ends.
func New(ctx context.Context) (*Sim, error) {
	s := &Sim{now: time.Now, sent: map[string]time.Time{}}
	for _, spec := range simSpecs {
		t, err := Start(spec.layout)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("start the %s twin: %w", spec.provider, err)
		}
		s.servers = append(s.servers, t)
		addr := "delivery-seed@" + spec.provider + ".sim.test"
		pw := randomHex(12)
		a, err := t.AddAccount(addr, pw)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.accounts = append(s.accounts, a)
		s.seeds = append(s.seeds, placement.Seed{Provider: spec.provider, Address: addr, Host: t.Addr(), TLS: placement.TLSPlain,
			Username: addr, Password: pw})
	}
	s.stop = context.AfterFunc(ctx, func() { s.Close() })
	return s, nil
}

// Seeds are the twin's mailboxes, as a Checker takes them.
func (s *Sim) Seeds() []placement.Seed { return append([]placement.Seed(nil), s.seeds...) }

// Checker is a placement.Checker over the twin's mailboxes: it delivers
// before each check and labels its results "sim".
func (s *Sim) Checker() *placement.Checker {
	return &placement.Checker{Seeds: s.Seeds(), Source: placement.SourceSim, Prepare: s.Deliver, SeedTimeout: 10 * time.Second}
}

// Close stops the servers.
func (s *Sim) Close() error {
	if s.stop != nil {
		s.stop()
	}
	var errs []error
	for _, t := range s.servers {
		errs = append(errs, t.Close())
	}
	s.servers = nil
	return errors.Join(errs...)
}

// Deliver puts the request's message in every twin mailbox, in the
// folder its draw says, unless the same domain and subject were
// delivered within the last hour.
func (s *Sim) Deliver(_ context.Context, req placement.Request) error {
	req, err := placement.NormalizeRequest(req)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	key := req.Domain + "\x00" + strings.ToLower(req.SubjectFilter)
	if at, ok := s.sent[key]; ok && now.Sub(at) < simRedeliverAfter {
		return nil
	}
	if len(s.sent) > simMaxMessages {
		clear(s.sent)
	}
	for i, spec := range simSpecs {
		a := s.accounts[i]
		if a.Count() >= simMaxMessages {
			if err := a.Reset(spec.layout); err != nil {
				return err
			}
		}
		d := simDraw(req.Domain, s.seeds[i].Address, spec)
		msg := simMessage(req, s.seeds[i], spec, d, now)
		if err := a.Deliver(d.folder, msg, now); err != nil {
			return fmt.Errorf("sim delivery to %s: %w", s.seeds[i].Address, err)
		}
	}
	s.sent[key] = now
	return nil
}

// simOutcome is a drawn delivery.
type simOutcome struct {
	placement        string
	folder           string
	category         string // Gmail: promotions or primary
	spf, dkim, dmarc string
}

// simDraw draws a delivery from a hash of (domain, address): the same
// domain lands in the same folders in every process.
func simDraw(domain, address string, spec simSeedSpec) simOutcome {
	h := sha256.Sum256([]byte("delivery-sim\x00" + domain + "\x00" + strings.ToLower(address)))
	u := func(i int) float64 { return float64(binary.BigEndian.Uint64(h[i*8:])>>11) / (1 << 53) }
	var o simOutcome
	switch x := u(0); {
	case x < 0.88:
		o.spf = "pass"
	case x < 0.93:
		o.spf = "softfail"
	case x < 0.96:
		o.spf = "fail"
	default:
		o.spf = "none"
	}
	switch x := u(1); {
	case x < 0.85:
		o.dkim = "pass"
	case x < 0.95:
		o.dkim = "none"
	default:
		o.dkim = "fail"
	}
	o.dmarc = "fail"
	if o.spf == "pass" || o.dkim == "pass" {
		o.dmarc = "pass"
	}
	x := u(2)
	if o.dmarc == "fail" {
		// Unauthenticated mail mostly goes to spam.
		x = 0.3 + 0.7*x
	}
	o.placement, o.folder, o.category = placement.PlacementSpam, spec.spamF, ""
	switch {
	case x < spec.inbox:
		o.placement, o.folder = placement.PlacementInbox, spec.inboxF
	case x < spec.inbox+spec.promotions:
		o.placement, o.folder = placement.PlacementPromotions, spec.promoF
		if spec.promoF == "" {
			o.folder, o.category = spec.inboxF, "promotions"
		}
	}
	if spec.layout.Gmail && o.category == "" && o.folder == spec.inboxF {
		o.category = "primary"
	}
	return o
}

// simMessage is the drawn message as the seed's provider would store it.
func simMessage(req placement.Request, seed placement.Seed, spec simSeedSpec, d simOutcome, at time.Time) []byte {
	var b strings.Builder
	authserv := "mx." + spec.provider + ".sim.test"
	fmt.Fprintf(&b, "Return-Path: <bounce@%s>\r\n", req.Domain)
	fmt.Fprintf(&b, "Authentication-Results: %s;\r\n\tdkim=%s header.d=%s header.s=sim;\r\n\tspf=%s (%s: simulated) smtp.mailfrom=bounce@%s;\r\n\tdmarc=%s header.from=%s\r\n",
		authserv, d.dkim, req.Domain, d.spf, authserv, req.Domain, d.dmarc, req.Domain)
	fmt.Fprintf(&b, "Received: from mail.%s by %s; %s\r\n", req.Domain, authserv, at.Format(time.RFC1123Z))
	fmt.Fprintf(&b, "From: \"Test\" <test@%s>\r\n", req.Domain)
	fmt.Fprintf(&b, "To: <%s>\r\n", seed.Address)
	subject := "[sim] " + req.SubjectFilter
	for i := 0; i < len(subject); i++ {
		if subject[i] >= utf8.RuneSelf {
			subject = mime.QEncoding.Encode("utf-8", subject)
			break
		}
	}
	fmt.Fprintf(&b, "Subject: %s\r\n", subject)
	fmt.Fprintf(&b, "Date: %s\r\n", at.Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <sim-%s@%s>\r\n", randomHex(8), req.Domain)
	if d.category != "" {
		fmt.Fprintf(&b, "%s: %s\r\n", CategoryHeader, d.category)
	}
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	b.WriteString("Simulated delivery test message (delivery_check sim twin).\r\n")
	return []byte(b.String())
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
