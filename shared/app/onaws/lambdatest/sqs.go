package lambdatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// SQSSource is the SQS event source mapping of a function, as the stack
// configures it (batch size 1, ReportBatchItemFailures) and as AWS
// documents its behaviour:
//
//   - at most MaxConcurrency invocations at once (the mapping's maximum
//     concurrency; never more than the function's own cap);
//   - a record is deleted only when its invocation succeeded within the
//     function's timeout and did not report it in batchItemFailures. An
//     invocation that failed or timed out leaves the message alone: it
//     stays invisible for the rest of its visibility timeout, then is
//     received again with ApproximateReceiveCount incremented. Whatever a
//     timed-out in-process handler returns later changes nothing;
//   - a message received more than MaxReceives times goes to the
//     dead-letter queue instead of the function (SQS's redrive).
//
// The harness enforces these itself rather than trusting the emulator: it
// asks for Visibility on every receive and applies the redrive on the
// receive count SQS reports.
type SQSSource struct {
	Client   *awssqs.Client
	QueueURL string
	Function *Function
	// MaxConcurrency defaults to the function's concurrency.
	MaxConcurrency int
	// Visibility is the queue's visibility timeout (0: the queue's own).
	Visibility time.Duration
	// MaxReceives and DeadLetterURL are the queue's redrive policy (0:
	// none).
	MaxReceives   int
	DeadLetterURL string
	// Poll is the long poll of one receive (default 1 s, so Run stops
	// soon after its context ends).
	Poll time.Duration

	mu    sync.Mutex
	stats SourceStats
}

// SourceStats count what the mapping did.
type SourceStats struct {
	Received     int // messages received (the redriven ones included)
	Deleted      int // invocations that succeeded: their message deleted
	Failed       int // function errors and reported item failures: message left to reappear
	TimedOut     int // among Failed: the invocation timed out
	DeadLettered int // moved to the dead-letter queue by the harness
	Oversized    int // message bodies over MaxSQSMessage (a bug of the sender)
	// MaxReceiveCount is the highest ApproximateReceiveCount seen.
	MaxReceiveCount int
	// Active is the invocations running now; MaxActive the most at once.
	Active, MaxActive int
}

// Stats returns the counts so far.
func (s *SQSSource) Stats() SourceStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Idle reports whether no invocation of the mapping is running.
func (s *SQSSource) Idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats.Active == 0
}

// Run polls until ctx ends, then waits for the invocations in flight
// (Lambda does not stop them) and returns.
func (s *SQSSource) Run(ctx context.Context) error {
	n := s.MaxConcurrency
	if n <= 0 {
		n = s.Function.Config().Concurrency
	}
	n = min(n, s.Function.Config().Concurrency)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.poll(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// poll is one of the mapping's pollers: one message, one invocation, at a
// time, so n pollers never run more than n invocations.
func (s *SQSSource) poll(ctx context.Context) error {
	wait := s.Poll
	if wait <= 0 {
		wait = time.Second
	}
	for ctx.Err() == nil {
		in := &awssqs.ReceiveMessageInput{
			QueueUrl: aws.String(s.QueueURL), MaxNumberOfMessages: 1, WaitTimeSeconds: int32(wait.Seconds()),
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		}
		if s.Visibility > 0 {
			in.VisibilityTimeout = int32((s.Visibility + time.Second - 1) / time.Second)
		}
		out, err := s.Client.ReceiveMessage(ctx, in)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("lambdatest: receive from %s: %w", s.QueueURL, err)
		}
		for _, m := range out.Messages {
			if err := s.handle(ctx, m); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *SQSSource) handle(ctx context.Context, m sqstypes.Message) error {
	count, _ := strconv.Atoi(m.Attributes[string(sqstypes.MessageSystemAttributeNameApproximateReceiveCount)])
	body := aws.ToString(m.Body)
	s.mu.Lock()
	s.stats.Received++
	s.stats.MaxReceiveCount = max(s.stats.MaxReceiveCount, count)
	if len(body) > MaxSQSMessage {
		s.stats.Oversized++
	}
	s.mu.Unlock()
	// The deletes and the redrive must happen even when Run's context
	// has just ended: the invocation did run.
	bg := context.WithoutCancel(ctx)
	if s.MaxReceives > 0 && count > s.MaxReceives {
		if s.DeadLetterURL != "" {
			if _, err := s.Client.SendMessage(bg, &awssqs.SendMessageInput{QueueUrl: aws.String(s.DeadLetterURL), MessageBody: m.Body}); err != nil {
				return fmt.Errorf("lambdatest: redrive to %s: %w", s.DeadLetterURL, err)
			}
		}
		s.Client.DeleteMessage(bg, &awssqs.DeleteMessageInput{QueueUrl: aws.String(s.QueueURL), ReceiptHandle: m.ReceiptHandle})
		s.mu.Lock()
		s.stats.DeadLettered++
		s.mu.Unlock()
		return nil
	}
	payload, err := json.Marshal(SQSEvent(m, s.QueueURL))
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.stats.Active++
	s.stats.MaxActive = max(s.stats.MaxActive, s.stats.Active)
	s.mu.Unlock()
	res, err := s.Function.InvokeWhenFree(bg, payload)
	s.mu.Lock()
	s.stats.Active--
	s.mu.Unlock()
	ok := err == nil && res.Err == nil
	if ok {
		var resp events.SQSEventResponse
		if len(res.Payload) > 0 && string(res.Payload) != "null" {
			if json.Unmarshal(res.Payload, &resp) != nil {
				ok = false // an unreadable answer fails the whole batch
			}
		}
		for _, f := range resp.BatchItemFailures {
			if f.ItemIdentifier == aws.ToString(m.MessageId) {
				ok = false
			}
		}
	}
	if !ok {
		s.mu.Lock()
		s.stats.Failed++
		if res.Err != nil && res.Err.Type == ErrorTimeout {
			s.stats.TimedOut++
		}
		s.mu.Unlock()
		return nil
	}
	if _, err := s.Client.DeleteMessage(bg, &awssqs.DeleteMessageInput{QueueUrl: aws.String(s.QueueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
		return fmt.Errorf("lambdatest: delete from %s: %w", s.QueueURL, err)
	}
	s.mu.Lock()
	s.stats.Deleted++
	s.mu.Unlock()
	return nil
}

// SQSEvent is the event the SQS event source gives a function for one
// message of the queue at queueURL.
func SQSEvent(m sqstypes.Message, queueURL string) events.SQSEvent {
	attrs := map[string]string{}
	for k, v := range m.Attributes {
		attrs[k] = v
	}
	return events.SQSEvent{Records: []events.SQSMessage{{
		MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
		Body: aws.ToString(m.Body), Md5OfBody: aws.ToString(m.MD5OfBody), Attributes: attrs,
		EventSource: "aws:sqs", EventSourceARN: "arn:aws:sqs:eu-west-3:000000000000:" + queueName(queueURL), AWSRegion: "eu-west-3",
	}}}
}

func queueName(u string) string {
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == '/' {
			return u[i+1:]
		}
	}
	return u
}
