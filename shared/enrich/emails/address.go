package emails

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// addressRe finds an address in plain text. Domain labels cannot end with a
// dot or a hyphen, so trailing punctuation ("écrivez à contact@x.fr.") stays
// out of the match.
var addressRe = regexp.MustCompile(`(?i)[a-z0-9!#$%&'*+/=?^_{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}\b`)

// wholeAddressRe checks a candidate taken from an attribute or JSON field.
var wholeAddressRe = regexp.MustCompile(`(?i)^[a-z0-9!#$%&'*+/=?^_{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}$`)

// hexLocalRe matches the hashes tracking tools use as a local part (Sentry
// DSN keys, Wix ids).
var hexLocalRe = regexp.MustCompile(`^[0-9a-f]{16,}$`)

// assetExts are file extensions that turn "logo@2x.png" into something
// shaped like an address.
var assetExts = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "webp": true, "svg": true,
	"avif": true, "bmp": true, "ico": true, "tif": true, "tiff": true, "css": true,
	"js": true, "mjs": true, "json": true, "map": true, "woff": true, "woff2": true,
	"ttf": true, "eot": true, "otf": true, "mp4": true, "webm": true, "pdf": true,
	"php": true, "html": true, "htm": true, "xml": true, "txt": true,
}

// placeholderDomains are the registrable domains (or their first label)
// that forms and templates use as examples.
var placeholderDomains = map[string]bool{
	"example": true, "exemple": true, "domain": true, "domaine": true,
	"yourdomain": true, "your-domain": true, "votredomaine": true, "votre-domaine": true,
	"mondomaine": true, "mon-domaine": true, "nomdedomaine": true, "yoursite": true,
	"votresite": true, "yourcompany": true, "votresociete": true, "votreentreprise": true,
	"societe": true, "entreprise": true, "test": true, "sample": true, "email": true,
	"monemail": true, "votremail": true, "mail-exemple": true, "adresse": true,
}

// placeholderLocals are local parts that only appear in examples.
var placeholderLocals = map[string]bool{
	"votre": true, "vous": true, "you": true, "your": true, "yourname": true, "your.name": true,
	"votrenom": true, "votre.nom": true, "votre-nom": true, "nom": true, "prenom": true,
	"prenom.nom": true, "nom.prenom": true, "name": true, "firstname": true,
	"firstname.lastname": true, "first.last": true, "user": true, "username": true,
	"utilisateur": true, "xxx": true, "xxxx": true, "xyz": true, "john.doe": true,
	"jane.doe": true, "johndoe": true, "janedoe": true, "john": true, "jdoe": true,
	"john.smith": true, "votre.email": true, "votre.adresse": true, "votreadresse": true,
	"votremail": true, "votre-email": true, "monadresse": true, "mon.adresse": true,
	"adresse": true, "adresse.mail": true, "test": true, "exemple": true, "example": true,
	"email": true, "votre_email": true, "your.email": true, "youremail": true,
}

// toolingDomains send mail for a tool the site embeds, not for the business.
var toolingDomains = []string{
	"sentry.io", "sentry-next.wixpress.com", "wixpress.com", "sentry.wixpress.com",
	"parastorage.com", "wix.com", "ingest.sentry.io",
}

// toolingAddresses are whole addresses a CMS writes on its own.
var toolingAddresses = map[string]bool{
	"noreply@wordpress.com": true, "noreply@wordpress.org": true, "wordpress@wordpress.org": true,
	"no-reply@wordpress.com": true, "support@wordpress.com": true,
}

// normalize lower-cases the domain of a raw candidate, strips what commonly
// wraps it and reports whether it is a real contact address.
func normalize(raw string) (string, bool) { return normalizeOn(raw, "") }

// normalizeOn is normalize for an address shown on a page of host: an
// address at that host (or a domain above it) is kept even under a TLD
// the public suffix list does not know, since the page was served from
// there (an intranet's, or a test world's, own domain).
func normalizeOn(raw, host string) (string, bool) {
	s := strings.TrimSpace(raw)
	s = strings.Trim(s, ".,;:!?'\"()[]{}<>«»")
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return "", false
	}
	if !wholeAddressRe.MatchString(s) {
		return "", false
	}
	at := strings.LastIndexByte(s, '@')
	local, domain := s[:at], strings.ToLower(s[at+1:])
	addr := local + "@" + domain
	if len(local) > 64 || len(addr) > 254 {
		return "", false
	}
	if !(validDomain(domain) || ownDomain(domain, host)) || isAsset(local, domain) || isPlaceholder(local, domain) || isTooling(local, domain) {
		return "", false
	}
	return addr, true
}

// validDomain keeps domains under a TLD the public suffix list knows.
func validDomain(domain string) bool {
	suffix, icann := publicsuffix.PublicSuffix(domain)
	if !icann && !strings.Contains(suffix, ".") {
		return false
	}
	return domain != suffix
}

// ownDomain tells whether domain is host or a parent of it with at least
// two labels.
func ownDomain(domain, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host != "" && strings.Contains(domain, ".") && (host == domain || strings.HasSuffix(host, "."+domain))
}

func tld(domain string) string {
	return domain[strings.LastIndexByte(domain, '.')+1:]
}

// isAsset spots retina image names ("logo@2x.png") and other file names.
func isAsset(local, domain string) bool {
	if assetExts[tld(domain)] {
		return true
	}
	first := domain[:strings.IndexByte(domain, '.')]
	return strings.HasSuffix(first, "x") && strings.Trim(first[:len(first)-1], "0123456789") == "" && len(first) > 1
}

func isPlaceholder(local, domain string) bool {
	l := strings.ToLower(local)
	if placeholderLocals[l] {
		return true
	}
	reg, err := publicsuffix.EffectiveTLDPlusOne(domain)
	if err != nil {
		return true
	}
	label := reg[:strings.IndexByte(reg, '.')]
	if placeholderDomains[label] {
		return true
	}
	return strings.HasPrefix(domain, "example.") || strings.Contains(domain, ".example.")
}

func isTooling(local, domain string) bool {
	l := strings.ToLower(local)
	if toolingAddresses[l+"@"+domain] {
		return true
	}
	for _, d := range toolingDomains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	if strings.Contains(domain, "sentry") || strings.Contains(l, "sentry") {
		return true
	}
	return hexLocalRe.MatchString(l)
}

// registrable is the domain a site or address belongs to ("www.a.fr" and
// "mail.a.fr" both give "a.fr").
func registrable(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if r, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return r
	}
	return host
}

// siteHost is the site's host without port, "" for a nil URL.
func siteHost(u *url.URL) string {
	if u == nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
