package brand

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// tolerance is how far (RGB distance) a returned colour may be from the
// expected one: lossy formats shift colours a little.
const tolerance = 12

func hexDist(t *testing.T, a, b string) float64 {
	t.Helper()
	var x, y rgb
	if _, err := fmt.Sscanf(a, "#%02x%02x%02x", &x.r, &x.g, &x.b); err != nil {
		t.Fatalf("bad colour %q: %v", a, err)
	}
	if _, err := fmt.Sscanf(b, "#%02x%02x%02x", &y.r, &y.g, &y.b); err != nil {
		t.Fatalf("bad colour %q: %v", b, err)
	}
	return dist(x, y)
}

func containsNear(t *testing.T, palette []string, want string) bool {
	for _, c := range palette {
		if hexDist(t, c, want) <= tolerance {
			return true
		}
	}
	return false
}

// TestPaletteTestdata runs Palette over the real-shaped files of
// testdata/images (PNG, ICO with PNG, 32-bit and 8-bit BMP entries, WebP).
func TestPaletteTestdata(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "images", "labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	var labels []struct {
		File     string   `json:"file"`
		Kind     string   `json:"kind"`
		Dominant string   `json:"dominant"`
		Contains []string `json:"palette_contains"`
		Note     string   `json:"note"`
	}
	if err := json.Unmarshal(raw, &labels); err != nil {
		t.Fatal(err)
	}
	for _, l := range labels {
		t.Run(l.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "images", l.File))
			if err != nil {
				t.Fatal(err)
			}
			if kind, err := Sniff(data); err != nil || kind != l.Kind {
				t.Errorf("Sniff = %q, %v; want %q", kind, err, l.Kind)
			}
			dom, pal, err := Palette(data)
			if err != nil {
				t.Fatalf("Palette: %v (%s)", err, l.Note)
			}
			if hexDist(t, dom, l.Dominant) > tolerance {
				t.Errorf("dominant = %s, want %s (%s); palette %v", dom, l.Dominant, l.Note, pal)
			}
			for _, c := range l.Contains {
				if !containsNear(t, pal, c) {
					t.Errorf("palette %v lacks %s (%s)", pal, c, l.Note)
				}
			}
			if len(pal) > PaletteSize {
				t.Errorf("palette has %d colours, want at most %d", len(pal), PaletteSize)
			}
		})
	}
}

// drawn builds an image of rectangles over a background.
func drawn(w, h int, bg color.Color, rects ...any) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	for i := 0; i+1 < len(rects); i += 2 {
		draw.Draw(img, rects[i].(image.Rectangle), image.NewUniform(rects[i+1].(color.Color)), image.Point{}, draw.Src)
	}
	return img
}

func encode(t testing.TB, img image.Image, format string) []byte {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92})
	case "gif":
		err = gif.Encode(&buf, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var (
	white       = color.NRGBA{255, 255, 255, 255}
	black       = color.NRGBA{8, 8, 8, 255}
	transparent = color.NRGBA{}
	blue        = color.NRGBA{0, 87, 184, 255}
	yellow      = color.NRGBA{255, 209, 0, 255}
	red         = color.NRGBA{200, 16, 46, 255}
)

func TestPaletteDrawn(t *testing.T) {
	tests := []struct {
		name     string
		img      image.Image
		format   string
		dominant color.NRGBA
		contains []color.NRGBA
		size     int // expected palette length, 0 to skip
	}{
		{"blue over white, white ignored", drawn(100, 100, white, image.Rect(0, 0, 30, 30), blue), "png", blue, nil, 1},
		{"transparent pixels ignored", drawn(100, 100, transparent, image.Rect(0, 0, 10, 10), red), "png", red, nil, 1},
		{"black background ignored", drawn(100, 100, black, image.Rect(10, 10, 60, 60), yellow, image.Rect(60, 60, 90, 90), blue), "png", yellow, []color.NRGBA{blue}, 2},
		{"two colours ranked by area", drawn(64, 64, white, image.Rect(0, 0, 64, 20), red, image.Rect(0, 20, 64, 60), blue), "jpg", blue, []color.NRGBA{red}, 0},
		{"GIF", paletted(50, 50, image.Rect(0, 0, 50, 25)), "gif", red, nil, 1},
		{"all white logo keeps white", drawn(40, 40, white), "png", white, nil, 1},
		{"white logo with a tiny speck keeps white", drawn(100, 100, white, image.Rect(0, 0, 2, 2), red), "png", white, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dom, pal, err := Palette(encode(t, tt.img, tt.format))
			if err != nil {
				t.Fatal(err)
			}
			hex := func(c color.NRGBA) string { return rgb{c.R, c.G, c.B, 0}.hex() }
			if hexDist(t, dom, hex(tt.dominant)) > tolerance {
				t.Errorf("dominant = %s, want %s (palette %v)", dom, hex(tt.dominant), pal)
			}
			for _, c := range tt.contains {
				if !containsNear(t, pal, hex(c)) {
					t.Errorf("palette %v lacks %s", pal, hex(c))
				}
			}
			if tt.size > 0 && len(pal) != tt.size {
				t.Errorf("palette %v has %d colours, want %d", pal, len(pal), tt.size)
			}
		})
	}
}

// paletted is a white GIF-style image with a red rectangle.
func paletted(w, h int, r image.Rectangle) *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{white, red})
	draw.Draw(img, r, image.NewUniform(red), image.Point{}, draw.Src)
	return img
}

func TestPaletteManyColoursCapped(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 256, 256))
	for y := 0; y < 256; y++ {
		for x := 0; x < 256; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	_, pal, err := Palette(encode(t, img, "png"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pal) != PaletteSize {
		t.Errorf("palette of a gradient has %d colours, want %d: %v", len(pal), PaletteSize, pal)
	}
}

func TestPaletteBounds(t *testing.T) {
	// A PNG header declaring 5000x10 is refused before any pixel is read:
	// the body after the header is garbage.
	var hdr bytes.Buffer
	hdr.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 5000)
	binary.BigEndian.PutUint32(ihdr[4:], 10)
	ihdr[8], ihdr[9] = 8, 6
	writeChunk(&hdr, "IHDR", ihdr)
	hdr.WriteString("garbage")
	if _, _, err := Palette(hdr.Bytes()); !errors.Is(err, ErrTooLarge) {
		t.Errorf("5000x10 PNG: err = %v, want ErrTooLarge", err)
	}
	big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, maxBytes)...)
	if _, _, err := Palette(big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("file over 8 MiB: err = %v, want ErrTooLarge", err)
	}
	if _, _, err := Palette(drawn4096(t)); err != nil {
		t.Errorf("4096x1 PNG (at the bound): %v", err)
	}
	if _, _, err := Palette(encode(t, drawn(10, 10, transparent), "png")); !errors.Is(err, ErrNoColour) {
		t.Errorf("fully transparent: err = %v, want ErrNoColour", err)
	}
	if _, _, err := Palette([]byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)); !errors.Is(err, ErrVector) {
		t.Errorf("SVG: err = %v, want ErrVector", err)
	}
	if _, _, err := Palette([]byte("<!DOCTYPE html><html><body>404</body></html>")); !errors.Is(err, ErrNotImage) {
		t.Errorf("HTML: err = %v, want ErrNotImage", err)
	}
}

func drawn4096(t *testing.T) []byte {
	return encode(t, drawn(4096, 1, red), "png")
}

func writeChunk(w *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	w.Write(n[:])
	w.WriteString(typ)
	w.Write(data)
	binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(append([]byte(typ), data...)))
	w.Write(n[:])
}

func TestICOMalformed(t *testing.T) {
	// Directory claims an entry past the end of the file.
	data := []byte{0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0xff, 0xff, 0, 0, 22, 0, 0, 0}
	if _, _, err := Palette(data); err == nil {
		t.Error("ICO with an entry past its end: no error")
	}
}

func BenchmarkPalette512(b *testing.B) {
	img := image.NewNRGBA(image.Rect(0, 0, 512, 512))
	for y := 0; y < 512; y++ {
		for x := 0; x < 512; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x / 2), uint8(y / 2), uint8((x + y) / 4), 255})
		}
	}
	data := encode(b, img, "png")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Palette(data); err != nil {
			b.Fatal(err)
		}
	}
}
