package lambdatest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/prospectdata/svc/shared/app/onaws/lambdatest"
)

// sized answers exactly n bytes (a JSON string of n-2 characters).
func sized(n int) []byte { return []byte(`"` + strings.Repeat("x", n-2) + `"`) }

// TestResponseCap: an answer over 6 MB fails the invocation with
// Function.ResponseSizeTooLarge; the caller never gets it.
func TestResponseCap(t *testing.T) {
	if lambdatest.MaxSyncPayload != 6*1024*1024 {
		t.Fatalf("the cap is %d, not Lambda's 6 MB", lambdatest.MaxSyncPayload)
	}
	for _, tc := range []struct {
		name string
		size int
		ok   bool
	}{
		{"1 KB", 1 << 10, true},
		{"at the cap", lambdatest.MaxSyncPayload, true},
		{"one byte over", lambdatest.MaxSyncPayload + 1, false},
		{"7 MB", 7 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := lambdatest.New(lambdatest.Config{Name: "big", Timeout: 5 * time.Second}, lambdatest.Static(
				func(context.Context, []byte) ([]byte, error) { return sized(tc.size), nil }))
			defer f.Close()
			res, err := f.Invoke(context.Background(), []byte(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.ok != (res.Err == nil) {
				t.Fatalf("size %d: error %v", tc.size, res.Err)
			}
			if !tc.ok && (res.Err.Type != lambdatest.ErrorResponseTooLarge || len(res.Payload) > 1024) {
				t.Fatalf("size %d: %v, %d bytes to the caller", tc.size, res.Err, len(res.Payload))
			}
			if st := f.Stats(); st.MaxResponse != tc.size || (st.TooLarge == 1) == tc.ok {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestRequestCap: an event over the cap never reaches the function.
func TestRequestCap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cap, len int
		ok       bool
	}{
		{"sync at 6 MB", 0, lambdatest.MaxSyncPayload, true},
		{"sync over 6 MB", 0, lambdatest.MaxSyncPayload + 1, false},
		{"SQS message cap", lambdatest.MaxSQSMessage, lambdatest.MaxSQSMessage + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int32
			f := lambdatest.New(lambdatest.Config{Name: "in", Timeout: 5 * time.Second, MaxRequest: tc.cap}, lambdatest.Static(
				func(context.Context, []byte) ([]byte, error) { ran.Add(1); return []byte(`{}`), nil }))
			defer f.Close()
			_, err := f.Invoke(context.Background(), sized(tc.len))
			if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, lambdatest.ErrRequestTooLarge)) {
				t.Fatalf("%d bytes: %v", tc.len, err)
			}
			if tc.ok != (ran.Load() == 1) {
				t.Errorf("function ran %d times", ran.Load())
			}
		})
	}
}

// TestTimeout: an in-process handler past its timeout is cut (its
// context ends at the deadline), its late answer is discarded as a
// timeout, and its environment is not reused.
func TestTimeout(t *testing.T) {
	cancelled := make(chan bool, 1)
	f := lambdatest.New(lambdatest.Config{Name: "slow", Timeout: 200 * time.Millisecond}, lambdatest.Static(
		func(ctx context.Context, p []byte) ([]byte, error) {
			if string(p) == `"fast"` {
				return []byte(`"done"`), nil
			}
			<-ctx.Done()
			cancelled <- errors.Is(ctx.Err(), context.DeadlineExceeded)
			time.Sleep(100 * time.Millisecond) // answers late, as if it had finished
			return []byte(`"done late"`), nil
		}))
	res, err := f.Invoke(context.Background(), []byte(`"slow"`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Type != lambdatest.ErrorTimeout || !strings.Contains(res.Err.Message, "0.20 seconds") {
		t.Fatalf("slow: %+v", res)
	}
	if !<-cancelled {
		t.Error("the handler's context did not end at its deadline")
	}
	if res, _ := f.Invoke(context.Background(), []byte(`"fast"`)); res.Err != nil || string(res.Payload) != `"done"` {
		t.Fatalf("fast after a timeout: %+v", res)
	}
	f.Close()
	if st := f.Stats(); st.Timeouts != 1 || st.Invocations != 2 || st.ColdStarts != 2 {
		t.Errorf("stats %+v: want one timeout and a cold start after it", st)
	}
}

// TestConcurrencyCap: a synchronous invocation beyond the cap is
// throttled; invocations that wait for a slot never exceed it.
func TestConcurrencyCap(t *testing.T) {
	const limit = 3
	release := make(chan struct{})
	var running, most atomic.Int32
	h := func(ctx context.Context, _ []byte) ([]byte, error) {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		defer running.Add(-1)
		select {
		case <-release:
		case <-time.After(20 * time.Millisecond):
		}
		return []byte(`{}`), nil
	}
	f := lambdatest.New(lambdatest.Config{Name: "capped", Timeout: 10 * time.Second, Concurrency: limit}, lambdatest.Static(h))
	defer f.Close()

	// Hold every slot, then invoke synchronously: throttled.
	hold := lambdatest.New(lambdatest.Config{Name: "held", Timeout: 10 * time.Second, Concurrency: limit}, lambdatest.Static(
		func(context.Context, []byte) ([]byte, error) { <-release; return nil, nil }))
	var wg sync.WaitGroup
	for range limit {
		wg.Add(1)
		go func() { defer wg.Done(); hold.InvokeWhenFree(context.Background(), nil) }()
	}
	for hold.Stats().MaxConcurrent < limit {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := hold.Invoke(context.Background(), nil); !errors.Is(err, lambdatest.ErrThrottled) {
		t.Fatalf("invocation beyond the cap: %v", err)
	}
	close(release)
	wg.Wait()
	hold.Close()

	// Many waiting invocations: never more than the cap at once.
	for range 40 {
		wg.Add(1)
		go func() { defer wg.Done(); f.InvokeWhenFree(context.Background(), nil) }()
	}
	wg.Wait()
	if most.Load() > limit || f.Stats().MaxConcurrent > limit || f.Stats().Invocations != 40 {
		t.Fatalf("ran %d at once (cap %d), stats %+v", most.Load(), limit, f.Stats())
	}
}

// TestGateway: the HTTP API's 30 s integration timeout (scaled down here)
// answers 503 to a slow function; a function error, a throttle or an
// answer over 6 MB answers 500; a proper answer passes through.
func TestGateway(t *testing.T) {
	if g := lambdatest.NewGateway(); g.IntegrationTimeout != 30*time.Second || lambdatest.IntegrationTimeout != 30*time.Second {
		t.Fatalf("default integration timeout %v, the HTTP API's is 30 s", g.IntegrationTimeout)
	}
	answer := func(status int, body string) []byte {
		b, _ := json.Marshal(events.APIGatewayV2HTTPResponse{StatusCode: status, Body: body})
		return b
	}
	fn := func(ctx context.Context, p []byte) ([]byte, error) {
		var ev events.APIGatewayV2HTTPRequest
		json.Unmarshal(p, &ev)
		switch ev.RawPath {
		case "/slow":
			time.Sleep(500 * time.Millisecond)
			return answer(200, "late"), nil
		case "/fail":
			return nil, errors.New("boom")
		case "/big":
			return answer(200, strings.Repeat("x", 7<<20)), nil
		case "/bad":
			return []byte(`"not a response"`), nil
		}
		return answer(404, `{"detail":"not found"}`), nil
	}
	for _, tc := range []struct {
		path   string
		status int
	}{{"/slow", 503}, {"/fail", 500}, {"/big", 500}, {"/bad", 500}, {"/missing", 404}} {
		t.Run(tc.path, func(t *testing.T) {
			// Only /slow meets the (scaled-down) integration timeout;
			// the others have the time a loaded machine may need to
			// build and check 7 MB.
			g := &lambdatest.Gateway{IntegrationTimeout: 10 * time.Second}
			if tc.path == "/slow" {
				g.IntegrationTimeout = 100 * time.Millisecond
			}
			f := lambdatest.New(lambdatest.Config{Name: "api", Timeout: 2 * time.Second}, lambdatest.Static(fn))
			defer f.Close()
			defer g.Wait() // before Close: /slow runs on after its 503
			res := g.Serve(context.Background(), f, lambdatest.HTTPEvent("GET", tc.path, "", nil, nil, ""))
			if res.StatusCode != tc.status {
				t.Fatalf("%s: %d %.100s", tc.path, res.StatusCode, res.Body)
			}
			if st := g.Stats(); (len(st.Violations) > 0) != (tc.status >= 500) {
				t.Errorf("violations %v", st.Violations)
			}
		})
	}
	t.Run("throttle", func(t *testing.T) {
		release := make(chan struct{})
		f := lambdatest.New(lambdatest.Config{Name: "api", Timeout: 2 * time.Second, Concurrency: 1}, lambdatest.Static(
			func(context.Context, []byte) ([]byte, error) { <-release; return answer(200, "ok"), nil }))
		defer f.Close()
		g := lambdatest.NewGateway()
		done := make(chan int)
		go func() {
			done <- g.Serve(context.Background(), f, lambdatest.HTTPEvent("GET", "/", "", nil, nil, "")).StatusCode
		}()
		for f.Stats().MaxConcurrent < 1 {
			time.Sleep(5 * time.Millisecond)
		}
		if s := g.Serve(context.Background(), f, lambdatest.HTTPEvent("GET", "/", "", nil, nil, "")).StatusCode; s != 500 {
			t.Errorf("throttled: %d", s)
		}
		close(release)
		if s := <-done; s != 200 {
			t.Errorf("first: %d", s)
		}
	})
}

// buildFn compiles testdata/fn as a Lambda bootstrap.
func buildFn(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-o", bin, "./testdata/fn")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestProcess runs a real bootstrap under the Runtime API stand-in: the
// deadline it reads is the configured timeout, an answer over 6 MB is
// refused, and a process past its deadline is killed and replaced.
func TestProcess(t *testing.T) {
	bin := buildFn(t)
	const timeout = 3 * time.Second
	f := lambdatest.New(lambdatest.Config{Name: "fn", Timeout: timeout, Concurrency: 1},
		lambdatest.Process(bin, func(rt string) []string {
			return append(os.Environ(), "AWS_LAMBDA_RUNTIME_API="+rt, "AWS_LAMBDA_FUNCTION_NAME=fn")
		}, nil))
	defer f.Close()
	type answer struct {
		PID         int   `json:"pid"`
		RemainingMS int64 `json:"remaining_ms"`
	}
	invoke := func(ev string) (answer, lambdatest.InvokeResult) {
		t.Helper()
		res, err := f.InvokeWhenFree(context.Background(), []byte(ev))
		if err != nil {
			t.Fatal(err)
		}
		var a answer
		if res.Err == nil {
			json.Unmarshal(res.Payload, &a)
		}
		return a, res
	}
	first, res := invoke(`{}`)
	if res.Err != nil || first.PID == 0 {
		t.Fatalf("first: %+v", res)
	}
	// The deadline the runtime client read: the configured timeout, not a
	// fixed 15 s.
	if first.RemainingMS > timeout.Milliseconds() || first.RemainingMS < timeout.Milliseconds()-1000 {
		t.Errorf("time left at the start: %d ms, want about %v", first.RemainingMS, timeout)
	}
	if _, res := invoke(`{"size":7340032}`); res.Err == nil || res.Err.Type != lambdatest.ErrorResponseTooLarge {
		t.Errorf("7 MB answer: %+v", res.Err)
	}
	// The Go runtime client exits when its answer is refused: the next
	// invocation gets a new environment, not an error.
	second, res := invoke(`{}`)
	if res.Err != nil || second.PID == first.PID || second.PID == 0 {
		t.Errorf("after a refused answer: pid %d then %d (%v), want a new process", first.PID, second.PID, res.Err)
	}
	if _, res := invoke(`{"sleep_ms":5000}`); res.Err == nil || res.Err.Type != lambdatest.ErrorTimeout {
		t.Fatalf("sleep past the deadline: %+v", res)
	}
	if err := exec.Command("kill", "-0", fmt.Sprint(second.PID)).Run(); err == nil {
		t.Errorf("process %d still alive after its timeout", second.PID)
	}
	if next, res := invoke(`{}`); res.Err != nil || next.PID == second.PID || next.PID == 0 {
		t.Errorf("after a timeout: pid %d then %d (%v), want a new process", second.PID, next.PID, res.Err)
	}
	if _, res := invoke(`{"fail":"refused"}`); res.Err == nil || res.Err.Message != "refused" {
		t.Errorf("returned error: %+v", res.Err)
	}
	if _, res := invoke(`{"exit":true}`); res.Err == nil || res.Err.Type != lambdatest.ErrorExit {
		t.Errorf("exit: %+v", res.Err)
	}
	if _, res := invoke(`{}`); res.Err != nil {
		t.Errorf("after an exit: %v", res.Err)
	}
	if st := f.Stats(); st.ColdStarts != 4 || st.Timeouts != 1 || st.TooLarge != 1 || st.MaxResponse < 7<<20 {
		t.Errorf("stats %+v", st)
	}
}

// sqsClient returns a client of the SQS emulator, or skips.
func sqsClient(t *testing.T) *awssqs.Client {
	t.Helper()
	ep := os.Getenv("SVC_TEST_SQS_ENDPOINT")
	if ep == "" {
		if os.Getenv("SVC_TEST_REQUIRE_EMULATORS") == "1" {
			t.Fatal("SVC_TEST_SQS_ENDPOINT unset: the emulators are not running")
		}
		t.Skip("no SQS emulator: make emulators-up, then load .tools/emulators/env")
	}
	return awssqs.New(awssqs.Options{Region: "eu-west-3", BaseEndpoint: aws.String(ep),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
}

// TestSQSSource: a handler that sleeps past its timeout is cut; its
// message is not deleted (even though the handler later answers
// success), reappears only after the visibility timeout with receive
// count 2, and after MaxReceives goes to the dead-letter queue. A
// handler that succeeds has its message deleted once.
func TestSQSSource(t *testing.T) {
	client := sqsClient(t)
	ctx := context.Background()
	run := fmt.Sprintf("lt%d", time.Now().UnixNano())
	mk := func(name string) string {
		// No redrive policy on the emulator's side: the harness applies
		// SQS's.
		out, err := client.CreateQueue(ctx, &awssqs.CreateQueueInput{QueueName: aws.String(run + "-" + name)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.DeleteQueue(ctx, &awssqs.DeleteQueueInput{QueueUrl: out.QueueUrl}) })
		return aws.ToString(out.QueueUrl)
	}
	work, dlq := mk("work"), mk("dlq")
	const (
		timeout    = time.Second
		visibility = 3 * time.Second
	)
	type delivery struct {
		body  string
		count string
		at    time.Time
	}
	var mu sync.Mutex
	var seen []delivery
	f := lambdatest.New(lambdatest.Config{Name: "worker", Timeout: timeout, Concurrency: 2}, lambdatest.Static(lambdatest.Typed(
		func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			r := ev.Records[0]
			mu.Lock()
			seen = append(seen, delivery{r.Body, r.Attributes["ApproximateReceiveCount"], time.Now()})
			mu.Unlock()
			if r.Body == "stuck" {
				time.Sleep(timeout + 500*time.Millisecond) // ignores its context, then claims success
			}
			return events.SQSEventResponse{}, nil
		})))
	src := &lambdatest.SQSSource{Client: client, QueueURL: work, Function: f, MaxConcurrency: 2,
		Visibility: visibility, MaxReceives: 2, DeadLetterURL: dlq}
	for _, b := range []string{"stuck", "fine"} {
		if _, err := client.SendMessage(ctx, &awssqs.SendMessageInput{QueueUrl: aws.String(work), MessageBody: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- src.Run(rctx) }()
	deadline := time.Now().Add(60 * time.Second)
	for src.Stats().DeadLettered == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.Close()

	mu.Lock()
	defer mu.Unlock()
	var stuck []delivery
	fine := 0
	for _, d := range seen {
		if d.body == "stuck" {
			stuck = append(stuck, d)
		} else {
			fine++
		}
	}
	if fine != 1 {
		t.Errorf("the message that succeeded was delivered %d times", fine)
	}
	if len(stuck) != 2 || stuck[0].count != "1" || stuck[1].count != "2" {
		t.Fatalf("deliveries of the stuck message: %+v", stuck)
	}
	if gap := stuck[1].at.Sub(stuck[0].at); gap < visibility-200*time.Millisecond {
		t.Errorf("redelivered after %v, before the visibility timeout %v", gap, visibility)
	}
	st := src.Stats()
	if st.TimedOut != 2 || st.Deleted != 1 || st.DeadLettered != 1 || st.MaxActive > 2 {
		t.Errorf("source stats %+v", st)
	}
	out, err := client.ReceiveMessage(ctx, &awssqs.ReceiveMessageInput{QueueUrl: aws.String(dlq), WaitTimeSeconds: 1})
	if err != nil || len(out.Messages) != 1 || aws.ToString(out.Messages[0].Body) != "stuck" {
		t.Fatalf("dead-letter queue: %v %+v", err, out)
	}
}
