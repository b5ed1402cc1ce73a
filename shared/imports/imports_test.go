package imports_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/imports"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/netguard"
)

var now = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// outputs is a user's jobs (test only): id → age and CSV.
type outputs map[string]struct {
	age time.Duration
	csv string
}

func (o outputs) OpenOutput(_ context.Context, uid int64, id string) (*jobs.Job, io.ReadCloser, error) {
	j, ok := o[id]
	if !ok || uid != 7 {
		return nil, nil, apperr.Missing()
	}
	return &jobs.Job{ID: id, Created: now.Add(-j.age)}, io.NopCloser(strings.NewReader(j.csv)), nil
}

func TestLoad(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/list.csv":
			w.Header().Set("Content-Type", "text/csv")
			fmt.Fprint(w, "nom,site_web,ma_colonne\nDurand,https://durand.fr,A\n")
		case "/login":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>Sign in</html>")
		default:
			http.Error(w, "no", http.StatusForbidden)
		}
	}))
	defer srv.Close()
	g := netguard.New(netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")))
	f := crawl.New(crawl.Deps{Transport: g.Client(0).Transport})
	d := imports.Deps{Fetch: f.FetchFile, Hosts: g, Now: func() time.Time { return now }, Jobs: outputs{
		"fresh": {24 * time.Hour, "\uFEFFnom;telephone;note_interne\nDurand;0478000000;'=1+1\nMartin;;vu\n"},
		"old":   {8 * 24 * time.Hour, "nom\nDurand\n"},
	}}
	tests := []struct {
		name     string
		cfg      imports.Config
		cols     []string
		rows     int
		firstRow []string
		field    string // the 4xx's field when it fails
	}{
		{"paste keeps custom columns in order", imports.Config{Source: "paste", Text: "nom;zz_perso;site_web\nA;1;a.fr\nB;2;\n"},
			[]string{"nom", "zz_perso", "site_web"}, 2, []string{"A", "1", "a.fr"}, ""},
		{"paste is the default source", imports.Config{Text: "nom\tville\nA\tLyon\n"}, []string{"nom", "ville"}, 1, []string{"A", "Lyon"}, ""},
		{"empty paste", imports.Config{Source: "paste", Text: "  "}, nil, 0, nil, "text"},
		{"no header", imports.Config{Source: "paste", Text: "https://a.fr\nhttps://b.fr\n"}, nil, 0, nil, "text"},
		{"unknown source", imports.Config{Source: "ftp"}, nil, 0, nil, "source"},
		{"a public CSV address", imports.Config{Source: "url", URL: srv.URL + "/list.csv"},
			[]string{"nom", "site_web", "ma_colonne"}, 1, []string{"Durand", "https://durand.fr", "A"}, ""},
		{"an address answering a web page", imports.Config{Source: "url", URL: srv.URL + "/login"}, nil, 0, nil, "url"},
		{"an address refusing", imports.Config{Source: "url", URL: srv.URL + "/private"}, nil, 0, nil, "url"},
		{"not an address", imports.Config{Source: "url", URL: "ftp://x"}, nil, 0, nil, "url"},
		{"an internal address", imports.Config{Source: "url", URL: "http://10.1.2.3/list.csv"}, nil, 0, nil, "url"},
		{"a recent job, formulas restored", imports.Config{Source: "from_job", FromJobID: "fresh"},
			[]string{"nom", "telephone", "note_interne"}, 2, []string{"Durand", "0478000000", "=1+1"}, ""},
		{"a job older than 7 days", imports.Config{Source: "from_job", FromJobID: "old"}, nil, 0, nil, "from_job_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := imports.Load(context.Background(), d, 7, tt.cfg)
			if tt.field != "" {
				var e *apperr.Error
				if !errors.As(err, &e) || e.Code != apperr.Unprocessable || len(e.Fields) != 1 || e.Fields[0].Field != tt.field {
					t.Fatalf("err %v, want a 422 on %s", err, tt.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tab.Columns, tt.cols) || len(tab.Rows) != tt.rows || !slices.Equal(tab.Rows[0], tt.firstRow) {
				t.Errorf("got %q %q", tab.Columns, tab.Rows)
			}
		})
	}
	if _, err := imports.Load(context.Background(), d, 8, imports.Config{Source: "from_job", FromJobID: "fresh"}); err == nil {
		t.Error("another account's job was imported")
	}
}

// TestCheckURL: the rules an address meets before any fetch, each
// refusal a 422 on url that says why.
func TestCheckURL(t *testing.T) {
	g := netguard.New()
	for _, tt := range []struct {
		raw, reason string // reason: a word of the refusal; "" accepts
	}{
		{"https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOp/edit#gid=0", ""},
		{"  http://example.org/list.csv ", ""},
		{"https://93.184.216.34/list.csv", ""},
		{"file:///etc/passwd", "http(s)"},
		{"ftp://example.org/x.csv", "http(s)"},
		{"gopher://example.org", "http(s)"},
		{"https://user:pw@example.org/x.csv", "http(s)"},
		{"https:///x.csv", "http(s)"},
		{"", "http(s)"},
		{"https://example.org:0/x.csv", "port"},
		{"https://example.org:70000/x.csv", "port"},
		{"http://localhost/x.csv", "localhost"},
		{"http://127.0.0.1:8080/x.csv", "loopback"},
		{"http://127.1/x.csv", "loopback"},
		{"http://[::1]/x.csv", "loopback"},
		{"http://10.1.2.3/x.csv", "private"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254"},
		{"http://intranet/x.csv", "single-label"},
		{"http://sheets.internal/x.csv", "special-use"},
	} {
		_, err := imports.CheckURL(g, tt.raw)
		if tt.reason == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.raw, err)
			}
			continue
		}
		var e *apperr.Error
		if !errors.As(err, &e) || e.Code != apperr.Unprocessable || len(e.Fields) != 1 || e.Fields[0].Field != "url" {
			t.Errorf("%q: %v, want a 422 on url", tt.raw, err)
			continue
		}
		if !strings.Contains(e.Fields[0].EN, tt.reason) {
			t.Errorf("%q: %q does not say %q", tt.raw, e.Fields[0].EN, tt.reason)
		}
	}
}

func TestSheetCSV(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOp/edit#gid=42", "https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOp/export?format=csv&gid=42"},
		{"https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOp/edit?usp=sharing", "https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOp/export?format=csv"},
		{"https://docs.google.com/spreadsheets/d/e/2PACX-1vQabcdefghij/pub?output=csv", "https://docs.google.com/spreadsheets/d/e/2PACX-1vQabcdefghij/pub?output=csv"},
		{"https://example.org/list.csv", "https://example.org/list.csv"},
	} {
		u, _ := url.Parse(tt.in)
		if got := imports.SheetCSV(u).String(); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.in, got, tt.want)
		}
	}
}
