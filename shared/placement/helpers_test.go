package placement_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/placement"
	"github.com/prospectdata/svc/shared/placement/placementsim"
)

// testNow is the tests' clock: messages are placed around it.
var testNow = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

// startTestTwin starts a server for a test and stops it at the end.
func startTestTwin(t testing.TB, l placementsim.Layout) *placementsim.Server {
	t.Helper()
	tw, err := placementsim.Start(l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tw.Close() })
	return tw
}

// testAccount adds a user and returns its seed (plain TLS, the server's
// address).
func testAccount(t testing.TB, tw *placementsim.Server, provider, address string) (*placementsim.Account, placement.Seed) {
	t.Helper()
	a, err := tw.AddAccount(address, "secret-"+address)
	if err != nil {
		t.Fatal(err)
	}
	return a, placement.Seed{Provider: provider, Address: address, Host: tw.Addr(), TLS: placement.TLSPlain, Username: address,
		Password: "secret-" + address}
}

// msg is a test message.
type msg struct {
	from, subject string
	at            time.Time
	authRes       []string // Authentication-Results values, topmost first
	category      string   // Gmail category (a Gmail-like server reads it)
}

func (m msg) bytes() []byte {
	var b strings.Builder
	for _, ar := range m.authRes {
		fmt.Fprintf(&b, "Authentication-Results: %s\r\n", ar)
	}
	fmt.Fprintf(&b, "From: %s\r\nTo: <seed@example.net>\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%d@test>\r\n",
		m.from, m.subject, m.at.Format(time.RFC1123Z), m.at.UnixNano())
	if m.category != "" {
		fmt.Fprintf(&b, "%s: %s\r\n", placementsim.CategoryHeader, m.category)
	}
	b.WriteString("Content-Type: text/plain\r\n\r\nbody\r\n")
	return []byte(b.String())
}

func put(t testing.TB, a *placementsim.Account, folder string, m msg) {
	t.Helper()
	if m.at.IsZero() {
		m.at = testNow.Add(-time.Hour)
	}
	if err := a.Deliver(folder, m.bytes(), m.at); err != nil {
		t.Fatalf("deliver to %s: %v", folder, err)
	}
}

// testChecker checks the seeds on the tests' clock with short timeouts.
func testChecker(seeds ...placement.Seed) *placement.Checker {
	return &placement.Checker{Seeds: seeds, Now: func() time.Time { return testNow }, SeedTimeout: 5 * time.Second}
}

// testCA is a certificate authority and a server certificate for
// 127.0.0.1 it signed.
type testCA struct {
	pool   *x509.CertPool
	server tls.Certificate
}

func newTestCA(t testing.TB) *testCA {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "delivery test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return &testCA{pool: pool, server: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}
}

func (ca *testCA) serverConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{ca.server}, MinVersion: tls.VersionTLS12}
}

// hangingServer accepts connections and never answers.
func hangingServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(done)
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
