package prices

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// labelledCase is one site of testdata/labels.json with its expected cells.
type labelledCase struct {
	Name  string `json:"name"`
	Pages []struct {
		File string `json:"file"`
		URL  string `json:"url"`
	} `json:"pages"`
	Amount     string   `json:"price_amount"`
	Currency   string   `json:"price_currency"`
	Period     string   `json:"price_period"`
	Confidence float64  `json:"price_confidence"`
	Covers     []string `json:"covers"`
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
	right := 0
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := Find(sites[i])
			want := []string{c.Amount, c.Currency, c.Period, ""}
			if c.Amount != "" {
				want[3] = strconv.FormatFloat(c.Confidence, 'f', 2, 64)
			}
			if !reflect.DeepEqual(got.Values(), want) {
				t.Errorf("Find() = %q, want %q", got.Values(), want)
				return
			}
			right++
		})
	}
	t.Logf("pricing: %d of %d sites exactly right (amount, currency, period, confidence)", right, len(cases))
}

func TestFindSnippets(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"à partir de", `<p>Coupe à partir de 49 €</p>`, []string{"49.00", "EUR", "one_time", "0.50"}},
		{"per month glued", `<p>Abonnement 49€/mois</p>`, []string{"49.00", "EUR", "month", "0.55"}},
		{"thousands and decimals", `<p>Pose : 1 290,00 € TTC</p>`, []string{"1290.00", "EUR", "one_time", "0.30"}},
		{"currency before, English period", `<p>Only €29.99 per month</p>`, []string{"29.99", "EUR", "month", "0.35"}},
		{"de l'heure", `<p>Tarif : 60 € de l'heure</p>`, []string{"60.00", "EUR", "hour", "0.55"}},
		{"forfait HT", `<p>forfait 120 € HT</p>`, []string{"120.00", "EUR", "one_time", "0.50"}},
		{"qualifier before", `<p>Taux horaire : 45 € HT</p>`, []string{"45.00", "EUR", "hour", "0.55"}},
		{"night", `<h2>Nos tarifs</h2><p>Chambre double 95 € la nuit</p>`, []string{"95.00", "EUR", "night", "0.55"}},
		{"week", `<p>Location du chalet : 700 € la semaine</p>`, []string{"700.00", "EUR", "week", "0.35"}},
		{"day", `<p>Forfait 150 € par jour</p>`, []string{"150.00", "EUR", "day", "0.55"}},
		{"year", `<p>Cotisation 80 € par an</p>`, []string{"80.00", "EUR", "year", "0.35"}},
		{"capital social", `<p>SARL au capital de 10 000 €</p>`, []string{"", "", "", ""}},
		{"shipping threshold", `<p>Livraison offerte dès 50 €</p>`, []string{"", "", "", ""}},
		{"struck price", `<p><del>80 €</del> <s>75 €</s> <strike>70 €</strike> 60 €</p>`, []string{"60.00", "EUR", "one_time", "0.30"}},
		{"year is not a price", `<p>Tarifs 2025 : consultation 60 €</p>`, []string{"60.00", "EUR", "one_time", "0.50"}},
		{"range takes the lower bound", `<p>Séance de 50 à 80 €</p>`, []string{"50.00", "EUR", "one_time", "0.50"}},
		{"phone and percentage", `<p>Tél 04 78 12 34 56 - 20 % de remise</p>`, []string{"", "", "", ""}},
		{"phone pair before euro", `<p>Appelez le 04 78 12 34 56 €</p>`, []string{"", "", "", ""}},
		{"pricing table beats text", `<p>Tarif à partir de 9 €</p><table><tr><td>Pack</td><td>39 €</td></tr></table>`, []string{"39.00", "EUR", "one_time", "0.70"}},
		{"JSON-LD beats table", `<script type="application/ld+json">{"@type":"Offer","price":"25","priceCurrency":"EUR"}</script><table><tr><td>39 €</td></tr></table>`, []string{"25.00", "EUR", "one_time", "0.90"}},
		{"microdata unitCode", `<div itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="45"><meta itemprop="priceCurrency" content="EUR"><meta itemprop="unitCode" content="HUR"></div>`, []string{"45.00", "EUR", "hour", "0.95"}},
		{"microdata unitText words", `<div itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="30"><meta itemprop="priceCurrency" content="EUR"><span itemprop="unitText">par mois</span></div>`, []string{"30.00", "EUR", "month", "0.95"}},
		{"screen-reader text is not shown", `<p><span class="visually-hidden">Prix</span>19 €</p>`, []string{"19.00", "EUR", "one_time", "0.30"}},
		{"pounds", `<p>£12.50 per hour</p>`, []string{"12.50", "GBP", "hour", "0.35"}},
		{"dollars english thousands", `<p>Kitchen remodel from $12,500</p>`, []string{"12500.00", "USD", "one_time", "0.50"}},
		{"zero is not a price", `<p>Essai : 0 €</p>`, []string{"", "", "", ""}},
		{"hidden block", `<div style="display:none">Prix 99 €</div>`, []string{"", "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, _ := url.Parse("https://example.fr/")
			p := crawl.NewPage(u, 200, nil, []byte("<html><body>"+tt.body+"</body></html>"))
			if got := Find([]*crawl.Page{p}).Values(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Find() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCents(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"49", 4900}, {"49,90", 4990}, {"29.99", 2999}, {"1 290,00", 129000},
		{"1.290", 129000}, {"1,290.00", 129000}, {"1\u00a0290", 129000}, {"8,5", 850},
	}
	for _, tt := range tests {
		if got, ok := cents(tt.in); !ok || got != tt.want {
			t.Errorf("cents(%q) = %d, %v; want %d", tt.in, got, ok, tt.want)
		}
	}
}

func TestValuesColumns(t *testing.T) {
	if got := (Result{}).Values(); len(got) != len(Columns) {
		t.Fatalf("Values() has %d cells, Columns %d", len(got), len(Columns))
	}
	got := Result{Amount: "49.00", Currency: "EUR", Period: "month", Confidence: 0.8}.Values()
	if want := []string{"49.00", "EUR", "month", "0.80"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Values() = %q, want %q", got, want)
	}
}

// BenchmarkFind reports pages per second over the labelled corpus; run
// with -cpu 1.
func BenchmarkFind(b *testing.B) {
	cases, _ := loadCases(b)
	var bodies [][]byte
	var urls []*url.URL
	for _, c := range cases {
		for _, p := range c.Pages {
			body, err := os.ReadFile(filepath.Join("testdata", p.File))
			if err != nil {
				b.Fatal(err)
			}
			u, _ := url.Parse(p.URL)
			bodies = append(bodies, body)
			urls = append(urls, u)
		}
	}
	pages := 0
	for b.Loop() {
		for i, body := range bodies {
			// A fresh page each time: parsing is part of the cost.
			Find([]*crawl.Page{crawl.NewPage(urls[i], 200, nil, body)})
			pages++
		}
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
