package lambdatest

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The platform's documented limits the harness enforces. The payload caps
// are never scaled down: a test sees the very bytes Lambda would refuse.
// Only time budgets (function timeouts, the gateway's integration timeout,
// visibility timeouts) are configurable, so tests can run them short.
const (
	// MaxSyncPayload caps a synchronous invocation's request and its
	// response: "Invocation payload (request and response): 6 MB each for
	// request and response (synchronous)" (Lambda quotas,
	// docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html;
	// Invoke API: "For synchronous invocations, the maximum payload size is
	// 6 MB"). The runtime interface's own check is 6,291,556 bytes; the
	// harness counts the documented 6 MB as 6 MiB, 100 bytes stricter, so
	// nothing passes here that could fail there.
	MaxSyncPayload = 6 << 20
	// MaxAsyncPayload caps an asynchronous invocation's event (Invoke API:
	// "For asynchronous invocations, the maximum payload size is 1 MB";
	// 256 KB before 2025, which InvokeAsync still documents).
	MaxAsyncPayload = 1 << 20
	// MaxSQSMessage caps an SQS message body: the queue attribute
	// MaximumMessageSize defaults to 262,144 bytes (256 KiB), the size the
	// stack's queues keep and the service's queue port enforces
	// (queue.MaxBodyBytes). Raising a queue to 1 MiB is opt-in.
	MaxSQSMessage = 256 << 10
	// MaxFunctionTimeout is Lambda's longest function timeout ("Function
	// timeout: 900 seconds (15 minutes)").
	MaxFunctionTimeout = 900 * time.Second
	// IntegrationTimeout is the HTTP API's maximum integration timeout:
	// "Maximum integration timeout: 30 seconds", not raisable (HTTP API
	// quotas, docs.aws.amazon.com/apigateway/latest/developerguide/
	// http-api-quotas.html). Only REST APIs can raise theirs.
	IntegrationTimeout = 30 * time.Second
	// MaxHTTPAPIPayload is the HTTP API's request payload cap ("Payload
	// size: 10 MB"); Lambda's 6 MB applies first to what reaches the
	// function.
	MaxHTTPAPIPayload = 10 << 20
	// AccountConcurrency is the default quota of concurrent executions
	// per Region ("Concurrent executions: 1,000"): a function without
	// reserved concurrency never runs more at once.
	AccountConcurrency = 1000
)

// Invocation-level errors: Lambda refuses the invocation before any code
// runs (the Invoke API's exceptions), so nothing is retried by the
// harness and nothing of the function runs.
var (
	// ErrRequestTooLarge: the event exceeds the payload cap
	// (RequestTooLargeException, HTTP 413).
	ErrRequestTooLarge = errors.New("lambdatest: RequestTooLargeException: request payload exceeds the invocation's cap")
	// ErrThrottled: every environment the function may run is busy
	// (TooManyRequestsException, HTTP 429, reason
	// ReservedFunctionConcurrentInvocationLimitExceeded).
	ErrThrottled = errors.New("lambdatest: TooManyRequestsException: Rate Exceeded (concurrency cap reached)")
)

// Function error types, as Lambda reports them in the error payload of an
// invocation whose X-Amz-Function-Error header is set.
const (
	// ErrorTimeout: the invocation ran past the function's timeout; the
	// execution environment was stopped and is not reused.
	ErrorTimeout = "Sandbox.Timedout"
	// ErrorResponseTooLarge: the function answered more than
	// MaxSyncPayload; the caller gets this error, never the answer.
	ErrorResponseTooLarge = "Function.ResponseSizeTooLarge"
	// ErrorExit: the runtime crashed or exited (a panic in a Go handler).
	ErrorExit = "Runtime.ExitError"
)

// FunctionError is a failed invocation as its caller sees it: Lambda's
// error payload {"errorType","errorMessage"}.
type FunctionError struct {
	Type    string `json:"errorType"`
	Message string `json:"errorMessage"`
	// size is the refused answer's size (Function.ResponseSizeTooLarge).
	size int
}

func (e *FunctionError) Error() string { return e.Type + ": " + e.Message }

// payload is the error document Lambda returns to the caller.
func (e *FunctionError) payload() []byte {
	b, _ := json.Marshal(e)
	return b
}

func timeoutError(d time.Duration) *FunctionError {
	return &FunctionError{Type: ErrorTimeout, Message: fmt.Sprintf("Task timed out after %.2f seconds", d.Seconds())}
}

func tooLargeError(n int) *FunctionError {
	return &FunctionError{Type: ErrorResponseTooLarge, size: n,
		Message: fmt.Sprintf("Response payload size (%d bytes) exceeded maximum allowed payload size (%d bytes).", n, MaxSyncPayload)}
}
