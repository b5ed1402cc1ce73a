package pagetext

import (
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func parse(t *testing.T, src string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}

// find returns the first element named tag under n.
func find(n *html.Node, tag string) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, tag); f != nil {
			return f
		}
	}
	return nil
}

func texts(ls []Line) []string {
	var out []string
	for _, l := range ls {
		s := l.Text
		if l.Heading {
			s = "# " + s
		}
		out = append(out, s)
	}
	return out
}

func TestLines(t *testing.T) {
	tests := []struct {
		name string
		html string
		want []string
	}{
		{"paragraphs are lines", `<p>Boulangerie Martin</p><p>12 rue de la Paix</p>`, []string{"Boulangerie Martin", "12 rue de la Paix"}},
		{"br ends a line", `<p>12 rue de la Paix<br>69003 Lyon</p>`, []string{"12 rue de la Paix", "69003 Lyon"}},
		{"inline elements join", `<p>Tél : <a href="#"><b>04 78</b> 12 34 56</a></p>`, []string{"Tél : 04 78 12 34 56"}},
		{"cells never join", `<table><tr><td>812 345 678</td><td>00015</td></tr></table>`, []string{"812 345 678", "00015"}},
		{"label and pre are blocks", `<form><label>Nom</label><label>Prénom</label></form><pre>SIRET</pre>x`, []string{"Nom", "Prénom", "SIRET", "x"}},
		{"white space collapses", "<p>  Prix\u00a0:\n\t 49\u202f€  </p>", []string{"Prix : 49 €"}},
		{"scripts and styles are not text", `<p>A<script>var x = "04 78 12 34 56"</script><style>p{}</style>B</p>`, []string{"AB"}},
		{"form controls are not text", `<p>Pays <select><option>France</option></select><textarea>note</textarea></p><datalist><option>Lyon</option></datalist>`, []string{"Pays"}},
		{"embedded documents are not text", `<p>Plan<iframe>x</iframe><object data="p.pdf">Télécharger</object><svg><text>logo</text></svg></p>`, []string{"Plan"}},
		{"the title is not text", `<html><head><title>Accueil</title></head><body><p>Bienvenue</p></body></html>`, []string{"Bienvenue"}},
		{"noscript and template are not text", `<p>A</p><noscript>Activez JavaScript</noscript><template><p>B</p></template>`, []string{"A"}},
		{"hidden elements are read", `<div hidden>SIRET 812 345 678 00015</div>`, []string{"SIRET 812 345 678 00015"}},
		{"a heading is one line", `<h2>Hébergement<br>du site</h2><p>OVH</p>`, []string{"# Hébergement du site", "OVH"}},
		{"blocks in a heading are spaced", `<h2>Mentions<div>légales</div></h2>`, []string{"# Mentions légales"}},
		{"an empty heading gives no line", `<h1><img alt="logo"></h1><p>Accueil</p>`, []string{"Accueil"}},
		{"text around a heading", `Avant<h3>Titre</h3>Après`, []string{"Avant", "# Titre", "Après"}},
		{"nothing visible", `<script>x</script>   `, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(Lines(parse(t, tt.html)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Lines = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWalkerHooks pins what each option and hook does to the lines.
func TestWalkerHooks(t *testing.T) {
	tests := []struct {
		name string
		html string
		// setup configures the walker; log records events beside lines.
		setup func(w *Walker, log *[]string)
		want  []string
	}{
		{
			name: "headings as blocks by default",
			html: `<h2>Contact<br>04 78 12 34 56</h2>`,
			want: []string{"Contact", "04 78 12 34 56"},
		},
		{
			name:  "keep spacing",
			html:  "<p>04 78 12 34 56\n   06 12 34 56 78</p><p> \n </p>",
			setup: func(w *Walker, _ *[]string) { w.KeepSpacing = true },
			want:  []string{"04 78 12 34 56\n   06 12 34 56 78"},
		},
		{
			name:  "skip",
			html:  `<p>Prix <del>59 €</del> 49 €</p><p style="display:none">99 €</p>`,
			setup: func(w *Walker, _ *[]string) { w.Skip = func(n *html.Node) bool { return n.Data == "del" || Hidden(n) } },
			want:  []string{"Prix 49 €"},
		},
		{
			name: "skipped sees what the table leaves out",
			html: `<p>A<script type="application/ld+json">{}</script><span hidden>B</span></p>`,
			setup: func(w *Walker, log *[]string) {
				w.Skip = Hidden
				w.Skipped = func(n *html.Node) { *log = append(*log, "skipped "+n.Data) }
			},
			want: []string{"skipped script", "skipped span", "A"},
		},
		{
			name: "enter before the line break, leave after",
			html: `A<div>B</div>C`,
			setup: func(w *Walker, log *[]string) {
				w.Enter = func(n *html.Node) bool {
					if n.Data == "div" {
						*log = append(*log, "enter div")
					}
					return true
				}
				w.Leave = func(n *html.Node) {
					if n.Data == "div" {
						*log = append(*log, "leave div")
					}
				}
			},
			want: []string{"enter div", "A", "B", "leave div", "C"},
		},
		{
			name: "enter takes an element over",
			html: `<dl><dt>Gérant</dt><dd>Jean Martin</dd></dl>`,
			setup: func(w *Walker, log *[]string) {
				w.Enter = func(n *html.Node) bool {
					switch n.Data {
					case "dt":
						*log = append(*log, w.TextOf(n)+" = "+w.TextOf(n.NextSibling))
						return false
					case "dd":
						return false
					}
					return true
				}
			},
			want: []string{"Gérant = Jean Martin"},
		},
		{
			name: "write adds a drawn label",
			html: `<p><i class="fa-fax"></i>04 78 12 34 99</p>`,
			setup: func(w *Walker, _ *[]string) {
				w.Enter = func(n *html.Node) bool {
					if n.Data == "i" {
						w.Write(" Fax ")
					}
					return true
				}
			},
			want: []string{"Fax 04 78 12 34 99"},
		},
		{
			name: "text sees each text node",
			html: `<p>A<b>B</b></p>`,
			setup: func(w *Walker, log *[]string) {
				w.Text = func(n *html.Node) { *log = append(*log, "text "+n.Data) }
			},
			want: []string{"text A", "text B", "AB"},
		},
		{
			name: "hooks do not run inside a heading read whole",
			html: `<h2>Tarifs <a href="tel:1">x</a></h2><p><a>y</a></p>`,
			setup: func(w *Walker, log *[]string) {
				w.Headings = true
				w.Enter = func(n *html.Node) bool {
					*log = append(*log, "enter "+n.Data)
					return true
				}
			},
			want: []string{"enter html", "enter head", "enter body", "enter h2", "# Tarifs x", "enter p", "enter a", "y"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			w := &Walker{}
			w.Line = func(l Line) {
				s := l.Text
				if l.Heading {
					s = "# " + s
				}
				log = append(log, s)
			}
			if tt.setup != nil {
				tt.setup(w, &log)
			}
			w.Walk(parse(t, tt.html))
			w.Flush()
			if !reflect.DeepEqual(log, tt.want) {
				t.Errorf("walk = %q, want %q", log, tt.want)
			}
		})
	}
}

func TestSection(t *testing.T) {
	tests := []struct {
		name string
		html string
		want []string // "section | line"
	}{
		{"before any heading", `<p>A</p>`, []string{" | A"}},
		{"a heading names itself and what follows", `<h2>Hébergement</h2><p>OVH</p>`, []string{"Hébergement | Hébergement", "Hébergement | OVH"}},
		{"a heading without text ends the section", `<h2>Hébergement</h2><p>OVH</p><h2><img></h2><p>SIRET</p>`, []string{"Hébergement | Hébergement", "Hébergement | OVH", " | SIRET"}},
		{"text before a heading stays in the section before", `<h2>Éditeur</h2>Martin<h2>Hébergeur</h2>`, []string{"Éditeur | Éditeur", "Éditeur | Martin", "Hébergeur | Hébergeur"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			w := &Walker{Headings: true}
			w.Line = func(l Line) { got = append(got, w.Section()+" | "+l.Text) }
			w.Walk(parse(t, tt.html))
			w.Flush()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTextOf(t *testing.T) {
	tests := []struct {
		name string
		html string
		skip func(*html.Node) bool
		want string
	}{
		{"one line", `<td>12 rue X<br>69003 <b>Lyon</b></td>`, nil, "12 rue X 69003 Lyon"},
		{"blocks spaced on both sides", `<td>Siège<div>social</div>Lyon</td>`, nil, "Siège social Lyon"},
		{"a hidden block breaks nothing", `<td>Lyon<div hidden>x</div>Cedex</td>`, Hidden, "LyonCedex"},
		{"skipped element", `<td hidden>Lyon</td>`, Hidden, ""},
		{"unshown content", `<td>Lyon<script>x</script></td>`, nil, "Lyon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Walker{Skip: tt.skip}
			if got := w.TextOf(find(parse(t, "<table><tr>"+tt.html+"</tr></table>"), "td")); got != tt.want {
				t.Errorf("TextOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHidden(t *testing.T) {
	tests := []struct {
		html string
		want bool
	}{
		{`<div hidden>x</div>`, true},
		{`<div style="display: none">x</div>`, true},
		{`<div style="color:red; Visibility: Hidden">x</div>`, true},
		{`<div style="display:block">x</div>`, false},
		{`<div aria-hidden="true">x</div>`, false},
		{`<div class="hidden">x</div>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.html, func(t *testing.T) {
			if got := Hidden(find(parse(t, tt.html), "div")); got != tt.want {
				t.Errorf("Hidden = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTables(t *testing.T) {
	tests := []struct {
		tag                     string
		block, heading, unshown bool
	}{
		{"p", true, false, false},
		{"td", true, false, false},
		{"br", true, false, false},
		{"label", true, false, false},
		{"h3", true, true, false},
		{"h7", false, false, false},
		{"span", false, false, false},
		{"a", false, false, false},
		{"script", false, false, true},
		{"option", false, false, true},
		{"title", false, false, true},
		{"head", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			if blocks[tt.tag] != tt.block || Heading(tt.tag) != tt.heading || Unshown(tt.tag) != tt.unshown {
				t.Errorf("block, Heading, Unshown = %v, %v, %v, want %v, %v, %v",
					blocks[tt.tag], Heading(tt.tag), Unshown(tt.tag), tt.block, tt.heading, tt.unshown)
			}
		})
	}
}

func TestCollapse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  a  b ", "a b"},
		{"a\u00a0\u202f\u2007\u2009b", "a b"},
		{"a\n\t\rb", "a b"},
	}
	for _, tt := range tests {
		if got := Collapse(tt.in); got != tt.want {
			t.Errorf("Collapse(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
