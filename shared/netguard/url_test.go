package netguard_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/netguard"
)

func testGuard() *netguard.Guard {
	return netguard.New(netguard.WithResolver(newResolver()), netguard.WithOwnHosts("api.svc.example.com", "https://ignored"))
}

// TestCheckURLRefused: every spelling of an internal or unusable target is
// refused with a *Refusal (matching ErrRefused) whose message names the
// cause.
func TestCheckURLRefused(t *testing.T) {
	g := testGuard()
	refused := []struct{ url, want string }{
		// Scheme, user info, host, port, length, syntax.
		{"http://hooks.example.com/", "only https:// URLs"},
		{"HTTP://hooks.example.com/", "only https:// URLs"},
		{"ftp://hooks.example.com/", "only https:// URLs"},
		{"javascript:alert(1)", "only https:// URLs"},
		{"//hooks.example.com/", "no scheme: only https:// URLs"},
		{"https://user:pw@hooks.example.com/", "user name or password"},
		{"https://@hooks.example.com/", "user name or password"},
		{"https:///path", "no host"},
		{"https:hooks.example.com", "no host"},
		{"https://hooks.example.com:0/", "port 0 is not between 1 and 65535"},
		{"https://hooks.example.com:65536/", "port 65536 is not between 1 and 65535"},
		{"https://hooks.example.com:99999999999999999999/", "port"},
		{"https://hooks.example.com:https/", "cannot be parsed"},
		{"https://ho oks.example.com/", "cannot be parsed"},
		{"https://" + strings.Repeat("a", 2040) + ".example.com/", "longer than 2048 bytes"},
		// IPv4 loopback in every numeric spelling.
		{"https://127.0.0.1/", "the host 127.0.0.1 is a loopback address"},
		{"https://127.0.0.1./", "the host 127.0.0.1 is a loopback address"},
		{"https://127.0.0.53:8443/", "the host 127.0.0.53 is a loopback address"},
		{"https://127.1/", "the host 127.1 is 127.0.0.1, a loopback address"},
		{"https://2130706433/", "the host 2130706433 is 127.0.0.1, a loopback address"},
		{"https://0x7f000001/", "the host 0x7f000001 is 127.0.0.1, a loopback address"},
		{"https://0X7F000001/", "is 127.0.0.1, a loopback address"},
		{"https://0177.0.0.1/", "the host 0177.0.0.1 is 127.0.0.1, a loopback address"},
		{"https://0x7f.0.0.1/", "the host 0x7f.0.0.1 is 127.0.0.1, a loopback address"},
		{"https://017700000001/", "the host 017700000001 is 127.0.0.1, a loopback address"},
		{"https://0x7f.1/", "is 127.0.0.1, a loopback address"},
		{"https://127.0.1/", "is 127.0.0.1, a loopback address"},
		// Unspecified.
		{"https://0.0.0.0/", "the host 0.0.0.0 is the unspecified address"},
		{"https://0/", "the host 0 is 0.0.0.0, the unspecified address"},
		{"https://[::]/", "the host :: is the unspecified address"},
		{"https://0.1.2.3/", `a "this network" address`},
		// IPv6 forms, embedding IPv4 or not.
		{"https://[::1]/", "the host ::1 is a loopback address"},
		{"https://[::ffff:127.0.0.1]/", "an IPv4-mapped IPv6 address of 127.0.0.1, a loopback address"},
		{"https://[::ffff:7f00:1]/", "an IPv4-mapped IPv6 address of 127.0.0.1, a loopback address"},
		{"https://[0:0:0:0:0:ffff:7f00:1]/", "is ::ffff:127.0.0.1, an IPv4-mapped IPv6 address of 127.0.0.1"},
		{"https://[::ffff:93.184.215.14]/", "an IPv4-mapped IPv6 address of 93.184.215.14"},
		{"https://[::127.0.0.1]/", "an IPv4-compatible IPv6 address of 127.0.0.1, a loopback address"},
		{"https://[64:ff9b::7f00:1]/", "a NAT64 address of 127.0.0.1, a loopback address"},
		{"https://[64:ff9b::a9fe:a9fe]/", "a NAT64 address of 169.254.169.254, the cloud metadata address"},
		{"https://[2002:7f00:1::1]/", "a 6to4 address of 127.0.0.1, a loopback address"},
		{"https://[2002:c0a8:101::1]/", "a 6to4 address of 192.168.1.1, a private address"},
		{"https://[fe80::1]/", "the host fe80::1 is a link-local address"},
		{"https://[fe80::1%25eth0]/", "zone eth0"},
		{"https://[fc00::1]/", "a unique local (private) address"},
		{"https://[fd12:3456::1]/", "a unique local (private) address"},
		{"https://[ff02::1]/", "a multicast address"},
		{"https://[2001:db8::1]/", "a documentation address"},
		{"https://[fec0::1]/", "a site-local address"},
		{"https://[v1.fe80::a]/", "cannot be parsed"},
		// IPv4 ranges.
		{"https://10.0.0.1/", "the host 10.0.0.1 is a private address"},
		{"https://10.255.255.255/", "a private address"},
		{"https://172.16.0.1/", "a private address"},
		{"https://172.31.255.254/", "a private address"},
		{"https://192.168.1.1/", "a private address"},
		{"https://100.64.0.1/", "a shared (carrier-grade NAT) address"},
		{"https://100.127.255.254/", "a shared (carrier-grade NAT) address"},
		{"https://169.254.1.1/", "a link-local address"},
		{"https://224.0.0.1/", "a multicast address"},
		{"https://239.255.255.250:1900/", "a multicast address"},
		{"https://255.255.255.255/", "the broadcast address"},
		{"https://240.0.0.1/", "a reserved address"},
		{"https://198.18.0.1/", "a benchmarking address"},
		{"https://192.0.2.10/", "a documentation address"},
		// Cloud metadata.
		{"https://169.254.169.254/latest/meta-data/", "the cloud metadata address"},
		{"https://0xa9fea9fe/", "is 169.254.169.254, the cloud metadata address"},
		{"https://169.254.170.2/v2/credentials", "the AWS container metadata address"},
		{"https://[fd00:ec2::254]/", "the AWS IPv6 metadata address"},
		{"https://[fd20:ce::254]/", "the GCP IPv6 metadata address"},
		{"https://100.100.100.200/latest/meta-data/", "the Alibaba Cloud metadata address"},
		{"https://168.63.129.16/", "the Azure platform (wire server) address"},
		{"https://192.0.0.192/", "the Oracle Cloud metadata address"},
		// Numeric hosts that do not parse are never resolved.
		{"https://1.2.3.4.5/", "malformed numeric address"},
		{"https://256.1.1.1/", "malformed numeric address"},
		{"https://08.0.0.1/", "malformed numeric address"},
		{"https://0x100000000/", "malformed numeric address"},
		{"https://127..1/", "malformed numeric address"},
		{"https://hooks.example.123/", "malformed numeric address"},
		// Names.
		{"https://１２７.０.０.１/", "not ASCII"},
		{"https://localhost/", "special-use name (localhost)"},
		{"https://LOCALHOST./", "special-use name (localhost)"},
		{"https://api.localhost:8080/", "special-use name (localhost)"},
		{"https://printer.local/", "special-use name (local)"},
		{"https://metadata.google.internal/computeMetadata/v1/", "special-use name (internal)"},
		{"https://METADATA.GOOGLE.INTERNAL./", "special-use name (internal)"},
		{"https://router.home.arpa/", "special-use name (home.arpa)"},
		{"https://home.arpa/", "special-use name (home.arpa)"},
		{"https://nas.localdomain./", "special-use name (localdomain)"},
		{"https://intranet/", "the host intranet is a single-label name"},
		{"https://Intranet./", "the host intranet is a single-label name"},
		{"https://a..example.com/", "not a valid host name"},
		{"https://a!b.example.com/", "not a valid host name"},
		{"https://api.svc.example.com/hook", "the host api.svc.example.com is this service itself"},
		{"https://API.SVC.Example.com.:443/hook", "this service itself"},
		// Names by what they resolve to (fake resolver).
		{"https://private.example.com/", "the host private.example.com resolves to 10.0.0.7, a private address"},
		{"https://mixed.example.com/", "resolves to 192.168.1.10, a private address (one of its 2 addresses)"},
		{"https://mapped-private.example.com/", "resolves to 10.0.0.8, a private address"},
		{"https://metadata.example.com/", "resolves to 169.254.169.254, the cloud metadata address"},
		{"https://loopback.example.com/", "resolves to 127.0.0.1, a loopback address"},
		{"https://ula.example.com/", "resolves to fd00::1, a unique local (private) address"},
		{"https://empty.example.com/", "the host empty.example.com resolves to no address"},
		{"https://unknown.example.com/", "the host unknown.example.com does not exist"},
		{"https://broken.example.com/", "the host broken.example.com could not be resolved"},
	}
	if len(refused) < 35 {
		t.Fatalf("only %d refused cases", len(refused))
	}
	for _, tt := range refused {
		t.Run(tt.url[:min(len(tt.url), 60)], func(t *testing.T) {
			u, err := g.CheckURL(context.Background(), tt.url)
			var r *netguard.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("CheckURL(%q) = %v, %v; want a *Refusal naming %q", tt.url, u, err, tt.want)
			}
			if !errors.Is(err, netguard.ErrRefused) || !strings.Contains(r.EN, tt.want) || r.Error() != r.EN || r.FR == "" || r.FR == r.EN {
				t.Fatalf("CheckURL(%q): EN %q, FR %q; want EN naming %q", tt.url, r.EN, r.FR, tt.want)
			}
			if strings.Contains(r.EN, "10.0.0.2") || strings.Contains(r.EN, "udp") {
				t.Fatalf("the refusal shows the resolver's error: %q", r.EN)
			}
		})
	}
}

// TestCheckURLAccepted: public targets pass, returned normalised.
func TestCheckURLAccepted(t *testing.T) {
	g := testGuard()
	for _, tt := range []struct{ url, want string }{
		{"https://93.184.215.14/hook", "https://93.184.215.14/hook"},
		{"https://8.8.8.8:8443/hook", "https://8.8.8.8:8443/hook"},
		{"HTTPS://Hooks.Example.COM:8443/svc?x=1", "https://hooks.example.com:8443/svc?x=1"},
		{"https://hooks.example.com./", "https://hooks.example.com/"},
		{"https://hooks.example.com:08443/", "https://hooks.example.com:8443/"},
		{"https://hooks.example.com:1/", "https://hooks.example.com:1/"},
		{"https://hooks.example.com:65535/", "https://hooks.example.com:65535/"},
		{"https://hooks.example.com:/", "https://hooks.example.com/"},
		{"https://public-mapped.example.com/", "https://public-mapped.example.com/"},
		{"https://v6.example.com/", "https://v6.example.com/"},
		{"https://dual.example.com/x", "https://dual.example.com/x"},
		{"https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/h", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/h"},
		{"https://[2606:2800:21F:CB07:6820:80DA:AF6B:8B2C]:444/h", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:444/h"},
		// A numeric spelling of a public address is rewritten, so what is
		// dialled later is what was checked.
		{"https://0x5db8d70e/", "https://93.184.215.14/"},
		{"https://93.184.55054/", "https://93.184.215.14/"},
	} {
		u, err := g.CheckURL(context.Background(), tt.url)
		if err != nil || u.String() != tt.want {
			t.Errorf("CheckURL(%q) = %v, %v; want %s", tt.url, u, err, tt.want)
		}
	}
}

// TestCheckURLCanceled: a lookup cut short by the caller's context is the
// caller's error, not a refusal of the URL.
func TestCheckURLCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := testGuard().CheckURL(ctx, "https://hooks.example.com/")
	if !errors.Is(err, context.Canceled) || errors.Is(err, netguard.ErrRefused) {
		t.Fatalf("err = %v, want context.Canceled and no refusal", err)
	}
}
