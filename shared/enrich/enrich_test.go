package enrich_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	blobdir "github.com/prospectdata/svc/shared/blob/dir"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/enrich/techstack"
	"github.com/prospectdata/svc/shared/netguard"
)

// fixtureSite serves testdata/site, a plumber's WordPress site, and counts
// the requests per path.
type fixtureSite struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func pngOf(c color.RGBA, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if x > w/8 && x < w*7/8 && y > h/4 && y < h*3/4 {
				img.SetRGBA(x, y, c)
			} else {
				img.SetRGBA(x, y, color.RGBA{255, 255, 255, 255})
			}
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

func newFixtureSite(t *testing.T) *fixtureSite {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "site", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	s := &fixtureSite{hits: map[string]int{}}
	files := map[string]string{
		"/": "index.html", "/contact/": "contact.html", "/mentions-legales/": "mentions.html", "/nos-tarifs/": "tarifs.html",
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		switch p := r.URL.Path; {
		case files[p] != "":
			w.Header().Set("Content-Type", "text/html; charset=UTF-8")
			w.Header().Set("Link", `<`+s.srv.URL+`/wp-json/>; rel="https://api.w.org/"`)
			w.Write([]byte(strings.ReplaceAll(read(files[p]), "https://PLACEHOLDER", s.srv.URL)))
		case p == "/robots.txt":
			w.Write([]byte("User-agent: *\nDisallow: /wp-admin/\n"))
		case p == "/wp-content/uploads/2023/02/logo-plomberie-martin.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(pngOf(color.RGBA{0x1f, 0x5f, 0xa8, 0xff}, 300, 90))
		case strings.HasPrefix(p, "/wp-content/uploads/2023/02/cropped-favicon"):
			w.Header().Set("Content-Type", "image/png")
			w.Write(pngOf(color.RGBA{0xe8, 0x6a, 0x10, 0xff}, 32, 32))
		case p == "/wp-content/uploads/2023/02/equipe-chantier.jpg":
			// An image URL answering an HTML error page: not an image.
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>Not found</body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *fixtureSite) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

// testSet is every module over a fetcher whose guard allows the loopback
// test servers only, and a file store in a temporary directory.
func testSet(t *testing.T) *enrich.Set {
	t.Helper()
	g := netguard.New(netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")))
	f := crawl.New(crawl.Deps{Transport: g.Client(0).Transport, Agent: "ProspectDataBot",
		Sleep: func(context.Context, time.Duration) error { return nil }})
	files, err := blobdir.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	loadTech := sync.OnceValues(techstack.New)
	mods := append(enrich.SiteModules(),
		enrich.BrandModule(enrich.BrandDeps{Files: files, BaseURL: "https://svc.example"}),
		enrich.TechstackModule(techstack.Columns, func() (enrich.TechDetector, error) { return loadTech() }))
	set, err := enrich.NewSet(f, nil, mods...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// run runs a module of the set over one item.
func run(t *testing.T, set *enrich.Set, env *enrich.Env, slug string, in enrich.Input) (enrich.Result, map[string]string) {
	t.Helper()
	m, ok := set.Lookup(slug)
	if !ok {
		t.Fatalf("no module %s", slug)
	}
	r, err := m.Run(context.Background(), env, in)
	if err != nil {
		t.Fatalf("%s: %v", slug, err)
	}
	if len(r.Values) != len(m.Columns()) {
		t.Fatalf("%s: %d values for %d columns", slug, len(r.Values), len(m.Columns()))
	}
	cells := map[string]string{}
	for i, c := range m.Columns() {
		cells[c] = r.Values[i]
	}
	return r, cells
}

// TestModulesOnAFixtureSite runs every website module over one realistic
// site served by httptest, through the guarded fetcher.
func TestModulesOnAFixtureSite(t *testing.T) {
	site := newFixtureSite(t)
	set := testSet(t)
	in := enrich.Input{"site_web": site.srv.URL, "telephone": "04 78 12 34 56"}
	// One job's session: the modules share the pages they fetch.
	env := &enrich.Env{Session: set.Session(), Job: enrich.Job{ID: "abcdefghijklmnop", UserID: 7}}
	for _, tt := range []struct {
		slug     string
		equal    map[string]string
		contains map[string]string
	}{
		{"emails", map[string]string{"email": "contact@plomberie-martin.fr", "email_personal": "julien.martin@plomberie-martin.fr"}, nil},
		{"socials", map[string]string{
			"social_facebook": "https://www.facebook.com/plomberiemartin69", "social_instagram": "https://www.instagram.com/plomberie_martin/",
			"social_linkedin": "", "social_twitter": "", "social_tiktok": "", "social_youtube": ""}, nil},
		{"legal_ids", map[string]string{"siret": "44306184100047", "siren": "443061841", "siret_source_url": site.srv.URL + "/mentions-legales/"}, nil},
		{"legal_mentions", map[string]string{"forme_juridique": "SARL", "capital_social": "8000 EUR", "tva_intracom": "FR64443061841"},
			map[string]string{"raison_sociale": "MARTIN", "rcs": "443061841", "adresse_postale": "69100 Villeurbanne", "dirigeant": "Julien Martin"}},
		{"phones_extra", map[string]string{"phones_mobile": "+33612345678", "phones_fixed": "+33478987654"},
			map[string]string{"phones_extra": "+33478987654"}},
		{"pricing", map[string]string{"price_currency": "EUR"}, nil},
		{"techstack", nil, map[string]string{"tech_cms": "WordPress", "tech_analytics": "Google Analytics", "tech_ads_pixels": "Facebook Pixel"}},
		{"ads_intelligence", map[string]string{"ads_active": "true", "cmp_vendor": "Axeptio"}, map[string]string{"pixel_social": "Meta"}},
		{"dead_check", map[string]string{"site_alive": "true"}, nil},
		{"brand_assets", map[string]string{"brand_color": "#1f5fa8", "logo_url": site.srv.URL + "/wp-content/uploads/2023/02/logo-plomberie-martin.png"},
			map[string]string{"logo_local_url": "https://svc.example/api/brand-assets/7/abcdefghijklmnop-", "favicon_local_url": "-favicon.png"}},
	} {
		t.Run(tt.slug, func(t *testing.T) {
			r, cells := run(t, set, env, tt.slug, in)
			if r.Unreachable || !r.Found {
				t.Errorf("result %+v", r)
			}
			for c, want := range tt.equal {
				if cells[c] != want {
					t.Errorf("%s = %q, want %q", c, cells[c], want)
				}
			}
			for c, want := range tt.contains {
				if !strings.Contains(cells[c], want) {
					t.Errorf("%s = %q, want it to hold %q", c, cells[c], want)
				}
			}
		})
	}
	// One session: the home page was fetched once for all modules.
	if n := site.count("/"); n != 1 {
		t.Errorf("home page fetched %d times", n)
	}
}

// TestModulesStayOnPublicAddressesAndObeyRobots: a site that redirects to
// an internal address, a site at the metadata address, and a site whose
// robots.txt forbids us are each unreachable for the modules, and the
// internal server is never sent a request.
func TestModulesStayOnPublicAddressesAndObeyRobots(t *testing.T) {
	var trapHits atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.2:0") // a loopback address the guard does not allow
	if err != nil {
		t.Skip("no 127.0.0.2 here:", err)
	}
	trap := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { trapHits.Add(1) }))
	trap.Listener = ln
	trap.Start()
	defer trap.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, trap.URL+"/admin", http.StatusFound)
	}))
	defer redirecting.Close()
	var privateHome atomic.Int64
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nDisallow: /\n"))
			return
		}
		privateHome.Add(1)
		w.Write([]byte(`<p>contact@secret.fr</p>`))
	}))
	defer private.Close()

	set := testSet(t)
	env := &enrich.Env{Session: set.Session(), Job: enrich.Job{ID: "abcdefghijklmnop", UserID: 7}}
	for _, tt := range []struct {
		name, site string
		alive      string
	}{
		{"redirect to an internal address", redirecting.URL + "/", "false"},
		{"metadata address", "http://169.254.169.254/latest/meta-data/", "false"},
		{"robots.txt forbids", private.URL + "/", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, slug := range []string{"emails", "socials", "brand_assets"} {
				r, _ := run(t, set, env, slug, enrich.Input{"site_web": tt.site})
				if !r.Unreachable || r.Found || strings.Join(r.Values, "") != "" {
					t.Errorf("%s: %+v", slug, r)
				}
			}
			if _, cells := run(t, set, env, "dead_check", enrich.Input{"site_web": tt.site}); cells["site_alive"] != tt.alive {
				t.Errorf("site_alive %q, want %q", cells["site_alive"], tt.alive)
			}
		})
	}
	if n := trapHits.Load(); n != 0 {
		t.Errorf("the internal server got %d requests", n)
	}
	if n := privateHome.Load(); n != 0 {
		t.Errorf("a page robots.txt forbids was fetched %d times", n)
	}
}

// TestNewSetBinding: a set binds a module once, to a slug the registry
// declares as a module of items, with the registry's columns in order.
func TestNewSetBinding(t *testing.T) {
	tests := []struct {
		name string
		mods []enrich.Module
		want string // in the error; "" for none
	}{
		{"the registry's columns", []enrich.Module{fakeModule{"socials", []string{"social_facebook", "social_instagram", "social_linkedin", "social_twitter", "social_tiktok", "social_youtube"}}}, ""},
		{"a slug the registry lacks", []enrich.Module{fakeModule{"horoscope", []string{"sign"}}}, "declares no module"},
		{"a module that runs over no items", []enrich.Module{fakeModule{"scrap", []string{"nom"}}}, "declares no module"},
		{"columns out of order", []enrich.Module{fakeModule{"dead_check", []string{}}}, "columns"},
		{"bound twice", []enrich.Module{fakeModule{"dead_check", []string{"site_alive"}}, fakeModule{"dead_check", []string{"site_alive"}}}, "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := enrich.NewSet(nil, nil, tt.mods...)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// fakeModule is a module that only says what it is.
type fakeModule struct {
	slug string
	cols []string
}

func (m fakeModule) Slug() string      { return m.slug }
func (m fakeModule) Columns() []string { return m.cols }
func (m fakeModule) Reads() []string   { return nil }
func (m fakeModule) Run(context.Context, *enrich.Env, enrich.Input) (enrich.Result, error) {
	return enrich.Result{}, nil
}
