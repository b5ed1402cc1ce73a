package brand

import (
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/prospectdata/svc/shared/crawl"
)

// Candidate is one URL that may be the site's logo.
type Candidate struct {
	URL *url.URL
	// Source says where the URL was found (one of the Source* constants).
	Source string
	// Score ranks candidates: higher is likelier the logo.
	Score int
}

// Where a candidate was found.
const (
	// SourceJSONLD: the logo of an Organization or LocalBusiness in JSON-LD,
	// the site saying in so many words which image is its logo.
	SourceJSONLD = "json-ld"
	// SourceLogoImg: an <img> whose class, id or file name, or an
	// ancestor's class or id, says logo (WordPress custom-logo, Shopify
	// header__heading-logo, Webflow w-nav-brand...).
	SourceLogoImg = "logo-img"
	// SourceAltImg: an <img> whose alt says logo or the site's name.
	SourceAltImg = "alt-img"
	// SourceHeaderImg: an <img> in the header or the navigation.
	SourceHeaderImg = "header-img"
	// SourceSVGImg: an SVG <img> elsewhere on the page; SVG is what
	// designers deliver logos in, rarely photos.
	SourceSVGImg = "svg-img"
	// SourceOGImage: the og:image, often a photo of the shop or a dish.
	SourceOGImage = "og:image"
	// SourceTouchIcon: the apple-touch-icon, a square version of the mark.
	SourceTouchIcon = "apple-touch-icon"
)

// Scores of each source; bonuses and penalties adjust them per image.
const (
	scoreJSONLD     = 100
	scoreLogoImg    = 80
	scoreAltImg     = 70
	scoreHeaderImg  = 50
	scoreTouchIcon  = 30
	scoreOGImage    = 20
	scoreSVGImg     = 15
	bonusInHeader   = 10
	bonusSVG        = 3
	bonusOGLogoName = 40
	penaltyFooter   = 25
	// maxDataURI bounds an inline data: image kept as a candidate.
	maxDataURI = 64 << 10
)

// Candidates returns the logo candidates of a home page, best first:
// JSON-LD Organization/LocalBusiness logo, logo-marked <img>, <img> whose
// alt is "logo" or the site's name, header/nav <img>, apple-touch-icon,
// og:image (often a photo, so below the touch icon unless its file name
// says logo), other SVG <img>. URLs are absolute and deduplicated; tracking
// pixels, sprites and data: URIs over 64 KiB are left out.
func Candidates(home *crawl.Page) []Candidate {
	if home == nil {
		return nil
	}
	doc := home.Doc()
	base := baseURL(home)
	c := collector{base: base, seen: map[string]int{}}

	for _, logo := range jsonLDLogos(doc) {
		c.add(logo, SourceJSONLD, scoreJSONLD)
	}
	names := siteNames(home, doc)
	doc.Find("body img").Each(func(_ int, img *goquery.Selection) {
		c.addImg(img, names)
	})
	doc.Find("link[rel]").Each(func(_ int, l *goquery.Selection) {
		if hasRelToken(l, "apple-touch-icon", "apple-touch-icon-precomposed") {
			c.add(attr(l, "href"), SourceTouchIcon, scoreTouchIcon)
		}
	})
	for _, prop := range []string{"og:image", "og:image:url", "og:image:secure_url"} {
		doc.Find(`meta[property="` + prop + `"], meta[name="` + prop + `"]`).Each(func(_ int, m *goquery.Selection) {
			href := attr(m, "content")
			score := scoreOGImage
			if strings.Contains(strings.ToLower(fileName(href)), "logo") {
				score += bonusOGLogoName
			}
			c.add(href, SourceOGImage, score)
		})
	}

	out := c.out
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// collector gathers candidates in document order, keeping the best score
// of a URL seen twice.
type collector struct {
	base *url.URL
	seen map[string]int
	out  []Candidate
}

func (c *collector) add(href, source string, score int) {
	u := resolveImage(c.base, href)
	if u == nil {
		return
	}
	key := u.String()
	if i, ok := c.seen[key]; ok {
		if score > c.out[i].Score {
			c.out[i].Score, c.out[i].Source = score, source
		}
		return
	}
	c.seen[key] = len(c.out)
	c.out = append(c.out, Candidate{URL: u, Source: source, Score: score})
}

// addImg scores one <img>: what marks it as the logo, where it stands.
func (c *collector) addImg(img *goquery.Selection, names []string) {
	src := imgSrc(img)
	if src == "" || isPixel(img) || isTiny(img) || isSprite(img, src) {
		return
	}
	inHeader := img.Closest("header, nav, [role=banner], #header, .header, .site-header, #masthead").Length() > 0
	inFooter := img.Closest("footer, [role=contentinfo], #footer, .footer, .site-footer").Length() > 0
	isSVG := strings.HasSuffix(strings.ToLower(pathOf(src)), ".svg") || strings.HasPrefix(src, "data:image/svg")

	source, score := "", 0
	switch {
	case logoMarked(img, src):
		source, score = SourceLogoImg, scoreLogoImg
	case altNamesSite(attr(img, "alt"), names, inHeader) || altNamesSite(attr(img, "title"), names, inHeader):
		source, score = SourceAltImg, scoreAltImg
	case inHeader:
		source, score = SourceHeaderImg, scoreHeaderImg
	case isSVG && !looksLikeIcon(src):
		source, score = SourceSVGImg, scoreSVGImg
	default:
		return
	}
	if inHeader {
		score += bonusInHeader
	}
	if inFooter {
		score -= penaltyFooter
	}
	if isSVG {
		score += bonusSVG
	}
	c.add(src, source, score)
}

// imgSrc is the image's address, preferring a lazy loader's real source
// over the placeholder in src.
func imgSrc(img *goquery.Selection) string {
	src := strings.TrimSpace(attr(img, "src"))
	for _, lazy := range []string{"data-src", "data-lazy-src", "data-original"} {
		if v := strings.TrimSpace(attr(img, lazy)); v != "" && (src == "" || strings.HasPrefix(src, "data:")) {
			return v
		}
	}
	if src == "" {
		// srcset alone: its first entry.
		if set := strings.TrimSpace(attr(img, "srcset")); set != "" {
			return strings.Fields(set)[0]
		}
	}
	return src
}

// logoWords are class/id/file-name fragments that mark an image as the
// site's own mark.
var logoWords = []string{"logo", "brand", "marque", "enseigne"}

// notOwnLogo are class/id fragments of sections showing other firms'
// logos: partners, clients, labels, payment methods.
var notOwnLogo = []string{"logos", "partner", "partenaire", "client", "sponsor", "payment", "paiement", "label", "certif", "reference", "social", "footer-logo-list"}

// logoMarked tells whether the image, its file name, or an ancestor up to
// four levels (link, figure, div) says logo.
func logoMarked(img *goquery.Selection, src string) bool {
	if marked(attr(img, "class")+" "+attr(img, "id")) || marked(fileName(src)) {
		return !inOthersLogos(img)
	}
	n := img.Parent()
	for i := 0; i < 4 && n.Length() > 0; i++ {
		if goquery.NodeName(n) == "body" {
			break
		}
		if marked(attr(n, "class") + " " + attr(n, "id")) {
			return !inOthersLogos(img)
		}
		n = n.Parent()
	}
	return false
}

func marked(s string) bool {
	s = strings.ToLower(s)
	for _, w := range logoWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// inOthersLogos tells whether an ancestor's class or id names a section of
// other firms' logos.
func inOthersLogos(img *goquery.Selection) bool {
	for n := img; n.Length() > 0 && goquery.NodeName(n) != "body"; n = n.Parent() {
		s := strings.ToLower(attr(n, "class") + " " + attr(n, "id"))
		for _, w := range notOwnLogo {
			if strings.Contains(s, w) {
				return true
			}
		}
	}
	return false
}

// iconWords are file-name fragments of pictograms that are never the logo.
var iconWords = []string{"icon", "ico-", "arrow", "fleche", "phone", "tel", "mail", "facebook", "instagram", "linkedin", "twitter", "youtube", "tiktok", "whatsapp", "pinterest", "cart", "panier", "search", "menu", "close", "star", "check", "map", "pin", "loader", "spinner"}

func looksLikeIcon(src string) bool {
	name := strings.ToLower(fileName(src))
	for _, w := range iconWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// isPixel tells a tracking pixel: 1x1 (or smaller) by its attributes, or
// a beacon of a known tracker.
func isPixel(img *goquery.Selection) bool {
	w, werr := strconv.Atoi(strings.TrimSuffix(attr(img, "width"), "px"))
	h, herr := strconv.Atoi(strings.TrimSuffix(attr(img, "height"), "px"))
	if werr == nil && herr == nil && w <= 2 && h <= 2 {
		return true
	}
	src := strings.ToLower(imgSrc(img))
	for _, t := range trackerMarks {
		if strings.Contains(src, t) {
			return true
		}
	}
	return false
}

// tinyEdge: an image declared smaller than this both ways is a flag, a
// bullet or a pictogram, never a logo worth storing.
const tinyEdge = 24

func isTiny(img *goquery.Selection) bool {
	w, werr := strconv.Atoi(strings.TrimSuffix(attr(img, "width"), "px"))
	h, herr := strconv.Atoi(strings.TrimSuffix(attr(img, "height"), "px"))
	return werr == nil && herr == nil && w < tinyEdge && h < tinyEdge
}

// trackerMarks are URL fragments of tracking beacons served as images.
var trackerMarks = []string{"facebook.com/tr", "google-analytics.com", "doubleclick.net", "bat.bing.com", "px.ads.linkedin.com", "analytics.twitter.com", "pixel.", "/pixel?", "/pixel.gif", "ct.pinterest.com", "stats.wp.com"}

func isSprite(img *goquery.Selection, src string) bool {
	return strings.Contains(strings.ToLower(fileName(src)), "sprite") ||
		strings.Contains(strings.ToLower(attr(img, "class")), "sprite")
}

// resolveImage makes href absolute; nil for what cannot be a logo URL
// (javascript:, empty, data: that is not an image or is too big).
func resolveImage(base *url.URL, href string) *url.URL {
	href = strings.TrimSpace(href)
	if href == "" {
		return nil
	}
	if strings.HasPrefix(strings.ToLower(href), "data:") {
		if len(href) > maxDataURI || !strings.HasPrefix(strings.ToLower(href), "data:image/") {
			return nil
		}
		u, err := url.Parse(href)
		if err != nil {
			return nil
		}
		return u
	}
	ref, err := url.Parse(href)
	if err != nil {
		return nil
	}
	u := ref
	if base != nil {
		u = base.ResolveReference(ref)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil
	}
	u.Fragment = ""
	return u
}

// baseURL is the page's URL, moved by a <base href> when there is one.
func baseURL(p *crawl.Page) *url.URL {
	return p.Resolve("")
}

func attr(s *goquery.Selection, name string) string {
	v, _ := s.Attr(name)
	return v
}

func hasRelToken(l *goquery.Selection, tokens ...string) bool {
	for _, t := range strings.Fields(strings.ToLower(attr(l, "rel"))) {
		for _, want := range tokens {
			if t == want {
				return true
			}
		}
	}
	return false
}

// pathOf is the path of a reference, without query or fragment.
func pathOf(href string) string {
	if u, err := url.Parse(href); err == nil {
		return u.Path
	}
	return href
}

func fileName(href string) string {
	if strings.HasPrefix(href, "data:") {
		return ""
	}
	return path.Base(pathOf(href))
}
