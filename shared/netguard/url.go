package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// MaxURL is the longest URL, in bytes, CheckURL accepts.
const MaxURL = 2048

func refusal(en, fr string) *Refusal { return &Refusal{EN: en, FR: fr} }

// CheckURL is the check of a user-given URL (a webhook endpoint, when it is
// created): https, no user info, a valid port, and a public host. It
// returns the URL with its host normalised (lower case, no trailing dot,
// numeric IPv4 spellings rewritten as a.b.c.d), or a *Refusal saying
// which rule refused it. Other errors (ctx ended during resolution) are
// not refusals.
func (g *Guard) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	u, port, err := parseURL(raw)
	if err != nil {
		return nil, err
	}
	host, err := g.checkHost(ctx, normalHost(u.Hostname()))
	if err != nil {
		return nil, err
	}
	if err := g.checkOwnPort(host, port); err != nil {
		return nil, err
	}
	u.Scheme = "https"
	switch {
	case port != "":
		u.Host = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"):
		u.Host = "[" + host + "]"
	default:
		u.Host = host
	}
	return u, nil
}

// parseURL applies the rules that need no resolution, and returns the
// port in canonical decimal ("" when none).
func parseURL(raw string) (*url.URL, string, error) {
	if len(raw) > MaxURL {
		return nil, "", refusal(fmt.Sprintf("the URL is longer than %d bytes", MaxURL),
			fmt.Sprintf("l'URL dépasse %d octets", MaxURL))
	}
	u, err := url.Parse(raw)
	if err != nil {
		reason := err.Error()
		var ue *url.Error
		if errors.As(err, &ue) {
			reason = ue.Err.Error() // without the URL, which may be long
		}
		return nil, "", refusal("the URL cannot be parsed: "+reason, "l'URL est illisible : "+reason)
	}
	if u.Scheme == "" {
		return nil, "", refusal("the URL has no scheme: only https:// URLs are accepted",
			"l'URL n'a pas de schéma : seules les URL https:// sont acceptées")
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return nil, "", refusal(fmt.Sprintf("only https:// URLs are accepted, not %q", u.Scheme+":"),
			fmt.Sprintf("seules les URL https:// sont acceptées, pas %q", u.Scheme+":"))
	}
	if u.User != nil {
		return nil, "", refusal("the URL may not carry a user name or password",
			"l'URL ne doit pas contenir d'identifiant ni de mot de passe")
	}
	if u.Hostname() == "" {
		return nil, "", refusal("the URL has no host", "l'URL n'a pas d'hôte")
	}
	p := u.Port()
	if p == "" {
		return u, "", nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return nil, "", refusal(fmt.Sprintf("the port %s is not between 1 and 65535", p),
			fmt.Sprintf("le port %s n'est pas entre 1 et 65535", p))
	}
	return u, strconv.Itoa(n), nil
}

// checkHost refuses a host that is not public and returns it in canonical
// form. host is already normalised.
func (g *Guard) checkHost(ctx context.Context, host string) (string, error) {
	a, isLiteral, err := g.hostRules(host)
	switch {
	case err != nil:
		return "", err
	case isLiteral:
		return g.checkLiteral(host, a)
	}
	return host, g.checkResolved(ctx, host)
}

// hostRules applies the rules that need no resolution to a normalised
// host, at the URL check and again at dial time. For a host that spells an
// address it returns that address (isLiteral), otherwise the host is a
// name to resolve.
func (g *Guard) hostRules(host string) (a netip.Addr, isLiteral bool, err error) {
	if host == "" {
		return a, false, refusal("the URL has no host", "l'URL n'a pas d'hôte")
	}
	if g.own[host] && !g.devLoopbackHost(host) { // under the switch, by port (checkOwnPort)
		return a, false, refusal(fmt.Sprintf("the host %s is this service itself", host),
			fmt.Sprintf("l'hôte %s est ce service lui-même", host))
	}
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			// Each client maps such a name (IDNA) its own way; the ASCII
			// form is unambiguous.
			return a, false, refusal(fmt.Sprintf("the host %s is not ASCII: write it in its xn-- form", host),
				fmt.Sprintf("l'hôte %s n'est pas en ASCII : écrivez-le sous sa forme xn--", host))
		}
	}
	if a, isLiteral, err = literal(host); err != nil || isLiteral {
		return a, isLiteral, err
	}
	if !validName(host) {
		return a, false, refusal(fmt.Sprintf("the host %s is not a valid host name", host),
			fmt.Sprintf("l'hôte %s n'est pas un nom d'hôte valide", host))
	}
	if host == "localhost" && g.loopback {
		return a, false, nil
	}
	if s := specialName(host); s != "" {
		return a, false, refusal(fmt.Sprintf("the host %s is a special-use name (%s) that only a local network answers", host, s),
			fmt.Sprintf("l'hôte %s est un nom à usage spécial (%s) que seul un réseau local résout", host, s))
	}
	if !strings.Contains(host, ".") {
		return a, false, refusal(fmt.Sprintf("the host %s is a single-label name that only a local network answers", host),
			fmt.Sprintf("l'hôte %s est un nom sans domaine que seul un réseau local résout", host))
	}
	return a, false, nil
}

// checkLiteral refuses a host that spells a non-public address.
func (g *Guard) checkLiteral(host string, a netip.Addr) (string, error) {
	// The address class first: "127.1 is 127.0.0.1, a loopback address"
	// says more than "this service" when the service runs on loopback.
	if en, fr := g.refused(a); en != "" && !g.loopbackAllowed(a) {
		return "", literalRefusal(host, a, en, fr)
	}
	canon := a.String()
	if g.own[canon] && !g.loopbackAllowed(a) {
		return "", refusal(fmt.Sprintf("the host %s is this service itself", host),
			fmt.Sprintf("l'hôte %s est ce service lui-même", host))
	}
	return canon, nil
}

// literalRefusal words the refusal of a host that spells address a; a
// spelling other than the canonical one (0x7f000001) says which address it
// is.
func literalRefusal(host string, a netip.Addr, en, fr string) *Refusal {
	if host != a.String() {
		return refusal(fmt.Sprintf("the host %s is %s, %s", host, a, en), fmt.Sprintf("l'hôte %s est %s, %s", host, a, fr))
	}
	return refusal(fmt.Sprintf("the host %s is %s", host, en), fmt.Sprintf("l'hôte %s est %s", host, fr))
}

// checkResolved refuses a name that resolves to nothing or to any
// non-public address: one internal address is enough for a later
// connection to reach it.
func (g *Guard) checkResolved(ctx context.Context, host string) error {
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("netguard: resolve %s: %w", host, err)
		}
		// The resolver's error is not shown: it may name internal DNS
		// servers.
		var de *net.DNSError
		if errors.As(err, &de) && de.IsNotFound {
			return refusal(fmt.Sprintf("the host %s does not exist (no DNS record)", host),
				fmt.Sprintf("l'hôte %s n'existe pas (aucun enregistrement DNS)", host))
		}
		return refusal(fmt.Sprintf("the host %s could not be resolved", host),
			fmt.Sprintf("l'hôte %s n'a pas pu être résolu", host))
	}
	if len(addrs) == 0 {
		return refusal(fmt.Sprintf("the host %s resolves to no address", host),
			fmt.Sprintf("l'hôte %s ne se résout en aucune adresse", host))
	}
	for _, a := range addrs {
		en, fr := g.refused(a)
		if en == "" || g.devLoopbackHost(host) && g.loopbackAllowed(a) {
			continue
		}
		among, parmi := "", ""
		if len(addrs) > 1 {
			among = fmt.Sprintf(" (one of its %d addresses)", len(addrs))
			parmi = fmt.Sprintf(" (une de ses %d adresses)", len(addrs))
		}
		return refusal(fmt.Sprintf("the host %s resolves to %s, %s%s", host, a, en, among),
			fmt.Sprintf("l'hôte %s se résout en %s, %s%s", host, a, fr, parmi))
	}
	return nil
}
