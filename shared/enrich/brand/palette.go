package brand

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // GIF logos, still common on old sites
	_ "image/jpeg"
	_ "image/png"
	"math"
	"sort"

	_ "golang.org/x/image/webp" // WebP, what site builders now convert uploads to
)

// Bounds of Palette: a logo or favicon is far smaller; anything larger is
// a photo or an attempt at a decompression bomb.
const (
	maxEdge  = 4096
	maxBytes = 8 << 20
	// PaletteSize is the most colours Palette returns.
	PaletteSize = 5
	// maxSamples bounds the pixels read: a grid over larger images gives
	// the same colours at a fraction of the time.
	maxSamples = 1 << 16
	// opaqueEnough: pixels less opaque than this (anti-aliased edges,
	// shadows, transparent background) do not count.
	opaqueEnough = 0x80
	// minShare is the share of pixels the non-background colours must
	// have for near-white and near-black to be dropped as background: less
	// is the grey fringe of a black-on-white logo after lossy compression.
	minShare = 0.05
	// mergeDist merges palette colours closer than this (RGB distance):
	// the two halves of a cut through one anti-aliased colour.
	mergeDist = 24
)

// Errors of Palette, matched with errors.Is.
var (
	// ErrTooLarge: the file or its declared dimensions exceed the bounds.
	ErrTooLarge = errors.New("brand: image too large")
	// ErrNoColour: every pixel is transparent.
	ErrNoColour = errors.New("brand: image has no opaque pixel")
	// ErrVector: an SVG, which Palette does not rasterise.
	ErrVector = errors.New("brand: vector image")
)

// Palette decodes an image (PNG, JPEG, GIF, WebP, ICO holding PNG or BMP)
// and returns its dominant colour and a palette of up to PaletteSize
// colours, most frequent first, as "#rrggbb". Transparent pixels are
// ignored, and so are near-white and near-black ones (a logo's background
// or outline) when other colours make up at least 5% of the image. The
// file's size and the header's dimensions are checked before decoding.
func Palette(data []byte) (dominant string, palette []string, err error) {
	if len(data) > maxBytes {
		return "", nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(data))
	}
	kind, err := Sniff(data)
	if err != nil {
		return "", nil, err
	}
	if kind == "svg" {
		return "", nil, ErrVector
	}
	var cfg image.Config
	if kind == "ico" {
		cfg, err = icoConfig(data)
	} else {
		cfg, _, err = image.DecodeConfig(bytes.NewReader(data))
	}
	if err != nil {
		return "", nil, fmt.Errorf("brand: reading %s header: %w", kind, err)
	}
	if cfg.Width > maxEdge || cfg.Height > maxEdge {
		return "", nil, fmt.Errorf("%w: %dx%d", ErrTooLarge, cfg.Width, cfg.Height)
	}
	var img image.Image
	if kind == "ico" {
		img, err = decodeICO(data)
	} else {
		img, _, err = image.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return "", nil, fmt.Errorf("brand: decoding %s: %w", kind, err)
	}
	if kind == "webp" {
		img = fromWebP(img)
	}
	colours := quantise(img, PaletteSize)
	if len(colours) == 0 {
		return "", nil, ErrNoColour
	}
	for _, c := range colours {
		palette = append(palette, c.hex())
	}
	return palette[0], palette, nil
}

// rgb is one palette colour and how many sampled pixels it stands for.
type rgb struct {
	r, g, b uint8
	n       int
}

func (c rgb) hex() string { return fmt.Sprintf("#%02x%02x%02x", c.r, c.g, c.b) }

// bin is one cell of the 5-bit-per-channel histogram: its pixel count and
// the channel sums, so a box's colour is the true mean of its pixels.
type bin struct {
	key              uint16
	n                int
	sumR, sumG, sumB int
}

// quantise samples the image, drops transparent and (when other colours
// exist) near-white/near-black pixels, and median-cuts the rest.
func quantise(img image.Image, k int) []rgb {
	bounds := img.Bounds()
	step := 1
	if area := bounds.Dx() * bounds.Dy(); area > maxSamples {
		step = int(math.Ceil(math.Sqrt(float64(area) / maxSamples)))
	}
	var all, coloured [1 << 15]bin
	total, nColoured := 0, 0
	at := pixelReader(img)
	for y := bounds.Min.Y; y < bounds.Max.Y; y += step {
		for x := bounds.Min.X; x < bounds.Max.X; x += step {
			r8, g8, b8, a8 := at(x, y)
			if a8 < opaqueEnough {
				continue
			}
			key := uint16(r8>>3)<<10 | uint16(g8>>3)<<5 | uint16(b8>>3)
			addTo(&all[key], key, r8, g8, b8)
			total++
			if !background(r8, g8, b8) {
				addTo(&coloured[key], key, r8, g8, b8)
				nColoured++
			}
		}
	}
	if total == 0 {
		return nil
	}
	hist := all[:]
	if nColoured > 0 && float64(nColoured) >= minShare*float64(total) {
		hist = coloured[:]
	}
	var bins []bin
	for _, b := range hist {
		if b.n > 0 {
			bins = append(bins, b)
		}
	}
	return medianCut(bins, k)
}

// pixelReader returns a reader of un-premultiplied 8-bit pixels, reading
// the buffers of the common decoded types directly: going through At
// boxes every pixel in an interface, which is most of the time spent.
func pixelReader(img image.Image) func(x, y int) (r, g, b, a uint8) {
	switch m := img.(type) {
	case *image.NRGBA:
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			i := m.PixOffset(x, y)
			return m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3]
		}
	case *image.RGBA:
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			i := m.PixOffset(x, y)
			r, g, b, a := m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3]
			if a == 0 || a == 0xff {
				return r, g, b, a
			}
			return uint8(int(r) * 0xff / int(a)), uint8(int(g) * 0xff / int(a)), uint8(int(b) * 0xff / int(a)), a
		}
	case *image.Paletted:
		pal := make([]color.NRGBA, len(m.Palette))
		for i, c := range m.Palette {
			pal[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
		}
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			i := int(m.Pix[m.PixOffset(x, y)])
			if i >= len(pal) {
				return 0, 0, 0, 0
			}
			c := pal[i]
			return c.R, c.G, c.B, c.A
		}
	case *image.YCbCr:
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			r, g, b := color.YCbCrToRGB(m.Y[m.YOffset(x, y)], m.Cb[m.COffset(x, y)], m.Cr[m.COffset(x, y)])
			return r, g, b, 0xff
		}
	case studioRange:
		return m.nrgba
	}
	return func(x, y int) (uint8, uint8, uint8, uint8) {
		r, g, b, a := img.At(x, y).RGBA()
		if a == 0 {
			return 0, 0, 0, 0
		}
		// Un-premultiply to the colour as drawn.
		return uint8(r * 0xff / a), uint8(g * 0xff / a), uint8(b * 0xff / a), uint8(a >> 8)
	}
}

func addTo(b *bin, key uint16, r, g, bl uint8) {
	b.key = key
	b.n++
	b.sumR += int(r)
	b.sumG += int(g)
	b.sumB += int(bl)
}

// background tells near-white (light, unsaturated) and near-black pixels.
func background(r, g, b uint8) bool {
	lo, hi := min(r, g, b), max(r, g, b)
	return (lo >= 220 && hi-lo <= 24) || hi <= 48
}

// medianCut splits the bins into at most k boxes, always cutting the box
// with the most pixels times colour spread, along its widest channel at
// the pixel-weighted median; each box becomes its pixels' mean colour.
func medianCut(bins []bin, k int) []rgb {
	boxes := [][]bin{bins}
	for len(boxes) < k {
		pick, bestScore := -1, 0
		for i, bx := range boxes {
			if len(bx) < 2 {
				continue
			}
			_, spread := widest(bx)
			if s := pixels(bx) * (spread + 1); s > bestScore {
				pick, bestScore = i, s
			}
		}
		if pick < 0 {
			break
		}
		lo, hi := split(boxes[pick])
		boxes[pick] = lo
		boxes = append(boxes, hi)
	}
	var out []rgb
	for _, bx := range boxes {
		var n, sr, sg, sb int
		for _, b := range bx {
			n += b.n
			sr += b.sumR
			sg += b.sumG
			sb += b.sumB
		}
		out = append(out, rgb{uint8(sr / n), uint8(sg / n), uint8(sb / n), n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].n > out[j].n })
	out = mergeClose(out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].n > out[j].n })
	return out
}

// channel reads one 5-bit channel of a bin key (0 red, 1 green, 2 blue).
func channel(key uint16, c int) int { return int(key>>(10-5*c)) & 0x1f }

func widest(bx []bin) (ch, spread int) {
	for c := 0; c < 3; c++ {
		lo, hi := 31, 0
		for _, b := range bx {
			v := channel(b.key, c)
			lo, hi = min(lo, v), max(hi, v)
		}
		if hi-lo > spread || c == 0 {
			ch, spread = c, hi-lo
		}
	}
	return ch, spread
}

func pixels(bx []bin) int {
	n := 0
	for _, b := range bx {
		n += b.n
	}
	return n
}

// split cuts a box of two or more bins at the weighted median of its
// widest channel; both halves are non-empty.
func split(bx []bin) (lo, hi []bin) {
	ch, _ := widest(bx)
	sorted := append([]bin(nil), bx...)
	sort.Slice(sorted, func(i, j int) bool { return channel(sorted[i].key, ch) < channel(sorted[j].key, ch) })
	half, acc := pixels(sorted)/2, 0
	cut := 1
	for i, b := range sorted[:len(sorted)-1] {
		acc += b.n
		cut = i + 1
		if acc >= half {
			break
		}
	}
	return sorted[:cut], sorted[cut:]
}

// mergeClose folds each colour into an earlier (more frequent) one it is
// indistinguishable from.
func mergeClose(cs []rgb) []rgb {
	var out []rgb
	for _, c := range cs {
		merged := false
		for i := range out {
			if dist(out[i], c) < mergeDist {
				out[i].n += c.n
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, c)
		}
	}
	return out
}

func dist(a, b rgb) float64 {
	dr, dg, db := float64(a.r)-float64(b.r), float64(a.g)-float64(b.g), float64(a.b)-float64(b.b)
	return math.Sqrt(dr*dr + dg*dg + db*db)
}
