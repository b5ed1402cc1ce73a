// Package queuetest is the contract suite of the queue port: every driver of
// queue.Queue runs Run, so that job and webhook consumers observe the same
// semantics locally (bbolt) and on AWS (SQS), as the package comment of queue
// states them.
//
// The suite runs against real clocks: visibility timeouts and delays are 1 or
// 2 seconds (SQS counts in whole seconds) and every wait polls with a
// deadline instead of sleeping a fixed time, so a subtest takes at most a few
// seconds and they all run in parallel.
package queuetest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/queue"
)

// Names and settings of the queues Configs returns.
const (
	Work = "work" // the queue under test, redriven to Dead
	Dead = "dead" // its dead-letter queue

	// Visibility is the work queue's visibility timeout: short, so that
	// redelivery tests wait about a second, and a whole second, which is
	// all SQS can express.
	Visibility = time.Second
	// MaxReceives is the work queue's receive limit before the dead-letter
	// move.
	MaxReceives = 3
)

// Configs returns the queues the suite opens, their names prefixed with
// prefix: Work, redriven to Dead after MaxReceives receives, and Dead.
func Configs(prefix string) []queue.Config {
	return []queue.Config{
		{Name: prefix + Work, VisibilityTimeout: Visibility, MaxReceives: MaxReceives, DeadLetter: prefix + Dead},
		{Name: prefix + Dead, VisibilityTimeout: Visibility},
	}
}

// settle bounds every wait for something that should happen within a second
// or two: generous, so that a loaded machine does not fail the suite, and
// reached only when the driver is wrong.
const settle = 10 * time.Second

// Run runs the contract suite against the driver open creates. open must
// return a queue holding the given queues, all empty, and close it with
// t.Cleanup if it needs closing. Subtests run in parallel, each on queues of
// its own.
func Run(t *testing.T, open func(t *testing.T, cfgs []queue.Config) queue.Queue) {
	tests := []struct {
		name string
		fn   func(*testing.T, *env)
	}{
		{"SendReceiveDelete", testRoundTrip},
		{"LargeBatchOfLargeBodies", testLargeBatch},
		{"BodiesMustBeText", testBodiesMustBeText},
		{"SendLimits", testSendLimits},
		{"ReceiveLimits", testReceiveLimits},
		{"UnknownQueue", testUnknownQueue},
		{"EmptyReceiptRefused", testEmptyReceipt},
		{"VisibilityTimeoutRedelivers", testVisibilityTimeout},
		{"ReceiveVisibilityOverride", testVisibilityOverride},
		{"ChangeVisibilityZeroRedeliversAtOnce", testChangeVisibilityZero},
		{"ChangeVisibilityExtendsLease", testChangeVisibilityExtend},
		{"StaleReceipt", testStaleReceipt},
		{"DelayedDelivery", testDelay},
		{"LongPollReturnsWhenMessageArrives", testLongPollWakes},
		{"LongPollTimesOut", testLongPollTimesOut},
		{"CancelledReceive", testCancelledReceive},
		{"DeadLetterAfterMaxReceives", testDeadLetter},
		{"Depth", testDepth},
		{"ConcurrentConsumersNeverShareAMessage", testConcurrentConsumers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfgs := Configs("")
			e := &env{q: open(t, cfgs), work: cfgs[0].Name, dead: cfgs[1].Name, ctx: context.Background()}
			tt.fn(t, e)
		})
	}
}

// env is what a subtest works on.
type env struct {
	q          queue.Queue
	work, dead string
	ctx        context.Context
}

func (e *env) send(t testing.TB, name string, msgs ...queue.Message) []string {
	t.Helper()
	ids, err := e.q.Send(e.ctx, name, msgs...)
	if err != nil {
		t.Fatalf("Send to %s: %v", name, err)
	}
	if len(ids) != len(msgs) {
		t.Fatalf("Send of %d messages returned %d ids", len(msgs), len(ids))
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] {
			t.Fatalf("Send returned empty or repeated ids %q", ids)
		}
		seen[id] = true
	}
	return ids
}

func (e *env) sendText(t testing.TB, name string, bodies ...string) []string {
	t.Helper()
	msgs := make([]queue.Message, len(bodies))
	for i, b := range bodies {
		msgs[i] = queue.Message{Body: []byte(b)}
	}
	return e.send(t, name, msgs...)
}

// receiveN polls name until n deliveries have arrived, failing after settle.
// Long polls of a second keep the loop cheap without delaying the answer.
func (e *env) receiveN(t testing.TB, name string, n int, visibility time.Duration) []queue.Delivery {
	t.Helper()
	var got []queue.Delivery
	deadline := time.Now().Add(settle)
	for len(got) < n {
		if time.Now().After(deadline) {
			t.Fatalf("received %d of %d messages from %s within %s", len(got), n, name, settle)
		}
		ds, err := e.q.Receive(e.ctx, name, min(n-len(got), queue.MaxBatch), time.Second, visibility)
		if err != nil {
			t.Fatalf("Receive from %s: %v", name, err)
		}
		got = append(got, ds...)
	}
	if len(got) > n {
		t.Fatalf("received %d messages from %s, want %d", len(got), name, n)
	}
	return got
}

func (e *env) receiveOne(t testing.TB, name string, visibility time.Duration) queue.Delivery {
	t.Helper()
	return e.receiveN(t, name, 1, visibility)[0]
}

// expectNone fails if a receive waiting up to wait returns anything.
func (e *env) expectNone(t testing.TB, name string, wait time.Duration, why string) {
	t.Helper()
	ds, err := e.q.Receive(e.ctx, name, queue.MaxBatch, wait, 0)
	if err != nil {
		t.Fatalf("Receive from %s: %v", name, err)
	}
	if len(ds) > 0 {
		t.Fatalf("%s: received %d message(s) from %s, first %s (count %d)", why, len(ds), name, ds[0].ID, ds[0].ReceiveCount)
	}
}

func (e *env) depth(t testing.TB, name string) [3]int {
	t.Helper()
	v, f, d, err := e.q.Depth(e.ctx, name)
	if err != nil {
		t.Fatalf("Depth of %s: %v", name, err)
	}
	return [3]int{v, f, d}
}

func wantErr(t testing.TB, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v, want %v", what, err, target)
	}
}

// wantNilOrExpired checks the answer to a stale receipt: the port allows
// SQS's silent acceptance and bolt's ErrReceiptExpired, nothing else.
func wantNilOrExpired(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil && !errors.Is(err, queue.ErrReceiptExpired) {
		t.Fatalf("%s: error %v, want nil or %v", what, err, queue.ErrReceiptExpired)
	}
}

// textBodies are bodies that must come back byte for byte: the edges of the
// character ranges SQS allows, multi-byte UTF-8, and binary content the way
// the port expects it (encoded by the caller). Characters beyond U+FFFF are
// allowed by the port but left to the drivers' own tests: the SQS emulator
// rejects them (docs/queues.md).
func textBodies() []string {
	bin := make([]byte, 256)
	for i := range bin {
		bin[i] = byte(i)
	}
	return []string{
		"x",
		`{"task":"tile","z":12,"x":2048,"y":1361}`,
		"tab\there\r\nnew line\nand \u007f",
		"\t\n\r \ud7ff\ue000\ufffd",
		"Zoë – café ☕ – Ελληνικά – 日本語",
		"  leading and trailing spaces  ",
		base64.StdEncoding.EncodeToString(bin),
	}
}

func testRoundTrip(t *testing.T, e *env) {
	bodies := textBodies()
	before := time.Now()
	ids := e.sendText(t, e.work, bodies...)
	after := time.Now()

	got := e.receiveN(t, e.work, len(bodies), 0)
	byID := map[string]queue.Delivery{}
	for _, d := range got {
		if _, dup := byID[d.ID]; dup {
			t.Fatalf("message %s delivered twice in one visibility window", d.ID)
		}
		byID[d.ID] = d
	}
	for i, id := range ids {
		d, ok := byID[id]
		switch {
		case !ok:
			t.Fatalf("message %d (id %s) not received; got ids %v", i, id, keys(byID))
		case string(d.Body) != bodies[i]:
			t.Errorf("message %d body %q, want %q", i, d.Body, bodies[i])
		case d.ReceiveCount != 1:
			t.Errorf("message %d receive count %d on its first delivery", i, d.ReceiveCount)
		case d.Receipt == "":
			t.Errorf("message %d without a receipt", i)
		case d.SentAt.Before(before.Add(-2*time.Second)) || d.SentAt.After(after.Add(2*time.Second)):
			// Two seconds of slack: SQS stamps the time on its own clock.
			t.Errorf("message %d sent at %v, outside [%v, %v]", i, d.SentAt, before, after)
		}
	}
	for _, d := range got {
		if err := e.q.Delete(e.ctx, e.work, d.Receipt); err != nil {
			t.Fatalf("Delete: %v", err)
		}
	}
	if got := e.depth(t, e.work); got != [3]int{} {
		t.Fatalf("depth after deleting everything %v, want [0 0 0]", got)
	}
	// Past the visibility timeout nothing comes back: the deletes took.
	e.expectNone(t, e.work, Visibility+time.Second, "after delete")
}

// testLargeBatch sends a full batch of bodies at the size limit: 2.5 MiB in
// one Send, which SQS's per-request payload limit makes a driver split.
func testLargeBatch(t *testing.T, e *env) {
	msgs := make([]queue.Message, queue.MaxBatch)
	for i := range msgs {
		// Two-byte characters: the limit counts bytes, not characters.
		body := strings.Repeat("é", queue.MaxBodyBytes/2-2) + fmt.Sprintf("%04d", i)
		msgs[i] = queue.Message{Body: []byte(body)}
	}
	if n := len(msgs[0].Body); n != queue.MaxBodyBytes {
		t.Fatalf("test body of %d bytes, want %d", n, queue.MaxBodyBytes)
	}
	ids := e.send(t, e.work, msgs...)
	got := e.receiveN(t, e.work, len(msgs), 0)
	want := map[string]string{}
	for i, id := range ids {
		want[id] = string(msgs[i].Body)
	}
	for _, d := range got {
		if string(d.Body) != want[d.ID] {
			t.Fatalf("message %s: body of %d bytes differs from the %d sent", d.ID, len(d.Body), len(want[d.ID]))
		}
		delete(want, d.ID)
	}
	if len(want) > 0 {
		t.Fatalf("%d messages not received", len(want))
	}
}

func testBodiesMustBeText(t *testing.T, e *env) {
	bad := map[string][]byte{
		"empty":                      {},
		"NUL":                        []byte("a\x00b"),
		"control character":          []byte("a\x01b"),
		"invalid UTF-8":              {0xff, 0xfe, 'a'},
		"encoded surrogate":          {0xed, 0xa0, 0x80},
		"U+FFFE":                     []byte("a\ufffeb"),
		"U+FFFF":                     []byte("a\uffffb"),
		"truncated multi-byte":       []byte("caf\xc3"),
		"one byte over the limit":    []byte(strings.Repeat("a", queue.MaxBodyBytes+1)),
		"raw binary (not base64ed)":  {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d},
		"over the limit, multi-byte": []byte(strings.Repeat("é", queue.MaxBodyBytes/2) + "a"),
	}
	for name, body := range bad {
		_, err := e.q.Send(e.ctx, e.work, queue.Message{Body: body})
		wantErr(t, err, queue.ErrInvalid, "body "+name)
		// A bad message spoils its batch: none of it is sent.
		_, err = e.q.Send(e.ctx, e.work, queue.Message{Body: []byte("fine")}, queue.Message{Body: body})
		wantErr(t, err, queue.ErrInvalid, "batch with body "+name)
	}
	if got := e.depth(t, e.work); got != [3]int{} {
		t.Fatalf("depth after refused sends %v, want [0 0 0]", got)
	}
}

func testSendLimits(t *testing.T, e *env) {
	ok := queue.Message{Body: []byte("ok")}
	_, err := e.q.Send(e.ctx, e.work)
	wantErr(t, err, queue.ErrInvalid, "empty batch")
	eleven := make([]queue.Message, queue.MaxBatch+1)
	for i := range eleven {
		eleven[i] = ok
	}
	_, err = e.q.Send(e.ctx, e.work, eleven...)
	wantErr(t, err, queue.ErrInvalid, "batch of 11")
	_, err = e.q.Send(e.ctx, e.work, queue.Message{Body: ok.Body, Delay: queue.MaxDelay + time.Second})
	wantErr(t, err, queue.ErrInvalid, "delay over 15 minutes")
	_, err = e.q.Send(e.ctx, e.work, queue.Message{Body: ok.Body, Delay: -time.Second})
	wantErr(t, err, queue.ErrInvalid, "negative delay")
	if got := e.depth(t, e.work); got != [3]int{} {
		t.Fatalf("depth after refused sends %v, want [0 0 0]", got)
	}

	// The limits themselves are allowed.
	e.send(t, e.work, eleven[:queue.MaxBatch]...)
	e.send(t, e.work, queue.Message{Body: ok.Body, Delay: queue.MaxDelay})
	if got := e.depth(t, e.work); got != [3]int{queue.MaxBatch, 0, 1} {
		t.Fatalf("depth %v, want [10 0 1]", got)
	}
}

func testReceiveLimits(t *testing.T, e *env) {
	bad := []struct {
		what             string
		max              int
		wait, visibility time.Duration
	}{
		{"max 0", 0, 0, 0},
		{"max 11", queue.MaxBatch + 1, 0, 0},
		{"negative wait", 1, -time.Second, 0},
		{"wait over 20 s", 1, 21 * time.Second, 0},
		{"negative visibility", 1, 0, -time.Second},
		{"visibility over 12 h", 1, 0, queue.MaxVisibility + time.Second},
	}
	for _, b := range bad {
		_, err := e.q.Receive(e.ctx, e.work, b.max, b.wait, b.visibility)
		wantErr(t, err, queue.ErrInvalid, b.what)
	}

	bodies := make([]string, 15)
	for i := range bodies {
		bodies[i] = fmt.Sprintf("m%02d", i)
	}
	e.sendText(t, e.work, bodies[:10]...)
	e.sendText(t, e.work, bodies[10:]...)
	seen := map[string]bool{}
	for _, max := range []int{3, queue.MaxBatch, queue.MaxBatch} {
		ds, err := e.q.Receive(e.ctx, e.work, max, time.Second, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) > max {
			t.Fatalf("Receive of at most %d returned %d", max, len(ds))
		}
		for _, d := range ds {
			if seen[d.ID] {
				t.Fatalf("message %s received twice while in flight", d.ID)
			}
			seen[d.ID] = true
		}
	}
	if len(seen) == 0 {
		t.Fatal("no message received")
	}
}

func testUnknownQueue(t *testing.T, e *env) {
	const nope = "no-such-queue"
	_, err := e.q.Send(e.ctx, nope, queue.Message{Body: []byte("x")})
	wantErr(t, err, queue.ErrUnknownQueue, "Send")
	_, err = e.q.Receive(e.ctx, nope, 1, 0, 0)
	wantErr(t, err, queue.ErrUnknownQueue, "Receive")
	err = e.q.Delete(e.ctx, nope, "receipt")
	wantErr(t, err, queue.ErrUnknownQueue, "Delete")
	err = e.q.ChangeVisibility(e.ctx, nope, "receipt", 0)
	wantErr(t, err, queue.ErrUnknownQueue, "ChangeVisibility")
	_, _, _, err = e.q.Depth(e.ctx, nope)
	wantErr(t, err, queue.ErrUnknownQueue, "Depth")
}

func testEmptyReceipt(t *testing.T, e *env) {
	wantErr(t, e.q.Delete(e.ctx, e.work, ""), queue.ErrInvalid, "Delete with empty receipt")
	wantErr(t, e.q.ChangeVisibility(e.ctx, e.work, "", 0), queue.ErrInvalid, "ChangeVisibility with empty receipt")
}

func testVisibilityTimeout(t *testing.T, e *env) {
	e.sendText(t, e.work, "retry me")
	start := time.Now()
	d1 := e.receiveOne(t, e.work, 0)
	if d1.ReceiveCount != 1 {
		t.Fatalf("first receive count %d", d1.ReceiveCount)
	}
	e.expectNone(t, e.work, 0, "while in flight")
	d2 := e.receiveOne(t, e.work, 0)
	if el := time.Since(start); el < Visibility {
		t.Fatalf("redelivered %v after the first receive began, before the %v visibility timeout", el, Visibility)
	}
	switch {
	case d2.ID != d1.ID:
		t.Fatalf("redelivery has id %s, want %s", d2.ID, d1.ID)
	case d2.ReceiveCount != 2:
		t.Fatalf("redelivery receive count %d, want 2", d2.ReceiveCount)
	case d2.Receipt == d1.Receipt:
		t.Fatalf("redelivery reuses receipt %q", d1.Receipt)
	case string(d2.Body) != "retry me":
		t.Fatalf("redelivered body %q", d2.Body)
	case !d2.SentAt.Equal(d1.SentAt):
		t.Fatalf("redelivery sent at %v, first delivery %v", d2.SentAt, d1.SentAt)
	}
	if err := e.q.Delete(e.ctx, e.work, d2.Receipt); err != nil {
		t.Fatal(err)
	}
}

func testVisibilityOverride(t *testing.T, e *env) {
	e.sendText(t, e.work, "hold me longer")
	start := time.Now()
	d1 := e.receiveOne(t, e.work, 3*time.Second)
	// Twice the queue's timeout: still hidden by the override.
	e.expectNone(t, e.work, 2*Visibility, "within the overriding visibility timeout")
	d2 := e.receiveOne(t, e.work, 0)
	if el := time.Since(start); el < 3*time.Second || d2.ID != d1.ID || d2.ReceiveCount != 2 {
		t.Fatalf("redelivery after %v: id %s count %d, want %s count 2 after 3s", el, d2.ID, d2.ReceiveCount, d1.ID)
	}
}

func testChangeVisibilityZero(t *testing.T, e *env) {
	e.sendText(t, e.work, "give it back")
	d1 := e.receiveOne(t, e.work, time.Minute)
	e.expectNone(t, e.work, 0, "in flight for a minute")
	if err := e.q.ChangeVisibility(e.ctx, e.work, d1.Receipt, 0); err != nil {
		t.Fatalf("ChangeVisibility 0: %v", err)
	}
	start := time.Now()
	d2 := e.receiveOne(t, e.work, 0)
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("message came back %v after ChangeVisibility 0", el)
	}
	if d2.ID != d1.ID || d2.ReceiveCount != 2 {
		t.Fatalf("got id %s count %d, want %s count 2", d2.ID, d2.ReceiveCount, d1.ID)
	}
}

func testChangeVisibilityExtend(t *testing.T, e *env) {
	e.sendText(t, e.work, "need more time")
	d1 := e.receiveOne(t, e.work, 0)
	for _, bad := range []time.Duration{-time.Second, queue.MaxVisibility + time.Second} {
		wantErr(t, e.q.ChangeVisibility(e.ctx, e.work, d1.Receipt, bad), queue.ErrInvalid, fmt.Sprintf("ChangeVisibility %v", bad))
	}
	if err := e.q.ChangeVisibility(e.ctx, e.work, d1.Receipt, time.Minute); err != nil {
		t.Fatalf("extend: %v", err)
	}
	// Past the queue's timeout the message stays hidden...
	e.expectNone(t, e.work, 2*Visibility, "after extending the lease")
	// ...and the receipt still holds it.
	if err := e.q.ChangeVisibility(e.ctx, e.work, d1.Receipt, 0); err != nil {
		t.Fatalf("release after extend: %v", err)
	}
	if d2 := e.receiveOne(t, e.work, 0); d2.ID != d1.ID || d2.ReceiveCount != 2 {
		t.Fatalf("got id %s count %d, want %s count 2", d2.ID, d2.ReceiveCount, d1.ID)
	}
}

func testStaleReceipt(t *testing.T, e *env) {
	e.sendText(t, e.work, "twice")
	d1 := e.receiveOne(t, e.work, 0)
	d2 := e.receiveOne(t, e.work, time.Minute) // after d1's lease lapsed
	if d2.ID != d1.ID || d2.ReceiveCount != 2 {
		t.Fatalf("got id %s count %d, want %s count 2", d2.ID, d2.ReceiveCount, d1.ID)
	}
	wantNilOrExpired(t, e.q.ChangeVisibility(e.ctx, e.work, d1.Receipt, time.Minute), "ChangeVisibility with a stale receipt")
	wantNilOrExpired(t, e.q.Delete(e.ctx, e.work, d1.Receipt), "Delete with a stale receipt")
	// Whatever the stale calls did, the current receipt works.
	if err := e.q.Delete(e.ctx, e.work, d2.Receipt); err != nil {
		t.Fatalf("Delete with the current receipt: %v", err)
	}
	wantNilOrExpired(t, e.q.Delete(e.ctx, e.work, d2.Receipt), "second Delete")
	// A deleted message's visibility cannot change: every driver refuses.
	wantErr(t, e.q.ChangeVisibility(e.ctx, e.work, d2.Receipt, 0), queue.ErrReceiptExpired, "ChangeVisibility after Delete")
	if got := e.depth(t, e.work); got != [3]int{} {
		t.Fatalf("depth %v, want [0 0 0]", got)
	}
}

func testDelay(t *testing.T, e *env) {
	const delay = 2 * time.Second
	start := time.Now()
	ids := e.send(t, e.work, queue.Message{Body: []byte("later"), Delay: delay})
	e.expectNone(t, e.work, 0, "before the delay")
	if got := e.depth(t, e.work); got != [3]int{0, 0, 1} {
		t.Fatalf("depth of a delayed message %v, want [0 0 1]", got)
	}
	// One long poll: it must end when the delay does, with no send to wake
	// it.
	ds, err := e.q.Receive(e.ctx, e.work, 1, 10*time.Second, 0)
	el := time.Since(start)
	if err != nil || len(ds) != 1 {
		t.Fatalf("long poll over the delay: %d messages, %v", len(ds), err)
	}
	if el < delay || el > delay+3*time.Second {
		t.Fatalf("delivered %v after Send, want just after its %v delay", el, delay)
	}
	if d := ds[0]; d.ID != ids[0] || d.ReceiveCount != 1 {
		t.Fatalf("got id %s count %d, want %s count 1", d.ID, d.ReceiveCount, ids[0])
	}
}

func testLongPollWakes(t *testing.T, e *env) {
	type result struct {
		ds  []queue.Delivery
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		ds, err := e.q.Receive(e.ctx, e.work, 1, 10*time.Second, 0)
		done <- result{ds, err, time.Now()}
	}()
	// Give the receive time to start waiting: the point is that a message
	// sent during the wait ends it.
	time.Sleep(300 * time.Millisecond)
	sent := time.Now()
	e.sendText(t, e.work, "wake up")
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		if len(r.ds) != 1 || string(r.ds[0].Body) != "wake up" {
			t.Fatalf("long poll returned %d messages", len(r.ds))
		}
		if lag := r.at.Sub(sent); lag > 3*time.Second {
			t.Fatalf("long poll returned %v after the send", lag)
		}
	case <-time.After(settle):
		t.Fatal("long poll still waiting after the send")
	}
}

func testLongPollTimesOut(t *testing.T, e *env) {
	start := time.Now()
	ds, err := e.q.Receive(e.ctx, e.work, 1, time.Second, 0)
	el := time.Since(start)
	if err != nil || len(ds) != 0 {
		t.Fatalf("Receive on an empty queue: %d messages, %v", len(ds), err)
	}
	if el < 900*time.Millisecond || el > 5*time.Second {
		t.Fatalf("a wait of 1s returned after %v", el)
	}
}

func testCancelledReceive(t *testing.T, e *env) {
	ctx, cancel := context.WithCancel(e.ctx)
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.q.Receive(ctx, e.work, 1, 10*time.Second, 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Receive cancelled while waiting: %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("cancelled Receive returned after %v", el)
	}
	_, err = e.q.Send(ctx, e.work, queue.Message{Body: []byte("x")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Send with a cancelled context: %v, want context.Canceled", err)
	}
}

func testDeadLetter(t *testing.T, e *env) {
	ids := e.sendText(t, e.work, "poison")
	for i := 1; i <= MaxReceives; i++ {
		d := e.receiveOne(t, e.work, 0)
		if d.ID != ids[0] || d.ReceiveCount != i {
			t.Fatalf("receive %d: id %s count %d, want %s count %d", i, d.ID, d.ReceiveCount, ids[0], i)
		}
		// Give it back at once instead of waiting out the timeout.
		if err := e.q.ChangeVisibility(e.ctx, e.work, d.Receipt, 0); err != nil {
			t.Fatal(err)
		}
	}
	// The next receive would exceed MaxReceives: the message moves instead.
	e.expectNone(t, e.work, 0, "after MaxReceives receives")
	d := e.receiveOne(t, e.dead, 0)
	if d.ID != ids[0] || string(d.Body) != "poison" || d.ReceiveCount < 1 {
		t.Fatalf("dead letter: id %s body %q count %d, want %s %q", d.ID, d.Body, d.ReceiveCount, ids[0], "poison")
	}
	if got := e.depth(t, e.work); got != [3]int{} {
		t.Fatalf("work queue depth %v after the move, want [0 0 0]", got)
	}
	if err := e.q.Delete(e.ctx, e.dead, d.Receipt); err != nil {
		t.Fatal(err)
	}
}

func testDepth(t *testing.T, e *env) {
	if got := e.depth(t, e.work); got != [3]int{} {
		t.Fatalf("depth of a new queue %v", got)
	}
	e.sendText(t, e.work, "a", "b", "c")
	e.send(t, e.work, queue.Message{Body: []byte("d"), Delay: 10 * time.Minute})
	e.receiveOne(t, e.work, time.Minute)
	if got := e.depth(t, e.work); got != [3]int{2, 1, 1} {
		t.Fatalf("depth %v, want [2 1 1] (visible, in flight, delayed)", got)
	}
	if got := e.depth(t, e.dead); got != [3]int{} {
		t.Fatalf("dead-letter depth %v, want [0 0 0]", got)
	}
}

func testConcurrentConsumers(t *testing.T, e *env) {
	const n, consumers = 40, 8
	for i := 0; i < n; i += queue.MaxBatch {
		bodies := make([]string, queue.MaxBatch)
		for j := range bodies {
			bodies[j] = fmt.Sprintf("task %d", i+j)
		}
		e.sendText(t, e.work, bodies...)
	}
	var (
		mu       sync.Mutex
		seen     = map[string]int{}
		wg       sync.WaitGroup
		deadline = time.Now().Add(settle)
	)
	for c := range consumers {
		wg.Go(func() {
			for {
				mu.Lock()
				finished := len(seen) >= n
				mu.Unlock()
				if finished || time.Now().After(deadline) {
					return
				}
				// A minute's lease: any second delivery within the test
				// is two consumers holding the same message.
				ds, err := e.q.Receive(e.ctx, e.work, 1+c%3, time.Second, time.Minute)
				if err != nil {
					t.Errorf("consumer %d: %v", c, err)
					return
				}
				mu.Lock()
				for _, d := range ds {
					seen[d.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("consumers received %d distinct messages of %d", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("message %s delivered %d times while in flight", id, k)
		}
	}
}

func keys(m map[string]queue.Delivery) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
