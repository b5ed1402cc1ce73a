package deadsite

import (
	"net/url"
	"strings"
)

// field is where a signature's phrase is looked for.
type field int

const (
	inTitle    field = iota
	inHeadings       // the main heading (h1, else the first h2)
	inTop            // title or main heading
	inText           // visible text (headings included)
	inResource       // an address the page loads or links to
)

// signature is one known dead page: a folded phrase (lower case, no
// accents, straight apostrophes) in a field, optionally a second phrase
// anywhere in the text, and the most words the page may have for the
// phrase to count (0: any length) so that a real site quoting it is not
// taken for it.
type signature struct {
	reason   string
	where    field
	phrase   string
	also     string
	maxWords int
}

// Page-length bounds: dead pages are short; real sites rarely are this
// short and also say these words.
const (
	short    = 150
	medium   = 350
	longPage = 800
)

// signatures are checked in order; the first that matches gives the
// reason. Suspended comes first (a suspended account may still show the
// host's branding), then sale before parking (a parking page that says
// the domain is for sale is a sale lead).
var signatures = []signature{
	// cPanel, Plesk and French hosts' suspension pages.
	{ReasonSuspended, inResource, "/cgi-sys/suspendedpage.cgi", "", 0},
	{ReasonSuspended, inTop, "account suspended", "", medium},
	{ReasonSuspended, inTop, "site suspendu", "", medium},
	{ReasonSuspended, inTop, "compte suspendu", "", medium},
	{ReasonSuspended, inText, "ce site a ete suspendu", "", medium},
	{ReasonSuspended, inText, "this account has been suspended", "", medium},
	{ReasonSuspended, inText, "this site has been suspended", "", medium},
	{ReasonSuspended, inText, "hebergement a ete suspendu", "", medium},
	// Site builders' lapsed subscriptions.
	{ReasonSuspended, inText, "this store is unavailable", "", short},               // Shopify
	{ReasonSuspended, inText, "this shop is currently unavailable", "", short},      // Shopify, older
	{ReasonSuspended, inText, "cette boutique est indisponible", "", short},         // Shopify, French
	{ReasonSuspended, inTop, "website expired", "", short},                          // Squarespace
	{ReasonSuspended, inText, "this website's subscription has expired", "", short}, // Squarespace
	{ReasonSuspended, inText, "site has expired", "", short},
	{ReasonSuspended, inText, "this site can't be reached", "wix", short}, // Wix, unpublished or lapsed

	// Domain sale: marketplaces and registrars' "for sale" landers.
	{ReasonForSale, inResource, "dan.com/", "", short},
	{ReasonForSale, inResource, "afternic.com", "", medium},
	{ReasonForSale, inResource, "hugedomains.com", "", medium},
	{ReasonForSale, inText, "this domain is for sale", "", medium},
	{ReasonForSale, inText, "domain name is for sale", "", medium},
	{ReasonForSale, inText, "is for sale", "domain", short},
	{ReasonForSale, inText, "ce nom de domaine est a vendre", "", medium},
	{ReasonForSale, inText, "ce domaine est a vendre", "", medium},
	{ReasonForSale, inText, "nom de domaine a vendre", "", medium},
	{ReasonForSale, inText, "buy this domain", "", medium},
	{ReasonForSale, inText, "acheter ce nom de domaine", "", medium},
	{ReasonForSale, inText, "acheter ce domaine", "", medium},
	{ReasonForSale, inText, "make an offer", "domain", short},
	{ReasonForSale, inText, "faire une offre", "domaine", short},

	// Ad parking: Sedo, Bodis, ParkingCrew, GoDaddy's lander and the like.
	{ReasonParked, inResource, "sedoparking.com", "", 0},
	{ReasonParked, inResource, "parkingcrew.net", "", 0},
	{ReasonParked, inResource, "bodis.com", "", 0},
	{ReasonParked, inResource, "above.com/", "", medium},
	{ReasonParked, inResource, "parklogic.com", "", 0},
	{ReasonParked, inResource, "domainsponsor.com", "", 0},
	{ReasonParked, inResource, "parking-lander", "", 0}, // GoDaddy's
	{ReasonParked, inText, "this domain is parked", "", medium},
	{ReasonParked, inText, "parked free, courtesy of", "", medium},
	{ReasonParked, inText, "ce domaine est parque", "", medium},
	{ReasonParked, inText, "this domain has expired", "", medium},
	{ReasonParked, inText, "ce nom de domaine a expire", "", medium},
	{ReasonParked, inText, "related searches", "", short},
	{ReasonParked, inText, "recherches associees", "", short},
	{ReasonParked, inText, "related links", "domain", short},

	// Web servers', hosts' and site builders' default pages.
	{ReasonDefaultPage, inTitle, "apache2 ubuntu default page", "", 0},
	{ReasonDefaultPage, inTitle, "apache2 debian default page", "", 0},
	{ReasonDefaultPage, inTitle, "test page for the apache http server", "", 0},
	{ReasonDefaultPage, inTitle, "test page for the nginx http server", "", 0},
	{ReasonDefaultPage, inTop, "welcome to nginx!", "", medium},
	{ReasonDefaultPage, inTop, "it works!", "", short},
	{ReasonDefaultPage, inTop, "index of /", "", 0},
	{ReasonDefaultPage, inTitle, "iis windows server", "", short},
	{ReasonDefaultPage, inTop, "default web site page", "", medium},     // cPanel
	{ReasonDefaultPage, inTop, "web server's default page", "", medium}, // Plesk
	{ReasonDefaultPage, inTop, "domain default page", "", medium},       // Plesk
	// o2switch's placeholder names the host and says it is the default
	// page; a real site's legal notice only names the host.
	{ReasonDefaultPage, inText, "o2switch", "page par defaut de votre hebergement", short},
	{ReasonDefaultPage, inText, "enregistre chez gandi", "", medium},
	{ReasonDefaultPage, inText, "registered with gandi", "", medium},
	{ReasonDefaultPage, inText, "vient d'etre enregistre", "", medium}, // IONOS, Gandi, OVH
	{ReasonDefaultPage, inText, "has just been registered", "", medium},
	{ReasonDefaultPage, inText, "isn't connected to a website yet", "", short}, // Wix
	{ReasonDefaultPage, inText, "n'est pas encore connecte a un site", "", short},
	{ReasonDefaultPage, inTitle, "page par defaut", "", medium},
	{ReasonDefaultPage, inTitle, "default page", "", medium},

	// Under construction, coming soon, and OVH's placeholder.
	{ReasonUnderConstruction, inText, "cette page est hebergee par ovh", "", medium},
	{ReasonUnderConstruction, inTop, "site en construction", "", longPage},
	{ReasonUnderConstruction, inTop, "en cours de construction", "", longPage},
	{ReasonUnderConstruction, inTop, "site en cours de creation", "", longPage},
	{ReasonUnderConstruction, inTop, "under construction", "", longPage},
	{ReasonUnderConstruction, inTitle, "coming soon", "", longPage},
	{ReasonUnderConstruction, inHeadings, "coming soon", "", short},
	{ReasonUnderConstruction, inHeadings, "bientot disponible", "", short},
	{ReasonUnderConstruction, inTitle, "bientot en ligne", "", longPage},
	{ReasonUnderConstruction, inHeadings, "bientot en ligne", "", short},
	{ReasonUnderConstruction, inHeadings, "launching soon", "", short},
	{ReasonUnderConstruction, inText, "future home of something quite cool", "", medium},
}

// match returns the reason of the first signature the page shows, "" for
// none.
func (s signals) match() string {
	for _, sig := range signatures {
		if sig.maxWords > 0 && s.words > sig.maxWords {
			continue
		}
		if s.has(sig.where, sig.phrase) && (sig.also == "" || strings.Contains(s.text, sig.also) || strings.Contains(s.title, sig.also)) {
			return sig.reason
		}
	}
	if s.wordpressHello() {
		return ReasonDefaultPage
	}
	return ""
}

func (s signals) has(where field, phrase string) bool {
	switch where {
	case inTitle:
		return strings.Contains(s.title, phrase)
	case inHeadings:
		return strings.Contains(s.headings, phrase)
	case inTop:
		return strings.Contains(s.title, phrase) || strings.Contains(s.headings, phrase)
	case inText:
		return strings.Contains(s.text, phrase)
	case inResource:
		return s.loads(phrase)
	}
	return false
}

// wordpressHello tells a fresh WordPress install: the sample post ("Hello
// world!", "Bonjour tout le monde !") on a short page that also keeps the
// default tagline or the sample page.
func (s signals) wordpressHello() bool {
	if s.words > medium || !(strings.Contains(s.text, "hello world!") || strings.Contains(s.text, "bonjour tout le monde")) {
		return false
	}
	for _, t := range []string{"just another wordpress site", "un site utilisant wordpress", "sample page", "page d'exemple", "welcome to wordpress", "bienvenue sur wordpress"} {
		if strings.Contains(s.text, t) || strings.Contains(s.title, t) {
			return true
		}
	}
	return false
}

// parkingHosts are domain marketplaces and parking networks a dead domain
// redirects to.
var parkingHosts = []string{"sedo.com", "sedoparking.com", "dan.com", "afternic.com", "hugedomains.com",
	"bodis.com", "parkingcrew.net", "above.com", "undeveloped.com", "atom.com", "buydomains.com",
	"domainmarket.com", "brandbucket.com", "squadhelp.com", "sav.com", "parklogic.com", "domainsponsor.com"}

// parkingHost tells whether u is a parking or sale host, GoDaddy's sale
// pages, or a Bodis-style "ww25." parking subdomain.
func parkingHost(u *url.URL) bool {
	if u == nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, h := range parkingHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	if strings.HasSuffix(host, "godaddy.com") && (strings.Contains(u.Path, "forsale") || strings.Contains(u.Path, "domainsearch")) {
		return true
	}
	for _, p := range []string{"ww1.", "ww25.", "ww38."} {
		if strings.HasPrefix(host, p) && u.RawQuery != "" {
			return true
		}
	}
	return false
}
