package export

import (
	"fmt"
	"io"
	"strings"

	"github.com/prospectdata/svc/shared/accent"
)

// Format is a download format (spec: "GET /api/jobs/{id}/download", query
// format).
type Format string

// The spec's formats; CSV is the default.
const (
	CSV  Format = "csv"
	JSON Format = "json"
	XLSX Format = "xlsx"
)

// ParseFormat reads the format query parameter: "" is csv; anything other
// than csv, json and xlsx (any case) is ErrFormat (a 400).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return CSV, nil
	case CSV, JSON, XLSX:
		return f, nil
	}
	return "", fmt.Errorf("export: format %q: %w", s, ErrFormat)
}

// MediaType is the Content-Type of a download in this format.
func (f Format) MediaType() string {
	switch f {
	case JSON:
		return "application/json; charset=utf-8"
	case XLSX:
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	}
	return "text/csv; charset=utf-8"
}

// Filename is the download's file name for a job whose output_filename is
// outputFilename ("<base>.csv"): the name itself for csv, "<base>.json" and
// "<base>.xlsx" otherwise. A directory part is dropped; an empty name is
// "export".
func (f Format) Filename(outputFilename string) string {
	name := outputFilename[strings.LastIndexAny(outputFilename, `/\`)+1:]
	base := name
	if len(name) >= 4 && strings.EqualFold(name[len(name)-4:], ".csv") {
		base = name[:len(name)-4]
	}
	if base == "" {
		base, name = "export", "export.csv"
	}
	if f == JSON || f == XLSX {
		return base + "." + string(f)
	}
	return name
}

// Convert writes the download of a stored CSV in format f: the stored bytes
// as they are for csv, ToJSON or ToXLSX otherwise.
func Convert(w io.Writer, stored io.Reader, f Format) error {
	switch f {
	case CSV:
		if _, err := io.Copy(w, stored); err != nil {
			return fmt.Errorf("export: write CSV: %w", err)
		}
		return nil
	case JSON:
		return ToJSON(w, stored)
	case XLSX:
		return ToXLSX(w, stored)
	}
	return fmt.Errorf("export: format %q: %w", f, ErrFormat)
}

// ContentDisposition is the Content-Disposition of a download named
// filename: attachment with an ASCII filename= for old clients and the
// exact name, UTF-8 and percent-encoded, in filename* (RFC 6266 §4.3,
// RFC 5987), which current browsers prefer.
func ContentDisposition(filename string) string {
	return `attachment; filename="` + asciiFilename(filename) + `"; filename*=UTF-8''` + percentEncode(filename)
}

// asciiFilename approximates name in printable ASCII for filename=: accents
// are dropped (é -> e), other characters, quotes, backslashes and controls
// become '_'.
func asciiFilename(name string) string {
	var b strings.Builder
	for _, r := range accent.Fold(name) {
		switch {
		case r < 0x20 || r >= 0x7F || r == '"' || r == '\\':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// percentEncode encodes s as an RFC 5987 value-chars: UTF-8 bytes, every
// byte but attr-char as %XX.
func percentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAttrChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xF])
	}
	return b.String()
}

// isAttrChar is RFC 5987's attr-char: ALPHA, DIGIT and !#$&+-.^_`|~.
func isAttrChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", c) >= 0
}
