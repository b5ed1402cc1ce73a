package prices

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/prospectdata/svc/shared/crawl"
)

// structuredPrices reads schema.org offers from JSON-LD and microdata.
func structuredPrices(p *crawl.Page) []candidate {
	var out []candidate
	doc := p.Doc()
	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		var v any
		if err := json.Unmarshal([]byte(s.Text()), &v); err != nil {
			return // a broken block says nothing reliable about prices
		}
		out = append(out, jsonOffers(v, "")...)
	})
	doc.Find(`[itemprop~="price"], [itemprop~="lowPrice"]`).Each(func(_ int, s *goquery.Selection) {
		if struck(s) {
			return
		}
		if c, ok := microdataOffer(s); ok {
			out = append(out, c)
		}
	})
	return out
}

// jsonOffers walks a JSON-LD value; currency is inherited from an
// enclosing offer by its priceSpecification.
func jsonOffers(v any, currency string) []candidate {
	var out []candidate
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			out = append(out, jsonOffers(e, currency)...)
		}
	case map[string]any:
		if cur := scalar(t["priceCurrency"]); cur != "" {
			currency = strings.ToUpper(cur)
		}
		amount := scalar(t["price"])
		if amount == "" {
			amount = scalar(t["lowPrice"])
		}
		_, hasSpec := t["priceSpecification"]
		if amount != "" && currency != "" && !hasSpec {
			if c, ok := machineCents(amount); ok && c > 0 {
				period := ""
				for _, k := range []string{"unitCode", "unitText", "billingDuration"} {
					if period = unitPeriod(scalar(t[k])); period != "" {
						break
					}
				}
				if period == "" {
					if rq, ok := t["referenceQuantity"].(map[string]any); ok {
						period = unitPeriod(scalar(rq["unitCode"]))
					}
				}
				out = append(out, offer(c, currency, period, structured))
			}
		}
		// Sorted keys keep the candidates' order stable.
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch t[k].(type) {
			case map[string]any, []any:
				out = append(out, jsonOffers(t[k], currency)...)
			}
		}
	}
	return out
}

// scalar is a JSON string or number as text.
func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case float64:
		return fmt.Sprintf("%g", t)
	}
	return ""
}

// microdataOffer reads an itemprop=price with the priceCurrency and
// unitText / unitCode of its item.
func microdataOffer(s *goquery.Selection) (candidate, bool) {
	raw, ok := s.Attr("content")
	if !ok {
		raw = s.Text()
	}
	item := s.Closest("[itemscope]")
	currency := ""
	if cur := item.Find(`[itemprop~="priceCurrency"]`).First(); cur.Length() > 0 {
		if v, ok := cur.Attr("content"); ok {
			currency = v
		} else {
			currency = cur.Text()
		}
		currency = strings.ToUpper(strings.TrimSpace(currency))
	}
	var c int64
	if m := price.FindStringSubmatch(raw); m != nil {
		// "49,00 €" written in the price element itself.
		if currency == "" {
			currency = currencyCode(m[1] + m[4])
		}
		if c, ok = cents(m[2] + m[3]); !ok {
			return candidate{}, false
		}
	} else if c, ok = machineCents(raw); !ok {
		return candidate{}, false
	}
	if c <= 0 || currency == "" {
		return candidate{}, false
	}
	period := ""
	for _, prop := range []string{"unitCode", "unitText", "billingDuration"} {
		u := item.Find(`[itemprop~="` + prop + `"]`).First()
		if u.Length() == 0 {
			continue
		}
		v, ok := u.Attr("content")
		if !ok {
			v = u.Text()
		}
		if period = unitPeriod(v); period != "" {
			break
		}
	}
	return offer(c, currency, period, structured), true
}

// offer builds a candidate; an unsaid period is one_time.
func offer(c int64, currency, period string, ev evidence) candidate {
	explicit := period != ""
	if !explicit {
		period = "one_time"
	}
	return candidate{cents: c, currency: currency, period: period, explicit: explicit, evidence: ev}
}

// struck reports a price inside a struck-through element or an old-price
// block.
func struck(s *goquery.Selection) bool {
	if s.Closest("del, s, strike").Length() > 0 {
		return true
	}
	for n := s; n.Length() > 0; n = n.Parent() {
		if oldPriceClass(n.AttrOr("class", "")) {
			return true
		}
	}
	return false
}

// oldPriceClass names the blocks themes use for a price before a sale.
func oldPriceClass(class string) bool {
	c := strings.ToLower(class)
	for _, w := range []string{"old-price", "price-old", "price--old", "compare-at", "compare_at", "was-price", "price-was", "regular-price--strike", "price--compare"} {
		if strings.Contains(c, w) {
			return true
		}
	}
	return false
}
