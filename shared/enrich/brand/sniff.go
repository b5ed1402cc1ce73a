package brand

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// ErrNotImage: the bytes are not an image kind brand_assets keeps (an HTML
// error page served under an image URL, a PDF, an AVIF...).
var ErrNotImage = errors.New("brand: not a kept image")

// Sniff returns the file extension to store an image under ("png", "jpg",
// "gif", "webp", "svg", "ico") from its leading bytes, or ErrNotImage.
func Sniff(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png", nil
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return "jpg", nil
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "gif", nil
	case len(data) >= 16 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "webp", nil
	case isICO(data):
		return "ico", nil
	case isSVG(data):
		return "svg", nil
	}
	n := min(len(data), 16)
	return "", fmt.Errorf("%w: starts with %q", ErrNotImage, data[:n])
}

// isICO checks the 6-byte ICONDIR: reserved 0, type 1 (icon, not cursor),
// at least one entry, and room for the entries.
func isICO(data []byte) bool {
	if len(data) < 6+16 {
		return false
	}
	if binary.LittleEndian.Uint16(data[0:]) != 0 || binary.LittleEndian.Uint16(data[2:]) != 1 {
		return false
	}
	n := int(binary.LittleEndian.Uint16(data[4:]))
	return n > 0 && len(data) >= 6+16*n
}

// svgSniffLen bounds how far isSVG reads for the root element: prologue,
// comments and a doctype come first, never kilobytes of them.
const svgSniffLen = 4096

// isSVG tells an SVG document: its first element, after any XML
// declaration, comment or doctype, is <svg>. An HTML page has <html> (or
// an HTML parser's guess) there instead.
func isSVG(data []byte) bool {
	head := data[:min(len(data), svgSniffLen)]
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	d := xml.NewDecoder(bytes.NewReader(head))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name.Local == "svg"
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return false
			}
		}
	}
}
