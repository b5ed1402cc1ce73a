package sim

import (
	"container/list"
	"sync"
)

// batchID names a batch: the places of one category drawn in one
// settlement in one epoch.
type batchID struct {
	settlement int32 // gazetteer ID
	cat        string
	epoch      int32
}

// lru keeps the most recently used batches while their places add up to
// at most max. Batches are regenerated identically when evicted, so the
// cache only saves time; two goroutines missing the same batch both
// generate it, harmlessly.
type lru struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // of *batch, most recent first
	items map[batchID]*list.Element
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: map[batchID]*list.Element{}}
}

func (c *lru) get(id batchID) *batch {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[id]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*batch)
}

func (c *lru) put(b *batch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[b.id]; ok {
		return
	}
	c.items[b.id] = c.order.PushFront(b)
	c.size += b.weight()
	for c.size > c.max && c.order.Len() > 1 {
		old := c.order.Back()
		ob := old.Value.(*batch)
		c.order.Remove(old)
		delete(c.items, ob.id)
		c.size -= ob.weight()
	}
}
