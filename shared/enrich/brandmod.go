package enrich

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich/brand"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/placerow"
)

// brandColumns are brand_assets' Produces list.
var brandColumns = []string{"logo_url", "logo_local_url", "logo_variants_local_urls", "favicon_url",
	"favicon_local_url", "brand_color", "brand_palette", "screenshot_local_url"}

// Bounds of brand_assets.
const (
	// maxLogoTries is how many logo candidates are fetched at most: the
	// best is kept as the logo, the next ones as variants.
	maxLogoTries = 4
	// maxAsset caps a re-hosted file (a logo is a few kilobytes; a
	// screenshot a few hundred).
	maxAsset = 4 << 20
)

// Screenshotter renders a page to a PNG (a headless browser).
type Screenshotter interface {
	Screenshot(ctx context.Context, u *url.URL) ([]byte, error)
}

// BrandDeps are what brand_assets needs besides the fetcher.
type BrandDeps struct {
	Files blob.Store
	// BaseURL prefixes the local URLs written in the output, so that a
	// downloaded CSV links to the files (the owner's session opens them).
	BaseURL string
	// Shots takes screenshots; nil where no browser is installed (a
	// screenshot asked for then fails like any other: an error of the
	// item, a log line, its surcharge refunded).
	Shots Screenshotter
}

type brandModule struct{ d BrandDeps }

// BrandModule is the brand_assets module.
func BrandModule(d BrandDeps) Module { return &brandModule{d: d} }

func (m *brandModule) Slug() string      { return modules.BrandAssets }
func (m *brandModule) Columns() []string { return brandColumns }
func (m *brandModule) Reads() []string   { return []string{"site_web"} }

func (m *brandModule) Run(ctx context.Context, env *Env, in Input) (Result, error) {
	out := empty(len(brandColumns))
	// A screenshot asked for and not taken is not charged, whatever the
	// reason (no site, a site down, the browser failing).
	unshot := 0.0
	if env.Job.Options.Bool("capture_screenshot") {
		unshot = ScreenshotShare()
	}
	site, ok := placerow.SiteURL(in["site_web"])
	if !ok {
		return Result{Values: out, Uncharged: unshot}, nil
	}
	h, err := home(ctx, env, in)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{Values: out, Unreachable: true, Uncharged: unshot}, nil
	}
	colourSource, err := m.logos(ctx, env, h, out)
	if err != nil {
		return Result{}, err
	}
	if colourSource, err = m.favicon(ctx, env, h, out, colourSource); err != nil {
		return Result{}, err
	}
	if colourSource != nil {
		if dominant, palette, err := brand.Palette(colourSource); err == nil {
			out[5], out[6] = dominant, strings.Join(palette, "; ")
		}
	}
	r := Result{Values: out, Found: out[0] != "" || out[3] != ""}
	if env.Job.Options.Bool("capture_screenshot") {
		if err := m.shoot(ctx, env, site, &r, out); err != nil {
			return Result{}, err
		}
	}
	return r, nil
}

// logos stores up to maxLogoTries of the home page's logo candidates that
// load: the first as the logo, the others as its variants. It returns the
// first of them that is not an SVG, the palette's source.
func (m *brandModule) logos(ctx context.Context, env *Env, h *crawl.Page, out []string) ([]byte, error) {
	var colourSource []byte
	var variants []string
	n := 0
	for _, c := range brand.Candidates(h) {
		if n == maxLogoTries {
			break
		}
		data, ext, ok := m.image(ctx, env, c.URL)
		if !ok {
			continue
		}
		kind := "logo"
		if n > 0 {
			kind = "logo" + strconv.Itoa(n+1)
		}
		local, err := m.store(ctx, env, kind, ext, data)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			out[0], out[1] = c.URL.String(), local
		} else {
			variants = append(variants, local)
		}
		if colourSource == nil && ext != "svg" {
			colourSource = data
		}
		n++
	}
	out[2] = strings.Join(variants, "; ")
	return colourSource, nil
}

// favicon stores the first of the home page's favicons that loads; it
// returns colourSource, or the favicon when there is none and it is not
// an SVG.
func (m *brandModule) favicon(ctx context.Context, env *Env, h *crawl.Page, out []string, colourSource []byte) ([]byte, error) {
	for _, u := range brand.Favicons(h) {
		data, ext, ok := m.image(ctx, env, u)
		if !ok {
			continue
		}
		local, err := m.store(ctx, env, "favicon", ext, data)
		if err != nil {
			return nil, err
		}
		out[3], out[4] = u.String(), local
		if colourSource == nil && ext != "svg" {
			colourSource = data
		}
		break
	}
	return colourSource, nil
}

// shoot takes and stores the site's screenshot into out; a screenshot
// that fails marks r as failed and gives back its surcharge.
func (m *brandModule) shoot(ctx context.Context, env *Env, site *url.URL, r *Result, out []string) error {
	png, err := m.screenshot(ctx, site)
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		// Not silently empty: the item counts as an error, the log
		// says why, and the screenshot's surcharge is given back.
		r.Failure = fmt.Sprintf("Screenshot of %s failed: %v.", site.Redacted(), err)
		r.FailureFR = fmt.Sprintf("Capture d'écran de %s en échec : %v.", site.Redacted(), err)
		r.Uncharged = ScreenshotShare()
	default:
		local, err := m.store(ctx, env, "screenshot", "png", png)
		if err != nil {
			return err
		}
		out[7] = local
	}
	return nil
}

// ScreenshotShare is the share of a brand_assets item's price that its
// screenshot stands for: the capture_screenshot option multiplies the
// price without by its factor.
func ScreenshotShare() float64 {
	e, _ := modules.Lookup(modules.BrandAssets)
	o, _ := e.Option("capture_screenshot")
	return 1 - 1/o.Factor["true"]
}

// errNoBrowser is the screenshot failure of a server without Chromium.
var errNoBrowser = errors.New("no browser on this server")

// screenshot takes the site's screenshot, within the size a re-hosted
// file may have.
func (m *brandModule) screenshot(ctx context.Context, site *url.URL) ([]byte, error) {
	if m.d.Shots == nil {
		return nil, errNoBrowser
	}
	png, err := m.d.Shots.Screenshot(ctx, site)
	switch {
	case err != nil:
		return nil, err
	case len(png) == 0:
		return nil, errors.New("the browser returned no image")
	case len(png) > maxAsset:
		return nil, fmt.Errorf("an image of %d bytes, over the %d MiB a file may have", len(png), maxAsset>>20)
	}
	return png, nil
}

// image reads an image URL (an http(s) address through the session, or a
// data: URI) and sniffs it; ok is false when it is not an image we keep.
func (m *brandModule) image(ctx context.Context, env *Env, u *url.URL) ([]byte, string, bool) {
	var data []byte
	if u.Scheme == "data" {
		d, ok := dataURI(u)
		if !ok {
			return nil, "", false
		}
		data = d
	} else {
		p, err := env.Session.Fetch(ctx, u.String())
		if err != nil || p.Status >= 400 {
			return nil, "", false
		}
		data = p.Body
	}
	if len(data) == 0 || len(data) > maxAsset {
		return nil, "", false
	}
	ext, err := brand.Sniff(data)
	if err != nil {
		return nil, "", false
	}
	return data, ext, true
}

// dataURI decodes a base64 data: URI's bytes.
func dataURI(u *url.URL) ([]byte, bool) {
	_, payload, ok := strings.Cut(u.Opaque, ",")
	if !ok || !strings.Contains(u.Opaque[:len(u.Opaque)-len(payload)], ";base64") {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(payload)
	return b, err == nil
}

// store re-hosts a file under the job owner's assets and returns its
// local URL.
func (m *brandModule) store(ctx context.Context, env *Env, kind, ext string, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	name := fmt.Sprintf("%s-%s-%s.%s", env.Job.ID, hex.EncodeToString(sum[:8]), kind, ext)
	if !jobs.AssetName.MatchString(name) {
		return "", fmt.Errorf("brand_assets: asset name %q out of pattern", name)
	}
	if _, err := m.d.Files.Put(ctx, jobs.AssetKey(env.Job.UserID, name), bytes.NewReader(data), jobs.AssetType(ext)); err != nil {
		return "", fmt.Errorf("brand_assets: store %s: %w", name, err)
	}
	return strings.TrimRight(m.d.BaseURL, "/") + jobs.AssetPath(env.Job.UserID, name), nil
}
