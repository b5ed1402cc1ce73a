package netguard

import (
	"fmt"
	"net/netip"

	"code.dny.dev/ssrf"
)

// cloudMetadata are the cloud metadata addresses code.dny.dev/ssrf does
// not deny by itself. The others it already denies (TestMetadataCoverage
// checks each claim against the library):
//   - AWS, GCP, Azure IMDS, Oracle, DigitalOcean, OpenStack: 169.254.169.254
//     (metadata.google.internal resolves there), and AWS ECS 169.254.170.2:
//     IPv4 link-local, 169.254.0.0/16.
//   - AWS fd00:ec2::254 and GCP fd20:ce::254: unique-local IPv6, outside
//     2000::/3 (global unicast), which the library denies as a whole.
//   - Alibaba 100.100.100.200: shared address space (CGNAT), 100.64.0.0/10.
//   - Oracle 192.0.0.192: IETF protocol assignments, 192.0.0.0/24.
//
// Azure's wire server, 168.63.129.16, is an ordinary public address in
// the registries, yet from inside Azure it serves platform and guest agent
// data: denied here.
var cloudMetadata = []netip.Prefix{
	netip.MustParsePrefix("168.63.129.16/32"),
}

// addrClass names a range of refused addresses for the user. The decision
// is the library's (allowed); this table only explains it, most specific
// first, so it may have gaps: describe falls back to a generic name.
type addrClass struct {
	prefix netip.Prefix
	en, fr string
	// embed is the IPv4 address an IPv6 form carries, so the message says
	// which address it stands for; nil when it carries none.
	embed func(netip.Addr) netip.Addr
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// last4 is the IPv4 address in the low 32 bits (mapped, compatible, NAT64).
func last4(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte(b[12:16]))
}

// sixToFour is the IPv4 address in bits 16 to 47 of a 6to4 address.
func sixToFour(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte(b[2:6]))
}

var addrClasses = []addrClass{
	// Cloud metadata first: the user should learn the address is the
	// metadata service, not merely "link-local".
	{prefix: pfx("169.254.169.254/32"), en: "the cloud metadata address (AWS, GCP, Azure, Oracle and others)", fr: "l'adresse des métadonnées cloud (AWS, GCP, Azure, Oracle et d'autres)"},
	{prefix: pfx("169.254.170.2/32"), en: "the AWS container metadata address", fr: "l'adresse des métadonnées de conteneur AWS"},
	{prefix: pfx("fd00:ec2::254/128"), en: "the AWS IPv6 metadata address", fr: "l'adresse IPv6 des métadonnées AWS"},
	{prefix: pfx("fd20:ce::254/128"), en: "the GCP IPv6 metadata address", fr: "l'adresse IPv6 des métadonnées GCP"},
	{prefix: pfx("100.100.100.200/32"), en: "the Alibaba Cloud metadata address", fr: "l'adresse des métadonnées Alibaba Cloud"},
	{prefix: pfx("192.0.0.192/32"), en: "the Oracle Cloud metadata address", fr: "l'adresse des métadonnées Oracle Cloud"},
	{prefix: pfx("168.63.129.16/32"), en: "the Azure platform (wire server) address", fr: "l'adresse de la plateforme Azure (wire server)"},

	{prefix: pfx("0.0.0.0/32"), en: "the unspecified address", fr: "l'adresse non spécifiée"},
	{prefix: pfx("0.0.0.0/8"), en: `a "this network" address`, fr: "une adresse « ce réseau »"},
	{prefix: pfx("127.0.0.0/8"), en: "a loopback address", fr: "une adresse de bouclage"},
	{prefix: pfx("10.0.0.0/8"), en: "a private address", fr: "une adresse privée"},
	{prefix: pfx("172.16.0.0/12"), en: "a private address", fr: "une adresse privée"},
	{prefix: pfx("192.168.0.0/16"), en: "a private address", fr: "une adresse privée"},
	{prefix: pfx("100.64.0.0/10"), en: "a shared (carrier-grade NAT) address", fr: "une adresse partagée (NAT d'opérateur)"},
	{prefix: pfx("169.254.0.0/16"), en: "a link-local address", fr: "une adresse lien-local"},
	{prefix: pfx("192.0.0.0/24"), en: "an IETF protocol address", fr: "une adresse de protocole IETF"},
	{prefix: pfx("192.0.2.0/24"), en: "a documentation address", fr: "une adresse de documentation"},
	{prefix: pfx("198.51.100.0/24"), en: "a documentation address", fr: "une adresse de documentation"},
	{prefix: pfx("203.0.113.0/24"), en: "a documentation address", fr: "une adresse de documentation"},
	{prefix: pfx("198.18.0.0/15"), en: "a benchmarking address", fr: "une adresse de test de performance"},
	{prefix: pfx("255.255.255.255/32"), en: "the broadcast address", fr: "l'adresse de diffusion"},
	{prefix: pfx("224.0.0.0/4"), en: "a multicast address", fr: "une adresse multicast"},
	{prefix: pfx("240.0.0.0/4"), en: "a reserved address", fr: "une adresse réservée"},

	{prefix: pfx("::/128"), en: "the unspecified address", fr: "l'adresse non spécifiée"},
	{prefix: pfx("::1/128"), en: "a loopback address", fr: "une adresse de bouclage"},
	{prefix: pfx("::ffff:0:0/96"), en: "an IPv4-mapped IPv6 address", fr: "une adresse IPv6 mappée IPv4", embed: last4},
	{prefix: pfx("::/96"), en: "an IPv4-compatible IPv6 address", fr: "une adresse IPv6 compatible IPv4", embed: last4},
	{prefix: pfx("64:ff9b::/96"), en: "a NAT64 address", fr: "une adresse NAT64", embed: last4},
	{prefix: pfx("64:ff9b:1::/48"), en: "a local NAT64 address", fr: "une adresse NAT64 locale"},
	{prefix: pfx("100::/64"), en: "a discard-only address", fr: "une adresse de rejet"},
	{prefix: pfx("fe80::/10"), en: "a link-local address", fr: "une adresse lien-local"},
	{prefix: pfx("fec0::/10"), en: "a site-local address", fr: "une adresse site-local"},
	{prefix: pfx("fc00::/7"), en: "a unique local (private) address", fr: "une adresse locale unique (privée)"},
	{prefix: pfx("ff00::/8"), en: "a multicast address", fr: "une adresse multicast"},
	{prefix: pfx("2002::/16"), en: "a 6to4 address", fr: "une adresse 6to4", embed: sixToFour},
	{prefix: pfx("2001::/32"), en: "a Teredo address", fr: "une adresse Teredo"},
	{prefix: pfx("2001:db8::/32"), en: "a documentation address", fr: "une adresse de documentation"},
	{prefix: pfx("3fff::/20"), en: "a documentation address", fr: "une adresse de documentation"},
	{prefix: pfx("2001::/23"), en: "an IETF protocol address", fr: "une adresse de protocole IETF"},
}

// refused tells whether the guard refuses the address, and why, in words
// that complete "… is …": "a loopback address". An empty reason means
// allowed.
func (g *Guard) refused(a netip.Addr) (en, fr string) {
	switch {
	case !a.IsValid():
		return "not a valid address", "pas une adresse valide"
	case a.Zone() != "":
		// Zones only scope link-local and other non-global addresses;
		// the library reads the address without its zone.
		return fmt.Sprintf("a scoped address (zone %s)", a.Zone()), fmt.Sprintf("une adresse à portée locale (zone %s)", a.Zone())
	}
	if g.ssrf.SafeAddr(a) == nil {
		return "", ""
	}
	return describe(a)
}

// describe names the class of a refused address.
func describe(a netip.Addr) (en, fr string) {
	for _, c := range addrClasses {
		if !c.prefix.Contains(a) {
			continue
		}
		if c.embed == nil {
			return c.en, c.fr
		}
		v4 := c.embed(a)
		en, fr = c.en+" of "+v4.String(), c.fr+" de "+v4.String()
		// Say what the embedded address is when it is itself internal.
		if inEN, inFR := classOf4(v4); inEN != "" {
			en, fr = en+", "+inEN, fr+", "+inFR
		}
		return en, fr
	}
	if a.Is6() && !ssrf.IPv6GlobalUnicast.Contains(a) {
		return "outside the IPv6 global unicast range (2000::/3)", "hors de la plage IPv6 unicast globale (2000::/3)"
	}
	return "a special-purpose address", "une adresse à usage spécial"
}

// classOf4 names the class of an IPv4 address, or "" when none matches.
func classOf4(a netip.Addr) (en, fr string) {
	for _, c := range addrClasses {
		if c.prefix.Addr().Is4() && c.prefix.Contains(a) {
			return c.en, c.fr
		}
	}
	return "", ""
}

// CheckAddr refuses, with a *Refusal, an address the guard does not allow.
func (g *Guard) CheckAddr(a netip.Addr) error {
	if en, fr := g.refused(a); en != "" {
		return &Refusal{EN: fmt.Sprintf("the address %s is %s", a, en), FR: fmt.Sprintf("l'adresse %s est %s", a, fr)}
	}
	return nil
}
