package techstack

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// labelledSite is one entry of testdata/labels.json: the pages of one site
// and the expected cells.
type labelledSite struct {
	Site  string `json:"site"`
	Pages []struct {
		File    string      `json:"file"`
		URL     string      `json:"url"`
		Headers http.Header `json:"headers"`
	} `json:"pages"`
	Expect map[string]string `json:"expect"`
}

func loadCorpus(tb testing.TB) ([]labelledSite, map[string][]*crawl.Page) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "labels.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var sites []labelledSite
	if err := json.Unmarshal(raw, &sites); err != nil {
		tb.Fatal(err)
	}
	pages := make(map[string][]*crawl.Page, len(sites))
	for _, s := range sites {
		for _, p := range s.Pages {
			body, err := os.ReadFile(filepath.Join("testdata", "pages", p.File))
			if err != nil {
				tb.Fatal(err)
			}
			u, err := url.Parse(p.URL)
			if err != nil {
				tb.Fatal(err)
			}
			pages[s.Site] = append(pages[s.Site], crawl.NewPage(u, http.StatusOK, p.Headers, body))
		}
	}
	return sites, pages
}

func newDetector(tb testing.TB) *Detector {
	tb.Helper()
	d, err := New()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestDetectCorpus(t *testing.T) {
	d := newDetector(t)
	sites, pages := loadCorpus(t)
	if len(sites) < 30 {
		t.Errorf("corpus has %d sites, want at least 30", len(sites))
	}
	for _, s := range sites {
		t.Run(s.Site, func(t *testing.T) {
			got := d.Detect(pages[s.Site]).Values()
			for i, col := range Columns {
				want, ok := s.Expect[col]
				if !ok {
					t.Fatalf("labels.json: %s has no %q", s.Site, col)
				}
				if got[i] != want {
					t.Errorf("%s = %q, want %q", col, got[i], want)
				}
			}
		})
	}
}

func TestValuesFormat(t *testing.T) {
	tests := []struct {
		name string
		in   Result
		want []string
	}{
		{"empty result gives empty cells", Result{}, []string{"", "", ""}},
		{"lists joined with semicolon space", Result{CMS: []string{"Elementor", "WordPress"}, AdsPixels: []string{"Criteo"}},
			[]string{"Elementor; WordPress", "", "Criteo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.Values()
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(Columns) {
				t.Errorf("Values() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDetectMergesPagesAndSkipsNil(t *testing.T) {
	d := newDetector(t)
	u, _ := url.Parse("https://www.example.fr/")
	home := crawl.NewPage(u, 200, http.Header{"X-Pingback": {"https://www.example.fr/xmlrpc.php"}}, []byte(`<html><head><title>Accueil</title></head><body></body></html>`))
	contact := crawl.NewPage(u, 200, nil, []byte(`<html><head><script>fbq('init', '1234567890');</script></head><body></body></html>`))
	got := d.Detect([]*crawl.Page{home, nil, contact})
	if strings.Join(got.CMS, ",") != "WordPress" || strings.Join(got.AdsPixels, ",") != "Facebook Pixel" {
		t.Errorf("Detect = %+v, want WordPress from the header and Facebook Pixel from the second page", got)
	}
	if len(d.Detect(nil).All) != 0 {
		t.Error("Detect(nil) found technologies")
	}
}

func TestCommentedOutTagsDoNotCount(t *testing.T) {
	d := newDetector(t)
	u, _ := url.Parse("https://www.example.fr/")
	body := `<html><head>
<!-- <script src="https://static.ads-twitter.com/uwt.js"></script> -->
<script>
// fbq('init', '1234567890');
/* ttq.load('CABC'); */
var x = 1;
</script></head><body></body></html>`
	got := d.Detect([]*crawl.Page{crawl.NewPage(u, 200, nil, []byte(body))})
	if len(got.AdsPixels) != 0 {
		t.Errorf("AdsPixels = %q, want none", got.AdsPixels)
	}
}

func TestDetectConcurrent(t *testing.T) {
	d := newDetector(t)
	sites, pages := loadCorpus(t)
	want := make(map[string]string, len(sites))
	for _, s := range sites {
		want[s.Site] = strings.Join(d.Detect(pages[s.Site]).Values(), "|")
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		for _, s := range sites {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := strings.Join(d.Detect(pages[s.Site]).Values(), "|"); got != want[s.Site] {
					t.Errorf("%s: concurrent Detect = %q, sequential %q", s.Site, got, want[s.Site])
				}
			}()
		}
	}
	wg.Wait()
}
