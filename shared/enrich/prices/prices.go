// Package prices finds the most representative price of a business's
// offer on its website (node type pricing, docs/spec "Node types":
// price_amount, price_currency, price_period, price_confidence).
//
// Evidence, strongest first:
//   - structured: schema.org Offer, AggregateOffer or PriceSpecification in
//     JSON-LD or microdata (price or lowPrice, priceCurrency, unitText /
//     unitCode / billingDuration);
//   - tabular: a price inside a <table> or a block whose class or id names
//     prices (pricing, price, tarif, plan, forfait, formule, offre);
//   - keyword: a price in text near "tarif", "prix", "forfait",
//     "à partir de", "honoraires", "menu", "price", "from"...;
//   - plain: any other price with a currency sign.
//
// The chosen price comes from the strongest kind present; among its
// candidates the median amount is taken, the upper one of an even count
// (the middle plan of three, a main dish of a menu): the cheap add-on and
// the premium outlier do not represent the offer. A range ("de 50 à 80 €", "50-80 €") counts as its lower
// bound, the price a customer is told to expect "from".
//
// Left out: capital social, shipping thresholds and fees, discounts,
// deposits and retainers, late-payment indemnities, amounts "after tax
// credit", ceilings ("jusqu'à 20 000 €"), struck-through prices (<del>, <s>,
// <strike>, old/compare-at price classes), numbers without a currency
// (phones, years, percentages) and zero prices.
//
// Periods: one_time (none said), hour, day, night, week, month, year, read
// from the words after the amount ("/mois", "de l'heure", "per month",
// "/nuit"), from a qualifier before it ("taux horaire", "abonnement
// mensuel") or from schema.org unitText / unitCode (HUR, DAY, WEE, MON,
// ANN).
//
// Amounts are written with a dot and two decimals ("1290.00"); currencies
// are ISO 4217: € EUR, $ USD, £ GBP, CHF / Fr. CHF.
package prices

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/prospectdata/svc/shared/crawl"
)

// Columns are the columns the module produces, in order.
var Columns = []string{"price_amount", "price_currency", "price_period", "price_confidence"}

// Result is the chosen price; the zero Result means none was found.
type Result struct {
	Amount     string  // "1290.00"
	Currency   string  // ISO 4217
	Period     string  // one_time, hour, day, night, week, month, year
	Confidence float64 // 0..1
}

// Values returns the cells in Columns order; all empty when no price was
// found.
func (r Result) Values() []string {
	if r.Amount == "" {
		return []string{"", "", "", ""}
	}
	return []string{r.Amount, r.Currency, r.Period, strconv.FormatFloat(r.Confidence, 'f', 2, 64)}
}

// evidence is the kind of markup a price was read from.
type evidence int

const (
	plain evidence = iota
	keyword
	tabular
	structured
)

// base is the confidence each kind of evidence starts from.
var base = [...]float64{plain: 0.3, keyword: 0.5, tabular: 0.7, structured: 0.9}

// candidate is one price read on a page.
type candidate struct {
	cents       int64
	currency    string
	period      string
	explicit    bool // the period was written, not assumed one_time
	evidence    evidence
	pricingPage bool // found on a page whose address names prices
}

// Find returns the most representative price the pages show.
//
// confidence = min(1, base(evidence) + 0.05·[period written]
// + 0.05·[same amount and currency also read from another kind of
// evidence] + 0.05·[read on a prix/tarif/pricing page]),
// with base 0.9 structured, 0.7 tabular, 0.5 keyword, 0.3 plain.
func Find(pages []*crawl.Page) Result {
	var all []candidate
	for _, p := range pages {
		if p == nil {
			continue
		}
		all = append(all, fromPage(p)...)
	}
	if len(all) == 0 {
		return Result{}
	}
	best := plain
	for _, c := range all {
		if c.evidence > best {
			best = c.evidence
		}
	}
	var tier []candidate
	for _, c := range all {
		if c.evidence == best {
			tier = append(tier, c)
		}
	}
	sort.SliceStable(tier, func(i, j int) bool { return tier[i].cents < tier[j].cents })
	c := tier[len(tier)/2]

	conf := base[c.evidence]
	if c.explicit {
		conf += 0.05
	}
	for _, o := range all {
		if o.evidence != c.evidence && o.cents == c.cents && o.currency == c.currency {
			conf += 0.05
			break
		}
	}
	if c.pricingPage {
		conf += 0.05
	}
	if conf > 1 {
		conf = 1
	}
	return Result{
		Amount:     fmt.Sprintf("%d.%02d", c.cents/100, c.cents%100),
		Currency:   c.currency,
		Period:     c.period,
		Confidence: float64(int(conf*100+0.5)) / 100,
	}
}

// fromPage reads every candidate of one page.
func fromPage(p *crawl.Page) []candidate {
	pricingPage := p.URL != nil && pricingPath.MatchString(p.URL.Path)
	out := structuredPrices(p)
	out = append(out, textPrices(p)...)
	for i := range out {
		out[i].pricingPage = pricingPage
	}
	return out
}
