package engine

import (
	"context"
	"sync"
	"testing"
	"time"
)

// waitQueued polls until the gate holds n waiters.
func waitQueued(t *testing.T, g *gate, n int) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		g.mu.Lock()
		got := len(g.normal) + len(g.low)
		g.mu.Unlock()
		if got == n {
			return
		}
	}
	t.Fatalf("gate never held %d waiters", n)
}

// TestGateNormalFirst: a free slot goes to anyone; once the slots are
// taken, a normal waiter gets the next one before a low-priority waiter
// that came earlier, and waiters of one class are served in order.
func TestGateNormalFirst(t *testing.T) {
	ctx := context.Background()
	g := newGate(1)
	if err := g.acquire(ctx, true); err != nil { // free: a low-priority job runs at full speed alone
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	enqueue := func(name string, low bool, queued int) {
		wg.Go(func() {
			if err := g.acquire(ctx, low); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			g.release()
		})
		waitQueued(t, g, queued)
	}
	enqueue("low1", true, 1)
	enqueue("low2", true, 2)
	enqueue("normal1", false, 3)
	enqueue("normal2", false, 4)
	g.release()
	wg.Wait()
	want := []string{"normal1", "normal2", "low1", "low2"}
	if len(order) != len(want) {
		t.Fatalf("order %v", order)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if g.free != 1 {
		t.Errorf("%d free slots after all released, want 1", g.free)
	}
}

// TestGateCancel: a cancelled waiter leaves the queue and no slot is
// lost; a low-priority request takes a free slot when no normal one
// waits.
func TestGateCancel(t *testing.T) {
	g := newGate(1)
	if err := g.acquire(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.acquire(ctx, true) }()
	waitQueued(t, g, 1)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled wait succeeded")
	}
	waitQueued(t, g, 0)
	g.release()
	if g.free != 1 {
		t.Errorf("%d free slots, want 1", g.free)
	}
	// A low-priority request takes a free slot when no normal one waits.
	if err := g.acquire(context.Background(), true); err != nil || g.free != 0 {
		t.Errorf("low acquire on a free gate: %v, %d free", err, g.free)
	}
}
