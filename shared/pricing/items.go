package pricing

import "math"

// Item options that change a module's cost.
type ItemOptions struct {
	// Deep is the emails module's deep mode: a bounded crawl of the site
	// instead of its home, contact and legal pages.
	Deep bool
	// Screenshot is brand_assets' capture_screenshot: a headless browser
	// renders the home page.
	Screenshot bool
}

// itemEF is the cost of one item per module, in EF. One EF is one map
// search; a site module fetches a handful of pages of one site, which
// costs the platform far less than a search (no provider bill, a few
// hundred kilobytes of bandwidth), hence cents. docs/pricing.md gives the
// reasoning per module.
var itemEF = map[string]float64{
	"emails":           0.02,
	"socials":          0.01,
	"techstack":        0.01,
	"ads_intelligence": 0.01,
	"brand_assets":     0.02,
	"legal_ids":        0.01,
	"legal_mentions":   0.01,
	"phones_extra":     0.01,
	"pricing":          0.01,
	"dead_check":       0.005,
	"site_finder":      0.05,
	// Data-source modules (docs/pricing.md): reviews is one provider
	// request per place, priced as a search; the free public APIs cost
	// their upstream time and rate-limit share; phone_info reads tables.
	"reviews":       1.0,
	"verify_emails": 0.01,
	"legal_data":    0.02,
	"opendata":      0.01,
	"pagespeed":     0.02,
	"phone_info":    0.002,
}

// Multipliers of the options: deep mode fetches up to DeepPages pages
// instead of about 3; a screenshot is about 5 times the work (spec).
const (
	DeepFactor       = 5.0
	ScreenshotFactor = 5.0
)

// PerItem is a module's price of one item with the default options; ok is
// false for a module without an item price.
func PerItem(module string) (ef float64, ok bool) {
	ef, ok = itemEF[module]
	return ef, ok
}

// ItemEF is the cost of an item-driven job of the module over n items,
// rounded to the cent; ok is false for a module without an item price.
func ItemEF(module string, n int, o ItemOptions) (ef float64, ok bool) {
	per, ok := itemEF[module]
	if !ok {
		return 0, false
	}
	if o.Deep {
		per *= DeepFactor
	}
	if o.Screenshot {
		per *= ScreenshotFactor
	}
	return math.Round(per*float64(n)*100) / 100, true
}
