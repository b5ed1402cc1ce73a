package sim

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Mail is the simulated world's mail: the DNS and the SMTP servers of
// its sites' domains, for the email verification module
// (shared/verify) to check the addresses the fixture web publishes. It
// has the method sets of verify.Resolver and verify.Dialer (this package
// does not import verify: verify's tests import this one):
//
//   - LookupMX and LookupIPAddr answer for the sites' hosts
//     (<slug>.<token>.sim.test, a place open on the world's day), for
//     the world's mail hosts (mx1 and mx2 of four simulated hosting
//     providers, under mail.sim.test) and for the public webmail domains
//     (gmail.com, orange.fr, web.de, libero.it… webmailDomains), where
//     the sites that publish no address of their own have theirs; one
//     simulated host receives for all of them. Other names
//     under .test do not exist; any other domain fails as a DNS outage
//     (the world cannot tell).
//   - DialContext connects, in memory (net.Pipe), to the SMTP server of
//     a mail host's address, port 25; any other address refuses the
//     connection. The addresses are in 192.0.2.0/24 (TEST-NET-1, RFC
//     5737: never routed), which a checker must be allowed to dial
//     (Prefixes); nothing leaves the process.
//
// Each site's domain draws its mail from its key, so every process
// agrees: 2% have no MX record (their address, the web host, has no
// SMTP server: the connection is refused), 2% a null MX (RFC 7505), 4%
// greylist every recipient (451 4.7.1), 12% accept every recipient
// (catch-all); the others accept their real mailboxes only: the address
// the site publishes on the site's domain (contact@<host>, info@<host>,
// a second role, a person's prenom.nom@<host>), the publisher's director
// on French sites (prenom.nom@<host>) and postmaster, and refuse others
// (550 5.1.1). 3% of those domains' main mailboxes are full (552 5.2.2).
// The webmail domains accept the addresses the sites publish there
// (letters and digits ending in two digits) and refuse others.
type Mail struct{ w *World }

// Mail returns the world's mail.
func (w *World) Mail() *Mail { return &Mail{w} }

// Shares of the sites' mail behaviours, drawn per domain.
const (
	mailNoMX      = 0.02
	mailNullMX    = 0.02
	mailGreylist  = 0.04
	mailCatchAll  = 0.12
	mailboxIsFull = 0.03
)

// mailPrefix holds every address of the world's mail: documentation
// addresses (RFC 5737), which no real network routes.
var mailPrefix = netip.MustParsePrefix("192.0.2.0/24")

// webHostAddr is the address of the sites' web host (simAddr's): no SMTP.
var webHostAddr = netip.MustParseAddr("192.0.2.1")

// The world's mail hosts: two per hosting provider, and the one of the
// public webmail domains (gmailMX, gmailAddr).
var (
	mailProviders = []string{"alpha", "bravo", "charlie", "delta"}
	gmailMX       = "webmail-in.mail.sim.test"
	gmailAddr     = netip.MustParseAddr("192.0.2.64")
)

// providerMX is the name of provider p's j-th mail host (j 0 or 1).
func providerMX(p, j int) string {
	return fmt.Sprintf("mx%d.%s.mail.sim.test", j+1, mailProviders[p])
}

// providerAddr is its address.
func providerAddr(p, j int) netip.Addr {
	return netip.AddrFrom4([4]byte{192, 0, 2, byte(16 + 2*p + j)})
}

// Prefixes are the addresses the world's mail hosts resolve to, for a
// checker's list of dialable non-public prefixes.
func (m *Mail) Prefixes() []netip.Prefix { return MailPrefixes() }

// MailPrefixes are the addresses of the world's mail, known before the
// world is loaded (a checker is built before its first use).
func MailPrefixes() []netip.Prefix { return []netip.Prefix{mailPrefix} }

// mailKind is a domain's mail behaviour.
type mailKind int

const (
	mailboxesOnly mailKind = iota
	noMX
	nullMX
	greylist
	catchAll
)

// domainMail is what the world's mail knows of a site's domain.
type domainMail struct {
	kind      mailKind
	provider  int
	mailboxes map[string]bool // local parts accepted
	full      string          // a mailbox that is full, or ""
}

// domainMail draws the mail of a site's host, or fails as DNS would
// when the host is not a live site's.
func (m *Mail) domainMail(ctx context.Context, host string) (*domainMail, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+host+"/", nil)
	if err != nil {
		return nil, notFoundErr(host)
	}
	s, err := m.w.siteOf(req, host)
	if err != nil {
		if _, ok := err.(*net.DNSError); ok {
			return nil, err
		}
		return nil, &net.DNSError{Err: err.Error(), Name: host, IsTemporary: true}
	}
	k := m.w.seed.str("mail").str(host)
	d := &domainMail{provider: int(k.str("provider").float() * float64(len(mailProviders))),
		mailboxes: map[string]bool{"postmaster": true}}
	switch u := k.float(); {
	case u < mailNoMX:
		d.kind = noMX
	case u < mailNoMX+mailNullMX:
		d.kind = nullMX
	case u < mailNoMX+mailNullMX+mailGreylist:
		d.kind = greylist
	case u < mailNoMX+mailNullMX+mailGreylist+mailCatchAll:
		d.kind = catchAll
	}
	if local, dom, ok := strings.Cut(s.email, "@"); ok && dom == host {
		d.mailboxes[local] = true
		if k.str("full").float() < mailboxIsFull {
			d.full = local
		}
	}
	for _, m := range s.more {
		if local, dom, ok := strings.Cut(m, "@"); ok && dom == host {
			d.mailboxes[local] = true
		}
	}
	if s.legal != nil {
		first, last, _ := strings.Cut(s.legal.director, " ")
		d.mailboxes[slug(first, 30)+"."+slug(last, 30)] = true
	}
	return d, nil
}

func notFoundErr(name string) error {
	return &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// isWebmail tells the public webmail domains the sites publish
// addresses at.
func isWebmail(domain string) bool {
	for _, ds := range webmailDomains {
		for _, d := range ds {
			if d == domain {
				return true
			}
		}
	}
	return false
}

// mailName lower-cases a name and drops its root dot.
func mailName(name string) string { return strings.ToLower(strings.TrimSuffix(name, ".")) }

// LookupMX answers the MX records of a name.
func (m *Mail) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name = mailName(name)
	switch {
	case isWebmail(name):
		return []*net.MX{{Host: gmailMX + ".", Pref: 5}}, nil
	case strings.HasSuffix(name, ".mail"+siteDomain):
		return nil, notFoundErr(name) // mail hosts receive no mail of their own
	case strings.HasSuffix(name, siteDomain):
		d, err := m.domainMail(ctx, name)
		if err != nil {
			return nil, err
		}
		switch d.kind {
		case noMX:
			return nil, notFoundErr(name)
		case nullMX:
			return []*net.MX{{Host: ".", Pref: 0}}, nil
		}
		return []*net.MX{{Host: providerMX(d.provider, 0) + ".", Pref: 10}, {Host: providerMX(d.provider, 1) + ".", Pref: 20}}, nil
	}
	return nil, outsideErr(name)
}

// outsideErr is the answer for a name outside the simulated world: not
// "no such domain" (the world cannot say that of a real one), a failure.
func outsideErr(name string) error {
	if strings.HasSuffix(name, ".test") || name == "test" {
		return notFoundErr(name) // reserved (RFC 2606): nothing exists there
	}
	return &net.DNSError{Err: "outside the simulated world (sim)", Name: name, IsTemporary: true}
}

// LookupIPAddr answers the addresses of a name.
func (m *Mail) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	host = mailName(host)
	if a, ok := mailHostAddr(host); ok {
		return []net.IPAddr{{IP: a.AsSlice()}}, nil
	}
	if strings.HasSuffix(host, siteDomain) && !strings.HasSuffix(host, ".mail"+siteDomain) {
		if _, err := m.domainMail(ctx, host); err != nil {
			return nil, err
		}
		return []net.IPAddr{{IP: webHostAddr.AsSlice()}}, nil
	}
	return nil, outsideErr(host)
}

// mailHostAddr is the address of one of the world's mail hosts.
func mailHostAddr(host string) (netip.Addr, bool) {
	if host == gmailMX {
		return gmailAddr, true
	}
	for p := range mailProviders {
		for j := range 2 {
			if host == providerMX(p, j) {
				return providerAddr(p, j), true
			}
		}
	}
	return netip.Addr{}, false
}

// mailHostAt is the mail host at an address, "" when none.
func mailHostAt(a netip.Addr) string {
	if a == gmailAddr {
		return gmailMX
	}
	for p := range mailProviders {
		for j := range 2 {
			if a == providerAddr(p, j) {
				return providerMX(p, j)
			}
		}
	}
	return ""
}

// DialContext connects to the SMTP server at addr ("192.0.2.16:25"):
// an in-memory connection served by a goroutine that ends when the
// client closes it (or after a minute of silence).
func (m *Mail) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	refused := &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	if network != "tcp" && network != "tcp4" && network != "tcp6" {
		return nil, refused
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	refused.Addr = net.TCPAddrFromAddrPort(ap)
	host := mailHostAt(ap.Addr().Unmap())
	if host == "" || ap.Port() != 25 {
		return nil, refused
	}
	client, server := net.Pipe()
	go m.serve(context.WithoutCancel(ctx), server, host)
	return client, nil
}

// gmailLocal is the shape of the addresses the sites publish at
// gmail.com (site.go): the name's letters and digits, then two digits.
var gmailLocal = regexp.MustCompile(`^[a-z0-9]+[0-9]{2}$`)

// serve is a mail host's SMTP server on one connection: greeting, EHLO
// or HELO, MAIL, RCPT (the recipient's domain decides), RSET, NOOP,
// VRFY, QUIT. DATA is refused: the world takes no message.
func (m *Mail) serve(ctx context.Context, conn net.Conn, host string) {
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 1024)
	say := func(lines ...string) bool {
		conn.SetDeadline(time.Now().Add(time.Minute))
		var b strings.Builder
		for i, l := range lines {
			sep := "-"
			if i == len(lines)-1 {
				sep = " "
			}
			b.WriteString(l[:3] + sep + l[4:] + "\r\n")
		}
		_, err := io.WriteString(conn, b.String())
		return err == nil
	}
	if !say("220 " + host + " ESMTP (simulated)") {
		return
	}
	hello, mail := false, false
	for {
		conn.SetDeadline(time.Now().Add(time.Minute))
		line, err := r.ReadSlice('\n')
		if err != nil {
			if err == bufio.ErrBufferFull {
				say("500 5.5.2 line too long")
			}
			return
		}
		cmd := strings.TrimRight(string(line), "\r\n")
		verb, arg, _ := strings.Cut(cmd, " ")
		var ok bool
		switch strings.ToUpper(verb) {
		case "EHLO":
			hello, mail = true, false
			ok = say("250 "+host, "250 SIZE 20971520", "250 8BITMIME", "250 ENHANCEDSTATUSCODES")
		case "HELO":
			hello, mail = true, false
			ok = say("250 " + host)
		case "MAIL":
			switch {
			case !hello:
				ok = say("503 5.5.1 EHLO first")
			case !strings.HasPrefix(strings.ToUpper(arg), "FROM:<"):
				ok = say("501 5.5.4 syntax: MAIL FROM:<address>")
			default:
				mail = true
				ok = say("250 2.1.0 Ok")
			}
		case "RCPT":
			switch {
			case !mail:
				ok = say("503 5.5.1 MAIL first")
			case !strings.HasPrefix(strings.ToUpper(arg), "TO:<"):
				ok = say("501 5.5.4 syntax: RCPT TO:<address>")
			default:
				to, _, _ := strings.Cut(arg[4:], ">")
				ok = say(m.rcpt(ctx, host, to))
			}
		case "RSET":
			mail = false
			ok = say("250 2.0.0 Ok")
		case "NOOP":
			ok = say("250 2.0.0 Ok")
		case "VRFY":
			ok = say("252 2.5.0 Cannot VRFY user")
		case "DATA", "BDAT":
			ok = say("554 5.5.1 this simulated server takes no message")
		case "QUIT":
			say("221 2.0.0 Bye")
			return
		default:
			ok = say("500 5.5.2 command unrecognized")
		}
		if !ok {
			return
		}
	}
}

// rcpt is the reply of a mail host to RCPT TO:<to>.
func (m *Mail) rcpt(ctx context.Context, host, to string) string {
	at := strings.LastIndexByte(to, '@')
	if at <= 0 {
		return "501 5.1.3 bad recipient address syntax"
	}
	local, dom := strings.ToLower(to[:at]), mailName(to[at+1:])
	if host == gmailMX {
		if isWebmail(dom) && gmailLocal.MatchString(local) {
			return "250 2.1.5 OK"
		}
		if isWebmail(dom) {
			return "550 5.1.1 The email account that you tried to reach does not exist (simulated)"
		}
		return "550 5.7.1 relay access denied"
	}
	d, err := m.domainMail(ctx, dom)
	if err != nil || d.kind == noMX || d.kind == nullMX || !strings.HasSuffix(host, "."+mailProviders[d.provider]+".mail"+siteDomain) {
		return "554 5.7.1 <" + to + ">: relay access denied"
	}
	switch {
	case d.kind == greylist:
		return "451 4.7.1 <" + to + ">: recipient address rejected: greylisted, try again later"
	case d.kind == catchAll:
		return "250 2.1.5 Ok"
	case local == d.full:
		return "552 5.2.2 <" + to + ">: mailbox full"
	case d.mailboxes[local]:
		return "250 2.1.5 Ok"
	}
	return "550 5.1.1 <" + to + ">: recipient address rejected: user unknown"
}
