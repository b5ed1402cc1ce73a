package emails

import (
	"slices"
	"testing"
)

func TestLinks(t *testing.T) {
	tests := []struct {
		name string
		html string
		want []string
	}{
		{"contact, legal and about, best first",
			`<nav><a href="/a-propos/">Qui sommes-nous</a><a href="/">Accueil</a><a href="/prestations">Prestations</a><a href="contact.html">Nous écrire</a></nav>
			<footer><a href="/mentions-legales">Mentions légales</a><a href="/cgv.pdf">CGV</a></footer>`,
			[]string{"https://www.plombier-roux.fr/contact.html", "https://www.plombier-roux.fr/mentions-legales", "https://www.plombier-roux.fr/a-propos/"}},
		{"matched on the link text",
			`<a href="/page-12">Contactez-nous</a><a href="/page-13">Informations légales</a><a href="/page-14">Impressum</a>`,
			[]string{"https://www.plombier-roux.fr/page-12", "https://www.plombier-roux.fr/page-13", "https://www.plombier-roux.fr/page-14"}},
		{"same host only, www or not",
			`<a href="https://plombier-roux.fr/contact">Contact</a><a href="https://facebook.com/contact">Contact FB</a><a href="https://agence.fr/mentions-legales">Agence</a><a href="mailto:contact@plombier-roux.fr">contact</a>`,
			[]string{"https://plombier-roux.fr/contact"}},
		{"deduplicated, fragment dropped",
			`<a href="/contact#form">Contact</a><a href="/contact/">Contact</a><a href="/contact">Écrire</a>`,
			[]string{"https://www.plombier-roux.fr/contact"}},
		{"base href honoured",
			`<base href="https://www.plombier-roux.fr/fr/"><a href="contact">Contact</a>`,
			[]string{"https://www.plombier-roux.fr/fr/contact"}},
		{"at most five",
			`<a href="/contact">c</a><a href="/contact-devis">c</a><a href="/nous-contacter">c</a><a href="/legal">l</a><a href="/impressum">l</a><a href="/cgv">l</a><a href="/about">a</a>`,
			[]string{"https://www.plombier-roux.fr/contact", "https://www.plombier-roux.fr/contact-devis", "https://www.plombier-roux.fr/nous-contacter", "https://www.plombier-roux.fr/legal", "https://www.plombier-roux.fr/impressum"}},
		{"nothing worth fetching", `<a href="/services">Services</a><a href="tel:+33100000000">Appeler</a>`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := page(t, "https://www.plombier-roux.fr/", "<html><body>"+tt.html+"</body></html>")
			var got []string
			for _, u := range Links(home) {
				got = append(got, u.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Links = %q, want %q", got, tt.want)
			}
		})
	}
	if Links(nil) != nil {
		t.Error("Links(nil) should be nil")
	}
}
