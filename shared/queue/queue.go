// Package queue is the work queue port: job tasks (tile batches, item
// batches), webhook deliveries. Locally a durable queue on bbolt
// (queue/bolt) that survives a restart; on AWS SQS queues with dead-letter
// queues (queue/sqs). Both have SQS's semantics, checked by the contract
// suite in queue/queuetest:
//
//   - at-least-once delivery: a received message stays invisible for its
//     visibility timeout; deleted with its receipt it is gone, otherwise it
//     becomes visible again and is delivered again;
//   - a message may be delayed (0 to 15 minutes) before its first delivery;
//   - each delivery increments the message's receive count; a message
//     received more than the queue's MaxReceives times without being deleted
//     moves to the queue's dead-letter queue instead of being delivered;
//   - no ordering guarantee.
//
// Consumers must be idempotent: a task delivered twice writes the same
// result.
//
// Rules both drivers enforce alike, so that code tested locally behaves the
// same on AWS:
//
//   - a body is text: 1 to MaxBodyBytes bytes of valid UTF-8 made only of
//     the characters SQS accepts (XML 1.0's: U+0009, U+000A, U+000D,
//     U+0020 to U+D7FF, U+E000 to U+FFFD, U+10000 to U+10FFFF); Send returns
//     ErrInvalid for anything else and sends none of the batch. Binary
//     payloads are encoded by the caller (JSON, base64): SQS bodies are
//     strings, and a driver that encoded them itself would make the queue
//     unreadable to anything else consuming it;
//   - delays and visibility timeouts are whole seconds on SQS: both drivers
//     round a fraction of a second up (a message hidden too long is only
//     retried later; one released too early is delivered twice);
//   - a receipt names one delivery. With a stale receipt (the message has
//     since been delivered again, or deleted) Delete and ChangeVisibility
//     return nil or ErrReceiptExpired and never another error. bolt always
//     returns ErrReceiptExpired and leaves the message alone; SQS accepts a
//     stale Delete and may or may not delete the message. A receipt whose
//     visibility timeout has lapsed, the message not yet delivered again,
//     still works on bolt and may be refused by SQS. A consumer therefore
//     treats ErrReceiptExpired as "this task may be done again", never as a
//     failure of its own work, and never relies on a stale receipt working;
//   - a message moved to the dead-letter queue keeps its id and body and is
//     visible there at once.
//
// docs/queues.md describes the drivers and what the SQS emulator used by the
// tests does not reproduce.
package queue

import (
	"context"
	"errors"
	"time"
)

// Limits shared with SQS.
const (
	MaxBatch      = 10               // messages per Send or Receive call
	MaxDelay      = 15 * time.Minute // longest delay of a message
	MaxBodyBytes  = 256 * 1024       // largest message body
	MaxVisibility = 12 * time.Hour   // longest visibility timeout
)

// ErrUnknownQueue is returned for a queue name the driver was not opened with.
var ErrUnknownQueue = errors.New("queue: unknown queue")

// ErrInvalid is returned for a request outside the limits above, or a body
// that is not SQS text (see the package comment).
var ErrInvalid = errors.New("queue: invalid request")

// ErrReceiptExpired is returned when a receipt no longer names an in-flight
// delivery (the message was redelivered or deleted). SQS may instead accept
// such a receipt silently; see the package comment.
var ErrReceiptExpired = errors.New("queue: receipt no longer valid")

// Config describes one queue.
type Config struct {
	Name              string
	VisibilityTimeout time.Duration // default visibility of a received message: whole seconds up to MaxVisibility, 0 for SQS's default of 30 s
	MaxReceives       int           // receives before a message moves to the dead-letter queue (1 to 1000, SQS's range); unused without DeadLetter
	DeadLetter        string        // name of the dead-letter queue ("" for none); itself a configured queue
}

// Message is a message to send.
type Message struct {
	Body  []byte        // text, see the package comment
	Delay time.Duration // 0 to MaxDelay before the first delivery
}

// Delivery is a received message.
type Delivery struct {
	ID           string // stable message id
	Body         []byte
	Receipt      string // handle for Delete and ChangeVisibility of this delivery
	ReceiveCount int    // 1 on the first delivery
	SentAt       time.Time
}

// Queue is the queue port.
type Queue interface {
	// Send enqueues 1 to MaxBatch messages and returns their ids, in the
	// order of msgs. On an error other than ErrInvalid some of the messages
	// may have been enqueued (SQS sends a large batch in several requests):
	// sending the batch again may duplicate them, which idempotent consumers
	// absorb.
	Send(ctx context.Context, queue string, msgs ...Message) ([]string, error)
	// Receive returns up to max (1 to MaxBatch) visible messages, waiting at
	// most wait (0 to 20 seconds) for the first one; visibility overrides the
	// queue's timeout when positive.
	Receive(ctx context.Context, queue string, max int, wait, visibility time.Duration) ([]Delivery, error)
	// Delete acknowledges a delivery. Deleting an already deleted message
	// returns nil or ErrReceiptExpired.
	Delete(ctx context.Context, queue, receipt string) error
	// ChangeVisibility makes an in-flight delivery visible again after d (0:
	// at once), to retry later or to extend the time to finish it; d is 0 to
	// MaxVisibility and counts from the call, not from the receive.
	ChangeVisibility(ctx context.Context, queue, receipt string, d time.Duration) error
	// Depth returns the number of visible, in-flight and delayed messages
	// (approximate on SQS).
	Depth(ctx context.Context, queue string) (visible, inFlight, delayed int, err error)
}
