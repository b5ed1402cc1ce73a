package verify

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCacheFillsOnce(t *testing.T) {
	c := newCache[int](10, time.Hour, time.Now)
	var fills atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			v, err := c.get(context.Background(), "k", func() (int, bool, error) {
				fills.Add(1)
				<-release
				return 42, true, nil
			})
			if v != 42 || err != nil {
				t.Errorf("get = %d, %v", v, err)
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if fills.Load() != 1 {
		t.Errorf("%d fills, want 1", fills.Load())
	}
}

func TestCacheEvictsAndExpires(t *testing.T) {
	now := time.Unix(0, 0)
	c := newCache[string](2, time.Minute, func() time.Time { return now })
	fills := 0
	get := func(k string) {
		c.get(context.Background(), k, func() (string, bool, error) { fills++; return k, true, nil })
	}
	get("a")
	get("b")
	get("a") // a is now the most recent
	get("c") // evicts b
	if c.len() != 2 || fills != 3 {
		t.Fatalf("len %d, fills %d", c.len(), fills)
	}
	get("a")
	if fills != 3 {
		t.Errorf("a was evicted")
	}
	get("b")
	if fills != 4 {
		t.Errorf("b was kept")
	}
	now = now.Add(2 * time.Minute)
	get("b")
	if fills != 5 {
		t.Errorf("an expired entry was served")
	}
}

func TestCacheForgetsFailures(t *testing.T) {
	c := newCache[int](10, time.Hour, time.Now)
	fills := 0
	fill := func(keep bool, err error) func() (int, bool, error) {
		return func() (int, bool, error) { fills++; return fills, keep, err }
	}
	c.get(context.Background(), "k", fill(false, nil)) // a temporary failure: not kept
	c.get(context.Background(), "k", fill(true, nil))
	c.get(context.Background(), "k", fill(true, nil))
	if fills != 2 {
		t.Errorf("%d fills, want 2", fills)
	}
	_, err := c.get(context.Background(), "x", fill(true, context.Canceled))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	if v, _ := c.get(context.Background(), "x", fill(true, nil)); v != 4 {
		t.Errorf("an aborted fill was kept: %d", v)
	}
	// No cache: every get fills.
	var none *cache[int]
	none.get(context.Background(), "k", fill(true, nil))
	none.get(context.Background(), "k", fill(true, nil))
	if fills != 6 || none.len() != 0 {
		t.Errorf("nil cache: %d fills", fills)
	}
}

// TestCacheWaiterRetries: when the filler's own context ends, a waiting
// caller fills itself instead of failing.
func TestCacheWaiterRetries(t *testing.T) {
	c := newCache[int](10, time.Hour, time.Now)
	started := make(chan struct{})
	abort := make(chan struct{})
	go c.get(context.Background(), "k", func() (int, bool, error) {
		close(started)
		<-abort
		return 0, false, context.Canceled
	})
	<-started
	done := make(chan int)
	go func() {
		v, _ := c.get(context.Background(), "k", func() (int, bool, error) { return 7, true, nil })
		done <- v
	}()
	time.Sleep(10 * time.Millisecond)
	close(abort)
	if v := <-done; v != 7 {
		t.Errorf("waiter got %d, want its own fill 7", v)
	}
}

func TestHostLimits(t *testing.T) {
	h := newHostLimits(1)
	rel, err := h.acquire(context.Background(), "mx")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := h.acquire(ctx, "mx"); err == nil {
		t.Fatal("a second slot on a host of one")
	}
	if r2, err := h.acquire(context.Background(), "other"); err != nil {
		t.Fatal(err)
	} else {
		r2()
	}
	rel()
	if len(h.m) != 0 {
		t.Errorf("%d hosts kept after release", len(h.m))
	}
}

// fakeResolver answers from maps.
type fakeResolver struct {
	mx    map[string][]*net.MX
	addrs map[string][]net.IPAddr
}

func (f fakeResolver) LookupMX(_ context.Context, name string) ([]*net.MX, error) {
	if r, ok := f.mx[name]; ok {
		return r, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (f fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if r, ok := f.addrs[host]; ok {
		return r, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestHostAddresses: public addresses only, IPv4 first, deduplicated;
// MX hosts in preference order.
func TestHostAddresses(t *testing.T) {
	ip := func(s string) net.IPAddr { return net.IPAddr{IP: net.ParseIP(s)} }
	r := fakeResolver{
		mx: map[string][]*net.MX{"ex.com.": {{Host: "b.ex.com.", Pref: 20}, {Host: "A.EX.COM.", Pref: 10}, {Host: "a.ex.com", Pref: 30}}},
		addrs: map[string][]net.IPAddr{
			"a.ex.com.": {ip("2a00:1450:4001:80b::201a"), ip("10.0.0.1"), ip("142.250.1.27"), ip("::ffff:142.250.1.27"), ip("127.0.0.1")},
		},
	}
	c := New(Options{Resolver: r})
	d, err := c.domain(context.Background(), "ex.com")
	if err != nil || len(d.hosts) != 2 || d.hosts[0] != "a.ex.com." || d.hosts[1] != "b.ex.com." {
		t.Fatalf("hosts %v, %v", d.hosts, err)
	}
	h, _ := c.hostAddrs(context.Background(), "a.ex.com.")
	want := []netip.Addr{netip.MustParseAddr("142.250.1.27"), netip.MustParseAddr("2a00:1450:4001:80b::201a")}
	if len(h.addrs) != 2 || h.addrs[0] != want[0] || h.addrs[1] != want[1] {
		t.Errorf("addrs %v, want %v", h.addrs, want)
	}
}
