package deadsite

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// label is one page of testdata/pages, the probe around it and the
// expected verdict.
type label struct {
	File       string            `json:"file"`
	URL        string            `json:"url"`
	Status     int               `json:"status"`
	Redirected string            `json:"redirected"`
	TLSErr     bool              `json:"tls_err"`
	Header     map[string]string `json:"header"`
	Alive      bool              `json:"alive"`
	Reason     string            `json:"reason"`
	Note       string            `json:"note"`
}

var errTLS = errors.New("tls: failed to verify certificate: x509: certificate has expired or is not yet valid")

func loadProbes(tb testing.TB) ([]label, []Probe) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "labels.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var labels []label
	if err := json.Unmarshal(raw, &labels); err != nil {
		tb.Fatal(err)
	}
	probes := make([]Probe, len(labels))
	for i, l := range labels {
		body, err := os.ReadFile(filepath.Join("testdata", "pages", l.File))
		if err != nil {
			tb.Fatal(err)
		}
		u, err := url.Parse(l.URL)
		if err != nil {
			tb.Fatal(err)
		}
		h := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
		for k, v := range l.Header {
			h.Set(k, v)
		}
		p := Probe{Status: l.Status, Page: crawl.NewPage(u, l.Status, h, body)}
		if l.Redirected != "" {
			if p.Redirected, err = url.Parse(l.Redirected); err != nil {
				tb.Fatal(err)
			}
		}
		if l.TLSErr {
			p.TLSErr = errTLS
		}
		probes[i] = p
	}
	return labels, probes
}

// TestLabelledPages classifies every labelled page and reports accuracy on
// alive/dead and on the reason.
func TestLabelledPages(t *testing.T) {
	labels, probes := loadProbes(t)
	alive := 0
	for _, l := range labels {
		if l.Alive {
			alive++
		}
	}
	if len(labels) < 30 || alive < 10 || len(labels)-alive < 10 {
		t.Fatalf("corpus: %d pages, %d alive; want at least 30 with both kinds", len(labels), alive)
	}
	aliveHits, reasonHits := 0, 0
	for i, l := range labels {
		t.Run(l.File, func(t *testing.T) {
			got := Classify(probes[i])
			if got.Alive == l.Alive {
				aliveHits++
			}
			if got.Reason == l.Reason {
				reasonHits++
			}
			if got.Alive != l.Alive || got.Reason != l.Reason {
				t.Errorf("Classify = %+v, want {Alive:%v Reason:%s} (%s)", got, l.Alive, l.Reason, l.Note)
			}
		})
	}
	t.Logf("alive/dead: %d/%d, reason: %d/%d", aliveHits, len(labels), reasonHits, len(labels))
}

// TestProbeWithoutPage pins the verdicts that need no page.
func TestProbeWithoutPage(t *testing.T) {
	dnsErr := errors.New("lookup www.ex.fr: no such host")
	connErr := errors.New("dial tcp 192.0.2.1:443: connect: connection refused")
	sedo, _ := url.Parse("https://sedo.com/search/details/?domain=ex.fr")
	bodis, _ := url.Parse("http://ww25.ex.fr/?subid1=20240311-1204-5a1b")
	tests := []struct {
		name  string
		probe Probe
		want  Verdict
	}{
		{"dns", Probe{DNSErr: dnsErr}, Verdict{false, ReasonDNS}},
		{"dns wins over everything", Probe{DNSErr: dnsErr, ConnErr: connErr, Status: 200}, Verdict{false, ReasonDNS}},
		{"connection refused", Probe{ConnErr: connErr}, Verdict{false, ReasonConnection}},
		{"tls without page", Probe{TLSErr: errTLS}, Verdict{false, ReasonTLS}},
		{"500 without body", Probe{Status: 500}, Verdict{false, "http_500"}},
		{"nothing at all", Probe{}, Verdict{false, ReasonEmpty}},
		{"redirect to Sedo", Probe{Status: 200, Redirected: sedo}, Verdict{false, ReasonOffsiteParking}},
		{"redirect to a Bodis ww25 host", Probe{Status: 200, Redirected: bodis}, Verdict{false, ReasonOffsiteParking}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.probe); got != tt.want {
				t.Errorf("Classify = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestPageRules pins single rules on minimal pages.
func TestPageRules(t *testing.T) {
	u, _ := url.Parse("https://www.ex.fr/")
	tests := []struct {
		name   string
		status int
		body   string
		want   Verdict
	}{
		{"204 is empty", 204, "", Verdict{false, ReasonEmpty}},
		{"whitespace body", 200, "  \n ", Verdict{false, ReasonEmpty}},
		{"parked page outranks a TLS error", 200, `<html><body><script src="https://img.sedoparking.com/js/x.js"></script></body></html>`, Verdict{false, ReasonParked}},
		{"403 without challenge", 403, `<html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>`, Verdict{false, "http_403"}},
		{"coming soon in the title of a short page", 200, `<html><head><title>Coming soon</title></head><body><p>Our new website is on its way.</p></body></html>`, Verdict{false, ReasonUnderConstruction}},
		{"long real page quoting a default page", 200, `<html><head><title>Blog</title></head><body><h1>Notre blog</h1><p>` + repeat("Conseils de plomberie pour votre maison. ", 200) + ` Welcome to nginx! </p></body></html>`, Verdict{true, ReasonOK}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Probe{Status: tt.status, Page: crawl.NewPage(u, tt.status, nil, []byte(tt.body))}
			if tt.name == "parked page outranks a TLS error" {
				p.TLSErr = errTLS
			}
			if got := Classify(p); got != tt.want {
				t.Errorf("Classify = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for i := 0; i < n; i++ {
		out = append(out, s...)
	}
	return string(out)
}

func BenchmarkClassify(b *testing.B) {
	_, probes := loadProbes(b)
	n := 0
	for b.Loop() {
		for _, p := range probes {
			// A fresh page each time: the parse is part of the cost.
			p.Page = crawl.NewPage(p.Page.URL, p.Page.Status, p.Page.Header, p.Page.Body)
			Classify(p)
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
}
