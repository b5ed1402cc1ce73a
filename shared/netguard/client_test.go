package netguard_test

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prospectdata/svc/shared/netguard"
)

// countingListener accepts TCP connections on 127.0.0.1 and counts them.
func countingListener(t *testing.T) (port string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), accepted
}

// TestRebindingNeverConnects: a name public when the URL is checked and
// loopback when the client connects is refused without any connection.
func TestRebindingNeverConnects(t *testing.T) {
	port, accepted := countingListener(t)
	res := newResolver()
	res.set("rebind.example.com", []string{"93.184.215.14"}, []string{"127.0.0.1"})
	g := netguard.New(netguard.WithResolver(res))
	u, err := g.CheckURL(context.Background(), "https://rebind.example.com:"+port+"/hook")
	if err != nil {
		t.Fatalf("check at creation: %v", err)
	}
	resp, err := g.Client(0).Post(u.String(), "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, netguard.ErrRefused) || !strings.Contains(err.Error(), "resolves to 127.0.0.1, a loopback address") {
		t.Fatalf("post after rebinding: %v, want a refusal", err)
	}
	if resp, err := g.Client(0).Get("https://127.0.0.1:" + port + "/"); err == nil {
		resp.Body.Close()
		t.Fatal("literal loopback reached")
	} else if !errors.Is(err, netguard.ErrRefused) {
		t.Fatalf("literal loopback: %v, want a refusal", err)
	}
	for _, host := range []string{"0x7f000001", "127.1", "[::ffff:127.0.0.1]", "localhost", "loopback.example.com"} {
		resp, err := g.Client(0).Get("https://" + host + ":" + port + "/")
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("GET %s: %v, want a refusal", host, err)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the loopback listener accepted %d connections", n)
	}
}

// TestClientWithTestReceiver: with the test-only allowance and roots the
// client reaches an httptest TLS server (also through a name answered in
// the IPv4-mapped form net.Resolver uses); without the allowance it is
// refused; a redirect is the answer, not followed; HTTPS_PROXY is ignored.
func TestClientWithTestReceiver(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/moved" {
			// Following it would succeed (same server), so only a client
			// that does not follow redirects sees the 302.
			http.Redirect(w, r, "/hook", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]

	// A proxy that would see any request a client sends through it.
	proxyPort, proxied := countingListener(t)
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		t.Setenv(k, "http://127.0.0.1:"+proxyPort)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	res := newResolver()
	// The test certificate is for example.com and *.example.com; a name
	// (not a loopback literal) is what an environment proxy would carry.
	res.set("receiver.example.com", []string{"127.0.0.1"}, nil)
	res.set("mapped.example.com", []string{"::ffff:127.0.0.1"}, nil)
	allow := netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32"))
	c := netguard.New(netguard.WithResolver(res), allow, netguard.WithRootCAs(pool)).Client(0)

	for _, tt := range []struct {
		url  string
		code int
	}{
		{srv.URL + "/hook", http.StatusNoContent},
		{"https://receiver.example.com:" + port + "/hook", http.StatusNoContent},
		{"https://mapped.example.com:" + port + "/hook", http.StatusNoContent},
		{"https://receiver.example.com:" + port + "/moved", http.StatusFound},
	} {
		resp, err := c.Get(tt.url)
		if err != nil {
			t.Fatalf("GET %s: %v", tt.url, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.code {
			t.Errorf("GET %s: status %d, want %d", tt.url, resp.StatusCode, tt.code)
		}
	}
	if n := hits.Load(); n != 4 {
		t.Errorf("%d requests reached the receiver, want 4 (the redirect not followed)", n)
	}
	if n := proxied.Load(); n != 0 {
		t.Errorf("the environment proxy got %d connections", n)
	}
	// net/http reads the proxy environment once per process, so the
	// behaviour above proves nothing if an earlier client read it first:
	// the transport must not consult a proxy at all.
	if tr, ok := c.Transport.(*http.Transport); !ok || tr.Proxy != nil {
		t.Errorf("the client's transport has a proxy function")
	}

	strict := netguard.New(netguard.WithResolver(res), netguard.WithRootCAs(pool)).Client(0)
	for _, u := range []string{srv.URL + "/hook", "https://receiver.example.com:" + port + "/hook"} {
		resp, err := strict.Get(u)
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("GET %s without the allowance: %v, want a refusal", u, err)
		}
	}
	if n := hits.Load(); n != 4 {
		t.Errorf("%d requests reached the receiver, want still 4", n)
	}
}
