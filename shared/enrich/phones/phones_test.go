package phones

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"
	"github.com/prospectdata/svc/shared/crawl"
)

// labelledCase is one site of testdata/labels.json with its expected cells.
type labelledCase struct {
	Name   string   `json:"name"`
	Region string   `json:"region"`
	Known  []string `json:"known"`
	Pages  []struct {
		File string `json:"file"`
		URL  string `json:"url"`
	} `json:"pages"`
	Extra  []string `json:"phones_extra"`
	Mobile []string `json:"phones_mobile"`
	Fixed  []string `json:"phones_fixed"`
	Covers []string `json:"covers"`
}

func loadCases(tb testing.TB) ([]labelledCase, [][]*crawl.Page) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "labels.json"))
	if err != nil {
		tb.Fatalf("read labels: %v", err)
	}
	var cases []labelledCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		tb.Fatalf("parse labels: %v", err)
	}
	sites := make([][]*crawl.Page, len(cases))
	for i, c := range cases {
		for _, p := range c.Pages {
			body, err := os.ReadFile(filepath.Join("testdata", p.File))
			if err != nil {
				tb.Fatalf("read page: %v", err)
			}
			u, err := url.Parse(p.URL)
			if err != nil {
				tb.Fatalf("page url: %v", err)
			}
			sites[i] = append(sites[i], crawl.NewPage(u, 200, nil, body))
		}
	}
	return cases, sites
}

func TestFindLabelledPages(t *testing.T) {
	cases, sites := loadCases(t)
	if len(cases) < 20 {
		t.Fatalf("corpus has %d cases, want at least 20", len(cases))
	}
	var tp, fp, fn int
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := Find(sites[i], c.Region, c.Known...)
			want := Result{Extra: c.Extra, Mobile: c.Mobile, Fixed: c.Fixed}
			if !reflect.DeepEqual(got.Values(), want.Values()) {
				t.Errorf("Find() = %q, want %q", got.Values(), want.Values())
			}
			expected := map[string]bool{}
			for _, n := range c.Extra {
				expected[n] = true
			}
			for _, n := range got.Extra {
				if expected[n] {
					tp++
					delete(expected, n)
				} else {
					fp++
				}
			}
			fn += len(expected)
		})
	}
	t.Logf("phones_extra over %d sites: %d found, %d wrong, %d missed", len(cases), tp, fp, fn)
}

func TestFindSnippets(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		region string
		known  []string
		want   []string // Values()
	}{
		{"tel link with dots", `<a href="tel:04.78.12.34.56">x</a>`, "FR", nil, []string{"+33478123456", "", "+33478123456"}},
		{"tel link with +33 (0)", `<a href="tel:+33%20(0)6%2012%2034%2056%2078">x</a>`, "FR", nil, []string{"+33612345678", "+33612345678", ""}},
		{"dashes", `<p>Portable 06-12-34-56-78</p>`, "FR", nil, []string{"+33612345678", "+33612345678", ""}},
		{"known in any format", `<p>04 78 12 34 56 et 06 12 34 56 78</p>`, "FR", []string{"+33 4 78 12 34 56"}, []string{"+33612345678", "+33612345678", ""}},
		{"empty region means FR", `<p>Tél 04 78 12 34 56</p>`, "", nil, []string{"+33478123456", "", "+33478123456"}},
		{"SIREN is not a phone", `<p>SIREN 412 345 678</p>`, "FR", nil, []string{"", "", ""}},
		{"SIRET is not a phone", `<p>SIRET 41234567800027</p>`, "FR", nil, []string{"", "", ""}},
		{"date is not a phone", `<p>Le 12.03.2024</p>`, "FR", nil, []string{"", "", ""}},
		{"opening hours are not a phone", `<p>08.30 - 12.00 / 14.00 - 18.30</p>`, "FR", nil, []string{"", "", ""}},
		{"price is not a phone", `<p>0 478 123,45 €</p>`, "FR", nil, []string{"", "", ""}},
		{"fax label drops", `<p>Fax : 04 78 12 34 57</p>`, "FR", nil, []string{"", "", ""}},
		{"phone then a fax label", `<p>Téléphone atelier : 04.78.98.76.54 – Fax : 04 78 12 34 99</p>`, "FR", nil, []string{"+33478987654", "", "+33478987654"}},
		{"fax label before a phone label", `<p>Fax : 04 78 12 34 57 - Tél : 04 78 12 34 56</p>`, "FR", nil, []string{"+33478123456", "", "+33478123456"}},
		{"script is not shown", `<script>var t="04 78 12 34 56"</script>`, "FR", nil, []string{"", "", ""}},
		{"premium is fixed", `<p>08 92 23 45 67</p>`, "FR", nil, []string{"+33892234567", "", "+33892234567"}},
		{"two numbers glued by a slash", `<p>04 78 12 34 56/06 12 34 56 78</p>`, "FR", nil, []string{"+33478123456; +33612345678", "+33612345678", "+33478123456"}},
		{"microdata content attribute", `<span itemprop="telephone" content="+33478123456">Appeler</span>`, "FR", nil, []string{"+33478123456", "", "+33478123456"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, _ := url.Parse("https://example.fr/")
			p := crawl.NewPage(u, 200, nil, []byte("<html><body>"+tt.body+"</body></html>"))
			got := Find([]*crawl.Page{p}, tt.region, tt.known...).Values()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Find() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKindOfMapping(t *testing.T) {
	tests := []struct {
		typ  phonenumbers.PhoneNumberType
		want kind
	}{
		{phonenumbers.MOBILE, kindMobile},
		{phonenumbers.FIXED_LINE, kindFixed},
		{phonenumbers.FIXED_LINE_OR_MOBILE, kindFixed},
		{phonenumbers.VOIP, kindFixed},
		{phonenumbers.TOLL_FREE, kindFixed},
		{phonenumbers.SHARED_COST, kindFixed},
		{phonenumbers.PREMIUM_RATE, kindFixed},
		{phonenumbers.UAN, kindFixed},
		{phonenumbers.PAGER, kindOther},
		{phonenumbers.PERSONAL_NUMBER, kindOther},
		{phonenumbers.VOICEMAIL, kindOther},
		{phonenumbers.UNKNOWN, kindOther},
	}
	for _, tt := range tests {
		if got := kindOf(tt.typ); got != tt.want {
			t.Errorf("kindOf(%v) = %v, want %v", tt.typ, got, tt.want)
		}
	}
}

func TestFaxOnly(t *testing.T) {
	tests := []struct {
		label string
		want  bool
	}{
		{"Fax :", true},
		{"Télécopie", true},
		{"Télécopieur :", true},
		{"Tél/Fax :", false},
		{"Téléphone et fax", false},
		{"Tél. :", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := faxOnly(tt.label); got != tt.want {
			t.Errorf("faxOnly(%q) = %v, want %v", tt.label, got, tt.want)
		}
	}
}

func TestValuesColumns(t *testing.T) {
	r := Result{Extra: []string{"+33478123456", "+33612345678"}, Mobile: []string{"+33612345678"}, Fixed: []string{"+33478123456"}}
	got := r.Values()
	if len(got) != len(Columns) {
		t.Fatalf("Values() has %d cells, Columns %d", len(got), len(Columns))
	}
	if got[0] != strings.Join(r.Extra, "; ") || got[1] != "+33612345678" || got[2] != "+33478123456" {
		t.Errorf("Values() = %q", got)
	}
}

// BenchmarkFind reports pages per second over the labelled corpus; run
// with -cpu 1.
func BenchmarkFind(b *testing.B) {
	cases, _ := loadCases(b)
	var bodies [][]byte
	var urls []*url.URL
	var regions []string
	for _, c := range cases {
		for _, p := range c.Pages {
			body, err := os.ReadFile(filepath.Join("testdata", p.File))
			if err != nil {
				b.Fatal(err)
			}
			u, _ := url.Parse(p.URL)
			bodies = append(bodies, body)
			urls = append(urls, u)
			regions = append(regions, c.Region)
		}
	}
	b.ResetTimer()
	pages := 0
	for b.Loop() {
		for i, body := range bodies {
			// A fresh page each time: parsing is part of the cost.
			p := crawl.NewPage(urls[i], 200, nil, body)
			Find([]*crawl.Page{p}, regions[i])
			pages++
		}
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
