package verify

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// catchAll is what the checker knows of a domain's catch-all behaviour.
type catchAll int

const (
	catchUnknown catchAll = iota
	catchYes              // it accepted a random mailbox
	catchNo               // it refused a random mailbox, or a real one
)

// domainState is shared by a domain's rows: its catch-all answer, probed
// once (the first row to need it probes, the others wait for it), and a
// recent failure of its mail hosts, repeated to the rows that follow for
// FailTTL instead of a new connection each.
type domainState struct {
	mu         sync.Mutex
	catch      catchAll
	catchMX    string
	catchReply string
	probing    chan struct{} // open while a row runs the catch-all probe
	down       Result
	downUntil  time.Time
}

// enter says what a row does at the domain: known is a verdict every row
// of the domain gets now (catch-all, a recent failure); otherwise the row
// talks to the server itself, with the catch-all probe when probe is set
// (it must then call leave).
func (s *domainState) enter(ctx context.Context, now func() time.Time) (known *Result, probe bool, err error) {
	for {
		s.mu.Lock()
		if now().Before(s.downUntil) {
			r := s.down
			s.mu.Unlock()
			return &r, false, nil
		}
		switch s.catch {
		case catchYes:
			r := verdict("", CatchAll, s.catchReply)
			r.MX = s.catchMX
			s.mu.Unlock()
			return &r, false, nil
		case catchNo:
			s.mu.Unlock()
			return nil, false, nil
		}
		if s.probing == nil {
			s.probing = make(chan struct{})
			s.mu.Unlock()
			return nil, true, nil
		}
		wait := s.probing
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// leave records what a row's dialogue taught of the domain.
func (s *domainState) leave(o outcome, probed bool, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.catch != catchUnknown && s.catch == catchUnknown {
		s.catch = o.catch
		s.catchMX, s.catchReply = o.mx, o.reply
	}
	if o.domainWide && !until.IsZero() {
		s.down = verdict("", o.cat, o.reply)
		s.down.MX = o.mx
		s.downUntil = until
	}
	if probed {
		close(s.probing)
		s.probing = nil
	}
}

// outcome is the end of one address's SMTP probe.
type outcome struct {
	cat   Category
	reply string
	mx    string // the host that answered
	catch catchAll
	// domainWide: the failure is the server's (or the route's), not the
	// mailbox's: the domain's next rows would meet it too.
	domainWide bool
	// nextHost: the host could not be talked to; the next MX may.
	nextHost bool
}

func (o outcome) result() Result {
	r := verdict("", o.cat, o.reply)
	r.MX = o.mx
	return r
}

// probe is the SMTP part of a verification.
func (c *Checker) probe(ctx context.Context, a address, dom *mailDomain) (Result, error) {
	st := dom.state
	known, probeCatchAll, err := st.enter(ctx, c.opt.Now)
	if err != nil {
		return Result{}, err
	}
	if known != nil {
		return *known, nil
	}
	var o outcome // what the dialogue taught; nothing when it was cut short
	defer func() {
		// Deferred, so that the rows waiting for this one's catch-all
		// probe are released whatever happens.
		var until time.Time
		if c.opt.FailTTL > 0 && c.domains != nil {
			until = c.opt.Now().Add(c.opt.FailTTL)
		}
		st.leave(o, probeCatchAll, until)
	}()
	res, err := c.converse(ctx, a, dom, probeCatchAll)
	if err != nil {
		return Result{}, err
	}
	o = res
	return o.result(), nil
}

// converse tries the domain's mail hosts in MX order, at most MaxHosts
// that have a usable address, until one holds the dialogue.
func (c *Checker) converse(ctx context.Context, a address, dom *mailDomain, probeCatchAll bool) (outcome, error) {
	var last outcome
	var dnsFail, noAddr *hostAddrs
	tried := 0
	for _, host := range dom.hosts {
		if tried >= c.opt.MaxHosts {
			break
		}
		h, err := c.hostAddrs(ctx, host)
		if err != nil {
			return outcome{}, err
		}
		switch {
		case h.fail == DNSError:
			dnsFail = &h
			continue
		case len(h.addrs) == 0:
			noAddr = &h
			continue
		}
		tried++
		release, err := c.limits.acquire(ctx, host)
		if err != nil {
			return outcome{}, err
		}
		o, err := c.connect(ctx, strings.TrimSuffix(host, "."), h.addrs, a, probeCatchAll)
		release()
		if err != nil {
			return outcome{}, err
		}
		if !o.nextHost {
			return o, nil
		}
		last = o
	}
	switch {
	case tried > 0:
		return last, nil
	case dnsFail != nil:
		return outcome{cat: DNSError, reply: dnsFail.reply}, nil
	case noAddr != nil:
		return outcome{cat: NoMX, reply: noAddr.reply, domainWide: true}, nil
	}
	return outcome{cat: NoMX, reply: "no mail host", domainWide: true}, nil
}

// maxAddrs bounds the addresses of one host dialled for one address.
const maxAddrs = 2

// connect dials a host's addresses in turn and holds the dialogue with
// the first that answers.
func (c *Checker) connect(ctx context.Context, host string, addrs []netip.Addr, a address, probeCatchAll bool) (outcome, error) {
	var lastErr error
	for i, ip := range addrs {
		if i >= maxAddrs {
			break
		}
		c.smtpDials.Add(1)
		dctx, cancel := context.WithTimeout(ctx, c.opt.ConnectTimeout)
		conn, err := c.dialer.DialContext(dctx, "tcp", net.JoinHostPort(ip.String(), c.opt.Port))
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return outcome{}, ctx.Err()
			}
			lastErr = err
			continue
		}
		o := c.dialogue(ctx, conn, host, a, probeCatchAll)
		if err := ctx.Err(); err != nil {
			return outcome{}, err
		}
		return o, nil
	}
	return outcome{cat: failCategory(lastErr), reply: "connect: " + lastErr.Error(), mx: host, domainWide: true, nextHost: true}, nil
}

// dialogue is the SMTP conversation: EHLO (HELO when the server does not
// know EHLO), MAIL FROM, RCPT TO the address; when asked, the catch-all
// probe in a transaction of its own (RSET, MAIL FROM, RCPT TO a random
// mailbox of the domain); then QUIT. Never DATA: nothing is sent.
func (c *Checker) dialogue(ctx context.Context, conn net.Conn, host string, a address, probeCatchAll bool) outcome {
	// The context ends the dialogue at once, whatever command waits.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	cl := smtp.NewClient(conn)
	defer cl.Close()
	cl.CommandTimeout = c.opt.CommandTimeout
	fail := func(stage string, err error, next bool) outcome {
		return outcome{cat: failCategory(err), reply: stage + ": " + replyOf(err), mx: host, domainWide: true, nextHost: next}
	}
	if err := cl.Hello(c.opt.HeloName); err != nil {
		// Nothing was said of the mailbox: another MX may answer, unless
		// this one refused us outright (5xx).
		return fail("greeting", err, failCategory(err) != Blocked)
	}
	// No STARTTLS: a public mail host must not require it to take mail
	// for its own domains (RFC 3207 §4), and nothing secret is sent.
	if err := cl.Mail(c.opt.MailFrom, nil); err != nil {
		return fail("MAIL FROM", err, false)
	}
	o := outcome{mx: host}
	err := cl.Rcpt(a.String(), nil)
	var se *smtp.SMTPError
	switch {
	case errors.As(err, &se):
		o.cat, o.reply = rcptCategory(se), "RCPT TO: "+replyOf(se)
		switch o.cat {
		case Undeliverable:
			o.catch = catchNo // a refused mailbox: the domain is no catch-all
		case Blocked:
			o.domainWide = true // the probe is refused, whatever the mailbox
		}
	case err != nil:
		return fail("RCPT TO", err, false)
	default:
		o.cat, o.reply = Deliverable, "RCPT TO: 250 accepted"
		if IsRole(a.local) {
			o.cat = Role
		}
		if probeCatchAll {
			o = c.catchAllProbe(cl, a, o)
		}
	}
	cl.CommandTimeout = min(2*time.Second, c.opt.CommandTimeout)
	_ = cl.Quit()
	return o
}

// catchAllProbe asks for a random mailbox of the domain, after the
// address was accepted: accepted too, the domain is a catch-all. It runs
// in a new transaction, for servers that take one recipient per
// transaction from a null reverse-path.
func (c *Checker) catchAllProbe(cl *smtp.Client, a address, accepted outcome) outcome {
	o := accepted
	if err := cl.Reset(); err != nil {
		return outcomeOf(o.mx, "RSET", err)
	}
	if err := cl.Mail(c.opt.MailFrom, nil); err != nil {
		return outcomeOf(o.mx, "MAIL FROM (catch-all probe)", err)
	}
	random := randomLocal() + "@" + a.domain
	err := cl.Rcpt(random, nil)
	var se *smtp.SMTPError
	switch {
	case err == nil:
		o.cat, o.catch = CatchAll, catchYes
		o.reply = "RCPT TO: 250 accepted, and so was the random mailbox " + random
	case errors.As(err, &se) && se.Code >= 500 && se.Code < 600:
		o.catch = catchNo
	default:
		return outcomeOf(o.mx, "RCPT TO (catch-all probe)", err)
	}
	return o
}

// outcomeOf is an outcome of a failed command: no verdict on the mailbox.
func outcomeOf(mx, stage string, err error) outcome {
	o := outcome{cat: failCategory(err), reply: stage + ": " + replyOf(err), mx: mx}
	o.domainWide = o.cat != Greylisted
	return o
}

// randomLocal is a local part no one holds: 20 random letters (no digits,
// no dots: nothing a mailbox naming scheme would mint).
func randomLocal() string {
	b := make([]byte, 20)
	for i := range b {
		b[i] = 'a' + byte(rand.N(26))
	}
	return string(b)
}

// rcptCategory reads a refusal of RCPT TO.
func rcptCategory(e *smtp.SMTPError) Category {
	switch {
	case mailboxFull(e):
		return MailboxFull
	case e.Code >= 400 && e.Code < 500:
		return Greylisted
	case e.Code >= 500 && e.Code < 600 && policy(e):
		return Blocked
	case e.Code >= 500 && e.Code < 600:
		return Undeliverable
	}
	return SMTPError
}

// mailboxFull: enhanced status X.2.2 (RFC 3463, mailbox full), 552 at
// RCPT (RFC 5321: exceeded storage allocation), or words that say so.
func mailboxFull(e *smtp.SMTPError) bool {
	enh := e.EnhancedCode
	if enh[1] == 2 && enh[2] == 2 {
		return true
	}
	if e.Code == 552 && enh[1] != 7 && enh[1] != 1 {
		return true
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "quota") || strings.Contains(m, "mailbox full") || strings.Contains(m, "mailbox is full")
}

// policy tells a refusal of the probe itself (X.7.x, security or policy,
// RFC 3463; a blocklist) from a refusal of the mailbox.
func policy(e *smtp.SMTPError) bool {
	if e.EnhancedCode[1] == 7 {
		return true
	}
	m := strings.ToLower(e.Message)
	for _, w := range []string{"block", "spamhaus", "dnsbl", "rbl", "reputation", "spam"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// failCategory reads a failure before the mailbox's answer: a temporary
// refusal, a refusal of the probe, a timeout, or anything else going
// wrong (connection refused or closed, garbage).
func failCategory(err error) Category {
	var se *smtp.SMTPError
	var ne net.Error
	switch {
	case errors.As(err, &se) && se.Code >= 400 && se.Code < 500:
		return Greylisted
	case errors.As(err, &se) && se.Code >= 500 && se.Code < 600:
		return Blocked
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return Timeout
	}
	return SMTPError
}

// replyOf writes a server's reply as it was said ("550 5.1.1 no such
// user"), or the error.
func replyOf(err error) string {
	var se *smtp.SMTPError
	if !errors.As(err, &se) {
		return err.Error()
	}
	msg := strings.ReplaceAll(se.Message, "\n", " ")
	if se.EnhancedCode == (smtp.EnhancedCode{}) || se.EnhancedCode == smtp.NoEnhancedCode {
		return fmt.Sprintf("%d %s", se.Code, msg)
	}
	e := se.EnhancedCode
	return fmt.Sprintf("%d %d.%d.%d %s", se.Code, e[0], e[1], e[2], msg)
}
