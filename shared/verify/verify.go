package verify

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/verify/disposable"
)

// Resolver is the DNS the checker asks (*net.Resolver is one). Names
// are passed rooted ("example.com."), so that no search domain is tried.
// A name or record that does not exist must fail with a *net.DNSError
// whose IsNotFound is set, as *net.Resolver's do; any other failure is
// taken for a DNS outage.
type Resolver interface {
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Dialer opens the SMTP connections (*net.Dialer is one; so is a SOCKS5
// proxy's, ProxyDialer). It is given an IP address and port, never a
// name: the checker resolves mail hosts itself, to refuse non-public
// addresses.
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// Defaults of Options.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultCommandTimeout = 15 * time.Second
	// DefaultBudget bounds one address's whole verification, below the
	// engine's item timeout (enrich.ItemTimeout, 90 s), so that a slow
	// server gives the verdict unknown/timeout rather than an
	// unreachable row.
	DefaultBudget     = 60 * time.Second
	DefaultMaxPerHost = 2
	DefaultMaxHosts   = 2
	DefaultCacheSize  = 10000
	DefaultCacheTTL   = time.Hour
	DefaultFailTTL    = 5 * time.Minute
	DefaultHeloName   = "localhost"
)

// Options configure a Checker. The zero value verifies over the system's
// DNS and direct connections to port 25.
type Options struct {
	// Resolver answers the MX and address lookups; nil means
	// net.DefaultResolver.
	Resolver Resolver
	// Dialer opens SMTP connections; nil means a net.Dialer.
	Dialer Dialer
	// SkipSMTP switches the SMTP probe off: verdicts come from the
	// syntax, the lists and the DNS, and an address that passes them all
	// is unknown/not_probed. AWS Lambda blocks outbound port 25, so the
	// AWS workers run so unless a relay (Dialer) is configured.
	SkipSMTP bool
	// HeloName is the name given in EHLO (HELO); default "localhost".
	// In production, the host name whose address and PTR record are
	// the probe's egress address: many servers refuse others.
	HeloName string
	// MailFrom is the reverse-path of MAIL FROM; empty means the null
	// path "<>" (as Postfix's address verification may use). In
	// production, an address at a domain the service owns, whose SPF
	// record allows the egress address.
	MailFrom string
	// Port is the SMTP port dialled; default "25".
	Port string
	// ConnectTimeout bounds a TCP connection (default 10 s),
	// CommandTimeout each SMTP reply, the greeting included (default
	// 15 s), Budget one address's verification (default 60 s).
	ConnectTimeout, CommandTimeout, Budget time.Duration
	// MaxPerHost bounds the connections open at once to one mail host
	// (default 2); MaxHosts the mail hosts tried for one address, in MX
	// order, when a host cannot be reached (default 2).
	MaxPerHost, MaxHosts int
	// CacheSize bounds the domains (and, apart, the mail hosts) whose
	// lookups and catch-all probe are kept (default 10,000); negative
	// keeps nothing, every address is looked up and probed anew.
	// CacheTTL is how long an entry lives (default 1 h).
	CacheSize int
	CacheTTL  time.Duration
	// FailTTL is how long a domain whose mail hosts timed out, refused
	// or failed the dialogue gives its rows that same verdict without a
	// new connection (default 5 min; negative: never).
	FailTTL time.Duration
	// AllowPrefixes lets the checker dial non-public addresses in these
	// prefixes. For tests (loopback servers) and in-process twins whose
	// Dialer reaches no network (shared/provider/sim) only: a runtime
	// configuration never sets it, so an MX record pointing at 127.0.0.1
	// or 10.0.0.0/8 is never dialled.
	AllowPrefixes []netip.Prefix
	// Now is the clock of the caches; nil means time.Now.
	Now func() time.Time
}

// Checker verifies addresses. It is safe for concurrent use; its caches
// live as long as it does (one per worker process).
type Checker struct {
	opt     Options
	res     Resolver
	dialer  Dialer
	guard   *netguard.Guard
	domains *cache[*mailDomain]
	hosts   *cache[hostAddrs]
	limits  *hostLimits

	dnsLookups atomic.Int64
	smtpDials  atomic.Int64
}

// New returns a checker over opt.
func New(opt Options) *Checker {
	if opt.Resolver == nil {
		opt.Resolver = net.DefaultResolver
	}
	if opt.Dialer == nil {
		opt.Dialer = &net.Dialer{}
	}
	opt.HeloName = or(opt.HeloName, DefaultHeloName)
	opt.Port = or(opt.Port, "25")
	opt.ConnectTimeout = orDur(opt.ConnectTimeout, DefaultConnectTimeout)
	opt.CommandTimeout = orDur(opt.CommandTimeout, DefaultCommandTimeout)
	opt.Budget = orDur(opt.Budget, DefaultBudget)
	opt.CacheTTL = orDur(opt.CacheTTL, DefaultCacheTTL)
	opt.FailTTL = orDur(opt.FailTTL, DefaultFailTTL)
	if opt.MaxPerHost <= 0 {
		opt.MaxPerHost = DefaultMaxPerHost
	}
	if opt.MaxHosts <= 0 {
		opt.MaxHosts = DefaultMaxHosts
	}
	if opt.CacheSize == 0 {
		opt.CacheSize = DefaultCacheSize
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Checker{
		opt:     opt,
		res:     opt.Resolver,
		dialer:  opt.Dialer,
		guard:   netguard.New(netguard.WithAllowedPrefixes(opt.AllowPrefixes...)),
		domains: newCache[*mailDomain](opt.CacheSize, opt.CacheTTL, opt.Now),
		hosts:   newCache[hostAddrs](opt.CacheSize, opt.CacheTTL, opt.Now),
		limits:  newHostLimits(opt.MaxPerHost),
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orDur(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Probing tells whether the checker runs the SMTP probe.
func (c *Checker) Probing() bool { return !c.opt.SkipSMTP }

// Stats counts the checker's upstream calls since it was made: what a
// verification costs.
type Stats struct {
	// DNSLookups counts Resolver calls (an address lookup may send an A
	// and an AAAA query).
	DNSLookups int64
	// SMTPDials counts connection attempts to mail hosts.
	SMTPDials int64
}

// Stats returns the upstream calls so far.
func (c *Checker) Stats() Stats {
	return Stats{DNSLookups: c.dnsLookups.Load(), SMTPDials: c.smtpDials.Load()}
}

// Verify checks one address: syntax, domain and mail hosts (MX, or the
// domain's own address when it has none), the disposable list, then the
// SMTP dialogue up to RCPT TO, never DATA, with a catch-all probe once per
// domain. Every outcome is a Result, DNS and SMTP failures included
// (unknown); the error is ctx's alone, when it ended first.
func (c *Checker) Verify(ctx context.Context, email string) (Result, error) {
	a, ok := parseAddress(email)
	if !ok {
		return verdict(strings.TrimSpace(email), Syntax, ""), nil
	}
	bctx, cancel := context.WithTimeout(ctx, c.opt.Budget)
	defer cancel()
	r, err := c.verify(bctx, a)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		r = verdict("", Timeout, fmt.Sprintf("no verdict within %s", c.opt.Budget))
	}
	r.Email = a.String()
	return r, nil
}

func (c *Checker) verify(ctx context.Context, a address) (Result, error) {
	dom, err := c.domain(ctx, a.domain)
	if err != nil {
		return Result{}, err
	}
	if dom.fail != "" {
		return verdict("", dom.fail, dom.reply), nil
	}
	if disposable.Has(a.domain) {
		return verdict("", Disposable, "listed by "+disposable.Package+"@"+disposable.Version), nil
	}
	if c.opt.SkipSMTP {
		return c.routeOnly(ctx, dom)
	}
	return c.probe(ctx, a, dom)
}

// routeOnly is the verdict without the SMTP probe: not_probed when a mail
// host of the domain has a public address.
func (c *Checker) routeOnly(ctx context.Context, dom *mailDomain) (Result, error) {
	var last hostAddrs
	for i, host := range dom.hosts {
		if i >= c.opt.MaxHosts {
			break
		}
		h, err := c.hostAddrs(ctx, host)
		if err != nil {
			return Result{}, err
		}
		if len(h.addrs) > 0 {
			r := verdict("", NotProbed, "")
			r.MX = strings.TrimSuffix(host, ".")
			return r, nil
		}
		if last.fail != DNSError {
			last = h
		}
	}
	return verdict("", last.fail, last.reply), nil
}
