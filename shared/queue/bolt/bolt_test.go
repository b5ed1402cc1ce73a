package bolt_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/queue/bolt"
	"github.com/prospectdata/svc/shared/queue/queuetest"
)

func TestContract(t *testing.T) {
	queuetest.Run(t, func(t *testing.T, cfgs []queue.Config) queue.Queue {
		// NoSync: the suite checks semantics, not durability, and an fsync
		// per commit would make it slow on some disks.
		return open(t, filepath.Join(t.TempDir(), "queue.db"), cfgs, bolt.WithNoSync())
	})
}

func open(t testing.TB, path string, cfgs []queue.Config, opts ...bolt.Option) *bolt.Queue {
	t.Helper()
	q, err := bolt.Open(path, cfgs, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	return q
}

func newClock() *clocktest.Clock {
	return clocktest.New(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
}

// cfgs are queues with timeouts long enough that only the test clock moves
// messages.
func cfgs() []queue.Config {
	return []queue.Config{
		{Name: "work", VisibilityTimeout: 30 * time.Second, MaxReceives: 2, DeadLetter: "dead"},
		{Name: "dead", VisibilityTimeout: 30 * time.Second},
	}
}

func depth(t *testing.T, q queue.Queue, name string) [3]int {
	t.Helper()
	v, f, d, err := q.Depth(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return [3]int{v, f, d}
}

func receive(t *testing.T, q queue.Queue, name string, n int) []queue.Delivery {
	t.Helper()
	ds, err := q.Receive(context.Background(), name, queue.MaxBatch, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != n {
		t.Fatalf("received %d messages from %s, want %d", len(ds), name, n)
	}
	return ds
}

func send(t *testing.T, q queue.Queue, name string, msgs ...queue.Message) []string {
	t.Helper()
	ids, err := q.Send(context.Background(), name, msgs...)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestRestartKeepsMessagesAndLeases(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	clk := newClock()
	q := open(t, path, cfgs(), bolt.WithClock(clk.Now))
	ids := send(t, q, "work",
		queue.Message{Body: []byte("one")},
		queue.Message{Body: []byte("two")},
		queue.Message{Body: []byte("later"), Delay: time.Minute},
	)
	ds := receive(t, q, "work", 2)
	inFlight, other := ds[0], ds[1]
	if err := q.Delete(ctx, "work", other.Receipt); err != nil {
		t.Fatal(err)
	}
	send(t, q, "work", queue.Message{Body: []byte("three")})
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := q.Send(ctx, "work", queue.Message{Body: []byte("x")}); err == nil {
		t.Fatal("Send after Close succeeded")
	}

	q = open(t, path, cfgs(), bolt.WithClock(clk.Now))
	if got := depth(t, q, "work"); got != [3]int{1, 1, 1} {
		t.Fatalf("depth after reopen %v, want [1 1 1]", got)
	}
	if d := receive(t, q, "work", 1)[0]; string(d.Body) != "three" {
		t.Fatalf("after reopen received %q, want the message never delivered", d.Body)
	} else if err := q.Delete(ctx, "work", d.Receipt); err != nil {
		t.Fatal(err)
	}
	// The in-flight message stays hidden until its timeout, then comes back
	// as a second delivery; the delayed one after its delay.
	clk.Advance(29 * time.Second)
	receive(t, q, "work", 0)
	clk.Advance(time.Second)
	d := receive(t, q, "work", 1)[0]
	if d.ID != inFlight.ID || d.ReceiveCount != 2 || string(d.Body) != string(inFlight.Body) || !d.SentAt.Equal(inFlight.SentAt) {
		t.Fatalf("redelivered after restart: %+v, want %s count 2", d, inFlight.ID)
	}
	if err := q.Delete(ctx, "work", d.Receipt); err != nil {
		t.Fatal(err)
	}
	clk.Advance(30 * time.Second)
	if later := receive(t, q, "work", 1)[0]; later.ID != ids[2] || later.ReceiveCount != 1 {
		t.Fatalf("delayed message after restart: %+v", later)
	}
}

func TestReceiptSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	q := open(t, path, cfgs(), bolt.WithNoSync())
	send(t, q, "work", queue.Message{Body: []byte("x")})
	d := receive(t, q, "work", 1)[0]
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q = open(t, path, cfgs(), bolt.WithNoSync())
	if err := q.Delete(ctx, "work", d.Receipt); err != nil {
		t.Fatalf("Delete with a receipt issued before the restart: %v", err)
	}
	if got := depth(t, q, "work"); got != [3]int{} {
		t.Fatalf("depth %v", got)
	}
}

// TestStaleReceiptRefused pins bolt's side of what the port leaves open: a
// stale receipt is always ErrReceiptExpired and leaves the message alone.
func TestStaleReceiptRefused(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), cfgs(), bolt.WithClock(clk.Now), bolt.WithNoSync())
	send(t, q, "work", queue.Message{Body: []byte("x")})
	d1 := receive(t, q, "work", 1)[0]
	clk.Advance(30 * time.Second)
	d2 := receive(t, q, "work", 1)[0]
	if err := q.Delete(ctx, "work", d1.Receipt); !errors.Is(err, queue.ErrReceiptExpired) {
		t.Fatalf("stale Delete: %v", err)
	}
	if err := q.ChangeVisibility(ctx, "work", d1.Receipt, 0); !errors.Is(err, queue.ErrReceiptExpired) {
		t.Fatalf("stale ChangeVisibility: %v", err)
	}
	if got := depth(t, q, "work"); got != [3]int{0, 1, 0} {
		t.Fatalf("depth after stale calls %v, want the message still in flight", got)
	}
	for _, bad := range []string{"garbage", d2.ID + ".0", d2.ID + ".x", ".2"} {
		if err := q.Delete(ctx, "work", bad); !errors.Is(err, queue.ErrReceiptExpired) {
			t.Fatalf("Delete %q: %v", bad, err)
		}
	}
	// A lapsed lease not yet redelivered: the receipt is still the latest.
	clk.Advance(30 * time.Second)
	if err := q.Delete(ctx, "work", d2.Receipt); err != nil {
		t.Fatalf("Delete with the latest receipt after its lease lapsed: %v", err)
	}
	if err := q.Delete(ctx, "work", d2.Receipt); !errors.Is(err, queue.ErrReceiptExpired) {
		t.Fatalf("second Delete: %v", err)
	}
	// A receipt is for its queue only.
	if err := q.Delete(ctx, "dead", d2.Receipt); !errors.Is(err, queue.ErrReceiptExpired) {
		t.Fatalf("Delete in another queue: %v", err)
	}
}

func TestDeadLetterMoveKeepsMessage(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), cfgs(), bolt.WithClock(clk.Now), bolt.WithNoSync())
	ids := send(t, q, "work", queue.Message{Body: []byte("poison")}, queue.Message{Body: []byte("fine")})
	for range 2 {
		for _, d := range receive(t, q, "work", 2) {
			if d.ID != ids[0] {
				if err := q.Delete(ctx, "work", d.Receipt); err != nil {
					t.Fatal(err)
				}
			}
		}
		send(t, q, "work", queue.Message{Body: []byte("fine")})
		clk.Advance(30 * time.Second)
	}
	// Third receive: the poison message moves, the fresh one is delivered
	// in the same call.
	ds := receive(t, q, "work", 1)
	if string(ds[0].Body) != "fine" {
		t.Fatalf("received %q", ds[0].Body)
	}
	dead := receive(t, q, "dead", 1)[0]
	if dead.ID != ids[0] || string(dead.Body) != "poison" || dead.ReceiveCount != 4 || !dead.SentAt.Equal(clk.Now().Add(-60*time.Second)) {
		t.Fatalf("dead letter %+v", dead)
	}
}

func TestFractionsOfSecondRoundUp(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	// The dead-letter queue, which has none of its own: any number of
	// receives.
	const name = "dead"
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), cfgs(), bolt.WithClock(clk.Now), bolt.WithNoSync())
	send(t, q, name, queue.Message{Body: []byte("x"), Delay: 1500 * time.Millisecond})
	clk.Advance(1999 * time.Millisecond)
	receive(t, q, name, 0)
	clk.Advance(time.Millisecond)
	d := receive(t, q, name, 1)[0]
	if err := q.ChangeVisibility(ctx, name, d.Receipt, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	clk.Advance(999 * time.Millisecond)
	receive(t, q, name, 0)
	clk.Advance(time.Millisecond)
	if d = receive(t, q, name, 1)[0]; d.ReceiveCount != 2 {
		t.Fatalf("receive count %d, want 2", d.ReceiveCount)
	}
	// A receive's visibility override rounds up too.
	if err := q.ChangeVisibility(ctx, name, d.Receipt, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Receive(ctx, name, 1, 0, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	clk.Advance(999 * time.Millisecond)
	receive(t, q, name, 0)
}

// TestSupplementaryCharacters covers what the contract suite leaves out
// because the SQS emulator refuses it: characters beyond U+FFFF, which SQS
// accepts.
func TestSupplementaryCharacters(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), cfgs(), bolt.WithNoSync())
	body := "emoji 😀, math 𝛑, last \U0010FFFF"
	send(t, q, "work", queue.Message{Body: []byte(body)})
	if d := receive(t, q, "work", 1)[0]; string(d.Body) != body {
		t.Fatalf("body %q", d.Body)
	}
}

func TestLongPollWakesAtVisibleTime(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), cfgs(), bolt.WithNoSync())
	ctx := context.Background()
	send(t, q, "work", queue.Message{Body: []byte("x"), Delay: time.Second})
	start := time.Now()
	ds, err := q.Receive(ctx, "work", 1, 10*time.Second, 0)
	el := time.Since(start)
	if err != nil || len(ds) != 1 {
		t.Fatal(ds, err)
	}
	// Woken by the timer for the message's visible-at time, not by the end
	// of the wait.
	if el > 3*time.Second {
		t.Fatalf("delayed message delivered after %v", el)
	}
}

func TestCloseEndsLongPoll(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), cfgs(), bolt.WithNoSync())
	errc := make(chan error, 1)
	go func() {
		_, err := q.Receive(context.Background(), "work", 1, 20*time.Second, 0)
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("Receive ended by Close returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Receive still waiting after Close")
	}
}

func TestSecondOpenOfLockedFileFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	open(t, path, cfgs())
	start := time.Now()
	if q, err := bolt.Open(path, cfgs()); err == nil {
		_ = q.Close()
		t.Fatal("second Open of a locked file succeeded")
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("second Open failed after %v", el)
	}
}

func TestInvalidConfigsRefused(t *testing.T) {
	bad := map[string][]queue.Config{
		"empty name":            {{Name: ""}},
		"NUL in name":           {{Name: "a\x00b"}},
		"duplicate":             {{Name: "a"}, {Name: "a"}},
		"fractional visibility": {{Name: "a", VisibilityTimeout: 1500 * time.Millisecond}},
		"negative visibility":   {{Name: "a", VisibilityTimeout: -time.Second}},
		"visibility over 12h":   {{Name: "a", VisibilityTimeout: 13 * time.Hour}},
		"unknown dead letter":   {{Name: "a", MaxReceives: 3, DeadLetter: "b"}},
		"self dead letter":      {{Name: "a", MaxReceives: 3, DeadLetter: "a"}},
		"MaxReceives 0":         {{Name: "a", DeadLetter: "b"}, {Name: "b"}},
		"MaxReceives 1001":      {{Name: "a", MaxReceives: 1001, DeadLetter: "b"}, {Name: "b"}},
	}
	for name, c := range bad {
		q, err := bolt.Open(filepath.Join(t.TempDir(), "queue.db"), c)
		if !errors.Is(err, queue.ErrInvalid) {
			if q != nil {
				_ = q.Close()
			}
			t.Errorf("%s: Open error %v, want ErrInvalid", name, err)
		}
	}
}

func BenchmarkBolt(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []bolt.Option
	}{
		{"Sync", nil},
		{"NoSync", []bolt.Option{bolt.WithNoSync()}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfgs := queuetest.Configs("bench-")
			cfgs[0].VisibilityTimeout = time.Minute
			q := open(b, filepath.Join(b.TempDir(), "bench.db"), cfgs, tc.opts...)
			queuetest.Bench(b, q, cfgs[0].Name)
		})
	}
}
