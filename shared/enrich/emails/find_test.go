package emails

import (
	"slices"
	"testing"
)

func TestFind(t *testing.T) {
	tests := []struct {
		name string
		html string
		want []string
		kind string // kind of the first address, when checked
	}{
		{"mailto link", `<a href="mailto:contact@plomberie-roux.fr">Écrivez-nous</a>`, []string{"contact@plomberie-roux.fr"}, KindMailto},
		{"mailto with subject", `<a href="mailto:devis@roux.fr?subject=Demande%20de%20devis&body=Bonjour">Devis</a>`, []string{"devis@roux.fr"}, KindMailto},
		{"mailto url-encoded", `<a href="mailto:contact%40roux.fr">mail</a>`, []string{"contact@roux.fr"}, KindMailto},
		{"uppercase MAILTO", `<a href="MAILTO:Info@Roux.FR">mail</a>`, []string{"Info@roux.fr"}, KindMailto},
		{"mailto several recipients", `<a href="mailto:a.roux@roux.fr,contact@roux.fr;compta@roux.fr">mail</a>`, []string{"a.roux@roux.fr", "contact@roux.fr", "compta@roux.fr"}, KindMailto},
		{"mailto with space is no address", `<a href="mailto:jean roux@roux.fr">mail</a>`, nil, ""},
		{"visible text", `<p>Email : contact@boulangerie-petit.fr</p>`, []string{"contact@boulangerie-petit.fr"}, KindText},
		{"trailing punctuation", `<p>Écrivez à bonjour@petit.fr. Ou appelez.</p><p>(info@petit.fr);</p>`, []string{"bonjour@petit.fr", "info@petit.fr"}, KindText},
		{"at in brackets", `<p>contact [at] garage-leroy [dot] fr</p>`, []string{"contact@garage-leroy.fr"}, KindObfuscated},
		{"at in parentheses", `<p>accueil(at)garage-leroy.fr</p>`, []string{"accueil@garage-leroy.fr"}, KindObfuscated},
		{"spelled at and dot", `<p>Mail: info at leroy-auto dot com</p>`, []string{"info@leroy-auto.com"}, KindObfuscated},
		{"spelled at, dots mixed", `<p>Email: hello AT dupuis.co DOT uk</p>`, []string{"hello@dupuis.co.uk"}, KindObfuscated},
		{"at with bracketed dot", `<p>contact@garage-leroy[dot]fr</p>`, []string{"contact@garage-leroy.fr"}, KindObfuscated},
		{"arobase and point", `<p>contact arobase cabinet-durand point fr</p>`, []string{"contact@cabinet-durand.fr"}, KindObfuscated},
		{"prose at is not an address", `<p>Find us at market.com or at the corner.</p>`, nil, ""},
		{"decimal entity", `<p>contact&#64;salon-lea.fr</p>`, []string{"contact@salon-lea.fr"}, KindText},
		{"hex entity", `<p>contact&#x40;salon-lea.fr</p>`, []string{"contact@salon-lea.fr"}, KindText},
		{"commat entity", `<p>contact&commat;salon-lea.fr</p>`, []string{"contact@salon-lea.fr"}, KindText},
		{"split over inline spans", `<p><span>contact</span><span>@</span><span>salon-lea.fr</span></p>`, []string{"contact@salon-lea.fr"}, KindText},
		{"capitalised word glued after", `<p><span>contact@salon-lea.fr</span><span>Tél.04 78 00 00 00</span></p>`, []string{"contact@salon-lea.fr"}, KindText},
		{"blocks do not glue", `<div>Tél 04 78 00 00 00</div><div>contact@salon-lea.fr</div>`, []string{"contact@salon-lea.fr"}, KindText},
		{"cloudflare data-cfemail", `<a href="/cdn-cgi/l/email-protection" class="__cf_email__" data-cfemail="` + cfEncode(0x5a, "contact@traiteur-blanc.fr") + `">[email&#160;protected]</a>`, []string{"contact@traiteur-blanc.fr"}, KindCloudflare},
		{"cloudflare link", `<a href="/cdn-cgi/l/email-protection#` + cfEncode(0x13, "hello@blanc.co.uk") + `">Email</a>`, []string{"hello@blanc.co.uk"}, KindCloudflare},
		{"cloudflare bad hex", `<span data-cfemail="zz12">[email protected]</span>`, nil, ""},
		{"json-ld organization", `<script type="application/ld+json">{"@context":"https://schema.org","@type":"LocalBusiness","name":"Chez Paul","email":"mailto:resa@chezpaul.fr"}</script>`, []string{"resa@chezpaul.fr"}, KindJSONLD},
		{"json-ld graph", `<script type="application/ld+json">{"@graph":[{"@type":"WebSite"},{"@type":"Organization","email":"info@chezpaul.fr","contactPoint":{"email":"service@chezpaul.fr"}}]}</script>`, []string{"info@chezpaul.fr", "service@chezpaul.fr"}, KindJSONLD},
		{"json-ld not quite json", `<script type="application/ld+json">{"@type":"Restaurant","email":"bonjour@chezpaul.fr",}</script>`, []string{"bonjour@chezpaul.fr"}, KindJSONLD},
		{"microdata text", `<div itemscope itemtype="https://schema.org/Organization"><span itemprop="email">agence@immo-lac.fr</span></div>`, []string{"agence@immo-lac.fr"}, KindMicrodata},
		{"microdata meta", `<meta itemprop="email" content="agence@immo-lac.fr">`, []string{"agence@immo-lac.fr"}, KindMicrodata},
		{"image alt", `<img src="/img/mail.png" alt="contact@fleurs-iris.fr">`, []string{"contact@fleurs-iris.fr"}, KindText},
		{"retina asset names", `<img src="logo@2x.png"><p>logo@2x.png icon@3x.webp image@1x.jpg</p>`, nil, ""},
		{"placeholders", `<p>votre@email.fr email@domaine.com nom@domaine.fr john.doe@gmail.com you@yourdomain.com a@example.com b@exemple.fr c@domain.com</p>`, nil, ""},
		{"form placeholder attribute", `<form><input type="email" placeholder="votre@email.fr" value=""></form>`, nil, ""},
		{"tracking addresses", `<p>abc@sentry.io 605a7baede844d278b89dc95ae0a9123@sentry-next.wixpress.com x@o1.ingest.sentry.io noreply@wordpress.com</p>`, nil, ""},
		{"script source", `<script>var e = "hidden@plombier-vidal.fr"; Sentry.init({dsn:"https://k@sentry.io/1"})</script><p>Bienvenue</p>`, nil, ""},
		{"style and noscript", `<style>.a{background:url(bg@2x.png)}</style><noscript>secret@vidal.fr</noscript>`, nil, ""},
		{"invalid tld", `<p>contact@vidal.invalidtld admin@localhost.local</p>`, nil, ""},
		{"deduplicated across kinds", `<a href="mailto:contact@vidal.fr">contact@vidal.fr</a><p>CONTACT@VIDAL.FR</p>`, []string{"contact@vidal.fr"}, KindMailto},
		{"no address", `<p>Appelez-nous au 01 23 45 67 89.</p>`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := page(t, "https://www.exemple-site.fr/contact", "<!doctype html><html><head><title>t</title></head><body>"+tt.html+"</body></html>")
			got := Find([]*crawlPage{p})
			if !slices.Equal(addresses(got), tt.want) {
				t.Fatalf("Find = %q, want %q", addresses(got), tt.want)
			}
			if tt.kind != "" && got[0].Kind != tt.kind {
				t.Errorf("kind = %q, want %q", got[0].Kind, tt.kind)
			}
			for _, f := range got {
				if f.SourceURL != "https://www.exemple-site.fr/contact" {
					t.Errorf("source = %q", f.SourceURL)
				}
			}
		})
	}
}

func TestFindOrderAcrossPages(t *testing.T) {
	home := page(t, "https://garage-leroy.fr/", `<footer><a href="mailto:contact@garage-leroy.fr">contact</a></footer>`)
	contact := page(t, "https://garage-leroy.fr/contact", `<p>contact@garage-leroy.fr</p><p>Atelier : j.leroy@garage-leroy.fr</p>`)
	got := Find([]*crawlPage{home, nil, contact})
	want := []Found{
		{"contact@garage-leroy.fr", "https://garage-leroy.fr/", KindMailto},
		{"j.leroy@garage-leroy.fr", "https://garage-leroy.fr/contact", KindText},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Find = %+v, want %+v", got, want)
	}
}

func TestDecodeCloudflare(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{cfEncode(0x42, "a@b.fr"), "a@b.fr", false},
		{"4", "", true},
		{"42", "", true},
		{"xyz0", "", true},
	}
	for _, tt := range tests {
		got, err := decodeCloudflare(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("decodeCloudflare(%q) = %q, %v; want %q, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestFindOwnHost: an address at the page's own host is kept even under a
// TLD the public suffix list does not know (the page was served from it);
// the same TLD elsewhere is still refused.
func TestFindOwnHost(t *testing.T) {
	for _, tt := range []struct {
		pageURL, html string
		want          []string
	}{
		{"https://boulangerie-roux.k3j.sim.test/contact", `<p>contact@boulangerie-roux.k3j.sim.test</p>`, []string{"contact@boulangerie-roux.k3j.sim.test"}},
		{"https://www.atelier.intranet/", `<p>accueil@atelier.intranet</p>`, []string{"accueil@atelier.intranet"}},
		{"https://boulangerie-roux.k3j.sim.test/", `<p>contact@autre.sim.test</p>`, nil},
		{"https://boulangerie-roux.fr/", `<p>contact@boulangerie-roux.test</p>`, nil},
	} {
		got := Find([]*crawlPage{page(t, tt.pageURL, tt.html)})
		if !slices.Equal(addresses(got), tt.want) {
			t.Errorf("%s: Find = %q, want %q", tt.pageURL, addresses(got), tt.want)
		}
	}
}
