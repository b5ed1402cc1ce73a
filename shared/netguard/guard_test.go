package netguard_test

import (
	"context"
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

// resolver answers names from a map the test changes.
type resolver struct{ addrs map[string][]string }

func (r *resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	list, ok := r.addrs[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range list {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func newResolver() *resolver {
	return &resolver{addrs: map[string][]string{
		"hooks.example.com": {"93.184.215.14"},
		"v6.example.com":    {"2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"private.example":   {"10.0.0.7"},
		"mixed.example":     {"93.184.215.14", "192.168.1.10"},
		"metadata.example":  {"169.254.169.254"},
		"empty.example":     {},
		"rebind.example":    {"93.184.215.14"},
	}}
}

// TestCheckURL: at least 35 spellings of internal or unusable targets are
// refused with a message naming the cause; public ones pass.
func TestCheckURL(t *testing.T) {
	g := netguard.New(netguard.WithResolver(newResolver()), netguard.WithOwnHosts("api.svc.example"))
	refused := []struct{ url, want string }{
		{"http://hooks.example.com/", "https"},
		{"ftp://hooks.example.com/", "https"},
		{"javascript:alert(1)", "https"},
		{"https://user:pw@hooks.example.com/", "user name"},
		{"https:///path", "no host"},
		{"https://hooks.example.com:0/", "port"},
		{"https://hooks.example.com:70000/", "port"},
		{"https://127.0.0.1/", "loopback"},
		{"https://127.0.0.53:8443/", "loopback"},
		{"https://127.1/", "loopback"},
		{"https://2130706433/", "loopback"},
		{"https://0x7f000001/", "loopback"},
		{"https://0177.0.0.1/", "loopback"},
		{"https://0x7f.0.0.1/", "loopback"},
		{"https://017700000001/", "loopback"},
		{"https://127.0.0.1./", "loopback"},
		{"https://0.0.0.0/", "unspecified"},
		{"https://0/", "unspecified"},
		{"https://[::]/", "unspecified"},
		{"https://[::1]/", "loopback"},
		{"https://[::ffff:127.0.0.1]/", "not a public address"},
		{"https://[::ffff:7f00:1]/", "not a public address"},
		{"https://[0:0:0:0:0:ffff:7f00:1]/", "not a public address"},
		{"https://[::127.0.0.1]/", "not a public address"},
		{"https://[64:ff9b::7f00:1]/", "not a public address"},
		{"https://[2002:7f00:1::1]/", "not a public address"},
		{"https://[fe80::1]/", "link-local"},
		{"https://[fe80::1%25eth0]/", "zone"},
		{"https://[fc00::1]/", "private"},
		{"https://[fd00:ec2::254]/", "private"},
		{"https://[ff02::1]/", "multicast"},
		{"https://10.0.0.1/", "private"},
		{"https://172.16.5.4/", "private"},
		{"https://172.31.255.255/", "private"},
		{"https://192.168.0.1/", "private"},
		{"https://100.64.0.1/", "reserved"},
		{"https://100.100.100.200/", "reserved"},
		{"https://169.254.169.254/latest/meta-data/", "link-local"},
		{"https://168.63.129.16/", "cloud metadata"},
		{"https://192.0.0.192/", "reserved"},
		{"https://224.0.0.1/", "multicast"},
		{"https://255.255.255.255/", "reserved"},
		{"https://198.18.0.1/", "reserved"},
		{"https://192.0.2.10/", "reserved"},
		{"https://1.2.3.4.5/", "malformed"},
		{"https://256.1.1.1/", "malformed"},
		{"https://localhost/", "local name"},
		{"https://LOCALHOST./", "local name"},
		{"https://api.localhost/", "special-use"},
		{"https://printer.local/", "special-use"},
		{"https://metadata.google.internal/", "special-use"},
		{"https://router.home.arpa/", "special-use"},
		{"https://intranet/", "local name"},
		{"https://private.example/", "10.0.0.7"},
		{"https://mixed.example/", "192.168.1.10"},
		{"https://metadata.example/", "169.254.169.254"},
		{"https://empty.example/", "does not resolve"},
		{"https://unknown.example/", "does not resolve"},
		{"https://API.svc.example/hook", "service itself"},
		{"https://" + strings.Repeat("a", 2050) + ".example/", "longer"},
	}
	if len(refused) < 35 {
		t.Fatalf("only %d cases", len(refused))
	}
	for _, tt := range refused {
		t.Run(tt.url[:min(len(tt.url), 60)], func(t *testing.T) {
			_, err := g.CheckURL(context.Background(), tt.url)
			var r *netguard.Refusal
			if !errors.As(err, &r) || !errors.Is(err, netguard.ErrRefused) || !strings.Contains(r.EN, tt.want) || r.FR == "" {
				t.Fatalf("CheckURL(%q) = %v, want a refusal naming %q", tt.url, err, tt.want)
			}
		})
	}
	for _, tt := range []struct{ url, want string }{
		{"https://93.184.215.14/hook", "https://93.184.215.14/hook"},
		{"HTTPS://Hooks.Example.COM:8443/svc?x=1", "https://hooks.example.com:8443/svc?x=1"},
		{"https://v6.example.com/", "https://v6.example.com/"},
		{"https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/h", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/h"},
	} {
		u, err := g.CheckURL(context.Background(), tt.url)
		if err != nil || u.String() != tt.want {
			t.Errorf("CheckURL(%q) = %v, %v; want %s", tt.url, u, err, tt.want)
		}
	}
}

// TestRebindingNeverConnects: a name public at the check and loopback at
// the connection is refused by the client without any connection.
func TestRebindingNeverConnects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
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
	res := newResolver()
	g := netguard.New(netguard.WithResolver(res))
	port := ln.Addr().(*net.TCPAddr).Port
	u, err := g.CheckURL(context.Background(), "https://rebind.example:"+itoa(port)+"/hook")
	if err != nil {
		t.Fatal(err)
	}
	res.addrs["rebind.example"] = []string{"127.0.0.1"}
	resp, err := g.Client(0).Post(u.String(), "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, netguard.ErrRefused) {
		t.Fatalf("post after rebinding: %v", err)
	}
	// The same through a literal address checks in the dialer's Control.
	if _, err := g.Client(0).Get("https://127.0.0.1:" + itoa(port) + "/"); !errors.Is(err, netguard.ErrRefused) {
		t.Fatalf("literal loopback: %v", err)
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the internal listener accepted %d connections", n)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestClientWithTestReceiver: with the test-only allowance and roots, the
// client reaches an httptest TLS server; without them it is refused; a
// redirect comes back as the answer; an environment proxy is ignored.
func TestClientWithTestReceiver(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "https://169.254.169.254/", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	ok := netguard.New(netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")), netguard.WithRootCAs(pool)).Client(0)
	resp, err := ok.Get(srv.URL + "/hook")
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("allowed receiver: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = ok.Get(srv.URL + "/moved")
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("redirect: %v %v", resp, err)
	}
	resp.Body.Close()
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests reached the receiver, want 2 (the redirect not followed)", n)
	}
	if _, err := netguard.New(netguard.WithRootCAs(pool)).Client(0).Get(srv.URL); !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("without the allowance: %v", err)
	}
}
