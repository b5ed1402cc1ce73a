package verify

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// The loopback lab: a DNS server (github.com/miekg/dns on 127.0.0.1, UDP)
// answering for test domains, SMTP servers on loopback addresses
// (127.0.0.N) with scripted behaviours, and a dialer that sends port 25
// of each address to its server's port. Nothing leaves the machine.

// dnsServer answers from a zone: NXDOMAIN for names it does not hold,
// an empty answer (NODATA) for record types a name lacks, SERVFAIL for
// the names in servfail.
type dnsServer struct {
	addr     string
	srv      *dns.Server
	mu       sync.Mutex
	zone     map[string][]dns.RR
	servfail map[string]bool
	queries  map[string]int // "name TYPE"
	total    int
}

func startDNS(tb testing.TB, records []string, servfail ...string) *dnsServer {
	tb.Helper()
	s := &dnsServer{zone: map[string][]dns.RR{}, servfail: map[string]bool{}, queries: map[string]int{}}
	for _, r := range records {
		rr, err := dns.NewRR(r)
		if err != nil {
			tb.Fatalf("record %q: %v", r, err)
		}
		name := strings.ToLower(rr.Header().Name)
		s.zone[name] = append(s.zone[name], rr)
	}
	for _, n := range servfail {
		s.servfail[dns.Fqdn(n)] = true
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.addr = pc.LocalAddr().String()
	started := make(chan struct{})
	s.srv = &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(s.answer), NotifyStartedFunc: func() { close(started) }}
	go s.srv.ActivateAndServe()
	<-started
	tb.Cleanup(func() { s.srv.Shutdown() })
	return s
}

func (s *dnsServer) answer(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative, m.RecursionAvailable = true, true
	s.mu.Lock()
	for _, q := range req.Question {
		name := strings.ToLower(q.Name)
		s.queries[name+" "+dns.TypeToString[q.Qtype]]++
		s.total++
		rrs, ok := s.zone[name]
		switch {
		case s.servfail[name]:
			m.Rcode = dns.RcodeServerFailure
		case !ok:
			m.Rcode = dns.RcodeNameError
		default:
			for _, rr := range rrs {
				if rr.Header().Rrtype == q.Qtype {
					m.Answer = append(m.Answer, rr)
				}
			}
		}
	}
	s.mu.Unlock()
	w.WriteMsg(m)
}

// count is how many queries of a type a name got.
func (s *dnsServer) count(name, typ string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[dns.Fqdn(name)+" "+typ]
}

func (s *dnsServer) totalQueries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// resolver is a *net.Resolver (the pure Go one) asking only this server.
func (s *dnsServer) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", s.addr)
	}}
}

// behaviour scripts an SMTP server.
type behaviour struct {
	// greeting replaces "220 <name> ESMTP"; "garbage" writes a line
	// that is no SMTP reply.
	greeting string
	// hangAt is the command (or "greeting") at which the server stops
	// answering, closeAt the one at which it hangs up.
	hangAt, closeAt string
	// noEHLO answers EHLO with 502 (the client must fall back to HELO).
	noEHLO bool
	// mail is the reply to MAIL FROM; "" means 250.
	mail string
	// rcpt is the reply to RCPT TO for an address; nil accepts all.
	rcpt func(to string) string
	// delay is slept before each RCPT reply.
	delay time.Duration
}

// mailboxes is a rcpt that accepts these local parts and refuses others
// with 550 5.1.1.
func mailboxes(locals ...string) func(string) string {
	return func(to string) string {
		local, _, _ := strings.Cut(to, "@")
		for _, l := range locals {
			if strings.EqualFold(l, local) {
				return "250 2.1.5 Ok"
			}
		}
		return "550 5.1.1 <" + to + ">: Recipient address rejected: User unknown"
	}
}

// always is a rcpt with one reply.
func always(reply string) func(string) string { return func(string) string { return reply } }

// smtpServer is a scripted SMTP server on a loopback address.
type smtpServer struct {
	name string
	ip   netip.Addr
	ln   net.Listener
	b    behaviour

	mu        sync.Mutex
	cmds      []string
	conns     int
	active    int
	maxActive int
	rcpts     []string
}

func startSMTP(tb testing.TB, ip string, name string, b behaviour) *smtpServer {
	tb.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &smtpServer{name: name, ip: netip.MustParseAddr(ip), ln: ln, b: b}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { s.handle(c) })
		}
	})
	tb.Cleanup(func() { ln.Close(); wg.Wait() })
	return s
}

func (s *smtpServer) handle(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	s.mu.Lock()
	s.conns++
	s.active++
	s.maxActive = max(s.maxActive, s.active)
	s.mu.Unlock()
	// Active until QUIT is read (the client frees its slot on the 221),
	// or until the connection ends.
	var once sync.Once
	leave := func() { once.Do(func() { s.mu.Lock(); s.active--; s.mu.Unlock() }) }
	defer leave()
	hang := func() { io.Copy(io.Discard, c) } // until the client hangs up
	say := func(reply string) { io.WriteString(c, strings.ReplaceAll(reply, "\n", "\r\n")+"\r\n") }
	switch {
	case s.b.hangAt == "greeting":
		hang()
		return
	case s.b.closeAt == "greeting":
		return
	case s.b.greeting == "garbage":
		say("HELLO THERE, THIS IS NO MAIL SERVER")
	case s.b.greeting != "":
		say(s.b.greeting)
	default:
		say("220 " + s.name + " ESMTP test")
	}
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(cmd, " ")
		verb = strings.ToUpper(verb)
		s.mu.Lock()
		s.cmds = append(s.cmds, cmd)
		s.mu.Unlock()
		switch {
		case verb == s.b.hangAt:
			hang()
			return
		case verb == s.b.closeAt:
			return
		}
		switch verb {
		case "EHLO":
			if s.b.noEHLO {
				say("502 5.5.2 command not recognized")
			} else {
				say("250-" + s.name + "\n250-SIZE 10240000\n250 ENHANCEDSTATUSCODES")
			}
		case "HELO":
			say("250 " + s.name)
		case "MAIL":
			say(or(s.b.mail, "250 2.1.0 Ok"))
		case "RCPT":
			to := strings.TrimSuffix(strings.TrimPrefix(arg, "TO:<"), ">")
			s.mu.Lock()
			s.rcpts = append(s.rcpts, to)
			s.mu.Unlock()
			time.Sleep(s.b.delay)
			if s.b.rcpt == nil {
				say("250 2.1.5 Ok")
			} else {
				say(s.b.rcpt(to))
			}
		case "RSET", "NOOP":
			say("250 2.0.0 Ok")
		case "DATA", "BDAT":
			say("354 go ahead") // never reached: the test fails on it
		case "QUIT":
			leave()
			say("221 2.0.0 Bye")
			return
		default:
			say("500 5.5.2 what?")
		}
	}
}

func (s *smtpServer) commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cmds...)
}

func (s *smtpServer) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

func (s *smtpServer) recipients() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rcpts...)
}

// labDialer sends port 25 of a lab address to its server, and refuses
// anything else (as a closed port would). It records what was dialled.
type labDialer struct {
	mu      sync.Mutex
	servers map[netip.Addr]*smtpServer
	dialled []string
}

func (d *labDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.dialled = append(d.dialled, addr)
	d.mu.Unlock()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	s := d.servers[ap.Addr()]
	if s == nil || ap.Port() != 25 {
		// A loopback address nobody listens on: a real refusal.
		var nd net.Dialer
		return nd.DialContext(ctx, network, net.JoinHostPort(ap.Addr().String(), "9"))
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, s.ln.Addr().String())
}

func (d *labDialer) dials() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.dialled...)
}

// lab is the DNS server and the SMTP servers of the tests, by domain.
type lab struct {
	dns     *dnsServer
	servers map[string]*smtpServer // by domain
	byAddr  map[netip.Addr]*smtpServer
}

// labDomains are the test domains: each has a mail host
// mx.<domain> at its own loopback address with the behaviour given.
var labDomains = []struct {
	domain string
	b      behaviour
}{
	{"known.test", behaviour{rcpt: mailboxes("alice", "contact", "bob.martin")}},
	{"catchall.test", behaviour{}},
	{"reject.test", behaviour{rcpt: always("550 5.1.1 User unknown")}},
	{"grey.test", behaviour{rcpt: always("451 4.7.1 Greylisted, please try again later")}},
	{"full.test", behaviour{rcpt: always("552 5.2.2 Mailbox full")}},
	{"full4.test", behaviour{rcpt: always("452 4.2.2 Over quota, try later")}},
	{"policy.test", behaviour{rcpt: always("550 5.7.1 Service unavailable; client host blocked using Spamhaus")}},
	{"sender.test", behaviour{mail: "550 5.7.1 Sender rejected"}},
	{"greymail.test", behaviour{mail: "451 4.3.0 Try again later"}},
	{"hang.test", behaviour{hangAt: "greeting"}},
	{"hangrcpt.test", behaviour{hangAt: "RCPT"}},
	{"close.test", behaviour{closeAt: "MAIL"}},
	{"closegreet.test", behaviour{closeAt: "greeting"}},
	{"garbage.test", behaviour{greeting: "garbage"}},
	{"banner.test", behaviour{greeting: "554 5.7.1 No SMTP service here"}},
	{"busy.test", behaviour{greeting: "421 4.3.2 Too busy, try later"}},
	{"helo.test", behaviour{noEHLO: true, rcpt: mailboxes("alice")}},
	{"slow.test", behaviour{rcpt: mailboxes("a", "b", "c", "d", "e", "f", "g", "h"), delay: 50 * time.Millisecond}},
	{"nomx.test", behaviour{rcpt: mailboxes("alice")}}, // no MX: its A record is its mail host
	{"backup.test", behaviour{rcpt: mailboxes("alice")}},
	{"mailinator.com", behaviour{}}, // on the disposable list
}

func newLab(tb testing.TB) *lab {
	tb.Helper()
	l := &lab{servers: map[string]*smtpServer{}, byAddr: map[netip.Addr]*smtpServer{}}
	var records []string
	for i, d := range labDomains {
		ip := fmt.Sprintf("127.0.0.%d", 10+i)
		mx := "mx." + d.domain
		s := startSMTP(tb, ip, mx, d.b)
		l.servers[d.domain] = s
		l.byAddr[s.ip] = s
		switch d.domain {
		case "nomx.test":
			records = append(records, d.domain+". 60 IN A "+ip)
		case "backup.test":
			// The first MX refuses connections (nothing listens on
			// 127.0.0.250); the second answers.
			records = append(records, d.domain+". 60 IN MX 10 dead."+d.domain+".", "dead."+d.domain+". 60 IN A 127.0.0.250",
				d.domain+". 60 IN MX 20 "+mx+".")
		default:
			records = append(records, d.domain+". 60 IN MX 10 "+mx+".")
		}
		records = append(records, mx+". 60 IN A "+ip)
	}
	records = append(records,
		// A domain with only a TXT record: no MX, no address.
		"nomail.test. 60 IN TXT \"v=spf1 -all\"",
		// A null MX (RFC 7505).
		"nullmx.test. 60 IN MX 0 .",
		// Mail hosts at non-public addresses.
		"private.test. 60 IN MX 10 mx.private.test.", "mx.private.test. 60 IN A 10.1.2.3",
		"linklocal.test. 60 IN MX 10 mx.linklocal.test.", "mx.linklocal.test. 60 IN AAAA fe80::1",
		// An MX host that does not resolve.
		"dangling.test. 60 IN MX 10 mx.nowhere.test.",
		// An MX host whose address lookup fails (SERVFAIL).
		"hostfail.test. 60 IN MX 10 mx.hostfail.test.",
	)
	l.dns = startDNS(tb, records, "servfail.test", "mx.hostfail.test")
	return l
}

// loopback allows the lab's addresses (tests only).
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// checker is a checker over the lab with short timeouts, and its dialer.
func (l *lab) checker(opt Options) (*Checker, *labDialer) {
	d := &labDialer{servers: l.byAddr}
	opt.Resolver = l.dns.resolver()
	opt.Dialer = d
	if opt.AllowPrefixes == nil {
		opt.AllowPrefixes = loopback
	}
	opt.HeloName = or(opt.HeloName, "verifier.example.org")
	opt.MailFrom = or(opt.MailFrom, "check@example.org")
	opt.CommandTimeout = orDur(opt.CommandTimeout, 500*time.Millisecond)
	opt.ConnectTimeout = orDur(opt.ConnectTimeout, time.Second)
	return New(opt), d
}

// allCommands are the commands every lab server received.
func (l *lab) allCommands() []string {
	var out []string
	for _, s := range l.servers {
		out = append(out, s.commands()...)
	}
	return out
}
