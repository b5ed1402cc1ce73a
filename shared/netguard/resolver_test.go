package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
)

// fakeResolver answers names from a table; a name may change its answer
// after the first lookup (DNS rebinding). Safe for the transport's
// goroutines.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][]string
	later   map[string][]string // answers from the second lookup on
	seen    map[string]int
}

func newResolver() *fakeResolver {
	return &fakeResolver{
		answers: map[string][]string{
			"hooks.example.com":          {"93.184.215.14"},
			"public-mapped.example.com":  {"::ffff:93.184.215.14"}, // as net.Resolver answers A records
			"v6.example.com":             {"2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
			"dual.example.com":           {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
			"private.example.com":        {"10.0.0.7"},
			"mixed.example.com":          {"93.184.215.14", "192.168.1.10"},
			"mapped-private.example.com": {"::ffff:10.0.0.8"},
			"metadata.example.com":       {"169.254.169.254"},
			"loopback.example.com":       {"127.0.0.1"},
			"ula.example.com":            {"fd00::1"},
			"empty.example.com":          {},
		},
		later: map[string][]string{},
		seen:  map[string]int{},
	}
}

func (r *fakeResolver) set(host string, first, later []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers[host], r.later[host] = first, later
}

func (r *fakeResolver) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if host == "broken.example.com" {
		return nil, errors.New("read udp 10.0.0.2:53: i/o timeout")
	}
	list, ok := r.answers[host]
	if l, rebinds := r.later[host]; rebinds && r.seen[host] > 0 {
		list = l
	}
	r.seen[host]++
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, 0, len(list))
	for _, a := range list {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}
