package brand

import (
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/prospectdata/svc/shared/crawl"
)

// scalableSize ranks an icon declared sizes="any" or served as SVG: it
// scales to any size, so it beats every bitmap.
const scalableSize = 1 << 16

// touchIconSize is what an apple-touch-icon without sizes is (Apple's
// default, 180x180 since iOS 8).
const touchIconSize = 180

// sizeInName reads "32x32" in a file name such as favicon-32x32.png.
var sizeInName = regexp.MustCompile(`(\d{2,4})x\d{2,4}`)

// Favicons returns the icon URLs, best first: rel icon / shortcut icon
// largest first, then apple-touch-icon largest first, then /favicon.ico at
// the site root, which browsers ask for when nothing is declared.
func Favicons(home *crawl.Page) []*url.URL {
	if home == nil {
		return nil
	}
	base := baseURL(home)
	type icon struct {
		u     *url.URL
		size  int
		touch bool
	}
	var icons []icon
	home.Doc().Find("link[rel][href]").Each(func(_ int, l *goquery.Selection) {
		touch := hasRelToken(l, "apple-touch-icon", "apple-touch-icon-precomposed")
		if !touch && !hasRelToken(l, "icon") {
			return
		}
		href := attr(l, "href")
		u := resolveImage(base, href)
		if u == nil {
			return
		}
		size := declaredSize(attr(l, "sizes"), attr(l, "type"), href)
		if size == 0 && touch {
			size = touchIconSize
		}
		icons = append(icons, icon{u: u, size: size, touch: touch})
	})
	sort.SliceStable(icons, func(i, j int) bool {
		if icons[i].touch != icons[j].touch {
			return !icons[i].touch
		}
		return icons[i].size > icons[j].size
	})
	var out []*url.URL
	seen := map[string]bool{}
	for _, ic := range icons {
		if k := ic.u.String(); !seen[k] {
			seen[k] = true
			out = append(out, ic.u)
		}
	}
	if home.URL != nil && (home.URL.Scheme == "http" || home.URL.Scheme == "https") {
		root := &url.URL{Scheme: home.URL.Scheme, Host: home.URL.Host, Path: "/favicon.ico"}
		if !seen[root.String()] {
			out = append(out, root)
		}
	}
	return out
}

// declaredSize is the largest edge an icon declares: its sizes attribute
// ("16x16 32x32", "any"), SVG being scalable, or a size in its file name;
// 0 when nothing says.
func declaredSize(sizes, typ, href string) int {
	best := 0
	for _, s := range strings.Fields(strings.ToLower(sizes)) {
		if s == "any" {
			return scalableSize
		}
		w, _, ok := strings.Cut(s, "x")
		if n, err := strconv.Atoi(w); ok && err == nil && n > best {
			best = n
		}
	}
	if best > 0 {
		return best
	}
	if strings.Contains(strings.ToLower(typ), "svg") || strings.HasSuffix(strings.ToLower(pathOf(href)), ".svg") {
		return scalableSize
	}
	if m := sizeInName.FindStringSubmatch(fileName(href)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}
