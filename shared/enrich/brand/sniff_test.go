package brand

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // "" for ErrNotImage
	}{
		{"png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "png"},
		{"jpeg", "\xff\xd8\xff\xe0\x00\x10JFIF", "jpg"},
		{"gif89a", "GIF89a\x01\x00\x01\x00", "gif"},
		{"webp", "RIFF\x24\x00\x00\x00WEBPVP8L", "webp"},
		{"ico", "\x00\x00\x01\x00\x01\x00\x10\x10\x00\x00\x01\x00\x20\x00\x68\x04\x00\x00\x16\x00\x00\x00", "ico"},
		{"cursor is not an icon", "\x00\x00\x02\x00\x01\x00\x10\x10\x00\x00\x01\x00\x20\x00\x68\x04\x00\x00\x16\x00\x00\x00", ""},
		{"svg plain", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>`, "svg"},
		{"svg with BOM, prolog, doctype", "\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg></svg>", "svg"},
		{"html error page", "<!DOCTYPE html><html><head><title>404</title></head><body>Not found</body></html>", ""},
		{"html with inline svg", "<html><body><svg></svg></body></html>", ""},
		{"json error", `{"error":"not found"}`, ""},
		{"empty", "", ""},
		{"riff but wav", "RIFF\x24\x00\x00\x00WAVEfmt ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Sniff([]byte(tt.data))
			if tt.want == "" {
				if !errors.Is(err, ErrNotImage) {
					t.Errorf("Sniff = %q, %v; want ErrNotImage", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Sniff = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestSniffTestdataFiles(t *testing.T) {
	for file, want := range map[string]string{"logo-atelier.svg": "svg", "page-erreur-servie-en-png.png": ""} {
		data, err := os.ReadFile(filepath.Join("testdata", "images", file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Sniff(data)
		if want == "" && !errors.Is(err, ErrNotImage) {
			t.Errorf("%s: Sniff = %q, %v; want ErrNotImage", file, got, err)
		}
		if want != "" && got != want {
			t.Errorf("%s: Sniff = %q, %v; want %q", file, got, err, want)
		}
	}
}
