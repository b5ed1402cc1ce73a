package sim_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
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
	for _, p := range truth(t, w, "restaurant", centralLyon) {
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
			if strings.HasSuffix(m[1], "@gmail.com") {
				gmails++
			} else if host := strings.Trim(strings.TrimPrefix(p.Website, "https://"), "/"); m[1] != "contact@"+host {
				t.Errorf("%s: email %s", p.Website, m[1])
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
	for _, p := range truth(t, newWorld(t, sim.Options{}), "restaurant", centralLyon) {
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
