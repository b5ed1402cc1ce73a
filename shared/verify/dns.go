package verify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// mailDomain is what the checker knows of a domain: where its mail goes,
// and (state) what its servers said to earlier rows.
type mailDomain struct {
	// hosts are the mail hosts to try, rooted, in MX preference order; the
	// domain itself when it has no MX (RFC 5321 §5.1, the implicit MX).
	hosts []string
	// fail is NoMX or DNSError when the domain has no mail host to try;
	// reply says why.
	fail  Category
	reply string
	state *domainState
}

// hostAddrs are a mail host's addresses the checker may dial (public
// ones, IPv4 first), or why there are none: NoMX (the host does not
// resolve, or only to non-public addresses) or DNSError.
type hostAddrs struct {
	addrs []netip.Addr
	fail  Category
	reply string
}

// domain looks a domain's mail hosts up, once per domain while cached.
func (c *Checker) domain(ctx context.Context, domain string) (*mailDomain, error) {
	return c.domains.get(ctx, domain, func() (*mailDomain, bool, error) {
		d, keep := c.lookupDomain(ctx, domain)
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		d.state = &domainState{}
		return d, keep, nil
	})
}

// lookupDomain asks for the MX records, then, when there are none, for
// the domain's own address. keep is false for a DNS failure, which the
// next row asks again.
func (c *Checker) lookupDomain(ctx context.Context, domain string) (*mailDomain, bool) {
	c.dnsLookups.Add(1)
	mxs, err := c.res.LookupMX(ctx, domain+".")
	// A resolver may return the valid records with an error for the
	// others (*net.Resolver drops malformed host names): use them.
	mxs = slices.Clone(mxs)
	slices.SortStableFunc(mxs, func(a, b *net.MX) int { return cmp.Compare(a.Pref, b.Pref) })
	var hosts []string
	null := false
	for _, mx := range mxs {
		if mx == nil {
			continue
		}
		h := strings.ToLower(strings.TrimSuffix(mx.Host, "."))
		if h == "" {
			null = true // "0 ." (RFC 7505)
			continue
		}
		if _, ok := hostName(h); !ok || slices.Contains(hosts, h+".") {
			continue
		}
		hosts = append(hosts, h+".")
	}
	switch {
	case len(hosts) > 0:
		return &mailDomain{hosts: hosts}, true
	case null:
		return &mailDomain{fail: NoMX, reply: "null MX (RFC 7505): the domain accepts no mail"}, true
	case len(mxs) > 0:
		return &mailDomain{fail: NoMX, reply: "no usable MX host name"}, true
	case err != nil && !notFound(err):
		return &mailDomain{fail: DNSError, reply: "MX lookup: " + err.Error()}, false
	}
	// No MX: the domain's address is its mail host (RFC 5321 §5.1). Its
	// lookup is the host lookup the probe would make anyway: cached there.
	h, err := c.hostAddrs(ctx, domain+".")
	if err != nil {
		return &mailDomain{}, false
	}
	if h.fail != "" {
		reply := "no MX record, and " + h.reply
		return &mailDomain{fail: h.fail, reply: reply}, h.fail != DNSError
	}
	return &mailDomain{hosts: []string{domain + "."}}, true
}

// hostAddrs resolves a mail host, once per host while cached (mail hosts
// are shared by many domains).
func (c *Checker) hostAddrs(ctx context.Context, host string) (hostAddrs, error) {
	return c.hosts.get(ctx, host, func() (hostAddrs, bool, error) {
		h := c.resolveHost(ctx, host)
		if err := ctx.Err(); err != nil {
			return hostAddrs{}, false, err
		}
		return h, h.fail != DNSError, nil
	})
}

func (c *Checker) resolveHost(ctx context.Context, host string) hostAddrs {
	c.dnsLookups.Add(1)
	ips, err := c.res.LookupIPAddr(ctx, host)
	name := strings.TrimSuffix(host, ".")
	if len(ips) == 0 {
		switch {
		case err == nil || notFound(err):
			return hostAddrs{fail: NoMX, reply: name + " has no address"}
		default:
			return hostAddrs{fail: DNSError, reply: "address lookup of " + name + ": " + err.Error()}
		}
	}
	var out []netip.Addr
	var refused []string
	for _, ip := range ips {
		a, ok := netip.AddrFromSlice(ip.IP)
		if !ok {
			continue
		}
		a = a.Unmap()
		if err := c.guard.CheckAddr(a); err != nil {
			refused = append(refused, a.String())
			continue
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return hostAddrs{fail: NoMX, reply: fmt.Sprintf("%s resolves only to non-public addresses (%s): not dialled", name, strings.Join(refused, ", "))}
	}
	// IPv4 first: the likelier to be reachable from a cloud function.
	slices.SortStableFunc(out, func(a, b netip.Addr) int {
		return cmp.Compare(boolInt(a.Is6()), boolInt(b.Is6()))
	})
	return hostAddrs{addrs: out}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// notFound tells a "no such name or record" answer from a DNS failure.
func notFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}
