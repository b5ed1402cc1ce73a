package export

import (
	"bytes"
	"errors"
	"mime"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		err  error
	}{
		{"", CSV, nil}, {"csv", CSV, nil}, {"json", JSON, nil}, {"xlsx", XLSX, nil}, {" XLSX ", XLSX, nil},
		{"xls", "", ErrFormat}, {"pdf", "", ErrFormat},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestFormatMediaTypeAndFilename(t *testing.T) {
	// spec: csv text/csv; charset=utf-8, filename output_filename; json
	// application/json; charset=utf-8, <base>.json; xlsx <base>.xlsx.
	tests := []struct {
		f                  Format
		output, media, out string
	}{
		{CSV, "restaurants-lyon.csv", "text/csv; charset=utf-8", "restaurants-lyon.csv"},
		{JSON, "restaurants-lyon.csv", "application/json; charset=utf-8", "restaurants-lyon.json"},
		{XLSX, "restaurants-lyon.csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "restaurants-lyon.xlsx"},
		{XLSX, "Export.CSV", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Export.xlsx"},
		{JSON, "jobs/abc/boulangeries-évry.csv", "application/json; charset=utf-8", "boulangeries-évry.json"},
		{JSON, "sans-extension", "application/json; charset=utf-8", "sans-extension.json"},
		{JSON, "", "application/json; charset=utf-8", "export.json"},
		{CSV, "", "text/csv; charset=utf-8", "export.csv"},
	}
	for _, tt := range tests {
		if got := tt.f.MediaType(); got != tt.media {
			t.Errorf("%s media type %q, want %q", tt.f, got, tt.media)
		}
		if got := tt.f.Filename(tt.output); got != tt.out {
			t.Errorf("%s filename of %q = %q, want %q", tt.f, tt.output, got, tt.out)
		}
	}
}

func TestContentDisposition(t *testing.T) {
	tests := []struct{ name, ascii string }{
		{"restaurants-lyon.csv", "restaurants-lyon.csv"},
		{"boulangeries-évry été.xlsx", "boulangeries-evry ete.xlsx"},
		{`a"b\c.json`, "a_b_c.json"},
		{"東京.csv", "__.csv"},
	}
	for _, tt := range tests {
		cd := ContentDisposition(tt.name)
		disp, params, err := mime.ParseMediaType(cd)
		if err != nil {
			t.Fatalf("%q: %v", cd, err)
		}
		// Go's parser, like browsers, prefers filename* and decodes it.
		if disp != "attachment" || params["filename"] != tt.name {
			t.Errorf("%q parses as %s %q, want attachment %q", cd, disp, params["filename"], tt.name)
		}
		if !strings.Contains(cd, `filename="`+tt.ascii+`"`) {
			t.Errorf("%q lacks the ASCII fallback %q", cd, tt.ascii)
		}
	}
}

func TestConvert(t *testing.T) {
	stored := writeCSV(t, []string{"a"}, [][]string{{"1"}})
	var csvOut, jsonOut, xlsxOut bytes.Buffer
	if err := Convert(&csvOut, bytes.NewReader(stored), CSV); err != nil || !bytes.Equal(csvOut.Bytes(), stored) {
		t.Errorf("csv download differs from the stored file: %v", err)
	}
	if err := Convert(&jsonOut, bytes.NewReader(stored), JSON); err != nil || jsonOut.String() != "[\n{\"a\":\"1\"}\n]\n" {
		t.Errorf("json download %q, %v", jsonOut.String(), err)
	}
	if err := Convert(&xlsxOut, bytes.NewReader(stored), XLSX); err != nil || !bytes.HasPrefix(xlsxOut.Bytes(), []byte("PK")) {
		t.Errorf("xlsx download is not a zip: %v", err)
	}
	if err := Convert(&xlsxOut, bytes.NewReader(stored), "pdf"); !errors.Is(err, ErrFormat) {
		t.Errorf("unknown format: %v", err)
	}
}
