package brand

import (
	"image"
	"image/color"
)

// studioRange wraps a lossy WebP's pixels. VP8 stores limited-range
// ("studio", Y 16-235) BT.601 YCbCr, but golang.org/x/image/webp hands the
// planes over as image.YCbCr, whose conversion assumes JPEG's full range:
// white comes out #ebebeb and every colour greyer. At converts with the
// limited-range matrix instead.
type studioRange struct {
	ycc *image.YCbCr
	a   *image.NYCbCrA // nil without an alpha plane
}

// fromWebP wraps a decoded WebP when it is lossy (YCbCr); lossless WebP
// decodes to NRGBA and is returned as is.
func fromWebP(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.NYCbCrA:
		return studioRange{ycc: &m.YCbCr, a: m}
	case *image.YCbCr:
		return studioRange{ycc: m}
	}
	return img
}

func (s studioRange) ColorModel() color.Model { return color.NRGBAModel }
func (s studioRange) Bounds() image.Rectangle { return s.ycc.Bounds() }

func (s studioRange) At(x, y int) color.Color {
	r, g, b, a := s.nrgba(x, y)
	return color.NRGBA{r, g, b, a}
}

// nrgba is At without the interface, for Palette's sampling loop.
func (s studioRange) nrgba(x, y int) (r, g, b, a uint8) {
	if !(image.Point{x, y}.In(s.ycc.Rect)) {
		return 0, 0, 0, 0
	}
	yi, ci := s.ycc.YOffset(x, y), s.ycc.COffset(x, y)
	yy := (float64(s.ycc.Y[yi]) - 16) * 1.164
	cb := float64(s.ycc.Cb[ci]) - 128
	cr := float64(s.ycc.Cr[ci]) - 128
	alpha := uint8(0xff)
	if s.a != nil {
		alpha = s.a.A[s.a.AOffset(x, y)]
	}
	return clamp(yy + 1.596*cr), clamp(yy - 0.813*cr - 0.391*cb), clamp(yy + 2.018*cb), alpha
}

func clamp(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
