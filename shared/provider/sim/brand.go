package sim

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// siteLogo is the share of fixture sites showing a logo (and a favicon of
// its colours).
const siteLogo = 0.8

// brandOf draws the site's brand colours: a main colour (saturated, so
// that it stands out of white and black) and an accent.
func brandOf(r *rng) (main, accent color.RGBA) {
	hues := []color.RGBA{
		{0xc0, 0x39, 0x2b, 0xff}, {0x27, 0xae, 0x60, 0xff}, {0x29, 0x80, 0xb9, 0xff}, {0x8e, 0x44, 0xad, 0xff},
		{0xd3, 0x54, 0x00, 0xff}, {0x16, 0xa0, 0x85, 0xff}, {0x2c, 0x3e, 0x50, 0xff}, {0xf3, 0x9c, 0x12, 0xff},
	}
	main = hues[r.intn(len(hues))]
	accent = hues[r.intn(len(hues))]
	return main, accent
}

// logoPNG draws the site's logo: a w×h image, white background, a block
// of the main colour with a band of the accent, as a logo file would
// hold its brand colours.
func logoPNG(main, accent color.RGBA, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{0xff, 0xff, 0xff, 0xff}
			switch {
			case x >= w/10 && x < w*9/10 && y >= h/5 && y < h*3/5:
				c = main
			case x >= w/10 && x < w*9/10 && y >= h*3/5 && y < h*4/5:
				c = accent
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // writing to memory does not fail
	return b.Bytes()
}
