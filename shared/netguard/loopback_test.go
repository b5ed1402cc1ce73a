package netguard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prospectdata/svc/shared/netguard"
)

// TestDevLoopbackCheckURL: the development switch allows exactly the
// loopback hosts (literal, in any spelling the guard reads, and the name
// localhost) on ports other than the service's own; without it they are
// refused as before, and with it everything else keeps its refusal.
func TestDevLoopbackCheckURL(t *testing.T) {
	strict := netguard.New(netguard.WithResolver(newResolver()), netguard.WithOwnHosts("127.0.0.1"))
	dev := netguard.New(netguard.WithResolver(newResolver()), netguard.WithOwnHosts("127.0.0.1"), netguard.WithDevLoopback("8080"))
	for _, tt := range []struct {
		url string
		// want is the URL CheckURL returns under the switch, or the
		// refusal it answers when it starts with "!".
		dev    string
		strict string // the refusal without the switch
	}{
		// 127.0.0.1 is also the service's own host: refused as such first.
		{"https://127.0.0.1:8443/hook", "https://127.0.0.1:8443/hook", "127.0.0.1 is"},
		{"https://127.0.0.1/hook", "https://127.0.0.1/hook", "127.0.0.1 is"},
		{"https://127.0.0.53:8443/", "https://127.0.0.53:8443/", "is a loopback address"},
		{"https://127.1:8443/", "https://127.0.0.1:8443/", "is 127.0.0.1, a loopback address"},
		{"https://0x7f000001:8443/", "https://127.0.0.1:8443/", "is 127.0.0.1, a loopback address"},
		{"https://[::1]:8443/", "https://[::1]:8443/", "is a loopback address"},
		{"https://localhost:8443/", "https://localhost:8443/", "special-use name (localhost)"},
		{"https://LOCALHOST.:8443/", "https://localhost:8443/", "special-use name (localhost)"},
		// The service itself: its port on any loopback address.
		{"https://127.0.0.1:8080/", "!the host 127.0.0.1 on port 8080 is this service itself", "the host 127.0.0.1 is this service itself"},
		{"https://localhost:8080/", "!the host localhost on port 8080 is this service itself", "special-use name"},
		{"https://127.0.0.2:8080/", "!on port 8080 is this service itself", "is a loopback address"},
		{"https://[::1]:8080/", "!on port 8080 is this service itself", "is a loopback address"},
		// Everything else keeps its rule.
		{"http://127.0.0.1:8443/", "!only https:// URLs", "only https:// URLs"},
		{"https://[::ffff:127.0.0.1]:8443/", "!an IPv4-mapped IPv6 address of 127.0.0.1", "an IPv4-mapped IPv6 address of 127.0.0.1"},
		{"https://loopback.example.com:8443/", "!resolves to 127.0.0.1, a loopback address", "resolves to 127.0.0.1, a loopback address"},
		{"https://sub.localhost:8443/", "!special-use name (localhost)", "special-use name (localhost)"},
		{"https://10.0.0.1:8443/", "!a private address", "a private address"},
		{"https://169.254.169.254/", "!cloud metadata", "cloud metadata"},
		{"https://private.example.com/", "!resolves to 10.0.0.7", "resolves to 10.0.0.7"},
		{"https://0.0.0.0:8443/", "!the unspecified address", "the unspecified address"},
		{"https://[fe80::1%25lo]:8443/", "!", "!"},
		{"https://hooks.example.com/svc", "https://hooks.example.com/svc", ""},
	} {
		t.Run(tt.url, func(t *testing.T) {
			u, err := dev.CheckURL(context.Background(), tt.url)
			if want, refused := strings.CutPrefix(tt.dev, "!"); refused {
				if !errors.Is(err, netguard.ErrRefused) || !strings.Contains(err.Error(), want) {
					t.Errorf("with the switch: %v, %v; want a refusal naming %q", u, err, want)
				}
			} else if err != nil || u.String() != tt.dev {
				t.Errorf("with the switch: %v, %v; want %s", u, err, tt.dev)
			}
			u, err = strict.CheckURL(context.Background(), tt.url)
			if tt.strict == "" {
				if err != nil {
					t.Errorf("without the switch: %v", err)
				}
				return
			}
			want := strings.TrimPrefix(tt.strict, "!")
			if !errors.Is(err, netguard.ErrRefused) || !strings.Contains(err.Error(), want) {
				t.Errorf("without the switch: %v, %v; want a refusal naming %q", u, err, want)
			}
		})
	}
}

// TestDevLoopbackClient: under the switch the client reaches a loopback
// TLS receiver whose certificate it does not know (self-signed), by
// address and by localhost; the strict client never connects; a name that
// resolves to loopback and the service's own port stay refused at
// connection time too.
func TestDevLoopbackClient(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	res := newResolver()
	res.set("receiver.example.com", []string{"127.0.0.1"}, nil)
	dev := netguard.New(netguard.WithResolver(res), netguard.WithDevLoopback("8080")).Client(0)
	strict := netguard.New(netguard.WithResolver(res)).Client(0)
	for _, tt := range []struct {
		url             string
		devOK, strictOK bool
		devRefusal      string
	}{
		{srv.URL + "/hook", true, false, ""},
		{"https://localhost:" + port + "/hook", true, false, ""},
		{"https://receiver.example.com:" + port + "/hook", false, false, "resolves to 127.0.0.1, a loopback address"},
		{"https://[::ffff:127.0.0.1]:" + port + "/hook", false, false, "IPv4-mapped"},
		{"https://127.0.0.1:8080/hook", false, false, "this service itself"},
	} {
		for _, c := range []struct {
			name   string
			client *http.Client
			ok     bool
		}{{"dev", dev, tt.devOK}, {"strict", strict, tt.strictOK}} {
			resp, err := c.client.Get(tt.url)
			if err == nil {
				resp.Body.Close()
			}
			switch {
			case c.ok && (err != nil || resp.StatusCode != http.StatusNoContent):
				t.Errorf("%s GET %s: %v", c.name, tt.url, err)
			case !c.ok && !errors.Is(err, netguard.ErrRefused):
				t.Errorf("%s GET %s: %v, want a refusal", c.name, tt.url, err)
			case !c.ok && c.name == "dev" && !strings.Contains(err.Error(), tt.devRefusal):
				t.Errorf("%s GET %s: %v, want a refusal naming %q", c.name, tt.url, err, tt.devRefusal)
			}
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests reached the receiver, want 2", n)
	}
}

// TestIsLoopbackHost: the hosts the switch concerns, in the forms a URL's
// Hostname gives.
func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "127.0.0.1": true, "127.1": true, "0x7f000001": true, "127.255.0.9": true,
		"::1": true, "[::1]": false, "::ffff:127.0.0.1": false, "sub.localhost": false, "10.0.0.1": false,
		"hooks.example.com": false, "": false, "0.0.0.0": false,
	} {
		if got := netguard.IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
