package blobtest

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/blob"
)

func testDownloadURL(t *testing.T, s blob.Store) {
	ctx := context.Background()
	const key, data = "dl/2024/report.csv", "id,name\n1,Acme\n"
	putString(t, s, key, data, "text/csv")

	u, ok, err := s.DownloadURL(ctx, key, "report.csv", 5*time.Minute)
	if err != nil {
		t.Fatalf("DownloadURL: %v", err)
	}
	mu, mok, merr := s.DownloadURL(ctx, "dl/missing.csv", "missing.csv", 5*time.Minute)
	if !errors.Is(merr, blob.ErrNotFound) && (merr != nil || mok || mu != "") {
		t.Fatalf("DownloadURL of a missing file = %q, %v, %v; want ErrNotFound or no address", mu, mok, merr)
	}
	if !ok {
		if u != "" {
			t.Fatalf("DownloadURL = %q with ok false, want no address", u)
		}
		return // the caller streams the file itself
	}
	if merr == nil {
		t.Fatalf("DownloadURL gave %q for a missing file, want ErrNotFound", mu)
	}

	tests := []struct {
		filename    string
		disposition string // exact header, when the name is plain ASCII
		wantName    string // the name a client decodes from the header
	}{
		{"report.csv", `attachment; filename="report.csv"`, "report.csv"},
		{"", `attachment; filename="report.csv"`, "report.csv"}, // the key's last segment
		{`rapport "été" 2024.csv`, "", `rapport "été" 2024.csv`},
		{"a;b,c d.csv", `attachment; filename="a;b,c d.csv"`, "a;b,c d.csv"},
	}
	for _, tt := range tests {
		u, ok, err := s.DownloadURL(ctx, key, tt.filename, 5*time.Minute)
		if err != nil || !ok {
			t.Fatalf("DownloadURL(%q) = %v, %v", tt.filename, ok, err)
		}
		body, header := get(t, u)
		if body != data {
			t.Fatalf("GET %s = %q, want %q", u, body, data)
		}
		if ct := header.Get("Content-Type"); ct != "text/csv" {
			t.Errorf("GET: Content-Type %q, want text/csv", ct)
		}
		cd := header.Get("Content-Disposition")
		if tt.disposition != "" && cd != tt.disposition {
			t.Errorf("filename %q: Content-Disposition %q, want %q", tt.filename, cd, tt.disposition)
		}
		disp, params, err := mime.ParseMediaType(cd)
		if err != nil || disp != "attachment" || params["filename"] != tt.wantName {
			t.Errorf("filename %q: Content-Disposition %q parses as %q %q (%v), want attachment, %q",
				tt.filename, cd, disp, params["filename"], err, tt.wantName)
		}
	}
}

// get fetches u as a browser following a download link would.
func get(t *testing.T, u string) (string, http.Header) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatalf("download address %q: %v", u, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %s", u, resp.Status, b)
	}
	return string(b), resp.Header
}
