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

// ErrInvalid is returned for a request outside the limits above.
var ErrInvalid = errors.New("queue: invalid request")

// ErrReceiptExpired is returned when a receipt no longer names an in-flight
// delivery (the message was redelivered or deleted).
var ErrReceiptExpired = errors.New("queue: receipt no longer valid")

// Config describes one queue.
type Config struct {
	Name              string
	VisibilityTimeout time.Duration // default visibility of a received message
	MaxReceives       int           // receives before a message moves to the dead-letter queue
	DeadLetter        string        // name of the dead-letter queue ("" for none); itself a configured queue
}

// Message is a message to send.
type Message struct {
	Body  []byte
	Delay time.Duration
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
	// Send enqueues up to MaxBatch messages and returns their ids.
	Send(ctx context.Context, queue string, msgs ...Message) ([]string, error)
	// Receive returns up to max (1 to MaxBatch) visible messages, waiting at
	// most wait (0 to 20 seconds) for the first one; visibility overrides the
	// queue's timeout when positive.
	Receive(ctx context.Context, queue string, max int, wait, visibility time.Duration) ([]Delivery, error)
	// Delete acknowledges a delivery.
	Delete(ctx context.Context, queue, receipt string) error
	// ChangeVisibility makes an in-flight delivery visible again after d (0:
	// at once), to retry later or to extend the time to finish it.
	ChangeVisibility(ctx context.Context, queue, receipt string, d time.Duration) error
	// Depth returns the number of visible, in-flight and delayed messages
	// (approximate on SQS).
	Depth(ctx context.Context, queue string) (visible, inFlight, delayed int, err error)
}
