// Package techstack is the "techstack" enrichment (service-api.md, "Node
// types"): it names a site's CMS, its analytics and its advertising pixels
// from already fetched pages, using the Wappalyzer fingerprint database
// through github.com/projectdiscovery/wappalyzergo.
package techstack

import (
	"fmt"
	"sort"
	"strings"

	wappalyzer "github.com/projectdiscovery/wappalyzergo"

	"github.com/prospectdata/svc/shared/crawl"
)

// Detector fingerprints pages. Building one compiles the whole fingerprint
// database (see BenchmarkNew), so build it once per process and share it:
// it is read-only after New and safe for concurrent use.
type Detector struct {
	wap *wappalyzer.Wappalyze
	// columns maps every technology name of the database to the columns
	// it feeds; names feeding none are absent.
	columns map[string]column
	// known holds every technology name of the database.
	known map[string]bool
}

// New loads and compiles the fingerprint database.
func New() (*Detector, error) {
	wap, err := wappalyzer.New()
	if err != nil {
		return nil, fmt.Errorf("techstack: load wappalyzer fingerprints: %w", err)
	}
	cats := wappalyzer.GetCategoriesMapping()
	apps := wap.GetFingerprints().Apps
	d := &Detector{
		wap:     wap,
		columns: make(map[string]column),
		known:   make(map[string]bool, len(apps)),
	}
	for name, app := range apps {
		d.known[name] = true
		var c column
		for _, id := range app.Cats {
			c |= categoryColumns[cats[id].Name]
		}
		if adPixelApps[name] {
			c = colAdsPixels
		}
		if notPlatforms[name] {
			c &^= colCMS
		}
		if c != 0 {
			d.columns[name] = c
		}
	}
	for _, r := range fallbackRules {
		if !d.known[r.name] {
			return nil, fmt.Errorf("techstack: fallback rule %q names no technology of the database", r.name)
		}
	}
	return d, nil
}

// Detect fingerprints the headers, cookies and body of every page and
// merges what they show; nil pages are skipped.
// Values are Detect's cells in Columns' order (enrich.TechDetector).
func (d *Detector) Values(pages []*crawl.Page) []string { return d.Detect(pages).Values() }

func (d *Detector) Detect(pages []*crawl.Page) Result {
	found := make(map[string]bool)
	for _, p := range pages {
		if p == nil {
			continue
		}
		for tech := range d.wap.Fingerprint(p.Header, p.Body) {
			found[d.baseName(tech)] = true
		}
		traces := tracesOf(p)
		if loaders := traces.loaderPage(); loaders != nil {
			for tech := range d.wap.Fingerprint(nil, loaders) {
				found[d.baseName(tech)] = true
			}
		}
		for _, r := range fallbackRules {
			if !found[r.name] && r.matches(traces) {
				found[r.name] = true
			}
		}
	}
	var res Result
	for name := range found {
		res.All = append(res.All, name)
		c := d.columns[name]
		if c&colCMS != 0 {
			res.CMS = append(res.CMS, name)
		}
		if c&colAnalytics != 0 {
			res.Analytics = append(res.Analytics, name)
		}
		if c&colAdsPixels != 0 {
			res.AdsPixels = append(res.AdsPixels, name)
		}
	}
	for _, l := range [][]string{res.All, res.CMS, res.Analytics, res.AdsPixels} {
		sort.Strings(l)
	}
	return res
}

// baseName drops the ":version" wappalyzergo appends, leaving names that
// hold a colon themselves ("Re:amaze") whole.
func (d *Detector) baseName(tech string) string {
	if d.known[tech] {
		return tech
	}
	if i := strings.LastIndex(tech, ":"); i > 0 && d.known[tech[:i]] {
		return tech[:i]
	}
	name, _, _ := strings.Cut(tech, ":")
	return name
}
