package verify

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// cache is a size-capped LRU of values filled once per key across
// concurrent callers (the first caller fills, the others wait for its
// value): one DNS lookup per domain and per mail host, however many rows
// ask at once. A value lives ttl at most. A nil cache keeps nothing:
// every get fills.
type cache[V any] struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	now   func() time.Time
	order *list.List // of *slot[V], most recent first
	items map[string]*list.Element
}

type slot[V any] struct {
	key   string
	done  chan struct{} // closed once val is set
	val   V
	ok    bool      // filled; false when the filler gave up (its ctx ended)
	until time.Time // expiry; zero: until evicted
}

func newCache[V any](max int, ttl time.Duration, now func() time.Time) *cache[V] {
	if max <= 0 {
		return nil
	}
	return &cache[V]{max: max, ttl: ttl, now: now, order: list.New(), items: map[string]*list.Element{}}
}

// get returns key's value, calling fill when there is none. fill returns
// the value, whether to keep it (a temporary failure is shared with the
// callers waiting for it, but not kept), and an error when it gave up,
// in which case a waiting caller fills again itself. get's error is
// ctx's, or fill's.
func (c *cache[V]) get(ctx context.Context, key string, fill func() (V, bool, error)) (V, error) {
	if c == nil {
		v, _, err := fill()
		return v, err
	}
	for {
		c.mu.Lock()
		if el, ok := c.items[key]; ok {
			s := el.Value.(*slot[V])
			select {
			case <-s.done:
				if !s.until.IsZero() && c.now().After(s.until) {
					c.remove(el)
					c.mu.Unlock()
					continue
				}
				c.order.MoveToFront(el)
				c.mu.Unlock()
				return s.val, nil
			default:
			}
			c.mu.Unlock()
			select {
			case <-s.done:
			case <-ctx.Done():
				var zero V
				return zero, ctx.Err()
			}
			if s.ok {
				return s.val, nil
			}
			continue
		}
		s := &slot[V]{key: key, done: make(chan struct{})}
		el := c.order.PushFront(s)
		c.items[key] = el
		for c.order.Len() > c.max {
			c.remove(c.order.Back())
		}
		c.mu.Unlock()

		v, keep, err := fill()
		s.val, s.ok = v, err == nil
		if c.ttl > 0 {
			s.until = c.now().Add(c.ttl)
		}
		close(s.done)
		if !keep || err != nil {
			c.mu.Lock()
			if cur, ok := c.items[key]; ok && cur == el {
				c.remove(el)
			}
			c.mu.Unlock()
		}
		return v, err
	}
}

// remove drops an element; the caller holds mu. A slot still being
// filled may be evicted: its waiters hold it and get its value.
func (c *cache[V]) remove(el *list.Element) {
	s := el.Value.(*slot[V])
	c.order.Remove(el)
	if cur, ok := c.items[s.key]; ok && cur == el {
		delete(c.items, s.key)
	}
}

// len is the number of keys held.
func (c *cache[V]) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// hostLimits bounds the SMTP connections open at once to each mail host:
// a job of many addresses at one provider must not look like an attack.
// A host's slot exists while someone holds or waits for it, so the map
// stays as small as the hosts in use.
type hostLimits struct {
	mu  sync.Mutex
	max int
	m   map[string]*hostSlot
}

type hostSlot struct {
	sem  chan struct{}
	refs int
}

func newHostLimits(max int) *hostLimits {
	return &hostLimits{max: max, m: map[string]*hostSlot{}}
}

// acquire waits for a connection slot to host; release gives it back.
func (h *hostLimits) acquire(ctx context.Context, host string) (release func(), err error) {
	h.mu.Lock()
	s := h.m[host]
	if s == nil {
		s = &hostSlot{sem: make(chan struct{}, h.max)}
		h.m[host] = s
	}
	s.refs++
	h.mu.Unlock()
	drop := func() {
		h.mu.Lock()
		if s.refs--; s.refs == 0 {
			delete(h.m, host)
		}
		h.mu.Unlock()
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; drop() }, nil
	case <-ctx.Done():
		drop()
		return nil, ctx.Err()
	}
}
