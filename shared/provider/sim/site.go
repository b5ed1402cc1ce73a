package sim

import (
	"fmt"
	"html"
	"image/color"
	"strings"

	"github.com/prospectdata/svc/shared/provider"
)

// Shares of the fixture websites' features, drawn per site.
const (
	siteRefused = 0.03 // connection refused on every request
	siteBroken  = 0.02 // 500 on every page
	siteGmail   = 0.20 // a webmail address (gmail.com, orange.fr, web.de…) instead of one on its domain
	siteNoEmail = 0.05 // no address at all
	// Of the sites with an address on their domain, the share that also
	// publish a person's (prenom.nom@, on the contact page) and a second
	// role address (devis@, reservation@…).
	sitePersonal = 0.30
	siteSecond   = 0.12
	siteNoRobots = 0.03 // robots.txt disallows everything
	// A listing without phone gets one on its site this often: what
	// enrichment finds that the map lacks.
	siteExtraPhone = 0.5
)

// The site's technologies, as a fingerprinting module would see them.
const (
	techWordPress = "WordPress"
	techWix       = "Wix"
	techShopify   = "Shopify"
	techGA        = "Google Analytics"
	techGTM       = "Google Tag Manager"
	techPixel     = "Facebook Pixel"
)

// site is a place's generated website.
type site struct {
	host  string
	fr    bool
	place provider.Place
	town  string
	phone string
	// email is the address the site shows on every page (its main one,
	// "" for none); more are the others its contact page adds (a
	// person's, a second role).
	email   string
	more    []string
	social  []string
	tech    []string
	gaID    string
	gtmID   string
	year    int
	legal   *legalInfo
	robots  string
	refused bool
	broken  bool
	// logo says the site shows a logo in its header and a favicon, drawn
	// in its brand colours.
	logo          bool
	brand, brand2 color.RGBA
}

// legalInfo is the publisher of a French site (mentions légales).
type legalInfo struct {
	company, form, capital, siren, siret, vat, director string
	spacedSiret                                         bool
}

// site builds the website of the batch's i-th place on day d.
func (w *World) site(b *batch, i int, c *category, d int) site {
	p := w.place(b, i, c, d)
	k := b.placeKey(i).str("site")
	r := k.rng()
	host := strings.TrimSuffix(strings.TrimPrefix(p.Website, "https://"), "/")
	wh := w.whereOf(b, i)
	s := site{host: host, fr: langOf(b.s.country) == langFR, place: p, town: wh.town, phone: p.Phone,
		year: w.Date(d).Year()}
	dead := r.float()
	s.refused, s.broken = dead < siteRefused, dead >= siteRefused && dead < siteRefused+siteBroken
	if s.phone == "" && r.chance(siteExtraPhone) {
		s.phone = nationalPhone(&r, wh.conv, r.chance(phoneMobile))
	}
	l := langOf(b.s.country)
	switch u := r.float(); {
	case u < siteNoEmail:
	case u < siteNoEmail+siteGmail:
		wr := k.str("webmail").rng()
		s.email = strings.ReplaceAll(slug(p.Name, 24), "-", "") + fmt.Sprintf("%02d", r.intn(100)) + "@" + pick(&wr, webmailOf(b.s.country))
	default:
		s.email = pick(&r, roleLocals[l]) + "@" + host
		// Drawn from keys of their own, so that what follows (the legal
		// identity above all) is the same as before these were added.
		if sr := k.str("second").rng(); sr.chance(siteSecond) {
			if second := pick(&sr, secondLocals[l]) + "@" + host; second != s.email {
				s.more = append(s.more, second)
			}
		}
	}
	s.social = socialLinks(&r, k.str("more social").rng(), slug(p.Name, 30))
	s.tech, s.gaID = technologies(&r)
	s.gtmID = "GTM-" + strings.ToUpper(lowerBase32.EncodeToString([]byte{byte(r.next()), byte(r.next()), byte(r.next()), byte(r.next())})[:7])
	if b.s.country == "FRA" {
		s.legal = legalOf(&r, p.Name, c)
	}
	// A person's address, on the site's domain: the director of a French
	// site's publisher (whose mailbox the world's mail knows), the owner
	// elsewhere.
	if strings.HasSuffix(s.email, "@"+host) && k.str("personal").float() < sitePersonal {
		pr := k.str("personal").rng()
		first, last := pick(&pr, firstNames[l]), pick(&pr, surnames[l])
		if s.legal != nil {
			first, last, _ = strings.Cut(s.legal.director, " ")
		}
		s.more = append(s.more, slug(first, 30)+"."+slug(last, 30)+"@"+host)
	}
	s.robots = robotsTxt(&r, host, s.tech)
	s.logo = r.chance(siteLogo)
	s.brand, s.brand2 = brandOf(&r)
	return s
}

// socialLinks draws the site's social profiles: none on about a third of
// sites, one to several on the others, Facebook and Instagram first.
func socialLinks(r *rng, extra rng, handle string) []string {
	var out []string
	if r.chance(0.45) {
		out = append(out, "https://www.facebook.com/"+handle)
	}
	if r.chance(0.35) {
		out = append(out, "https://www.instagram.com/"+strings.ReplaceAll(handle, "-", "_")+"/")
	}
	if r.chance(0.20) {
		out = append(out, "https://www.linkedin.com/company/"+handle)
	}
	// Drawn from a stream of their own (extra), so that the profiles
	// above stay those of the sites before these networks were added.
	if extra.chance(0.06) {
		out = append(out, "https://www.tiktok.com/@"+strings.ReplaceAll(handle, "-", "."))
	}
	if extra.chance(0.05) {
		out = append(out, "https://www.youtube.com/@"+strings.ReplaceAll(handle, "-", ""))
	}
	if extra.chance(0.04) {
		out = append(out, "https://x.com/"+strings.ReplaceAll(handle, "-", "_"))
	}
	return out
}

// webmailOf are the public webmail domains of a country's small
// businesses, the most common first (listed again to weigh it).
func webmailOf(country string) []string {
	if ds, ok := webmailDomains[country]; ok {
		return ds
	}
	return webmailDomains[""]
}

var webmailDomains = map[string][]string{
	"FRA": {"gmail.com", "gmail.com", "gmail.com", "orange.fr", "wanadoo.fr", "free.fr", "laposte.net", "hotmail.fr", "sfr.fr"},
	"DEU": {"gmail.com", "web.de", "web.de", "gmx.de", "gmx.de", "t-online.de"},
	"ESP": {"gmail.com", "gmail.com", "hotmail.es", "yahoo.es", "telefonica.net"},
	"ITA": {"gmail.com", "gmail.com", "libero.it", "virgilio.it", "alice.it"},
	"GBR": {"gmail.com", "gmail.com", "btinternet.com", "yahoo.co.uk", "outlook.com"},
	"":    {"gmail.com", "gmail.com", "yahoo.com", "outlook.com", "aol.com", "hotmail.com"},
}

// roleLocals are the main role addresses of a site by language
// (contact@, info@…); secondLocals a second one some sites add.
var (
	roleLocals = [...][]string{
		langFR: {"contact", "contact", "contact", "contact", "accueil", "bonjour", "info"},
		langEN: {"info", "info", "hello", "enquiries", "office"},
		langDE: {"info", "info", "info", "mail", "office"},
		langES: {"info", "info", "contacto", "hola"},
		langIT: {"info", "info", "info", "contatti"},
	}
	secondLocals = [...][]string{
		langFR: {"devis", "reservation", "commande", "secretariat", "compta"},
		langEN: {"bookings", "sales", "accounts"},
		langDE: {"buchhaltung", "bestellung", "termine"},
		langES: {"reservas", "pedidos", "administracion"},
		langIT: {"prenotazioni", "ordini", "amministrazione"},
	}
)

// technologies draws the site's builder and trackers, and its Google
// Analytics measurement id.
func technologies(r *rng) ([]string, string) {
	var tech []string
	switch u := r.float(); {
	case u < 0.35:
		tech = append(tech, techWordPress)
	case u < 0.45:
		tech = append(tech, techWix)
	case u < 0.50:
		tech = append(tech, techShopify)
	}
	ga := ""
	if r.chance(0.4) {
		tech = append(tech, techGA)
		ga = fmt.Sprintf("G-%s", strings.ToUpper(lowerBase32.EncodeToString([]byte{byte(r.next()), byte(r.next()), byte(r.next()), byte(r.next()), byte(r.next()), byte(r.next())})[:10]))
	}
	if r.chance(0.15) {
		tech = append(tech, techGTM)
	}
	if r.chance(0.10) {
		tech = append(tech, techPixel)
	}
	return tech, ga
}

// legalOf draws the publisher of a French site: its legal form and name,
// capital, SIREN (9 digits, Luhn-valid), SIRET (the SIREN and a 5-digit
// establishment number, Luhn-valid over 14 digits) and VAT number.
func legalOf(r *rng, name string, c *category) *legalInfo {
	form := pick(r, c.legal)
	siren := luhnComplete(fmt.Sprintf("%08d", r.intn(1e8)))
	for siren[0] == '0' {
		siren = luhnComplete(fmt.Sprintf("%08d", r.intn(1e8)))
	}
	siret := luhnComplete(siren + fmt.Sprintf("%04d", 1+r.intn(60)))
	l := &legalInfo{form: form, siren: siren, siret: siret, spacedSiret: r.chance(0.5),
		vat: fmt.Sprintf("FR%02d%s", (12+3*(atoi(siren)%97))%97, siren)}
	l.company = strings.ToUpper(name)
	if r.chance(0.3) {
		l.company = strings.ToUpper(pick(r, surnames[langFR])) + " " + pick(r, []string{"ET FILS", "DÉVELOPPEMENT", "HOLDING", "ET ASSOCIÉS"})
	}
	if form != "EI" {
		l.capital = pick(r, []string{"1 000 €", "5 000 €", "7 622,45 €", "10 000 €", "15 000 €", "50 000 €", "100 €"})
	}
	l.director = pick(r, firstNames[langFR]) + " " + pick(r, surnames[langFR])
	return l
}

// luhnComplete appends the digit that makes s pass the Luhn check.
func luhnComplete(s string) string {
	for d := byte('0'); d <= '9'; d++ {
		if luhnValid(s + string(d)) {
			return s + string(d)
		}
	}
	panic("unreachable: some digit completes every Luhn sum")
}

// luhnValid is the Luhn check of SIREN and SIRET numbers.
func luhnValid(s string) bool {
	sum := 0
	for i := range len(s) {
		c := s[len(s)-1-i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return len(s) > 0 && sum%10 == 0
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func robotsTxt(r *rng, host string, tech []string) string {
	if r.chance(siteNoRobots) {
		return "User-agent: *\nDisallow: /\n"
	}
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	if len(tech) > 0 && tech[0] == techWordPress {
		b.WriteString("Disallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n")
	} else {
		b.WriteString("Disallow:\n")
	}
	b.WriteString("\nSitemap: https://" + host + "/sitemap.xml\n")
	return b.String()
}

// pages are the site's paths.
func (s *site) pages() []string {
	ps := []string{"/", "/contact"}
	if s.legal != nil {
		ps = append(ps, "/mentions-legales")
	}
	return ps
}

// t picks the French or English text.
func (s *site) t(fr, en string) string {
	if s.fr {
		return fr
	}
	return en
}

func (s *site) has(tech string) bool {
	for _, t := range s.tech {
		if t == tech {
			return true
		}
	}
	return false
}

// page renders one of the site's HTML pages around its main content.
func (s *site) page(title, main string) string {
	e := html.EscapeString
	var b strings.Builder
	lang := s.t("fr", "en")
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=%q>\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", lang, e(title))
	fmt.Fprintf(&b, "<meta name=\"description\" content=\"%s\">\n", e(s.place.Name+" – "+s.place.Address))
	s.head(&b)
	if s.logo {
		b.WriteString("<link rel=\"icon\" type=\"image/png\" sizes=\"32x32\" href=\"/favicon.png\">\n")
	}
	b.WriteString("</head>\n<body>\n<header>\n")
	if s.logo {
		fmt.Fprintf(&b, "<a href=\"/\" class=\"brand\"><img class=\"logo\" src=\"/logo.png\" width=\"240\" height=\"80\" alt=\"%s\"></a>\n", e(s.place.Name))
	}
	fmt.Fprintf(&b, "<h1>%s</h1>\n<nav><a href=\"/\">%s</a> | <a href=\"/contact\">Contact</a>", e(s.place.Name), s.t("Accueil", "Home"))
	if s.legal != nil {
		b.WriteString(" | <a href=\"/mentions-legales\">Mentions légales</a>")
	}
	b.WriteString("</nav>\n</header>\n<main>\n")
	b.WriteString(main)
	b.WriteString("</main>\n<footer>\n")
	for _, u := range s.social {
		fmt.Fprintf(&b, "<a href=\"%s\" rel=\"noopener\">%s</a>\n", e(u), e(socialName(u)))
	}
	fmt.Fprintf(&b, "<p>© %d %s</p>\n", s.year, e(s.place.Name))
	b.WriteString("</footer>\n")
	if s.has(techShopify) {
		b.WriteString("<script>window.Shopify = window.Shopify || {}; Shopify.shop = \"" + e(s.host) + "\";</script>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// head writes the fingerprints of the site's technologies.
func (s *site) head(b *strings.Builder) {
	if s.has(techWordPress) {
		b.WriteString("<meta name=\"generator\" content=\"WordPress 6.5.2\">\n")
		b.WriteString("<link rel=\"stylesheet\" href=\"/wp-content/themes/astra/style.css?ver=4.6.1\">\n")
		b.WriteString("<script src=\"/wp-includes/js/jquery/jquery.min.js?ver=3.7.1\"></script>\n")
	}
	if s.has(techWix) {
		b.WriteString("<meta name=\"generator\" content=\"Wix.com Website Builder\">\n")
		b.WriteString("<link rel=\"preconnect\" href=\"https://static.parastorage.com\">\n")
	}
	if s.has(techShopify) {
		b.WriteString("<link rel=\"stylesheet\" href=\"https://cdn.shopify.com/s/files/1/0000/0001/t/1/assets/theme.css\">\n")
	}
	if s.has(techGA) {
		fmt.Fprintf(b, "<script async src=\"https://www.googletagmanager.com/gtag/js?id=%s\"></script>\n", s.gaID)
		fmt.Fprintf(b, "<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);} gtag('js', new Date()); gtag('config', '%s');</script>\n", s.gaID)
	}
	if s.has(techGTM) {
		b.WriteString("<script>(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':new Date().getTime(),event:'gtm.js'});})(window,document,'script','dataLayer','" + s.gtmID + "');</script>\n")
	}
	if s.has(techPixel) {
		b.WriteString("<script>!function(f,b,e,v,n,t,s){}(window, document,'script','https://connect.facebook.net/en_US/fbevents.js'); fbq('init', '1234567890'); fbq('track', 'PageView');</script>\n")
	}
}

func socialName(u string) string {
	switch {
	case strings.Contains(u, "facebook.com"):
		return "Facebook"
	case strings.Contains(u, "instagram.com"):
		return "Instagram"
	}
	return "LinkedIn"
}

// contactBlock is the address, phone and email, as both pages show them.
func (s *site) contactBlock() string {
	e := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "<address>\n%s<br>\n", e(s.place.Address))
	if s.phone != "" {
		fmt.Fprintf(&b, "%s <a href=\"tel:%s\">%s</a><br>\n", s.t("Tél. :", "Phone:"), strings.ReplaceAll(s.phone, " ", ""), e(s.phone))
	}
	if s.email != "" {
		fmt.Fprintf(&b, "%s <a href=\"mailto:%s\">%s</a>\n", s.t("E-mail :", "Email:"), e(s.email), e(s.email))
	}
	b.WriteString("</address>\n")
	return b.String()
}

// moreEmails lists the contact page's other addresses.
func (s *site) moreEmails() string {
	if len(s.more) == 0 {
		return ""
	}
	e := html.EscapeString
	var b strings.Builder
	b.WriteString("<ul class=\"team\">\n")
	for _, m := range s.more {
		fmt.Fprintf(&b, "<li><a href=\"mailto:%s\">%s</a></li>\n", e(m), e(m))
	}
	b.WriteString("</ul>\n")
	return b.String()
}

func (s *site) home() string {
	e := html.EscapeString
	what := s.place.Name
	if s.place.Category != "" {
		what += ", " + strings.ToLower(s.place.Category)
	}
	main := fmt.Sprintf("<p>%s %s %s %s.</p>\n", s.t("Bienvenue chez", "Welcome to"), e(what), s.t("à", "in"), e(s.town)) +
		s.contactBlock() +
		fmt.Sprintf("<p><a href=\"/contact\">%s</a></p>\n", s.t("Nous contacter", "Contact us"))
	return s.page(s.place.Name, main)
}

func (s *site) contact() string {
	main := "<h2>Contact</h2>\n" + s.contactBlock() + s.moreEmails() +
		fmt.Sprintf("<p>%s</p>\n", s.t("Ouvert du mardi au samedi, de 9 h à 19 h.", "Open Tuesday to Saturday, 9am to 7pm.")) +
		"<form method=\"post\" action=\"/contact\">\n<input type=\"text\" name=\"name\">\n<input type=\"email\" name=\"email\">\n<textarea name=\"message\"></textarea>\n<button type=\"submit\">" + s.t("Envoyer", "Send") + "</button>\n</form>\n"
	return s.page("Contact – "+s.place.Name, main)
}

func (s *site) legalPage() string {
	e := html.EscapeString
	l := s.legal
	siret := l.siret
	if l.spacedSiret {
		siret = l.siret[:3] + " " + l.siret[3:6] + " " + l.siret[6:9] + " " + l.siret[9:]
	}
	var b strings.Builder
	b.WriteString("<h2>Mentions légales</h2>\n<h3>Éditeur du site</h3>\n")
	fmt.Fprintf(&b, "<p>Le site %s est édité par %s, %s", e(s.host), e(l.company), e(l.form))
	if l.capital != "" {
		fmt.Fprintf(&b, " au capital de %s", e(l.capital))
	}
	fmt.Fprintf(&b, ", immatriculée au RCS de %s sous le numéro %s.</p>\n", e(s.town), l.siren[:3]+" "+l.siren[3:6]+" "+l.siren[6:])
	fmt.Fprintf(&b, "<p>SIREN : %s<br>\nSIRET : %s<br>\nN° TVA intracommunautaire : %s</p>\n", l.siren, siret, l.vat)
	fmt.Fprintf(&b, "<p>Siège social : %s</p>\n", e(s.place.Address))
	fmt.Fprintf(&b, "<p>Directeur de la publication : %s</p>\n", e(l.director))
	b.WriteString("<h3>Hébergement</h3>\n<p>Sim Hébergement SAS, 1 rue de l'Exemple, 75000 Paris (site simulé).</p>\n")
	return s.page("Mentions légales – "+s.place.Name, b.String())
}

func (s *site) sitemap() string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for _, p := range s.pages() {
		fmt.Fprintf(&b, "<url><loc>https://%s%s</loc></url>\n", s.host, p)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func (s *site) notFound() string {
	return s.page(s.t("Page introuvable", "Page not found"), "<p>"+s.t("Cette page n'existe pas.", "This page does not exist.")+"</p>\n")
}
