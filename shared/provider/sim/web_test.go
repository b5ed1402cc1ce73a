package sim_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

// webClient is an http.Client on the fixture web, not following
// redirects (so the tests see them).
func webClient(w *sim.World) *http.Client {
	return &http.Client{
		Transport:     w.Web(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// get fetches a URL, returning the status and body.
func get(t *testing.T, c *http.Client, method, url string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusMovedPermanently {
		return resp.StatusCode, resp.Header.Get("Location"), nil
	}
	return resp.StatusCode, string(body), nil
}

// sites returns the places with websites of the restaurants of central
// Lyon, and the client of their web.
func sites(t *testing.T) ([]provider.Place, *http.Client) {
	t.Helper()
	w := newWorld(t, sim.Options{})
	var out []provider.Place
	for _, p := range truth(t, w, "restaurant", simtest.CentralLyon) {
		if p.Website != "" {
			out = append(out, p)
		}
	}
	return out, webClient(w)
}

var (
	siretRe = regexp.MustCompile(`SIRET : (\d{3} ?\d{3} ?\d{3} ?\d{5})`)
	sirenRe = regexp.MustCompile(`SIREN : (\d{9})`)
	emailRe = regexp.MustCompile(`mailto:([^"]+)`)
)

// TestWebSites: every live site serves its home, contact and legal pages,
// robots.txt and sitemap; unknown paths are 404.
func TestWebSites(t *testing.T) {
	places, c := sites(t)
	live, refused, broken := 0, 0, 0
	var emails, gmails, wordpress, analytics, social int
	for _, p := range places {
		status, home, err := get(t, c, http.MethodGet, p.Website)
		if err != nil {
			var op *net.OpError
			if !errors.As(err, &op) {
				t.Errorf("%s: %v, want a connection error", p.Website, err)
			}
			refused++
			continue
		}
		if status == http.StatusInternalServerError {
			broken++
			continue
		}
		live++
		if status != http.StatusOK {
			t.Errorf("%s: status %d", p.Website, status)
			continue
		}
		for _, want := range []string{escape(p.Name), escape(p.Address), `href="/contact"`, `href="/mentions-legales"`} {
			if !strings.Contains(home, want) {
				t.Errorf("%s: home lacks %q", p.Website, want)
			}
		}
		if p.Phone != "" && !strings.Contains(home, p.Phone) {
			t.Errorf("%s: home lacks the phone %s", p.Website, p.Phone)
		}
		if m := emailRe.FindStringSubmatch(home); m != nil {
			emails++
			host := strings.Trim(strings.TrimPrefix(p.Website, "https://"), "/")
			switch local, dom, _ := strings.Cut(m[1], "@"); {
			case !strings.HasSuffix(dom, ".sim.test"):
				gmails++ // a webmail address
			case dom != host || !slices.Contains([]string{"contact", "accueil", "bonjour", "info"}, local):
				t.Errorf("%s: email %s, want a role address of its domain", p.Website, m[1])
			}
		}
		if strings.Contains(home, `content="WordPress`) {
			wordpress++
		}
		if strings.Contains(home, "googletagmanager.com/gtag/js?id=G-") {
			analytics++
		}
		if strings.Contains(home, "facebook.com/") || strings.Contains(home, "instagram.com/") || strings.Contains(home, "linkedin.com/company/") {
			social++
		}
		checkPages(t, c, p)
	}
	t.Logf("%d sites: %d live, %d refused, %d broken; of the live, %d emails (%d gmail), %d WordPress, %d Google Analytics, %d social links",
		len(places), live, refused, broken, emails, gmails, wordpress, analytics, social)
	if refused == 0 || broken == 0 {
		t.Errorf("%d refused and %d broken sites, want some of each", refused, broken)
	}
	if dead := refused + broken; dead*10 > len(places) {
		t.Errorf("%d of %d sites dead, want about 5%%", dead, len(places))
	}
	for what, n := range map[string]int{"emails": emails, "gmail": gmails, "WordPress": wordpress, "analytics": analytics, "social": social} {
		if n == 0 || (what != "emails" && n == live) {
			t.Errorf("%d of %d live sites have %s: want some, not all", n, live, what)
		}
	}
}

// checkPages checks the pages of a live site other than its home.
func checkPages(t *testing.T, c *http.Client, p provider.Place) {
	t.Helper()
	base := strings.TrimSuffix(p.Website, "/")
	if status, body, err := get(t, c, http.MethodGet, base+"/contact"); err != nil || status != 200 || !strings.Contains(body, "<form") {
		t.Errorf("%s/contact: %d %v", base, status, err)
	}
	status, legal, err := get(t, c, http.MethodGet, base+"/mentions-legales")
	if err != nil || status != 200 {
		t.Errorf("%s/mentions-legales: %d %v", base, status, err)
		return
	}
	m, n := siretRe.FindStringSubmatch(legal), sirenRe.FindStringSubmatch(legal)
	if m == nil || n == nil {
		t.Errorf("%s/mentions-legales lacks a SIRET or SIREN:\n%s", base, legal)
		return
	}
	siret := strings.ReplaceAll(m[1], " ", "")
	if !luhn(siret) || !luhn(n[1]) || !strings.HasPrefix(siret, n[1]) {
		t.Errorf("%s: SIRET %s and SIREN %s: want Luhn-valid, the SIREN starting the SIRET", base, siret, n[1])
	}
	if !strings.Contains(legal, "capital") && !strings.Contains(legal, "EI,") {
		t.Errorf("%s/mentions-legales: no capital", base)
	}
	status, robots, err := get(t, c, http.MethodGet, base+"/robots.txt")
	if err != nil || status != 200 || !strings.HasPrefix(robots, "User-agent: *\n") {
		t.Errorf("%s/robots.txt: %d %v %q", base, status, err, robots)
	}
	if status, _, err := get(t, c, http.MethodGet, base+"/sitemap.xml"); err != nil || status != 200 {
		t.Errorf("%s/sitemap.xml: %d %v", base, status, err)
	}
	if status, _, err := get(t, c, http.MethodGet, base+"/wp-login.php"); err != nil || status != 404 {
		t.Errorf("%s/wp-login.php: %d %v, want 404", base, status, err)
	}
}

// TestWebProtocol: HEAD has no body, other methods are refused, plain
// HTTP redirects to HTTPS.
func TestWebProtocol(t *testing.T) {
	places, c := sites(t)
	var site string
	for _, p := range places {
		if status, _, err := get(t, c, http.MethodGet, p.Website); err == nil && status == 200 {
			site = p.Website
			break
		}
	}
	tests := []struct {
		name, method, url string
		status            int
		body              string
	}{
		{"head", http.MethodHead, site, 200, ""},
		{"post", http.MethodPost, site + "contact", 405, "method not allowed\n"},
		{"http", http.MethodGet, strings.Replace(site, "https://", "http://", 1) + "contact?x=1", 301, site + "contact?x=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, err := get(t, c, tt.method, tt.url)
			if err != nil || status != tt.status || body != tt.body {
				t.Errorf("%s %s = %d %q %v, want %d %q", tt.method, tt.url, status, body, err, tt.status, tt.body)
			}
		})
	}
}

// TestWebUnknownHosts: hosts that are no place's site fail as DNS would.
func TestWebUnknownHosts(t *testing.T) {
	places, c := sites(t)
	site := strings.TrimPrefix(strings.TrimSuffix(places[0].Website, "/"), "https://")
	slug, token, _ := strings.Cut(site, ".")
	var noSite provider.Place
	for _, p := range truth(t, newWorld(t, sim.Options{}), "restaurant", simtest.CentralLyon) {
		if p.Website == "" {
			noSite = p
			break
		}
	}
	tests := []struct{ name, url string }{
		{"real domain", "https://example.com/"},
		{"bare sim.test", "https://sim.test/"},
		{"maps", "https://maps.sim.test/"},
		{"wrong slug", "https://other-" + slug + "." + token + "/"},
		{"bad token", "https://" + slug + ".fra-c69123-restaurant-0-0-aaaaaa.sim.test/"},
		{"place without site", "https://" + "x." + strings.TrimPrefix(noSite.ID, "sim:") + ".sim.test/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := get(t, c, http.MethodGet, tt.url)
			var dns *net.DNSError
			if !errors.As(err, &dns) || !dns.IsNotFound {
				t.Errorf("GET %s = %v, want a DNS not-found error", tt.url, err)
			}
		})
	}
}

// luhn is the Luhn check of SIREN and SIRET numbers.
func luhn(s string) bool {
	sum := 0
	for i := range len(s) {
		d := int(s[len(s)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return len(s) > 0 && sum%10 == 0
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(s)
}

// TestSiteContacts: the sites' addresses and profiles vary as small
// businesses' do, by country: some sites publish none, most a role
// address of their domain, a fifth a webmail one at the country's
// providers; some contact pages add a person's address (prenom.nom@) or a
// second role; some sites link no profile, others several.
func TestSiteContacts(t *testing.T) {
	w := newWorld(t, sim.Options{})
	c := webClient(w)
	tests := []struct {
		country  string
		lon, lat float64
		webmail  []string // some of the country's webmail domains
	}{
		{"fra", 4.8345, 45.7640, []string{"gmail.com", "orange.fr", "free.fr"}},
		{"deu", 13.405, 52.52, []string{"gmail.com", "web.de", "gmx.de"}},
		{"esp", -3.7038, 40.4168, []string{"gmail.com"}},
		{"ita", 9.19, 45.4642, []string{"gmail.com"}},
		{"gbr", -0.1276, 51.5072, []string{"gmail.com"}},
		{"usa", -73.9857, 40.7484, []string{"gmail.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.country, func(t *testing.T) {
			var live, none, own, webmail, personal, several, noSocial, manySocial int
			domains := map[string]bool{}
			for _, q := range []string{"restaurant", "coiffeur", "plombier"} {
				for _, p := range truth(t, w, q, around(tt.lon, tt.lat, 0.03)) {
					if p.Website == "" || !strings.HasPrefix(p.ID, "sim:"+tt.country+"-") {
						continue
					}
					status, page, err := get(t, c, http.MethodGet, p.Website+"contact")
					if err != nil || status != http.StatusOK {
						continue
					}
					live++
					var addrs []string
					for _, m := range emailRe.FindAllStringSubmatch(page, -1) {
						if !slices.Contains(addrs, m[1]) {
							addrs = append(addrs, m[1])
						}
					}
					host := strings.Trim(strings.TrimPrefix(p.Website, "https://"), "/")
					switch {
					case len(addrs) == 0:
						none++
					case strings.HasSuffix(addrs[0], "@"+host):
						own++
					default:
						webmail++
						domains[addrs[0][strings.IndexByte(addrs[0], '@')+1:]] = true
					}
					if len(addrs) > 1 {
						several++
					}
					for _, a := range addrs[min(1, len(addrs)):] {
						if local, _, _ := strings.Cut(a, "@"); strings.Contains(local, ".") {
							personal++
						}
					}
					n := strings.Count(page, `rel="noopener"`)
					if n == 0 {
						noSocial++
					}
					if n >= 2 {
						manySocial++
					}
				}
			}
			t.Logf("%d live sites: %d without address, %d on their domain, %d webmail %v, %d with several (%d personal), %d without profile, %d with several",
				live, none, own, webmail, domains, several, personal, noSocial, manySocial)
			if live < 100 {
				t.Fatalf("%d live sites", live)
			}
			for what, n := range map[string]int{"no address": none, "own domain": own, "webmail": webmail, "several": several,
				"personal": personal, "no profile": noSocial, "several profiles": manySocial} {
				if n == 0 || n == live {
					t.Errorf("%s: %d of %d sites, want some, not all", what, n, live)
				}
			}
			for d := range domains {
				if !strings.Contains(d, ".") || strings.HasSuffix(d, ".sim.test") {
					t.Errorf("webmail domain %q", d)
				}
			}
			found := false
			for _, d := range tt.webmail {
				found = found || domains[d]
			}
			if !found {
				t.Errorf("webmail domains %v, want some of %v", domains, tt.webmail)
			}
		})
	}
}
