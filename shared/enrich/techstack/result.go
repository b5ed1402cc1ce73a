package techstack

import "strings"

// Columns are the CSV columns this module produces, in spec order
// (docs: service-api.md, "Node types", techstack).
var Columns = []string{"tech_cms", "tech_analytics", "tech_ads_pixels"}

// Result is what Detect found on a site. Every list is sorted and holds
// each technology name once, without version.
type Result struct {
	CMS       []string
	Analytics []string
	AdsPixels []string
	// All is every technology found, whatever its category.
	All []string
}

// Values returns the row cells in Columns order: each list joined with
// "; ", "" when empty.
func (r Result) Values() []string {
	return []string{
		strings.Join(r.CMS, "; "),
		strings.Join(r.Analytics, "; "),
		strings.Join(r.AdsPixels, "; "),
	}
}
