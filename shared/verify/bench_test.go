package verify

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// benchLab is the benchmark's mail world on loopback: 20 domains over 4
// shared mail hosts; one domain in five is a catch-all, the others hold
// contact@ and alice@ only.
type benchLab struct {
	dns     *dnsServer
	servers []*smtpServer
	byAddr  map[netip.Addr]*smtpServer
	rows    []string
}

const benchDomains = 20

func newBenchLab(tb testing.TB) *benchLab {
	tb.Helper()
	l := &benchLab{byAddr: map[netip.Addr]*smtpServer{}}
	rcpt := func(to string) string {
		local, dom, _ := strings.Cut(to, "@")
		var i int
		fmt.Sscanf(dom, "d%02d.bench.test", &i)
		if i%5 == 0 || local == "contact" || local == "alice" {
			return "250 2.1.5 Ok"
		}
		return "550 5.1.1 User unknown"
	}
	var records []string
	for h := range 4 {
		ip := fmt.Sprintf("127.0.0.%d", 60+h)
		name := fmt.Sprintf("mx%d.bench.test", h)
		s := startSMTP(tb, ip, name, behaviour{rcpt: rcpt})
		l.servers = append(l.servers, s)
		l.byAddr[s.ip] = s
		records = append(records, name+". 60 IN A "+ip)
	}
	for i := range benchDomains {
		d := fmt.Sprintf("d%02d.bench.test", i)
		records = append(records, fmt.Sprintf("%s. 60 IN MX 10 mx%d.bench.test.", d, i%4))
		// Ten rows a domain, as a job's rows of one company group would
		// not be: an upper bound on what the cache saves.
		for _, local := range []string{"contact", "alice", "bob", "info", "carol", "dave", "erin", "frank", "grace", "heidi"} {
			l.rows = append(l.rows, local+"@"+d)
		}
	}
	l.dns = startDNS(tb, records)
	return l
}

func (l *benchLab) connections() int {
	n := 0
	for _, s := range l.servers {
		n += s.connections()
	}
	return n
}

// BenchmarkVerify: rows per second over the loopback DNS and SMTP
// servers, and the upstream calls per row (DNS queries the server
// received, Resolver lookups, SMTP connections), with the per-domain
// cache and without it. One iteration is one job: a new checker (the
// cache lives within a job's process) verifying the lab's 200 rows, one
// at a time or 32 at once (the engine's ItemWorkers). docs/verify.md
// has the figures.
func BenchmarkVerify(b *testing.B) {
	for _, bc := range []struct {
		name    string
		cache   int
		workers int
	}{
		{"cache", 0, 1},
		{"nocache", -1, 1},
		{"cache-32", 0, 32},
		{"nocache-32", -1, 32},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := newBenchLab(b)
			ctx := context.Background()
			var lookups int64
			for b.Loop() {
				c := New(Options{Resolver: l.dns.resolver(), Dialer: &labDialer{servers: l.byAddr}, AllowPrefixes: loopback,
					CacheSize: bc.cache, HeloName: "bench.example.org", MailFrom: "check@example.org"})
				rows := make(chan string)
				var wg sync.WaitGroup
				for range bc.workers {
					wg.Go(func() {
						for r := range rows {
							if _, err := c.Verify(ctx, r); err != nil {
								b.Error(err)
							}
						}
					})
				}
				for _, r := range l.rows {
					rows <- r
				}
				close(rows)
				wg.Wait()
				lookups += c.Stats().DNSLookups
			}
			n := float64(b.N * len(l.rows))
			b.ReportMetric(n/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(l.dns.totalQueries())/n, "dnsq/row")
			b.ReportMetric(float64(lookups)/n, "lookups/row")
			b.ReportMetric(float64(l.connections())/n, "smtp/row")
		})
	}
}
