package brand

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"golang.org/x/image/bmp"
)

// ICO layout (Microsoft's ICONDIR / ICONDIRENTRY): a 6-byte header, then
// 16 bytes per image, each pointing at a PNG file or at a headerless BMP
// (a DIB) whose height counts the colour rows and the AND mask rows.
const (
	icoHeaderLen = 6
	icoEntryLen  = 16
	dibHeaderLen = 40
	bmpFileLen   = 14
)

var errICO = errors.New("brand: malformed ICO")

// icoEntry is the chosen image of an icon file.
type icoEntry struct {
	data  []byte
	isPNG bool
}

// icoBest returns the largest image of an icon file (the deepest colour
// on a tie): the one the palette is read from.
func icoBest(data []byte) (icoEntry, error) {
	if !isICO(data) {
		return icoEntry{}, errICO
	}
	n := int(binary.LittleEndian.Uint16(data[4:]))
	best, bestArea, bestBPP := icoEntry{}, -1, -1
	for i := 0; i < n; i++ {
		e := data[icoHeaderLen+i*icoEntryLen:]
		w, h := int(e[0]), int(e[1])
		if w == 0 {
			w = 256
		}
		if h == 0 {
			h = 256
		}
		bpp := int(binary.LittleEndian.Uint16(e[6:]))
		size := int(binary.LittleEndian.Uint32(e[8:]))
		off := int(binary.LittleEndian.Uint32(e[12:]))
		if off < 0 || size <= 0 || off > len(data) || size > len(data)-off {
			continue
		}
		if area := w * h; area > bestArea || (area == bestArea && bpp > bestBPP) {
			body := data[off : off+size]
			best = icoEntry{data: body, isPNG: bytes.HasPrefix(body, []byte("\x89PNG"))}
			bestArea, bestBPP = area, bpp
		}
	}
	if best.data == nil {
		return icoEntry{}, errICO
	}
	return best, nil
}

// icoConfig reads the chosen image's dimensions without decoding it.
func icoConfig(data []byte) (image.Config, error) {
	e, err := icoBest(data)
	if err != nil {
		return image.Config{}, err
	}
	if e.isPNG {
		return png.DecodeConfig(bytes.NewReader(e.data))
	}
	d, err := parseDIB(e.data)
	if err != nil {
		return image.Config{}, err
	}
	return image.Config{ColorModel: color.NRGBAModel, Width: d.width, Height: d.height}, nil
}

// decodeICO decodes the chosen image: PNG entries with image/png, BMP
// entries with golang.org/x/image/bmp after restoring the file header and
// halving the height, then the transparency put back (the BMP decoder
// ignores the alpha of 40-byte headers and knows nothing of AND masks).
func decodeICO(data []byte) (image.Image, error) {
	e, err := icoBest(data)
	if err != nil {
		return nil, err
	}
	if e.isPNG {
		img, err := png.Decode(bytes.NewReader(e.data))
		if err != nil {
			return nil, fmt.Errorf("brand: ICO's PNG: %w", err)
		}
		return img, nil
	}
	d, err := parseDIB(e.data)
	if err != nil {
		return nil, err
	}
	file := make([]byte, 0, bmpFileLen+len(e.data))
	file = append(file, 'B', 'M')
	file = binary.LittleEndian.AppendUint32(file, uint32(bmpFileLen+len(e.data)))
	file = binary.LittleEndian.AppendUint32(file, 0)
	file = binary.LittleEndian.AppendUint32(file, uint32(bmpFileLen+d.pixelOff))
	file = append(file, e.data...)
	binary.LittleEndian.PutUint32(file[bmpFileLen+8:], uint32(d.height))
	img, err := bmp.Decode(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("brand: ICO's BMP: %w", err)
	}
	out := image.NewNRGBA(image.Rect(0, 0, d.width, d.height))
	for y := 0; y < d.height; y++ {
		for x := 0; x < d.width; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			out.SetNRGBA(x, y, color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), d.alpha(e.data, x, y)})
		}
	}
	return out, nil
}

// dib is what decodeICO needs of a BMP entry's header.
type dib struct {
	width, height int
	bpp           int
	pixelOff      int // offset of the colour rows from the header's start
	stride        int // bytes per colour row
	maskOff       int // offset of the AND mask
	maskStride    int
	useAlpha      bool // 32 bpp with a real alpha channel
}

func parseDIB(b []byte) (dib, error) {
	if len(b) < dibHeaderLen || binary.LittleEndian.Uint32(b) != dibHeaderLen {
		return dib{}, fmt.Errorf("%w: BMP entry without a 40-byte header", errICO)
	}
	d := dib{
		width:  int(int32(binary.LittleEndian.Uint32(b[4:]))),
		height: int(int32(binary.LittleEndian.Uint32(b[8:]))) / 2,
		bpp:    int(binary.LittleEndian.Uint16(b[14:])),
	}
	if d.width <= 0 || d.height <= 0 || d.width > maxEdge || d.height > maxEdge {
		return dib{}, fmt.Errorf("%w: BMP entry of %dx%d", errICO, d.width, d.height)
	}
	colours := 0
	if d.bpp <= 8 {
		colours = int(binary.LittleEndian.Uint32(b[32:]))
		if colours == 0 {
			colours = 1 << d.bpp
		}
	}
	d.pixelOff = dibHeaderLen + 4*colours
	d.stride = (d.width*d.bpp + 31) / 32 * 4
	d.maskOff = d.pixelOff + d.stride*d.height
	d.maskStride = (d.width + 31) / 32 * 4
	if d.maskOff > len(b) {
		return dib{}, fmt.Errorf("%w: BMP entry cut short", errICO)
	}
	if d.bpp == 32 {
		for i := d.pixelOff + 3; i < d.maskOff; i += 4 {
			if b[i] != 0 {
				d.useAlpha = true
				break
			}
		}
	}
	return d, nil
}

// alpha is a pixel's opacity: the 32-bit entry's own alpha byte, else the
// AND mask's bit (1 = transparent); rows are stored bottom-up.
func (d dib) alpha(b []byte, x, y int) uint8 {
	row := d.height - 1 - y
	if d.useAlpha {
		return b[d.pixelOff+row*d.stride+4*x+3]
	}
	i := d.maskOff + row*d.maskStride + x/8
	if i >= len(b) {
		return 0xff // no mask written: opaque
	}
	if b[i]&(0x80>>(x%8)) != 0 {
		return 0
	}
	return 0xff
}
