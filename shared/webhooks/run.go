package webhooks

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/store"

	"github.com/prospectdata/svc/shared/upstream"
)

// Senders is how many deliveries a process posts at once.
const Senders = 8

// Run is the local runtime's webhook worker until ctx ends: the fan-out of
// the events table's change feed, and Senders consumers of the deliveries
// queue. On AWS the webhook-sender Lambda does both, fed by the table's
// stream and the queue.
func (s *Service) Run(ctx context.Context, feed store.Feed) {
	var wg sync.WaitGroup
	wg.Go(func() { s.follow(ctx, feed) })
	for range Senders {
		wg.Go(func() {
			for ctx.Err() == nil {
				if _, err := s.Drain(ctx, 20*time.Second); err != nil && ctx.Err() == nil {
					s.d.Log.Error("webhooks: deliveries", "err", err)
					_ = upstream.Sleep(ctx, time.Second)
				}
			}
		})
	}
	wg.Wait()
}

// follow fans out the events table's changes: it reads a batch, fans each
// out, then trims the feed up to it. A fan-out that fails is retried (the
// batch is read again); a process that dies before the trim reads the
// batch again at start, and the fan-out's records make that harmless.
func (s *Service) follow(ctx context.Context, feed store.Feed) {
	failures := 0
	for ctx.Err() == nil {
		changes, err := feed.Changes(ctx, events.Table, "", 100, 20*time.Second)
		if err == nil {
			err = s.fanOutAll(ctx, feed, changes)
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			s.d.Log.Error("webhooks: fan-out", "err", err)
			_ = upstream.Sleep(ctx, min(time.Duration(failures)*time.Second, 30*time.Second))
			continue
		}
		failures = 0
	}
}

func (s *Service) fanOutAll(ctx context.Context, feed store.Feed, changes []store.Change) error {
	for _, c := range changes {
		if c.New == nil {
			continue
		}
		if err := s.FanOutChange(ctx, c.New); err != nil {
			return err
		}
	}
	if len(changes) == 0 {
		return nil
	}
	return feed.Trim(ctx, events.Table, changes[len(changes)-1].Seq)
}

// Drain receives deliveries (waiting at most wait for the first) and
// handles them until the queue has none visible; it returns how many it
// handled. A failed handling is left to come back after the queue's
// visibility timeout.
func (s *Service) Drain(ctx context.Context, wait time.Duration) (int, error) {
	n := 0
	for {
		ds, err := s.d.Queue.Receive(ctx, QueueName, 1, wait, s.d.Visibility)
		if err != nil {
			return n, err
		}
		if len(ds) == 0 {
			return n, nil
		}
		wait = 0
		for _, d := range ds {
			n++
			if err := s.Handle(ctx, d.Body); err != nil {
				s.d.Log.Warn("webhooks: delivery failed, will be retried", "err", err, "receives", d.ReceiveCount)
				continue
			}
			if err := s.d.Queue.Delete(ctx, QueueName, d.Receipt); err != nil && !errors.Is(err, queue.ErrReceiptExpired) {
				return n, err
			}
		}
	}
}
