package engine

import (
	"context"
	"sync"
)

// gate hands out a fixed number of slots (provider requests, items being
// enriched), the waiting requests of normal jobs before those of
// low-priority ones (a low-priority pipeline's stages): a low-priority
// job runs at full speed alone and yields while others want the slots.
// Within a class, waiters are served in order.
type gate struct {
	mu     sync.Mutex
	free   int
	normal []chan struct{}
	low    []chan struct{}
}

func newGate(n int) *gate { return &gate{free: n} }

// acquire takes a slot, waiting while none is free or, for a
// low-priority request, while a normal one waits.
func (g *gate) acquire(ctx context.Context, low bool) error {
	g.mu.Lock()
	if g.free > 0 && (!low || len(g.normal) == 0) {
		g.free--
		g.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	if low {
		g.low = append(g.low, ch)
	} else {
		g.normal = append(g.normal, ch)
	}
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-ch:
			// Handed over as the context ended: pass it on.
			g.releaseLocked()
		default:
			g.normal = remove(g.normal, ch)
			g.low = remove(g.low, ch)
		}
		return ctx.Err()
	}
}

// release gives the slot to the first normal waiter, else the first
// low-priority one, else back to the pool.
func (g *gate) release() {
	g.mu.Lock()
	g.releaseLocked()
	g.mu.Unlock()
}

func (g *gate) releaseLocked() {
	switch {
	case len(g.normal) > 0:
		close(g.normal[0])
		g.normal = g.normal[1:]
	case len(g.low) > 0:
		close(g.low[0])
		g.low = g.low[1:]
	default:
		g.free++
	}
}

func remove(q []chan struct{}, ch chan struct{}) []chan struct{} {
	for i, c := range q {
		if c == ch {
			return append(q[:i:i], q[i+1:]...)
		}
	}
	return q
}

// lowKey marks a context whose work is a low-priority job's.
type lowKey struct{}

// withPriority marks ctx with the job's priority for the gates.
func withPriority(ctx context.Context, low bool) context.Context {
	if !low {
		return ctx
	}
	return context.WithValue(ctx, lowKey{}, true)
}

func isLow(ctx context.Context) bool { v, _ := ctx.Value(lowKey{}).(bool); return v }
