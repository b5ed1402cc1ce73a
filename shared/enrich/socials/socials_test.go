package socials

import (
	"net/url"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

func page(t *testing.T, rawURL, body string) *crawl.Page {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return crawl.NewPage(u, 200, nil, []byte(body))
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, href string
		want       string // "" when not a profile
	}{
		{"facebook page", "https://www.facebook.com/BoulangerieMartin/", "https://www.facebook.com/boulangeriemartin"},
		{"facebook mobile", "https://m.facebook.com/boulangeriemartin", "https://www.facebook.com/boulangeriemartin"},
		{"facebook fr-fr", "https://fr-fr.facebook.com/boulangeriemartin/?ref=bookmarks", "https://www.facebook.com/boulangeriemartin"},
		{"facebook locale query", "http://facebook.com/boulangeriemartin?locale=fr_FR", "https://www.facebook.com/boulangeriemartin"},
		{"facebook pg tab", "https://www.facebook.com/pg/boulangeriemartin/about/", "https://www.facebook.com/boulangeriemartin"},
		{"facebook profile.php", "https://www.facebook.com/profile.php?id=100063512345678&ref=x", "https://www.facebook.com/profile.php?id=100063512345678"},
		{"facebook sharer", "https://www.facebook.com/sharer/sharer.php?u=https%3A%2F%2Fx.fr", ""},
		{"facebook share.php", "https://www.facebook.com/share.php?u=x", ""},
		{"facebook plugins", "https://www.facebook.com/plugins/page.php?href=x", ""},
		{"facebook pixel", "https://www.facebook.com/tr?id=123&ev=PageView", ""},
		{"facebook policy", "https://www.facebook.com/policy.php", ""},
		{"facebook help", "https://www.facebook.com/help/", ""},
		{"facebook login", "https://www.facebook.com/login/", ""},
		{"facebook root", "https://www.facebook.com/", ""},
		{"facebook wix demo", "https://www.facebook.com/wix", ""},
		{"facebook WordPress demo", "https://www.facebook.com/WordPress", ""},
		{"facebook elementor demo", "https://www.facebook.com/elementor", ""},
		{"instagram", "https://instagram.com/la_cave_de_lyon?igshid=MzRlODBiNWFlZA==", "https://www.instagram.com/la_cave_de_lyon/"},
		{"instagram post", "https://www.instagram.com/p/C4xYz12AbCd/", ""},
		{"instagram reel", "https://www.instagram.com/reel/C4xYz12AbCd/", ""},
		{"instagram bare", "https://www.instagram.com/", ""},
		{"twitter", "https://twitter.com/PlomberieDupont?lang=fr", "https://x.com/plomberiedupont"},
		{"x.com", "https://x.com/plomberiedupont", "https://x.com/plomberiedupont"},
		{"twitter mobile", "https://mobile.twitter.com/plomberiedupont", "https://x.com/plomberiedupont"},
		{"twitter intent", "https://twitter.com/intent/tweet?url=x", ""},
		{"twitter share", "https://twitter.com/share?url=x", ""},
		{"twitter shopify demo", "https://twitter.com/shopify", ""},
		{"tweet", "https://twitter.com/plomberiedupont/status/1234567890", ""},
		{"linkedin company", "https://fr.linkedin.com/company/garage-martin/about/?trk=x", "https://www.linkedin.com/company/garage-martin"},
		{"linkedin person", "https://www.linkedin.com/in/jean-dupont-42/", "https://www.linkedin.com/in/jean-dupont-42"},
		{"linkedin shareArticle", "https://www.linkedin.com/shareArticle?mini=true&url=x", ""},
		{"linkedin feed", "https://www.linkedin.com/feed/", ""},
		{"tiktok", "https://www.tiktok.com/@pizzeria.bella?lang=fr", "https://www.tiktok.com/@pizzeria.bella"},
		{"tiktok root", "https://www.tiktok.com/", ""},
		{"youtube handle", "https://m.youtube.com/@GarageMartin?sub_confirmation=1", "https://www.youtube.com/@garagemartin"},
		{"youtube channel keeps case", "https://www.youtube.com/channel/UCa1B2c3D4e5F6g7H8i9J0kL", "https://www.youtube.com/channel/UCa1B2c3D4e5F6g7H8i9J0kL"},
		{"youtube c", "https://youtube.com/c/GarageMartin", "https://www.youtube.com/c/garagemartin"},
		{"youtube user", "https://www.youtube.com/user/garagemartin", "https://www.youtube.com/user/garagemartin"},
		{"youtube watch", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", ""},
		{"youtube embed", "https://www.youtube.com/embed/dQw4w9WgXcQ", ""},
		{"youtube short link", "https://youtu.be/dQw4w9WgXcQ", ""},
		{"pinterest create", "https://pinterest.com/pin/create/button/?url=x", ""},
		{"mailto", "mailto:contact@x.fr", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.href)
			if err != nil {
				t.Fatal(err)
			}
			_, got, ok := canonical(u)
			if !ok {
				got = ""
			}
			if got != tt.want {
				t.Errorf("canonical(%q) = %q, want %q", tt.href, got, tt.want)
			}
		})
	}
}

func TestFindChoosesTheSitesProfile(t *testing.T) {
	tests := []struct {
		name, url, body string
		want            Result
	}{
		{
			name: "footer beats a partner linked in an article",
			url:  "https://www.boulangerie-martin.fr/",
			body: `<html><body><main><p>Voir <a href="https://www.facebook.com/marchedelyon">le marché</a></p></main>
<footer><a href="https://www.facebook.com/lapetitefournee">Facebook</a></footer></body></html>`,
			want: Result{Facebook: "https://www.facebook.com/lapetitefournee"},
		},
		{
			name: "handle matching the host beats another footer link",
			url:  "https://garage-martin.fr/",
			body: `<footer><a href="https://www.instagram.com/concession_auto/">a</a><a href="https://www.instagram.com/garagemartin/">b</a></footer>`,
			want: Result{Instagram: "https://www.instagram.com/garagemartin/"},
		},
		{
			name: "company page preferred to a person",
			url:  "https://cabinet-x.fr/",
			body: `<footer><a href="https://www.linkedin.com/in/jean-dupont/">Jean</a></footer><p><a href="https://www.linkedin.com/company/cabinet-x">Cabinet</a></p>`,
			want: Result{LinkedIn: "https://www.linkedin.com/company/cabinet-x"},
		},
		{
			name: "share bar and credit line ignored",
			url:  "https://www.fleurs-julie.fr/",
			body: `<div class="share-buttons"><a href="https://www.facebook.com/someone">f</a></div><p class="credits">Photos <a href="https://www.instagram.com/studio_photo/">@studio</a></p>`,
			want: Result{},
		},
		{
			name: "JSON-LD sameAs",
			url:  "https://www.pizzeria-bella.fr/",
			body: `<head><script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Restaurant","sameAs":["https://www.tiktok.com/@pizzeria.bella","https://www.youtube.com/@PizzeriaBella"]}]}</script></head>`,
			want: Result{TikTok: "https://www.tiktok.com/@pizzeria.bella", YouTube: "https://www.youtube.com/@pizzeriabella"},
		},
		{
			name: "twitter and x.com are one profile",
			url:  "https://x-demo.fr/",
			body: `<header><a href="https://twitter.com/Bistrot69">t</a></header><footer><a href="https://x.com/bistrot69">x</a></footer>`,
			want: Result{Twitter: "https://x.com/bistrot69"},
		},
		{
			name: "pixel in noscript is not a profile",
			url:  "https://coiffure.fr/",
			body: `<head><noscript><img src="https://www.facebook.com/tr?id=1&ev=PageView"></noscript></head><body><a href="https://www.facebook.com/tr?id=1">x</a></body>`,
			want: Result{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find([]*crawl.Page{page(t, tt.url, tt.body)})
			if got != tt.want {
				t.Errorf("Find = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestFindSkipsEmptyPages(t *testing.T) {
	got := Find([]*crawl.Page{nil, page(t, "https://a.fr/", ""), page(t, "https://a.fr/c", `<footer><a href="https://instagram.com/a_fr">i</a></footer>`)})
	if got.Instagram != "https://www.instagram.com/a_fr/" {
		t.Errorf("Instagram = %q", got.Instagram)
	}
	if len(got.Values()) != len(Columns) {
		t.Errorf("Values has %d entries, Columns %d", len(got.Values()), len(Columns))
	}
}
