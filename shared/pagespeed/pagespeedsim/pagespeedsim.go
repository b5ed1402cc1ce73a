// Package pagespeedsim is the simulated twin of the PageSpeed Insights
// API, for offline runs (SVC_DATA_SOURCES=sim). It lives beside its
// client so that a binary importing the client does not link it.
package pagespeedsim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/pagespeed"
)

// simDomain is the parent domain of the simulated world's websites
// (shared/provider/sim): .test is reserved, nothing real answers there.
const simDomain = ".sim.test"

// simFieldShare is the share of simulated sites with field data: CrUX
// knows only sites with enough Chrome visitors, which most small
// businesses' are not.
const simFieldShare = 0.3

// Handler is the simulated twin of the API, for offline runs: it serves
// GET pagespeed.Path in the v5 response format for pages of the simulated
// world's sites (https://….sim.test/), with scores and metrics drawn from
// a hash of the page's URL and the strategy (the same page always gets the
// same report), field data for about 30% of sites (by host), and for any
// other host the API's 400 "Lighthouse returned error:
// FAILED_DOCUMENT_REQUEST" (as for a name that does not resolve). It
// answers at once, where the real API takes 10 to 30 seconds.
//
// What it serves is made up: a job whose client points at it must say so
// (the module's source "sim").
func Handler() http.Handler { return http.HandlerFunc(serveSim) }

func serveSim(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != pagespeed.Path {
		simError(w, http.StatusNotFound, "NOT_FOUND", "global", "notFound", "Method not found.")
		return
	}
	if r.Method != http.MethodGet {
		simError(w, http.StatusMethodNotAllowed, "INVALID_ARGUMENT", "global", "badRequest", "Only GET is allowed.")
		return
	}
	q := r.URL.Query()
	page := q.Get("url")
	u, err := url.Parse(page)
	if page == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		simError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "global", "badRequest",
			"Invalid value at 'url' (TYPE_STRING), \""+page+"\"")
		return
	}
	strategy := q.Get("strategy")
	switch strategy {
	case "":
		strategy = "desktop" // the API's default
	case "mobile", "desktop":
	default:
		simError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "global", "badRequest",
			"Invalid value at 'strategy' (type.googleapis.com/google.protobuf.Enum), \""+strategy+"\"")
		return
	}
	host := strings.ToLower(u.Hostname())
	if !strings.HasSuffix(host, simDomain) {
		msg := "Lighthouse returned error: FAILED_DOCUMENT_REQUEST. Lighthouse was unable to reliably load the page you requested. Make sure you are testing the correct URL and that the server is properly responding to all requests. (Details: net::ERR_NAME_NOT_RESOLVED)"
		simError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "lighthouse", "lighthouseUserFacingError", msg)
		return
	}
	cats := q["category"]
	if len(cats) == 0 {
		cats = []string{"performance"} // the API's default
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(simReport(u, host, strategy, cats))
}

func simError(w http.ResponseWriter, code int, status, domain, reason, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": msg, "status": status,
		"errors": []map[string]string{{"message": msg, "domain": domain, "reason": reason}},
	}})
}

// draws is a deterministic stream of uniform numbers in [0, 1) from a
// key.
type draws struct {
	key string
	n   int
}

func (d *draws) next() float64 {
	h := sha256.Sum256([]byte(d.key + "|" + string(rune('a'+d.n))))
	d.n++
	return float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func simReport(u *url.URL, host, strategy string, cats []string) map[string]any {
	page := u.String()
	d := &draws{key: "pagespeed-sim|" + strategy + "|" + page}
	// Performance drives the lab metrics: a slow page is slow all over.
	perf := 0.2 + 0.75*d.next()
	if strategy == "desktop" {
		perf = math.Min(1, perf+0.15)
	}
	perf = round2(perf)
	scores := map[string]float64{
		"performance":    perf,
		"seo":            round2(0.7 + 0.3*d.next()),
		"accessibility":  round2(0.6 + 0.4*d.next()),
		"best-practices": round2(0.55 + 0.45*d.next()),
	}
	lcp := math.Round((1200+(1-perf)*8000+600*d.next())*10) / 10
	cls := math.Round(0.35*math.Pow(d.next(), 3)*10000) / 10000
	fcp := math.Round(lcp*(0.45+0.3*d.next())*10) / 10
	categories := map[string]any{}
	for _, c := range cats {
		s, ok := scores[c]
		if !ok {
			continue
		}
		categories[c] = map[string]any{"id": c, "title": simTitles[c], "score": s, "auditRefs": []any{}}
	}
	audits := map[string]any{
		"largest-contentful-paint": metricAudit("largest-contentful-paint", "Largest Contentful Paint", lcp, "millisecond", 2500, 4000),
		"cumulative-layout-shift":  metricAudit("cumulative-layout-shift", "Cumulative Layout Shift", cls, "unitless", 0.1, 0.25),
		"first-contentful-paint":   metricAudit("first-contentful-paint", "First Contentful Paint", fcp, "millisecond", 1800, 3000),
	}
	field := map[string]any{"initial_url": page}
	origin := map[string]any{"initial_url": page}
	hd := &draws{key: "pagespeed-sim-field|" + strategy + "|" + host}
	if hd.next() < simFieldShare {
		lcpP := math.Round(1500 + (1-perf)*4000 + 800*hd.next())
		clsP := math.Round(30 * math.Pow(hd.next(), 2))
		inpP := math.Round(80 + 500*math.Pow(hd.next(), 1.5))
		metrics := map[string]any{
			"LARGEST_CONTENTFUL_PAINT_MS":   cruxMetric(lcpP, 2500, 4000),
			"CUMULATIVE_LAYOUT_SHIFT_SCORE": cruxMetric(clsP, 10, 25),
			"INTERACTION_TO_NEXT_PAINT":     cruxMetric(inpP, 200, 500),
			"FIRST_CONTENTFUL_PAINT_MS":     cruxMetric(math.Round(lcpP*0.6), 1800, 3000),
		}
		origin = map[string]any{"id": u.Scheme + "://" + u.Host, "metrics": metrics, "overall_category": overall(metrics), "initial_url": page}
		// The page alone has too few visitors: the API falls back to its
		// origin's data and says so.
		field = map[string]any{"id": u.Scheme + "://" + u.Host, "metrics": metrics, "overall_category": overall(metrics), "initial_url": page, "origin_fallback": true}
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	return map[string]any{
		"captchaResult":           "CAPTCHA_NOT_NEEDED",
		"kind":                    "pagespeedonline#result",
		"id":                      page,
		"loadingExperience":       field,
		"originLoadingExperience": origin,
		"lighthouseResult": map[string]any{
			"requestedUrl":      page,
			"finalUrl":          page,
			"mainDocumentUrl":   page,
			"finalDisplayedUrl": page,
			"lighthouseVersion": "12.8.2",
			"fetchTime":         now,
			"runWarnings":       []any{},
			"configSettings":    map[string]any{"emulatedFormFactor": strategy, "formFactor": strategy, "locale": "en-US", "onlyCategories": cats, "channel": "sim"},
			"audits":            audits,
			"categories":        categories,
			"timing":            map[string]any{"total": 0},
		},
		"analysisUTCTimestamp": now,
	}
}

var simTitles = map[string]string{"performance": "Performance", "seo": "SEO", "accessibility": "Accessibility", "best-practices": "Best Practices"}

func metricAudit(id, title string, v float64, unit string, good, poor float64) map[string]any {
	score := 1 - math.Min(1, math.Max(0, (v-good/2)/(poor*1.5-good/2)))
	return map[string]any{"id": id, "title": title, "score": round2(score), "scoreDisplayMode": "numeric",
		"numericValue": v, "numericUnit": unit}
}

func rating(p, good, poor float64) string {
	switch {
	case p <= good:
		return "FAST"
	case p <= poor:
		return "AVERAGE"
	}
	return "SLOW"
}

func cruxMetric(p, good, poor float64) map[string]any {
	cat := rating(p, good, poor)
	// Shares below, between and above the thresholds that put the 75th
	// percentile in cat.
	share := map[string][3]float64{"FAST": {0.8, 0.14, 0.06}, "AVERAGE": {0.6, 0.28, 0.12}, "SLOW": {0.45, 0.28, 0.27}}[cat]
	return map[string]any{"percentile": p, "category": cat, "distributions": []map[string]any{
		{"min": 0, "max": good, "proportion": share[0]},
		{"min": good, "max": poor, "proportion": share[1]},
		{"min": poor, "proportion": share[2]},
	}}
}

func overall(metrics map[string]any) string {
	worst := "FAST"
	for _, k := range []string{"LARGEST_CONTENTFUL_PAINT_MS", "CUMULATIVE_LAYOUT_SHIFT_SCORE", "INTERACTION_TO_NEXT_PAINT"} {
		c := metrics[k].(map[string]any)["category"].(string)
		if c == "SLOW" || (c == "AVERAGE" && worst == "FAST") {
			worst = c
		}
	}
	return worst
}
